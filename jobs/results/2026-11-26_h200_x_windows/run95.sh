#!/usr/bin/env bash
# One H200: sell-w with the slice offsets in shared memory, the next item taken at the end: timings
# against runs 90-94.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w95; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w95.tgz -C /tmp w95 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu local_kernels/sell/*.cpp | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
}
run bench_d gen:lognormal:4000000:2.5:0.8:2000 sell-w,cusparse double
run bench_f gen:lognormal:4000000:2.5:0.8:2000 sell-w,cusparse float
run reg_d gen:lognormal:4000000:2.5:0.15:1000 sell-w,cusparse double
run reg_f gen:lognormal:4000000:2.5:0.15:1000 sell-w,cusparse float
run F1_d gen:lognormal:3000000:2.7:0.6:3000 sell-w,cusparse double
run F2_d gen:lognormal:6000000:2.2:1.0:1500 sell-w,cusparse double
p done
