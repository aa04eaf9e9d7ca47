#!/usr/bin/env bash
# One H200 (EXPERIMENT, registry patched so that SELL takes 16-bit offsets in float too): sell
# (16-bit, per-row base) against sell-i32 in float.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w78; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)-sell16-float
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w78.tgz -C /tmp w78 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell|sell-i32|cusparse) " $W/$n.log | cut -c1-78 | tee -a $R/progress.txt
}
run float_s0.05 gen:lognormal:4000000:2.5:0.05:1000 sell,sell-i32,cusparse float
run float_s0.15 gen:lognormal:4000000:2.5:0.15:1000 sell,sell-i32,cusparse float
run float_U2 gen:lognormal:2000000:3.2:0.1:5000 sell,sell-i32,cusparse float
run double_s0.05 gen:lognormal:4000000:2.5:0.05:1000 sell,sell-i32,cusparse double
p done
