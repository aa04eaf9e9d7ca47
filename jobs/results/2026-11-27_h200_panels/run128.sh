#!/usr/bin/env bash
# panel's GPU builder: bitwise test, formats tests, memcheck, build times on rmat:22:16.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv local_kernels_formats_test local_kernels_panel_build_cuda_test > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
T=build-gpu/tests/local_kernels/local_kernels_formats_test
P=build-gpu/tests/local_kernels/local_kernels_panel_build_cuda_test
echo "== builder test $(date +%T)" | tee -a $OUT/progress.txt
timeout 200 $P 2>&1 | grep -vE "^\[ RUN|^\[       OK" | tail -15 | tee $OUT/builder_test.txt
echo "== formats $(date +%T)" | tee -a $OUT/progress.txt
DISTSPMV_MATRICES=$PWD/.device-data/matrices timeout 200 $T --gtest_filter='Cuda*/*panel*' 2>&1 | tail -3 | tee $OUT/tests.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "== memcheck $(date +%T)" | tee -a $OUT/progress.txt
timeout 200 $CS --tool memcheck $T --gtest_filter='CudaGpuBuild/*EdgeCases*panel*' > $OUT/memcheck_formats.txt 2>&1; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck_formats.txt | tail -2
timeout 200 $CS --tool memcheck $P --gtest_filter='*Refuses*' > $OUT/memcheck_builder.txt 2>&1; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck_builder.txt | tail -2
echo "== rmat $(date +%T)" | tee -a $OUT/progress.txt
timeout 120 $B gen:rmat:22:16 --backend cuda --format panel,csr-split,cusparse --check 2>&1 | grep -E "^panel|^csr|^cusp" | cut -c1-150 | tee $OUT/rmat_formats.txt
for o in none auto; do
  timeout 150 $B gen:rmat:22:16 --backend cuda --order $o --iters 100 --vs-cusparse --check > $OUT/rmat_$o.log 2>&1
  grep -E "^setup|format|local SpMV|vs cuSPARSE|check:|GPU peak|host peak" $OUT/rmat_$o.log | cut -c1-220 | tee -a $OUT/dist.txt
done
