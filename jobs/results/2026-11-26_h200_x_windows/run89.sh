#!/usr/bin/env bash
# One H200: sell-w timings after the prologue/epilogue trims, and ncu of window_kernel on the
# bench lognormal and a regular lognormal (double).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w89; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w89.tgz -C /tmp w89 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/sell_cuda.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
}
run bench_d gen:lognormal:4000000:2.5:0.8:2000 sell-w,cusparse double
run reg_d gen:lognormal:4000000:2.5:0.15:1000 sell-w,cusparse double
for M in gen:lognormal:4000000:2.5:0.8:2000 gen:lognormal:4000000:2.5:0.15:1000; do
  n=$(echo $M | tr ':' '_')
  timeout 200 ncu --clock-control none -k regex:window_kernel -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats $bin $M --backend cuda --format sell-w --precision double --iters 3 --warmup 1 > $W/ncu_$n.txt 2>&1
  echo "ncu $M rc=$?" | tee -a $R/progress.txt
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Mem Busy|Max Bandwidth|Shared Memory Configuration|Dynamic Shared|Block Limit|Eligible|Issued Warp|No Eligible|Bank" $W/ncu_$n.txt | head -40 | tee -a $R/progress.txt
done
p done
