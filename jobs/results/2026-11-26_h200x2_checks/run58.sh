#!/usr/bin/env bash
# One H200: the final narrow_to_new (fallback on a failed allocation) through the CSR GPU-build tests.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w58; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w58.tgz -C /tmp w58 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_csr_build_cuda_test local_kernels_formats_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 60 $B/tests/local_kernels/local_kernels_csr_build_cuda_test > $W/csr_build_cuda.log 2>&1; echo "csr_build_cuda_test rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/csr_build_cuda.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='CudaGpuBuild/*csr*:CudaGpuBuild/*hdia*' > $W/formats_gpu_build.log 2>&1; echo "formats_test CudaGpuBuild csr,hdia rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/formats_gpu_build.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 120 $bin gen:lognormal:4000000:2.5:0.8:2000 --precision mixed --iters 20 --check > $W/lognormal_mixed.log 2>&1; echo "lognormal mixed rc=$? $(grep -E 'GPU: setup peak' $W/lognormal_mixed.log | grep -oE 'held after setup [0-9.]+ GiB') $(grep -oE 'check: .*(passed|FAILED)' $W/lognormal_mixed.log | cut -c1-60)" | tee -a $R/progress.txt
p done
