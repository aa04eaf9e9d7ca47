#!/usr/bin/env bash
# Prototype SELL hub kernel: thread count vs hub size, and rcm order.
set -uo pipefail
P=$OUT/progress.txt
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
M=gen:rmat:22:16
run() { local name=$1; shift; echo "== $name $(date +%T)" >> $P
  env "$@" > $OUT/$name.log 2>&1
  echo "$name: $(grep -E '^  apply ' $OUT/$name.log) $(grep -E 'hub plan|check:' $OUT/$name.log | tr '\n' ' ')"; }
run t1024_k1    DSPMV_SELL_HUB=1     DSPMV_SELL_HUB_THREADS=1024 timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1 --iters 100 --check
run t1024_k4096 DSPMV_SELL_HUB=4096  DSPMV_SELL_HUB_THREADS=1024 timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1 --iters 100 --check
run t256_k2048  DSPMV_SELL_HUB=2048  DSPMV_SELL_HUB_THREADS=256  timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1 --iters 100 --check
run t512_k1024  DSPMV_SELL_HUB=1024  timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1 --iters 100 --check
run rcm_t512_k1 DSPMV_SELL_HUB=1     timeout 200 $B $M --backend cuda --order rcm --format sell --iters 100 --check
run rcm_split   timeout 200 $B $M --backend cuda --order rcm --format csr-split --iters 100 --check
