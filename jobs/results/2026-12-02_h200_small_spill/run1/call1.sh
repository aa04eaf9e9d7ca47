#!/usr/bin/env bash
# Call 1 (2026-12-02): every format on small shared blocks, sell-w against the others on high-sigma lognormal shapes; one H200, HEAD only.
set -u
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
W=$R/abwork; mkdir -p "$W"
( while true; do cp "$W/progress.txt" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done ) &
SYNC=$!
export DISTSPMV_MATRICES=$PWD/.device-data/matrices
OUT=$W RUN_TIMEOUT=100 \
  TARGETS="distspmv" \
  bash jobs/ab_gpu.sh .device-data/cases1.txt
P=$W/progress.txt
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
cp "$W"/*.log "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.log)
