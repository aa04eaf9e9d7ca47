#!/usr/bin/env bash
# Call 6 (2026-12-01): issue 37's bench set with the default options at HEAD, one H200.
set -u
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
W=$R/abwork6; mkdir -p "$W"
( while true; do cp "$W/progress.txt" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done ) &
SYNC=$!
OUT=$W RUN_TIMEOUT=90 bash jobs/ab_gpu.sh .device-data/cases6.txt
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
