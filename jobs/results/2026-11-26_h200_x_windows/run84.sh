#!/usr/bin/env bash
# One H200: PROTOTYPE SELL with x's window in shared memory per block of slices (env-driven),
# on the bench lognormal (band 2000) in double and float.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w84; mkdir -p $W
export DISTSPMV_GIT_REVISION=proto-window GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w84.tgz -C /tmp w84 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/sell_cuda.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4 band=${DSPMV_SELL_BAND:-} spb=${DSPMV_SELL_SPB:-} thr=${DSPMV_SELL_THREADS:-} K=${DSPMV_SELL_CHUNK:-} items=${DSPMV_SELL_ITEMS:-}: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-90 | tee -a $R/progress.txt
}
M=gen:lognormal:4000000:2.5:0.8:2000
export DSPMV_SELL_BAND=2000 DSPMV_SELL_SPB=64
for K in 16 32 64; do for T in 256 512; do DSPMV_SELL_CHUNK=$K DSPMV_SELL_THREADS=$T run c${K}_${T}_d $M sell-s2048,sell-s1024,cusparse double; done; done
DSPMV_SELL_CHUNK=32 DSPMV_SELL_THREADS=512 DSPMV_SELL_SPB=32 run c32_512_32_d $M sell-s1024,cusparse double
DSPMV_SELL_CHUNK=32 DSPMV_SELL_THREADS=512 DSPMV_SELL_ITEMS=96 run c32_512_i96_d $M sell-s2048,cusparse double
DSPMV_SELL_CHUNK=32 DSPMV_SELL_THREADS=512 run c32_512_f $M sell-s2048,csr-split,cusparse float
M=gen:lognormal:4000000:2.5:0.15:1000
export DSPMV_SELL_BAND=1000 DSPMV_SELL_SPB=64
for K in 32 64; do DSPMV_SELL_CHUNK=$K DSPMV_SELL_THREADS=512 run r${K}_512_d $M sell,sell-s2048,cusparse double; done
p done
