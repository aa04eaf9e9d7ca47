#!/usr/bin/env bash
# Call 2 (2026-12-02): the spill-aware selector (fcc12aa): the GPU statistics and SELL builder tests
# first, then the defaults against 2de74e7 (cases2a), then sell-w against csr-split and cuSPARSE (cases2b).
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
  TARGETS="distspmv local_kernels_format_selector_cuda_test local_kernels_sell_ipcsr_build_cuda_test local_kernels_formats_test local_kernels_sell_build_test" \
  bash jobs/ab_gpu.sh /dev/null
for t in local_kernels_format_selector_cuda_test local_kernels_sell_build_test local_kernels_sell_ipcsr_build_cuda_test; do
  echo "test $t $(date +%T)" >> "$P"
  timeout 150 build-gpu/tests/local_kernels/$t > "$W/$t.log" 2>&1; echo "  rc $?" >> "$P"; tail -3 "$W/$t.log" >> "$P"
done
echo "formats $(date +%T)" >> "$P"
timeout 150 build-gpu/tests/local_kernels/local_kernels_formats_test --gtest_filter='*sell_w*' > "$W/formats_sell_w.log" 2>&1; echo "  rc $?" >> "$P"
grep -E "FAILED|PASSED|SKIPPED" "$W/formats_sell_w.log" | tail -8 >> "$P"
OUT=$W OLD_SRC=$R/.device-old OLD_REV=2de74e7 RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases2a.txt
OUT=$W RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases2b.txt
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
cp "$W"/*.log "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.log)
