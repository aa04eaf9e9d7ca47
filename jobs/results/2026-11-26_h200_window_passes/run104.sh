#!/usr/bin/env bash
# One H200: sell-w before (4b864a6, one launch) and after (ca0e101: wide windows in a second launch,
# cp.async staging) on blocks where 93-99% of the nonzeros lie in blocks whose window fits.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w104; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w104.tgz -C /tmp w104 2>/dev/null; }
md5sum local_kernels/sell/sell_cuda.cu .device-data/old/local_kernels/sell/sell_cuda.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
conf="-G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr"
cmake -S . -B build-gpu $conf > $W/configure.log 2>&1 && timeout 300 cmake --build build-gpu -j 16 --target distspmv > $W/build.log 2>&1 || { p "new build failed"; exit 1; }
p "built new"
cmake -S .device-data/old -B /tmp/build-old $conf > $W/configure_old.log 2>&1 && timeout 400 cmake --build /tmp/build-old -j 16 --target distspmv > $W/build_old.log 2>&1 || { tail -20 $W/build_old.log; p "old build failed"; exit 1; }
p "built old; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
run() {  # name binary matrix formats precision
  local n=$1; timeout 150 $2 $3 --backend cuda --format $4 --precision $5 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $3 $5: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
  grep -oE "x-window=[0-9]+( wide=[0-9]+)?" $W/$n.log | head -1 | tee -a $R/progress.txt
}
i=0
for S in 2.5:0.15:3080 2.5:0.8:3080 2.5:0.15:3085; do
  i=$((i+1)); M=gen:lognormal:4000000:$S
  run q${i}_new build-gpu/apps/distspmv $M sell-w,sell,cusparse double
  run q${i}_old /tmp/build-old/apps/distspmv $M sell-w,cusparse double
done
run bench_old /tmp/build-old/apps/distspmv gen:lognormal:4000000:2.5:0.8:2000 sell-w,cusparse double
run bench_new build-gpu/apps/distspmv gen:lognormal:4000000:2.5:0.8:2000 sell-w,cusparse double
p done
