# Call 4 (2026-12-03 sixth session): 15c68c3's turns with ranks that own no rows and with every
# transport that works on a shared GPU: more ranks than rows on the CUDA backend at 2-4 ranks on
# one H200; dist_test at 4 ranks (mpi-staged) and 3 ranks (peer-put) with every shared matrix.
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv dist_test" bash jobs/ab_gpu.sh /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in 2 3 4; do
  for t in mpi-staged peer-put; do
    echo "more ranks than rows np$n $t $(date +%T)" >>"$P"
    BACKEND=cuda TRANSPORT=$t timeout 120 bash tests/apps/more_ranks_than_rows.sh build-gpu/apps/distspmv mpirun $n \
      "auto block metis lp" gen:poisson3d:1 tests/data/skew_symmetric_integer_3x3.mtx >"$W/idle_np${n}_$t.log" 2>&1
    echo "  rc $? $(grep -c '^ok' "$W/idle_np${n}_$t.log") ok, $(grep -c '^FAIL' "$W/idle_np${n}_$t.log") failed" >>"$P"
  done
done
for run in "4 mpi-staged" "3 peer-put"; do
  set -- $run
  echo "dist_test np$1 $2 $(date +%T)" >>"$P"
  timeout 170 mpirun --allow-run-as-root --oversubscribe -np $1 -x DISTSPMV_TEST_BACKEND=cuda -x DISTSPMV_TEST_TRANSPORT=$2 \
    -x DISTSPMV_MATRICES -x GTEST_COLOR=no build-gpu/tests/dist/dist_test >"$W/dist_test_np$1_$2.log" 2>&1
  echo "  rc $?" >>"$P"
  grep -E "PASSED|FAILED|tests? ran" "$W/dist_test_np$1_$2.log" | tail -4 >>"$P"
done
