#!/usr/bin/env bash
# One H200 (diagnosis): why SELL with 16-bit column offsets is slower in float. SASS of the float
# kernels, and ncu of sell (16-bit, registry patched) against sell-i32 in float.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w79; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)-sell16-float
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w79.tgz -C /tmp w79 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
sed -i 's/offsets \&\& sizeof(V) == sizeof(double)}/offsets}/' local_kernels/format_registry.cpp
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
o=$(find $B -name 'sell_cuda.cu.o' | head -1)
cuobjdump -sass $o > $W/sell.sass 2>&1; echo "sass rc=$? $(wc -l < $W/sell.sass) lines" | tee -a $R/progress.txt
M=gen:lognormal:4000000:2.5:0.15:1000
for f in sell sell-i32; do
  timeout 200 ncu --clock-control none -k regex:sell_kernel -c 3 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats $bin $M --backend cuda --format $f --precision float --iters 3 --warmup 1 > $W/ncu_$f.txt 2>&1
  echo "ncu $f rc=$?" | tee -a $R/progress.txt
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Mem Busy|Max Bandwidth" $W/ncu_$f.txt | head -30 | tee -a $R/progress.txt
  p "ncu $f"
done
p done
