# Call 1 (2026-12-03 fifth session): ELLR predicated trips (A), A + a first trip that does not wait
# for the row length (B, the tree), HEAD's ELLR (old); sell-w's deferred list (D) against HEAD's sell.
mkdir -p "$W/runs" "$W/bin"
V=.device-data/var
OUT=$W TARGETS="distspmv local_kernels_formats_test" bash jobs/ab_gpu.sh /dev/null
cp build-gpu/apps/distspmv "$W/bin/B"
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/ellr*"
rebuild() {  # name targets...
  local name=$1; shift
  echo "rebuild $name $(date +%T)" >>"$P"
  cmake --build build-gpu -j 16 --target "$@" >"$W/build_$name.log" 2>&1
  echo "  rc $?" >>"$P"
  cp build-gpu/apps/distspmv "$W/bin/$name"
}
cp $V/ellr_A.cu local_kernels/ellr/ellr_cuda.cu
rebuild A distspmv local_kernels_formats_test
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/ellr*"
cp $V/ellr_old.cu local_kernels/ellr/ellr_cuda.cu
rebuild old distspmv
cp $V/ellr_B.cu local_kernels/ellr/ellr_cuda.cu
cp $V/sell_D.cu local_kernels/sell/sell_cuda.cu
rebuild D distspmv local_kernels_formats_test
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/sell_w*"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name binary args...
  local name=$1 bin=$2; shift 2
  echo "$name $(date +%T)" >>"$P"
  echo "command: $bin $* --check (ranks 1)" >"$W/runs/$name.log"
  timeout 60 mpirun --allow-run-as-root -np 1 "$W/bin/$bin" "$@" --check --json "$W/runs/$name.json" >>"$W/runs/$name.log" 2>&1 </dev/null
  echo "  rc $?" >>"$P"
  grep -E "^    [0-9]+ |vs cuSPARSE|cuSPARSE in a CUDA graph" "$W/runs/$name.log" | cut -c1-220 >>"$P"
  tar -czf "$W/runs.tgz" -C "$W" runs
}
M=.device-data/matrices
for r in 1 2; do
  for b in old A B; do one cage11_${b}_$r $b $M/cage11.mtx.gz --vs-cusparse; done
done
for r in 1 2; do
  for b in B D; do one lognbench_${b}_$r $b gen:lognormal:4000000:2.5:0.8:2000 --vs-cusparse; done
done
for b in B D; do one logn015_$b $b gen:lognormal:4000000:2.5:0.15:1000 --vs-cusparse; done
for b in B D; do one logn5m_$b $b gen:lognormal:5000000:2.2:0.9:2500 --seed 7 --vs-cusparse; done
for b in old B; do for m in lund_a bcsstk01 bcsstk16 wing ex14; do one ${m}_$b $b $M/$m.mtx.gz --vs-cusparse; done; done
