ab() { OUT=$W TARGETS="distspmv" RUN_TIMEOUT=120 bash jobs/ab_gpu.sh "$1"; }
ab /dev/null
# Slashdot's adaptive CSR kernel under Nsight Compute (issue 37: where its 11 us go)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none} $(date +%T)" >>"$P"
[ -n "$NCU" ] && timeout 150 "$NCU" --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters -k regex:adaptive -c 2 \
  build-gpu/apps/distspmv .device-data/matrices/soc-Slashdot0902.mtx.gz --format csr --order degree --cuda-graphs off \
  --iters 2 --warmup 1 >"$W/ncu_slashdot.log" 2>&1
echo "  ncu rc $?" >>"$P"
ab .device-data/cases.txt
