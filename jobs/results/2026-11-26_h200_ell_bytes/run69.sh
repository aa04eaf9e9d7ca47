#!/usr/bin/env bash
# One H200: where ELLR (and SELL) beat the irregular path. Regular-length rows (lognormal
# lengths, small sigma) with local (band 64) and scattered (band 1000) columns, blocks larger
# and smaller than L2; ellr (16-bit), ellr-c32, sell, csr, csr-split, cuSPARSE.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w69; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w69.tgz -C /tmp w69 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(ellr|ellr-c32|cusparse|sell|csr|csr-split) " $W/$n.log | cut -c1-150 | tee -a $R/progress.txt
}
F=ellr,ellr-c32,sell,csr-split,cusparse
for s in 0.05 0.1 0.15 0.3; do for b in 64 1000; do
  run big_s${s}_b$b gen:lognormal:4000000:2.5:$s:$b $F double
done; done
p big
run bigf_s0.1_b64 gen:lognormal:4000000:2.5:0.1:64 $F float
run bigf_s0.15_b1000 gen:lognormal:4000000:2.5:0.15:1000 $F float
p float
for r in 50000 200000 800000 1600000; do
  run small_$r gen:lognormal:$r:2.5:0.15:1000 ellr,ellr-c32,sell,csr,cusparse double
done
run small_f_200000 gen:lognormal:200000:2.5:0.15:1000 ellr,ellr-c32,sell,csr,cusparse float
p done
