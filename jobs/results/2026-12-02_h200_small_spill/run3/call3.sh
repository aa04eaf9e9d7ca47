#!/usr/bin/env bash
# Call 3 (2026-12-02): the spill-aware selector (fcc12aa) in float and mixed: defaults against 2de74e7 (cases3a),
# then sell-w against csr-split and cuSPARSE in float (cases3b). No tests (run 2 ran them).
set -u
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
W=$R/abwork; mkdir -p "$W"
P=$W/progress.txt
( while true; do cp "$W/progress.txt" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done ) &
SYNC=$!
export DISTSPMV_MATRICES=$PWD/.device-data/matrices
OUT=$W OLD_SRC=$R/.device-old OLD_REV=2de74e7 RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases3a.txt
OUT=$W RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases3b.txt
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
cp "$W"/*.log "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.log)
