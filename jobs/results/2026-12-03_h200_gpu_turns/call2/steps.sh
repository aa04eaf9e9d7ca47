# Call 2 (2026-12-03 sixth session): 15c68c3's turns on one H200: rank blocks at 2 and 4 ranks with
# panel (and rcm) forced, then dist_test at 2 ranks on the GPU with every shared matrix.
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv dist_test" RUN_TIMEOUT=150 bash jobs/ab_gpu.sh .device-data/cases3.txt  # (cases.txt here)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for t in mpi-staged; do
  echo "dist_test np2 $t $(date +%T)" >>"$P"
  timeout 200 mpirun --allow-run-as-root --oversubscribe -np 2 -x DISTSPMV_TEST_BACKEND=cuda -x DISTSPMV_TEST_TRANSPORT=$t \
    -x DISTSPMV_MATRICES -x GTEST_COLOR=no build-gpu/tests/dist/dist_test >"$W/dist_test_np2_$t.log" 2>&1
  echo "  rc $?" >>"$P"
  grep -E "PASSED|FAILED|tests? ran" "$W/dist_test_np2_$t.log" | tail -4 >>"$P"
done
