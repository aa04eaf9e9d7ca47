#!/usr/bin/env bash
# The halo block's format chosen by the selector (format auto), 2 GPUs.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 32 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
M="mpirun --allow-run-as-root --oversubscribe --bind-to none"
run() {
  echo "== $* $(date +%T)"
  timeout 100 $M -np 2 build-gpu/apps/distspmv "$@" --backend cuda --iters 100 --vs-cusparse --check --json $OUT/$(echo "$*" | tr -c 'A-Za-z0-9' _).json > $OUT/log_$(echo "$*" | tr -c 'A-Za-z0-9' _).txt 2>&1; echo rc=$?
  grep -E "^ +[01] |local SpMV|vs cuSPARSE|check:" $OUT/log_$(echo "$*" | tr -c 'A-Za-z0-9' _).txt | cut -c1-60,120-170
}
run gen:rmat:22:16 --order none
run gen:rmat:22:16 --order auto
run gen:poisson3d:200
run gen:lognormal:4000000:2.5:0.8:2000
