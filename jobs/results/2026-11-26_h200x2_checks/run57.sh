#!/usr/bin/env bash
# One H200: narrow_to_new in chunks; a mixed block of 2.29 G nonzeros (run 40 held 26.24 GiB).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w57; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w57.tgz -C /tmp w57 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_csr_build_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 60 $B/tests/local_kernels/local_kernels_csr_build_cuda_test > $W/csr_build_cuda.log 2>&1; echo "csr_build_cuda_test rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/csr_build_cuda.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 300 $bin gen:stencil27:440 --format csr-split --precision mixed --check --iters 20 --warmup 3 > $W/big.log 2>&1
echo "stencil27:440 csr-split mixed rc=$? $(grep -oE '[0-9]+ nonzeros' $W/big.log | head -1) | $(grep -E 'GPU: setup peak' $W/big.log | grep -oE 'setup peak [0-9.]+ GiB, held after setup [0-9.]+ GiB') | $(grep -E '^ +0 ' $W/big.log | grep -oE 'csr-split \[[^]]*\]') | $(grep -oE 'check: .*(passed|FAILED)' $W/big.log)" | tee -a $R/progress.txt
p done
