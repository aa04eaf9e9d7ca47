#!/usr/bin/env bash
# Two H200s: cuda-ipc with GPU signals, graphs on and off, copy engine or copy kernel
# (DISTSPMV_IPC_COPY=kernel), against the host handshake.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w63; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w63.tgz -C /tmp w63 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
mpi() { timeout 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE -x DISTSPMV_IPC_SIGNALS -x DISTSPMV_IPC_COPY "$@"; }
one() {  # name signals copy graphs matrix
  local n=$1; export DISTSPMV_IPC_SIGNALS=$2 DISTSPMV_IPC_COPY=$3; mpi $bin $5 --transport cuda-ipc --cuda-graphs $4 --iters 200 --check > $W/$n.log 2>&1; local rc=$?
  echo "$n: rc=$rc apply $(grep -E '^  apply ' $W/$n.log | awk '{print $2}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') $(grep -oE 'CUDA graph: [^(]*' $W/$n.log | head -1) $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
for m in gen:poisson3d:32 gen:poisson3d:100 gen:poisson3d:200 gen:rmat:22:16; do
  b=$(basename $m | tr ':' '_')
  one ${b}_host host ce on $m
  one ${b}_gpu_ce_graph gpu ce on $m
  one ${b}_gpu_ce_eager gpu ce off $m
  one ${b}_gpu_k_graph gpu kernel on $m
  one ${b}_gpu_k_eager gpu kernel off $m
  p "$b"
done
p done
