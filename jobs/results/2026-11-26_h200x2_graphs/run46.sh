#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w46; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mpi() { local t=$1 n=$2; shift 2; timeout $t mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NCCL_NVLS_ENABLE -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT "$@"; }
timeout 100 cmake --build $B -j $(nproc) --target distspmv dist_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
echo built
DISTSPMV_TEST_BACKEND=cuda DISTSPMV_TEST_TRANSPORT=nccl mpi 30 2 $B/tests/dist/dist_test --gtest_filter='*CudaGraphs*' > $W/t.log 2>&1; echo "dist_test nccl rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/t.log | tr '\n' ' ')"
for m in gen:poisson3d:32 $M/soc-Slashdot0902.mtx.gz; do for g in on off; do
  mpi 25 2 $bin $m --transport nccl --iters 200 --check --cuda-graphs $g > $W/$g.log 2>&1; echo "$(basename $m) nccl $g rc=$? apply $(grep -E '^  apply ' $W/$g.log | awk '{print $2}') host $(grep -oE 'enqueue one apply [0-9.]+' $W/$g.log | awk '{print $3}') $(grep -oE 'check: .*(passed|FAILED)' $W/$g.log | cut -c1-45)"
done; done
