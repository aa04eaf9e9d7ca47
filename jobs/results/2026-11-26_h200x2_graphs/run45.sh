#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w45; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=build-gpu; bin=$B/apps/distspmv
mpi() { local t=$1 n=$2; shift 2; timeout $t mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NCCL_NVLS_ENABLE -x NCCL_DEBUG -x DISTSPMV_GRAPH_DEBUG -x DISTSPMV_KEEP_GRAPH -x DISTSPMV_NO_WAIT "$@"; }
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
echo built
export NCCL_DEBUG=WARN DISTSPMV_GRAPH_DEBUG=1
mpi 25 2 $bin gen:poisson3d:32 --transport nccl --iters 20 --warmup 2 --check > $W/a.log 2>&1; echo "destroy rc=$?"
grep -E "capture:|launch|wait|apply  |check:|NCCL WARN" $W/a.log | sort | uniq -c | head
export DISTSPMV_NO_WAIT=1
mpi 25 2 $bin gen:poisson3d:32 --transport nccl --iters 200 --check > $W/b.log 2>&1; echo "nowait rc=$?"
grep -E "capture:|launch|wait|^  apply  |enqueue one|check:|NCCL WARN|graph:" $W/b.log | sort | uniq -c | head -14
unset DISTSPMV_GRAPH_DEBUG
mpi 25 2 $bin gen:poisson3d:32 --transport nccl --iters 200 --check --cuda-graphs on > $W/c.log 2>&1; echo "off rc=$?"
grep -E "^  apply  |enqueue one|check:" $W/c.log
tar czf $R/w45.tgz -C /tmp w45
