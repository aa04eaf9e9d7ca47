#!/usr/bin/env bash
# The format benchmark under --order (aadb70c): formats and cuSPARSE in one order, one GPU.
set -uo pipefail
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
for o in none degree rcm; do
  echo "=== rmat:22:16 --order $o"
  timeout 240 $B gen:rmat:22:16 --backend cuda --format csr-split,sell,cusparse --order $o --iters 100 --check --json $OUT/rmat_$o.json > $OUT/rmat_$o.log 2>&1; echo rc=$?
  grep -E "^order|^format|^csr-split|^sell|^cusparse|^check" $OUT/rmat_$o.log
done
echo "=== poisson3d:200 --order auto"
timeout 120 $B gen:poisson3d:200 --backend cuda --format hdia,cusparse --order auto --iters 100 --check > $OUT/p3d_auto.log 2>&1; echo rc=$?
grep -E "^order|^hdia|^cusparse|^check" $OUT/p3d_auto.log | cut -c1-200
