#!/usr/bin/env bash
# One H200: sell-w on lognormal blocks whose windows fit in part (bands just past 64 KiB windows),
# against sell, csr-split and cuSPARSE, to set the selector's window_fit threshold.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w103; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w103.tgz -C /tmp w103 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
  grep -oE "x-window=[0-9]+( wide=[0-9]+)?" $W/$n.log | head -1 | tee -a $R/progress.txt
}
i=0
for S in 2.5:0.8:3090 2.5:0.8:3100 2.7:0.6:3095 2.5:0.15:3095 2.5:0.15:3085; do
  i=$((i+1)); M=gen:lognormal:4000000:$S
  timeout 60 $bin info $M > $W/info$i.log 2>&1; grep -E "x windows" $W/info$i.log | cut -c1-100 | tee -a $R/progress.txt
  run p${i}_d $M sell-w,sell,csr-split,cusparse double
  run p${i}_f $M sell-w,sell,cusparse float
done
p done
