#!/usr/bin/env bash
# One H200: sell-w (and sell for comparison) on the block of more than 2^31 nonzeros
# (big_block_test, label gpu_big: 80 M rows x 27 diagonals = 2.16e9 nonzeros, built on the GPU).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w98; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w98.tgz -C /tmp w98 2>/dev/null; }
B=build-gpu
md5sum local_kernels/sell/*.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target local_kernels_big_block_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 150 $B/tests/local_kernels/local_kernels_big_block_test --gtest_filter='*/gpu_build_sell_w:*/gpu_build_sell' > $W/big.log 2>&1; echo "big rc=$?" | tee -a $R/progress.txt
grep -E "^big |^\[  (PASSED|FAILED) |Failure" -A2 $W/big.log | head -30 | tee -a $R/progress.txt
p done
