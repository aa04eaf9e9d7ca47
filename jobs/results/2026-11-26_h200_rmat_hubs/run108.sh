#!/usr/bin/env bash
# Prototype: SELL hub kernel (DSPMV_SELL_HUB=K) on degree-ordered R-MAT against csr-split and cuSPARSE.
set -uo pipefail
P=$OUT/progress.txt
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
echo "build start $(date +%T)" >> $P
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 || { tail -30 $OUT/cfg.log; exit 1; }
cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
echo "build done $(date +%T)" >> $P
B=build-gpu/apps/distspmv
M=${M:-gen:rmat:22:16}
run() { # name, env..., -- args
  local name=$1; shift
  echo "== $name $(date +%T)" >> $P
  env "$@" > $OUT/$name.log 2>&1
  grep -E "hub plan|format|apply|µs|us |check|error|GB/s" $OUT/$name.log | head -20 > $OUT/$name.short
  echo "--- $name"; cat $OUT/$name.short
}
run base timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1,csr-split,cusparse --iters 100 --check
for K in ${KS:-1 4096 8192}; do
  run hub$K DSPMV_SELL_HUB=$K timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1 --iters 100 --check
done
if [ -n "${T1024:-}" ]; then
  run hub16k_1024 DSPMV_SELL_HUB=16384 DSPMV_SELL_HUB_THREADS=1024 timeout 200 $B $M --backend cuda --order degree --format sell-c32-s1 --iters 100 --check
fi
