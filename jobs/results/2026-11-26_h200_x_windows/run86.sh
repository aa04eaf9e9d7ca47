#!/usr/bin/env bash
# One H200: PROTOTYPE SELL with x's window in shared memory per block of slices (env-driven),
# on the bench lognormal (band 2000) in double and float.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w86; mkdir -p $W
export DISTSPMV_GIT_REVISION=proto-window GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w86.tgz -C /tmp w86 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/sell_cuda.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4 band=${DSPMV_SELL_BAND:-} spb=${DSPMV_SELL_SPB:-} thr=${DSPMV_SELL_THREADS:-} v3=${DSPMV_SELL_V3:-} minb=${DSPMV_SELL_MINB:-}: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-90 | tee -a $R/progress.txt
}
M=gen:lognormal:4000000:2.5:0.8:2000
export DSPMV_SELL_BAND=2000 DSPMV_SELL_SPB=64 DSPMV_SELL_V3=64
for TM in 512:1 512:3 512:4 256:6 256:8 1024:2; do DSPMV_SELL_THREADS=${TM%:*} DSPMV_SELL_MINB=${TM#*:} run v_${TM/:/_}_d $M sell-s2048,cusparse double; done
M=gen:lognormal:4000000:2.5:0.15:1000
export DSPMV_SELL_BAND=1000
for TM in 512:1 512:3 512:4 256:8 1024:2; do DSPMV_SELL_THREADS=${TM%:*} DSPMV_SELL_MINB=${TM#*:} run r_${TM/:/_}_d $M sell-s2048,cusparse double; done
p done
