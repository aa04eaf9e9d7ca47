#!/usr/bin/env bash
# Call 4 (2026-12-02): bd82328 (sell-w priced without its spill in float) against 2de74e7 (cases4a) after the statistics test;
# then issue 37's bench set with the defaults, new only (cases4b).
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
OUT=$W OLD_SRC=$R/.device-old OLD_REV=2de74e7 RUN_TIMEOUT=100 \
  TARGETS="distspmv local_kernels_format_selector_cuda_test" \
  bash jobs/ab_gpu.sh /dev/null
for t in local_kernels_format_selector_cuda_test; do
  echo "test $t $(date +%T)" >> "$P"
  timeout 150 build-gpu/tests/local_kernels/$t > "$W/$t.log" 2>&1; echo "  rc $?" >> "$P"; tail -3 "$W/$t.log" >> "$P"
done
OUT=$W OLD_SRC=$R/.device-old OLD_REV=2de74e7 RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases4a.txt
OUT=$W RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases4b.txt
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
cp "$W"/*.log "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.log)
