#!/usr/bin/env bash
# One GPU: a pattern CSR built on the GPU frees its values (device_storage::free_allocation).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w55; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w55.tgz -C /tmp w55 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_csr_build_cuda_test local_kernels_formats_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 60 $B/tests/local_kernels/local_kernels_csr_build_cuda_test > $W/csr_build_cuda.log 2>&1; echo "csr_build_cuda_test rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/csr_build_cuda.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/local_kernels/local_kernels_csr_build_cuda_test --gtest_filter='*Pattern*:*EveryKernel*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='CudaGpuBuild/*csr*' > $W/formats_gpu_build.log 2>&1; echo "formats_test CudaGpuBuild/*csr* rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/formats_gpu_build.log | tr '\n' ' ')" | tee -a $R/progress.txt
for m in $M/soc-Slashdot0902.mtx.gz; do
  timeout 60 $bin $m --iters 50 --check > $W/slashdot.log 2>&1; echo "slashdot rc=$? $(grep -iE '^memory|GPU peak|held' $W/slashdot.log | head -3 | tr '\n' ' ') $(grep -oE 'check: .*(passed|FAILED)' $W/slashdot.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
done
timeout 120 $bin gen:rmat:20:16 --iters 20 --check > $W/rmat.log 2>&1; echo "rmat:20 (values) rc=$? $(grep -oE 'check: .*(passed|FAILED)' $W/rmat.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
p done
