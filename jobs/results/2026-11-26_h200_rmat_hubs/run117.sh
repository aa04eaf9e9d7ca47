#!/usr/bin/env bash
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
export DSPMV_X_OFFSETS=0,256,4096,65536,1048576,2097152,16777216,33554432,67108864,100663296
for o in none rcm; do
  echo "== order $o"
  timeout 250 $B gen:rmat:22:16 --backend cuda --format csr-split,cusparse --order $o --iters 100 2>&1 | grep -E "^csr|^cusp|x at" | cut -c1-100 | tee $OUT/offsets_$o.txt
done
