# Call 6: the packing gather over at most two blocks per SM (the revision in REVISION) beside
# local products (jobs/bench_beside; before: call 4 of 2026-12-04_h200_beside, same binary but the
# gather); its test and the distributed tests at 4 ranks on the one GPU; the lognormal at
# 4 ranks over cuda-ipc and mpi-staged with --check.
mkdir -p "$W/runs"
: >"$W/none.txt"
OUT=$W TARGETS="bench_beside dist_test distspmv" bash jobs/ab_gpu.sh "$W/none.txt"
B=build-gpu/jobs/bench_beside
run() { echo "== $*" >>"$P"; timeout 120 $B "$@" >>"$P" 2>&1; echo "  rc $?" >>"$P"; }
run gen:lognormal:1000000:2.0:1.0:300000 panel cusparse csr-split sell-w
run gen:lognormal:1000000:2.0:1.0:300000 panel cusparse --gather 1000000
run gen:lognormal:4000000:2.0:1.0:300000 panel cusparse
run gen:rmat:20:16 panel cusparse
run gen:poisson3d:32 csr hdia --gather 5000
run gen:lognormal:300000:2.0:1.0:100000 panel csr --gather 20000
export DISTSPMV_TEST_BACKEND=cuda
gtest dist_test --gtest_filter='*Gather*'
export DISTSPMV_TEST_TRANSPORT=mpi-staged OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "dist_test np 4 mpi-staged $(date +%T)" >>"$P"
timeout 240 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 build-gpu/tests/dist/dist_test >"$W/dist_test_np4.log" 2>&1
echo "  rc $?" >>"$P"; grep -E "^\[  PASSED|^\[  FAILED|tests? ran" "$W/dist_test_np4.log" | tail -4 >>"$P"
unset DISTSPMV_TEST_BACKEND DISTSPMV_TEST_TRANSPORT
echo "lgr4_ipc 4 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --transport cuda-ipc" >"$W/cases.txt"
echo "lgr4_staged 4 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --transport mpi-staged" >>"$W/cases.txt"
OUT=$W TARGETS="bench_beside dist_test distspmv" RUN_TIMEOUT=100 bash jobs/ab_gpu.sh "$W/cases.txt"
