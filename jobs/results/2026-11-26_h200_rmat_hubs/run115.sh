#!/usr/bin/env bash
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
for mode in DSPMV_RANDOM_X_AFTER DSPMV_CONST_X plain; do
  echo "== $mode"
  env $mode=1 timeout 200 $B gen:rmat:22:16 --backend cuda --format csr-split,cusparse --order rcm --iters 100 2>&1 | grep -E "^csr|^cusp" | cut -c1-60
done
