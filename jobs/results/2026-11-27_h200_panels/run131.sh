#!/usr/bin/env bash
# panel on 2 GPUs: rmat:22:16 with --order auto (format auto), --check, both ratios; and 3 ranks on 2 GPUs? no: 2 ranks.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 32 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader
M="mpirun --allow-run-as-root --oversubscribe --bind-to none"
for o in none auto; do
  echo "== 2 ranks --order $o $(date +%T)"
  timeout 200 $M -np 2 build-gpu/apps/distspmv gen:rmat:22:16 --backend cuda --order $o --iters 100 --vs-cusparse --check > $OUT/np2_$o.log 2>&1; echo rc=$?
  grep -E "^setup|order|^ +[01] |local SpMV|apply|vs cuSPARSE|check:" $OUT/np2_$o.log | cut -c1-200
done
