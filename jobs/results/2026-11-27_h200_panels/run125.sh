#!/usr/bin/env bash
# panel with adaptive panel size on small R-MAT blocks; float; unseen shapes.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
run() {  # matrix precision order
  echo "== $1 $2 $3 $(date +%T)" | tee -a $OUT/shapes.txt
  timeout 120 $B $1 --backend cuda --format panel,csr-split,cusparse,csr --precision $2 --order $3 --iters 50 2>&1 | grep -E "^panel|^csr|^cusp|^order|rror" | cut -c1-110 | tee -a $OUT/shapes.txt
}
run gen:rmat:18:16 double none
run gen:rmat:19:16 double none
run gen:rmat:20:16 double none
run gen:rmat:20:16 float none
run gen:rmat:22:8 double none
run gen:rmat:22:8 float none
run gen:rmat:21:16 float none
run gen:rmat:22:16 double none
run gen:rmat:20:48 double none
run gen:lognormal:2000000:1.5:1.5:50000 double none
run gen:lognormal:2000000:1.5:1.5:50000 float none
run gen:lognormal:8000000:1:1:100000 double none
