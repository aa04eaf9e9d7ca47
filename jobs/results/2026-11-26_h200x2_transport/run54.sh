#!/usr/bin/env bash
# Four GPUs: cuda-ipc (eager) against nccl with CUDA graphs, by block size (the auto rule of run 52 on 4 ranks).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w54; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w54.tgz -C /tmp w54 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
mpi() { timeout 90 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x NCCL_NVLS_ENABLE "$@"; }
for m in gen:poisson3d:64 gen:poisson3d:100 gen:poisson3d:128 gen:poisson3d:160 $M/soc-Slashdot0902.mtx.gz gen:rmat:20:16; do
  line="$(basename $m)"
  for t in cuda-ipc nccl; do
    n=$(basename $m | tr ':' '_')_$t
    mpi $bin $m --transport $t --iters 200 --check > $W/$n.log 2>&1; rc=$?
    line="$line | $t rc=$rc apply $(grep -E '^  apply ' $W/$n.log | awk '{print $2}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') exch $(grep -E '^  halo exchange' $W/$n.log | awk '{print $3}') $(grep -oE 'graph: (on|off)' $W/$n.log) nnz/rank $(grep -E '^ +0 +[0-9]' $W/$n.log | awk '{print $3}' | head -1) $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')"
  done
  echo "$line" | tee -a $R/progress.txt
done
p done
