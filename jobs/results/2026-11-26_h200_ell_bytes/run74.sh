#!/usr/bin/env bash
# One H200: the whole `cuda` test label at the final code (ELLR and SELL with 16-bit columns, the
# new selector rule), and memcheck over every CUDA format's edge cases.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w74; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no NCCL_NVLS_ENABLE=0
export DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w74.tgz -C /tmp w74 2>/dev/null; }
B=build-gpu
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 480 cmake --build $B -j $(nproc) > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 300 ctest --test-dir $B -L cuda -LE gpu_big --output-on-failure > $W/ctest_cuda.log 2>&1; echo "ctest -L cuda rc=$? $(grep -E 'tests passed|Failed|\*\*\*' $W/ctest_cuda.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
f=$B/tests/local_kernels/local_kernels_formats_test
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 $f --gtest_filter='Cuda*/*EdgeCases*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p done
