#!/usr/bin/env bash
# panel format: CUDA tests, memcheck, then R-MAT timings against csr-split and cuSPARSE.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv local_kernels_formats_test > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
T=build-gpu/tests/local_kernels/local_kernels_formats_test
echo "== tests $(date +%T)" | tee -a $OUT/progress.txt
timeout 200 $T --gtest_filter='Cuda*/*panel*' 2>&1 | tail -4 | tee $OUT/tests.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "== memcheck $(date +%T)" | tee -a $OUT/progress.txt
timeout 200 $CS --tool memcheck $T --gtest_filter='Cuda/*panel*' > $OUT/memcheck.txt 2>&1; echo rc=$?; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt | tail -3
for o in none degree rcm; do
  echo "== rmat $o $(date +%T)" | tee -a $OUT/progress.txt
  timeout 150 $B gen:rmat:22:16 --backend cuda --format panel,csr-split,cusparse --order $o --check 2>&1 | grep -E "^panel|^csr|^cusp|order" | cut -c1-150 | tee -a $OUT/rmat.txt
done
