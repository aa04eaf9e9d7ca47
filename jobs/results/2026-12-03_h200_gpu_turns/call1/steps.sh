# Call 1 (2026-12-03 sixth session): ranks sharing one GPU take turns (15c68c3) against b3daeec:
# R-MAT and lognormal rank blocks at 4 ranks on one H200, to compare with the 4x H200 runs of
# 2026-11-28_h200x2_validate run 6; then 2 ranks (new only); then dist_test at 2 ranks on the GPU.
# (.device-old: `git archive b3daeec`; only cage11 and soc-Slashdot0902 were carried, so the three
# dist_test cases that read other shared matrices failed on a missing file: call 2 carried all.)
mkdir -p "$W/runs"
OUT=$W OLD_SRC=.device-old OLD_REV=b3daeec TARGETS="distspmv dist_test" RUN_TIMEOUT=200 bash jobs/ab_gpu.sh .device-data/cases1.txt
OUT=$W TARGETS="distspmv dist_test" RUN_TIMEOUT=150 bash jobs/ab_gpu.sh .device-data/cases2.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for t in mpi-staged peer-put; do
  echo "dist_test np2 $t $(date +%T)" >>"$P"
  timeout 150 mpirun --allow-run-as-root --oversubscribe -np 2 -x DISTSPMV_TEST_BACKEND=cuda -x DISTSPMV_TEST_TRANSPORT=$t \
    -x DISTSPMV_MATRICES -x GTEST_COLOR=no build-gpu/tests/dist/dist_test >"$W/dist_test_np2_$t.log" 2>&1
  echo "  rc $?" >>"$P"
  grep -E "PASSED|FAILED|tests? ran" "$W/dist_test_np2_$t.log" | tail -4 >>"$P"
done
