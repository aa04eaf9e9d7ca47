#!/usr/bin/env bash
# Call 1 (2026-12-01): panel split rows (6d8dc67) against 4a7a1a1, one H200; then the GPU tests.
set -u
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
W=$R/abwork; mkdir -p "$W"
( while true; do cp "$W/progress.txt" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done ) &
SYNC=$!
OUT=$W OLD_SRC=$R/.device-old OLD_REV=4a7a1a1 \
  TARGETS="distspmv local_kernels_panel_build_cuda_test local_kernels_formats_test local_kernels_panel_build_test" \
  bash jobs/ab_gpu.sh .device-data/cases1.txt
P=$W/progress.txt
for t in local_kernels_panel_build_test local_kernels_panel_build_cuda_test; do
  echo "test $t $(date +%T)" >> "$P"
  timeout 120 build-gpu/tests/local_kernels/$t > "$OUT/$t.log" 2>&1; echo "  rc $?" >> "$P"; tail -3 "$OUT/$t.log" >> "$P"
done
echo "formats $(date +%T)" >> "$P"
timeout 200 build-gpu/tests/local_kernels/local_kernels_formats_test --gtest_filter='*panel*' > "$OUT/formats_panel.log" 2>&1; echo "  rc $?" >> "$P"
tail -5 "$OUT/formats_panel.log" >> "$P"
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
cp "$W"/build_*.log "$W"/configure_*.log "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.log)
