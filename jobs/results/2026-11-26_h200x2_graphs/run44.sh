#!/usr/bin/env bash
# 2x H200: why the NCCL apply hung under capture (run 43): debug prints, capture modes; the
# cuda-ipc check on poisson3d:64 three times (it failed once in run 43, graphs off).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w44; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w44.tgz -C /tmp w44 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mpi() { local t=$1 n=$2; shift 2; timeout $t mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NCCL_NVLS_ENABLE -x NCCL_DEBUG -x DISTSPMV_GRAPH_DEBUG -x DISTSPMV_CAPTURE_MODE "$@"; }
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
export NCCL_DEBUG=WARN DISTSPMV_GRAPH_DEBUG=1
for mode in threadlocal global relaxed; do
  export DISTSPMV_CAPTURE_MODE=$mode
  mpi 30 2 $bin gen:poisson3d:32 --transport nccl --iters 20 --warmup 2 --check > $W/nccl_$mode.log 2>&1; echo "nccl $mode rc=$?"
  grep -E "capture:|launch|apply  |check:|NCCL WARN|rror" $W/nccl_$mode.log | sort | uniq -c | head -20
  p "mode $mode"
done
unset NCCL_DEBUG DISTSPMV_GRAPH_DEBUG DISTSPMV_CAPTURE_MODE
for i in 1 2 3; do
  mpi 60 2 $bin gen:poisson3d:64 --transport cuda-ipc --iters 200 --check > $W/ipc_$i.log 2>&1; echo "ipc $i rc=$? $(grep -oE 'check: .*(passed|FAILED)' $W/ipc_$i.log)"
done
p done
