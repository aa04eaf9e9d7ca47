#!/usr/bin/env bash
# Call 2 (2026-12-01): one-rank trial times panel below 16 M (HEAD) against 6d8dc67, one H200.
set -u
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
W=$R/abwork; mkdir -p "$W"
( while true; do cp "$W/progress.txt" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done ) &
SYNC=$!
OUT=$W OLD_SRC=$R/.device-old OLD_REV=6d8dc67 \
  TARGETS="distspmv local_kernels_format_selector_test" \
  bash jobs/ab_gpu.sh .device-data/cases2.txt
P=$W/progress.txt
echo "selector test $(date +%T)" >> "$P"
timeout 60 build-gpu/tests/local_kernels/local_kernels_format_selector_test > "$OUT/selector.log" 2>&1; echo "  rc $?" >> "$P"
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
cp "$W"/build_*.log "$W"/configure_*.log "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.log)
