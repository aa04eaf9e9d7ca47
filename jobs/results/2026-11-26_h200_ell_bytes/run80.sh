#!/usr/bin/env bash
# One H200 (EXPERIMENT): SELL kernel variants for 16-bit offsets in float (registry patched so
# that SELL takes them in float too). base; A: offsets through the read-only path (ld.global.nc);
# D: the four offsets loaded before the four values; AD: both.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w80; mkdir -p $W
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w80.tgz -C /tmp w80 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
sed -i 's/offsets \&\& sizeof(V) == sizeof(double)}/offsets}/' local_kernels/format_registry.cpp
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell|sell-i32|cusparse) " $W/$n.log | cut -c1-60 | tee -a $R/progress.txt
}
for v in base A D AD; do
  cp .device-data/v80/$v.cu local_kernels/sell/sell_cuda.cu
  export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)-v80-$v
  timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build_$v.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build_$v.log | head -20; p "build $v failed"; continue; }
  p "built $v"
  run ${v}_f_s0.15 gen:lognormal:4000000:2.5:0.15:1000 sell,sell-i32 float
  run ${v}_f_U2 gen:lognormal:2000000:3.2:0.1:5000 sell,sell-i32 float
  run ${v}_d_s0.05 gen:lognormal:4000000:2.5:0.05:1000 sell,sell-i32 double
done
p done
