#!/usr/bin/env bash
# One H200: is run 104's slowdown cp.async's code or the second launch? A = 4b864a6 (one launch,
# loads and stores), B = ca0e101 (second launch, cp.async), C = ca0e101 with loads and stores.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w105; mkdir -p $W
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w105.tgz -C /tmp w105 2>/dev/null; }
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
conf="-G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr"
rm -rf /tmp/srcC; mkdir -p /tmp/srcC; tar cf - --exclude=./build-gpu --exclude=./.device-data --exclude=./.git . | tar xf - -C /tmp/srcC
cp .device-data/variantC/sell_cuda.cu /tmp/srcC/local_kernels/sell/sell_cuda.cu
md5sum local_kernels/sell/sell_cuda.cu /tmp/srcC/local_kernels/sell/sell_cuda.cu .device-data/old/local_kernels/sell/sell_cuda.cu | tee -a $R/progress.txt
( cmake -S . -B build-gpu $conf > $W/cB.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $W/bB.log 2>&1 ) &
( cmake -S /tmp/srcC -B /tmp/build-C $conf > $W/cC.log 2>&1 && cmake --build /tmp/build-C -j 16 --target distspmv > $W/bC.log 2>&1 ) &
( cmake -S .device-data/old -B /tmp/build-old $conf > $W/cA.log 2>&1 && cmake --build /tmp/build-old -j 16 --target distspmv > $W/bA.log 2>&1 ) &
wait
ls -la build-gpu/apps/distspmv /tmp/build-C/apps/distspmv /tmp/build-old/apps/distspmv | tee -a $R/progress.txt
p "built; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
run() {  # name binary matrix
  local n=$1; timeout 150 $2 $3 --backend cuda --format sell-w,cusparse --precision double --iters 100 --check > $W/$n.log 2>&1
  echo "== $n $3: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell-w|cusparse) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
}
for M in gen:lognormal:4000000:2.5:0.8:2000 gen:lognormal:4000000:2.5:0.15:3080 gen:lognormal:4000000:2.5:0.8:3080; do
  n=$(echo $M | cut -d: -f5,6 | tr ':' '_')
  run A_$n /tmp/build-old/apps/distspmv $M
  run B_$n build-gpu/apps/distspmv $M
  run C_$n /tmp/build-C/apps/distspmv $M
done
run A2_bench /tmp/build-old/apps/distspmv gen:lognormal:4000000:2.5:0.8:2000
run C2_bench /tmp/build-C/apps/distspmv gen:lognormal:4000000:2.5:0.8:2000
p done
