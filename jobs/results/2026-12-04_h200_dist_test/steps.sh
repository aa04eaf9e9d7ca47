# Call 7: dist_test at 4 ranks on the one GPU (the ranks share it) over peer-put and cuda-ipc, at
# the revision in REVISION (every shared matrix carried).
mkdir -p "$W/runs"
: >"$W/none.txt"
OUT=$W TARGETS="dist_test" bash jobs/ab_gpu.sh "$W/none.txt"
export DISTSPMV_TEST_BACKEND=cuda OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
for t in peer-put cuda-ipc; do
  export DISTSPMV_TEST_TRANSPORT=$t
  echo "dist_test np 4 $t $(date +%T)" >>"$P"
  timeout 170 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 build-gpu/tests/dist/dist_test >"$W/dist_test_np4_$t.log" 2>&1
  echo "  rc $?" >>"$P"; grep -aE "^\[  PASSED|^\[  FAILED|^\[  SKIPPED \] [0-9]" "$W/dist_test_np4_$t.log" | tail -4 >>"$P"
done
