#!/usr/bin/env bash
# One H200: sell-w in float with 16-bit column offsets (experimental entry sell-w16) against
# sell-w (32-bit columns in float) and cuSPARSE.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w106; mkdir -p $W
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w106.tgz -C /tmp w106 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/sell_cuda.cu local_kernels/format_registry.cpp | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j 16 --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
run() {  # name matrix
  local n=$1; timeout 150 $bin $2 --backend cuda --format sell-w16,sell-w,cusparse --precision float --iters 100 --check > $W/$n.log 2>&1
  echo "== $n $2: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell-w16|sell-w|cusparse) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
  grep -oE "sell-w16 .*col16[^;]*" $W/$n.log | head -1 | cut -c1-40 | tee -a $R/progress.txt
}
run bench gen:lognormal:4000000:2.5:0.8:2000
run regular gen:lognormal:4000000:2.5:0.15:1000
run u1 gen:lognormal:3000000:2.7:0.6:3000
run u2 gen:lognormal:6000000:2.2:1.0:1500
run b300 gen:lognormal:3000000:2.0:0.1:300
run bench2 gen:lognormal:4000000:2.5:0.8:2000
p done
