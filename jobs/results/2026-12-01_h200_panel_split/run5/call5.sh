#!/usr/bin/env bash
# Call 5 (2026-12-01): panel columns in 16 bits per round (HEAD) against 1f67cd9, one H200; the
# panel tests first (GPU builder, formats with the shared matrices, the 2^31 block).
set -u
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
export DISTSPMV_MATRICES=$PWD/.device-data/matrices
W=$R/abwork; mkdir -p "$W"
( while true; do cp "$W/progress.txt" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done ) &
SYNC=$!
P=$W/progress.txt
# build both, run the tests of new, then the cases (ab_gpu.sh with an empty case list builds only)
: > "$W/none.txt"
OUT=$W OLD_SRC=$R/.device-old OLD_REV=1f67cd9 \
  TARGETS="distspmv local_kernels_panel_build_cuda_test local_kernels_formats_test local_kernels_big_block_test" \
  bash jobs/ab_gpu.sh "$W/none.txt"
for t in local_kernels_panel_build_cuda_test local_kernels_big_block_test; do
  echo "test $t $(date +%T)" >> "$P"
  timeout 150 build-gpu/tests/local_kernels/$t --gtest_filter='*anel*' > "$W/$t.log" 2>&1; echo "  rc $?" >> "$P"; grep -E "PASSED|FAILED|Failure" "$W/$t.log" | head -5 >> "$P"
done
echo "formats $(date +%T)" >> "$P"
timeout 150 build-gpu/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*panel*' > "$W/formats_panel.log" 2>&1; echo "  rc $?" >> "$P"
grep -E "PASSED|FAILED" "$W/formats_panel.log" | head -5 >> "$P"
sed -i '/^done /d' "$P"
OUT=$W OLD_SRC=$R/.device-old OLD_REV=1f67cd9 TARGETS=distspmv bash jobs/ab_gpu.sh .device-data/cases5.txt
echo "end $(date +%T)" >> "$P"
kill $SYNC; cp "$W/progress.txt" "$W/runs.tgz" "$OUT/"
tar -czf "$OUT/logs.tgz" -C "$W" $(cd "$W" && ls *.log)
