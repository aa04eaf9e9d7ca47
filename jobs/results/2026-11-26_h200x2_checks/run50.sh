#!/usr/bin/env bash
# Two H200s (warm build of run 49): the dist tests on the GPU over every transport, the CUDA-graph
# test under compute-sanitizer memcheck (1 rank), and a cuda-ipc stress of run 43's one failure.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w50; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w50.tgz -C /tmp w50 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mpi() { local t=$1 n=$2; shift 2; timeout $t mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NCCL_NVLS_ENABLE -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES "$@"; }
export DISTSPMV_TEST_BACKEND=cuda
for t in nccl cuda-ipc mpi-staged; do
  DISTSPMV_TEST_TRANSPORT=$t mpi 150 2 $B/tests/dist/dist_test > $W/dist_$t.log 2>&1
  echo "dist_test 2 ranks $t rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $W/dist_$t.log | sort | uniq -c | tr '\n' ' ')" | tee -a $R/progress.txt
done
DISTSPMV_TEST_TRANSPORT=nccl mpi 120 2 $B/tests/dist/solvers_test > $W/solvers.log 2>&1; echo "solvers_test 2 ranks nccl rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/solvers.log | tr '\n' ' ')" | tee -a $R/progress.txt
mpi 60 2 $B/tests/dist/c_api_test > $W/capi.log 2>&1; echo "c_api_test 2 ranks rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/capi.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/dist/dist_test --gtest_filter='*CudaGraphs*' > $W/memcheck_graphs.log 2>&1; echo "memcheck graphs 1 rank rc=$? $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' $W/memcheck_graphs.log | tr '\n' ' ')" | tee -a $R/progress.txt
p memcheck
fails=0
for i in $(seq 1 12); do
  mpi 40 2 $bin gen:poisson3d:64 --transport cuda-ipc --iters 200 --check > $W/ipc_$i.log 2>&1; rc=$?
  [ $rc != 0 ] && fails=$((fails+1))
  echo "ipc poisson3d:64 #$i rc=$rc $(grep -oE 'check: .*(passed|FAILED)' $W/ipc_$i.log | cut -c1-50)" >> $W/ipc.txt
done
echo "cuda-ipc poisson3d:64 x12: $fails failed; $(grep -c passed $W/ipc.txt) passed" | tee -a $R/progress.txt
for i in 1 2 3 4; do
  mpi 40 2 $bin $M/soc-Slashdot0902.mtx.gz --transport cuda-ipc --iters 200 --check > $W/ipcs_$i.log 2>&1
  echo "ipc Slashdot #$i rc=$? $(grep -oE 'check: .*(passed|FAILED)' $W/ipcs_$i.log | cut -c1-50)" | tee -a $R/progress.txt
done
p done
