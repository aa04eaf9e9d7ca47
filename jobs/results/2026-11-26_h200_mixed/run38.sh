#!/usr/bin/env bash
# One H200: where csr-split's time goes on lognormal and R-MAT (ncu: warp states, scheduler,
# occupancy, memory), double.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w38; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w38.tgz -C /tmp w38 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
for m in gen:lognormal:4000000:2.5:0.8:2000 gen:rmat:22:16; do
  timeout 200 ncu --clock-control none --cache-control none --launch-skip 20 --launch-count 1 -k regex:split_kernel \
    --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis --section SpeedOfLight --section LaunchStats \
    $bin $m --format csr-split --iters 30 > $W/ncu_${m//:/_}.log 2>&1
  echo "== $m"; grep -E "Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Eligible Warps|Issued Warp|No Eligible|Registers Per|Block Limit|Stall|Warp Cycles Per Issued" $W/ncu_${m//:/_}.log | head -40
  p "$m"
done
timeout 120 ncu --clock-control none --cache-control none --launch-skip 20 --launch-count 1 -k regex:split_kernel --metrics \
smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio,smsp__average_warp_latency_issue_stalled_branch_resolving.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio \
  $bin gen:lognormal:4000000:2.5:0.8:2000 --format csr-split --iters 30 > $W/ncu_stalls_lognormal.log 2>&1
grep -E "stalled" $W/ncu_stalls_lognormal.log
p done
