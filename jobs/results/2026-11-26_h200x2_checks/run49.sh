#!/usr/bin/env bash
# Two H200s, main at the committed graphs code: full build, ctest -L cuda (1 and 2 GPUs).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w49; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w49.tgz -C /tmp w49 2>/dev/null; }
B=build-gpu
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
p start
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 380 cmake --build $B -j $(nproc) > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed or timed out"; exit 1; }
p built
timeout 170 ctest --test-dir $B -L cuda -E "watchdog|big" --output-on-failure -j 2 > $W/ctest_cuda.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" $W/ctest_cuda.log | tail -14
p ctest
