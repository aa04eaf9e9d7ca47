#!/usr/bin/env bash
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
export DSPMV_X_OFFSETS=0,256,4096,65536,1048576,2097152,16777216,33554432,67108864,100663296
for p in double float; do
  echo "== lognormal $p"
  timeout 250 $B gen:lognormal:4000000:2.5:0.8:2000 --backend cuda --format sell-w,cusparse,csr-split --precision $p --iters 100 2>&1 | grep -E "^sell|^csr|^cusp|x at" | cut -c1-100 | tee $OUT/offsets_lognormal_$p.txt
done
echo "== poisson3d:200 double"
timeout 250 $B gen:poisson3d:200 --backend cuda --format hdia,cusparse --iters 100 2>&1 | grep -E "^hdia|^cusp|x at" | cut -c1-100 | tee $OUT/offsets_poisson3d.txt
