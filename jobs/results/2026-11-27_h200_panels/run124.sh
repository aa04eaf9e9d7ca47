#!/usr/bin/env bash
# panel against csr-split and cuSPARSE on irregular shapes (double and float), for the selector.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
run() {  # matrix precision order
  echo "== $1 $2 $3 $(date +%T)" | tee -a $OUT/shapes.txt
  timeout 120 $B $1 --backend cuda --format panel,csr-split,cusparse,csr --precision $2 --order $3 --iters 50 2>&1 | grep -E "^panel|^csr|^cusp|^order|rror" | cut -c1-110 | tee -a $OUT/shapes.txt
}
run gen:rmat:22:16 float none
run gen:rmat:22:16 float rcm
run gen:rmat:20:16 double none
run gen:rmat:20:16 double rcm
run gen:rmat:21:16 double none
run gen:rmat:23:16 double none
run gen:rmat:22:8 double none
run gen:rmat:21:32 double none
run gen:rmat:21:32 double degree
run gen:lognormal:4000000:2.5:0.8:5000 double none
run gen:lognormal:4000000:2.5:0.8:2000 double none
run gen:lognormal:3000000:2:1.2:20000 double none
run gen:lognormal:3000000:2:1.2:20000 float none
run gen:rmat:19:16 double none
run gen:rmat:18:16 double none
