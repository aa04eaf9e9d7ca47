# Call 3 (2026-12-03 fifth session): every shared matrix with the defaults at c38b4e0, double and
# float on one rank (--vs-cusparse --check), the big-block test of the changed kernels (ELLR,
# CSR, SELL-w), then three ranks (--check).
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv local_kernels_big_block_test" bash jobs/ab_gpu.sh /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name ranks args...
  local name=$1 n=$2; shift 2
  echo "command: build-gpu/apps/distspmv $* --check (ranks $n)" >"$W/runs/$name.log"
  timeout 40 mpirun --allow-run-as-root --oversubscribe -np "$n" build-gpu/apps/distspmv "$@" --check >>"$W/runs/$name.log" 2>&1 </dev/null
  local rc=$?
  local fmt ratio
  fmt=$(grep -E "^    0 " "$W/runs/$name.log" | awk '{print $12}')
  ratio=$(grep -E "vs cuSPARSE" "$W/runs/$name.log" | grep -oE "[0-9.]+x" | head -2 | tr '\n' ' ')
  echo "$name rc $rc $fmt $ratio $(grep -o 'check: .*' "$W/runs/$name.log" | cut -c1-60)" >>"$P"
}
M=.device-data/matrices
for prec in double float; do
  for f in $M/*.mtx.gz; do
    b=$(basename "$f" .mtx.gz)
    one "${b}_${prec}" 1 "$f" --precision $prec --vs-cusparse
  done
  tar -czf "$W/runs.tgz" -C "$W" runs
done
for k in ellr csr sell_w; do gtest local_kernels_big_block_test "--gtest_filter=Cuda/BigBlock.*/gpu_build_$k"; done
for f in $M/*.mtx.gz; do
  b=$(basename "$f" .mtx.gz)
  one "${b}_np3" 3 "$f"
done
tar -czf "$W/runs.tgz" -C "$W" runs
