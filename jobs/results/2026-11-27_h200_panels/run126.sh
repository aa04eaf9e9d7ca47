#!/usr/bin/env bash
# panel after the piece-length fix: CUDA tests, memcheck, small R-MAT, rmat:22:16 with --order auto.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv local_kernels_formats_test > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
T=build-gpu/tests/local_kernels/local_kernels_formats_test
echo "== tests $(date +%T)" | tee -a $OUT/progress.txt
DISTSPMV_MATRICES=$PWD/.device-data/matrices timeout 200 $T --gtest_filter='Cuda*/*panel*' 2>&1 | tail -3 | tee $OUT/tests.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 200 $CS --tool memcheck $T --gtest_filter='Cuda/*EdgeCases*panel*' > $OUT/memcheck.txt 2>&1; echo memcheck rc=$?; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt | tail -3
run() {
  echo "== $1 $2 $3 $(date +%T)" | tee -a $OUT/shapes.txt
  timeout 120 $B $1 --backend cuda --format panel,csr-split,cusparse --precision $2 --order $3 --iters 50 2>&1 | grep -E "^panel|^csr|^cusp|^order|rror" | cut -c1-110 | tee -a $OUT/shapes.txt
}
run gen:rmat:18:16 double none
run gen:rmat:19:16 double none
run gen:rmat:20:16 double none
run gen:rmat:22:16 double none
for p in double float; do for o in none auto; do
  echo "== distributed rmat:22:16 $p --order $o $(date +%T)" | tee -a $OUT/dist.txt
  timeout 150 $B gen:rmat:22:16 --backend cuda --precision $p --order $o --iters 100 --vs-cusparse --check --json $OUT/rmat_${p}_$o.json > $OUT/rmat_${p}_$o.log 2>&1
  grep -E "format|order|local SpMV|vs cuSPARSE|check" $OUT/rmat_${p}_$o.log | cut -c1-200 | tee -a $OUT/dist.txt
done; done
