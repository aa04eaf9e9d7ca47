# Call 6 (2026-12-03 fifth session): sell-w with the block's perm staged in shared memory beside x
# (the tree, P) against 4351aad's sell_cuda.cu (cur), alternately.
mkdir -p "$W/runs" "$W/bin"
V=.device-data/var
OUT=$W TARGETS="distspmv local_kernels_formats_test" bash jobs/ab_gpu.sh /dev/null
cp build-gpu/apps/distspmv "$W/bin/P"
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/sell*"
cp local_kernels/sell/sell_cuda.cu $V/sell_P.cu
cp $V/sell_cur.cu local_kernels/sell/sell_cuda.cu
echo "rebuild cur $(date +%T)" >>"$P"
cmake --build build-gpu -j 16 --target distspmv >"$W/build_cur.log" 2>&1; echo "  rc $?" >>"$P"
cp build-gpu/apps/distspmv "$W/bin/cur"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name binary args...
  local name=$1 bin=$2; shift 2
  echo "command: $bin $* --check (ranks 1)" >"$W/runs/$name.log"
  timeout 60 mpirun --allow-run-as-root -np 1 "$W/bin/$bin" "$@" --check --json "$W/runs/$name.json" >>"$W/runs/$name.log" 2>&1 </dev/null
  echo "$name rc $? $(grep -E '^    0 ' "$W/runs/$name.log" | awk '{print $9, $11}') | $(grep -E 'vs cuSPARSE' "$W/runs/$name.log" | cut -c1-120)" >>"$P"
  tar -czf "$W/runs.tgz" -C "$W" runs
}
for r in 1 2; do
  for b in P cur; do one lognbench_${b}_$r $b gen:lognormal:4000000:2.5:0.8:2000 --vs-cusparse; done
done
for b in P cur; do one logn5m_$b $b gen:lognormal:5000000:2.2:0.9:2500 --seed 7 --vs-cusparse; done
