#!/usr/bin/env bash
# EXPERIMENT: the halo block's format on 2 GPUs (rmat:22:16): csr (now), auto, panel, csr-split.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 32 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x DSPMV_HALO_FORMAT"
for o in none auto; do for h in csr auto csr-split; do
  export DSPMV_HALO_FORMAT=$h
  echo "== order $o halo $h $(date +%T)"
  timeout 100 $M -np 2 build-gpu/apps/distspmv gen:rmat:22:16 --backend cuda --order $o --iters 100 --vs-cusparse --check > $OUT/np2_${o}_$h.log 2>&1; echo rc=$?
  grep -E "halo format|^ +[01] |local SpMV|vs cuSPARSE|check:" $OUT/np2_${o}_$h.log | cut -c1-140
done; done
