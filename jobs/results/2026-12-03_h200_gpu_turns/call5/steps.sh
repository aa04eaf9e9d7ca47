# Call 5 (2026-12-03 sixth session): jobs/dist_gpu.sh's new stage `rankblocks` on one H200 (the
# ranks of the GPU take turns), after its build stage (distspmv only).
OUT=$W BUILD_TARGETS=distspmv GPUS=1 bash jobs/dist_gpu.sh build rankblocks >"$W/dist_gpu.log" 2>&1
echo "dist_gpu rc $?" >>"$P"
cat "$W/dist_gpu.log" >>"$P"
cp "$W/runs.tgz" "$W/logs.tgz" "$OUT/" 2>/dev/null
