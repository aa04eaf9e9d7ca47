#!/usr/bin/env bash
# One H200: SELL with perm loaded before the products, 16-bit (position) and 32-bit columns.
# variants, memcheck, and sell (16-bit) against sell-i32, ellr, csr-split and cuSPARSE on the
# shapes of runs 69-70.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w73; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w73.tgz -C /tmp w73 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_sell_ipcsr_build_cuda_test local_kernels_ell_family_build_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
p tests
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(ellr|sell|sell-i32|cusparse|csr|csr-split) " $W/$n.log | cut -c1-78 | tee -a $R/progress.txt
}
F=sell,sell-i32,csr-split,cusparse
for pr in float double; do
  for s in 0.05 0.15; do run ${pr}_s$s gen:lognormal:4000000:2.5:$s:1000 $F $pr; done
  run ${pr}_U1 gen:lognormal:3000000:2.0:0.1:300 $F $pr
  run ${pr}_U2 gen:lognormal:2000000:3.2:0.1:5000 $F $pr
  p $pr
done
p done
