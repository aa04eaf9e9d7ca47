#!/usr/bin/env bash
# Two H200s: cuda-ipc with GPU signals (stream memory operations; graphs on) against its host
# handshake (DISTSPMV_IPC_SIGNALS=host) and NCCL with graphs, by block size; --check on each.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w62; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w62.tgz -C /tmp w62 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv dist_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
mpi() { timeout 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE -x DISTSPMV_IPC_SIGNALS "$@"; }
one() {  # name signals matrix transport
  local n=$1; export DISTSPMV_IPC_SIGNALS=$2; mpi $bin $3 --transport $4 --iters 200 --check > $W/$n.log 2>&1; local rc=$?
  echo "$n: rc=$rc apply $(grep -E '^  apply ' $W/$n.log | awk '{print $2}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') $(grep -oE 'CUDA graph: [^(]*' $W/$n.log | head -1) nnz/rank $(grep -E '^ +0 +[0-9]' $W/$n.log | awk '{print $3}' | head -1) $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
one first_gpu gpu gen:poisson3d:64 cuda-ipc
grep -iE "error|abort|waited" $W/first_gpu.log | head -5 | tee -a $R/progress.txt
for m in gen:poisson3d:32 gen:poisson3d:64 gen:poisson3d:100 gen:poisson3d:128 gen:poisson3d:200 $M/soc-Slashdot0902.mtx.gz gen:rmat:18:16 gen:rmat:20:16 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000; do
  b=$(basename $m | tr ':' '_')
  one ${b}_gpu gpu $m cuda-ipc
  one ${b}_host host $m cuda-ipc
  one ${b}_nccl gpu $m nccl
  p "$b"
done
p done
