#!/usr/bin/env bash
# Call 4 (2026-12-01; call 3 ran dist_test at 2 and 3 ranks, then lost its logs' folder): split panel rows on the distributed paths, one H200: the panel formats test
# on the shared matrices, dist_test at 2 and 3 ranks sharing the GPU, R-MAT at 2 and 3 ranks --check.
set -u
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
export DISTSPMV_MATRICES=$PWD/.device-data/matrices
P=$OUT/progress.txt
echo "start $(date +%T)" > "$P"
OUT=$OUT/build BUILD_TARGETS="distspmv local_kernels_formats_test" bash jobs/dist_gpu.sh build >> "$P" 2>&1
mkdir -p "$OUT/logs"
echo "formats $(date +%T)" >> "$P"
timeout 240 build-gpu/tests/local_kernels/local_kernels_formats_test --gtest_filter='*panel*' > "$OUT/logs/formats_panel.log" 2>&1
echo "  rc $?" >> "$P"; grep -E "PASSED|FAILED|SKIPPED" "$OUT/logs/formats_panel.log" | head -8 >> "$P"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
for np in 2 3; do for m in "gen:rmat:21:16 --seed 5" "gen:rmat:22:16 --seed 11"; do
  n=$(echo "$m" | tr ' :' '__')_np$np
  echo "$n $(date +%T)" >> "$P"
  # shellcheck disable=SC2086
  timeout 150 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $np -x NCCL_NVLS_ENABLE build-gpu/apps/distspmv $m \
    --check --json "$OUT/logs/$n.json" > "$OUT/logs/$n.log" 2>&1; echo "  rc $?" >> "$P"
  grep -E "panel|check:|apply  " "$OUT/logs/$n.log" | cut -c1-260 >> "$P"
  tar -czf "$OUT/logs.tgz" -C "$OUT" logs
done; done
echo "end $(date +%T)" >> "$P"
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
