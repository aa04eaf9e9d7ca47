# Call 5 (2026-12-03 fifth session): ELLR's T rule for small blocks (316a7c7): the ELLR tests, then
# every shared matrix with the defaults, double and float on one rank (--vs-cusparse --check),
# some small generated blocks, then two ranks (--check).
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv local_kernels_formats_test local_kernels_ell_family_build_cuda_test" bash jobs/ab_gpu.sh /dev/null
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/ellr*"
gtest local_kernels_ell_family_build_cuda_test
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name ranks args...
  local name=$1 n=$2; shift 2
  echo "command: build-gpu/apps/distspmv $* --check (ranks $n)" >"$W/runs/$name.log"
  timeout 40 mpirun --allow-run-as-root --oversubscribe -np "$n" build-gpu/apps/distspmv "$@" --check >>"$W/runs/$name.log" 2>&1 </dev/null
  local rc=$?
  local fmt ratio
  fmt=$(grep -E "^    0 " "$W/runs/$name.log" | awk '{print $10, $12, $13}')
  ratio=$(grep -E "vs cuSPARSE" "$W/runs/$name.log" | grep -oE "[0-9.]+x" | head -2 | tr '\n' ' ')
  echo "$name rc $rc $fmt $ratio $(grep -o 'check: .*' "$W/runs/$name.log" | cut -c1-50)" >>"$P"
}
M=.device-data/matrices
for prec in double float; do
  for f in $M/*.mtx.gz; do
    b=$(basename "$f" .mtx.gz)
    one "${b}_${prec}" 1 "$f" --precision $prec --vs-cusparse
  done
  tar -czf "$W/runs.tgz" -C "$W" runs
done
for g in poisson3d:24 stencil27:20 lognormal:20000:2.5:0.5:200 lognormal:60000:3.0:0.3:500 lognormal:150000:2.8:0.6:1000; do
  one "gen_${g//:/_}" 1 gen:$g --vs-cusparse
done
tar -czf "$W/runs.tgz" -C "$W" runs
for f in $M/*.mtx.gz; do
  b=$(basename "$f" .mtx.gz)
  one "${b}_np2" 2 "$f"
done
tar -czf "$W/runs.tgz" -C "$W" runs
