#!/usr/bin/env bash
# Two H200s: --transport auto now picks NCCL (with CUDA graphs) for blocks under 4 M nonzeros on one host.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w53; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w53.tgz -C /tmp w53 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
mpi() { timeout 90 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE "$@"; }
for m in gen:poisson3d:64 $M/soc-Slashdot0902.mtx.gz gen:poisson3d:160; do
  n=$(basename $m | tr ':' '_')
  mpi $bin $m --iters 200 --check > $W/$n.log 2>&1; rc=$?
  echo "$(basename $m) auto rc=$rc: $(grep -E '^transport' $W/$n.log | cut -c1-160) | apply $(grep -E '^  apply ' $W/$n.log | awk '{print $2}') $(grep -oE 'graph: (on|off)[^(]*' $W/$n.log) $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
done
mpi $bin solve gen:poisson3d:48 --method cg > $W/solve.log 2>&1; echo "solve cg poisson3d:48 auto rc=$? $(grep -iE 'transport|converged|iterations|graph' $W/solve.log | head -4 | tr '\n' ' ')" | tee -a $R/progress.txt
p done
