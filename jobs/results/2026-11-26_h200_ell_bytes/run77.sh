#!/usr/bin/env bash
# One H200: 16-bit offsets indexing x from a per-row base (x + row), against 32-bit columns, in
# float and double (SELL on lognormal shapes, ELLR on stencil27), and the ell/sell GPU tests.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w77; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w77.tgz -C /tmp w77 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(ellr|ellr-i32|sell|sell-i32|cusparse) " $W/$n.log | cut -c1-78 | tee -a $R/progress.txt
}
for pr in float double; do
  run ${pr}_s0.05 gen:lognormal:4000000:2.5:0.05:1000 sell,sell-i32,cusparse $pr
  run ${pr}_s0.15 gen:lognormal:4000000:2.5:0.15:1000 sell,sell-i32,cusparse $pr
  run ${pr}_U2 gen:lognormal:2000000:3.2:0.1:5000 sell,sell-i32,cusparse $pr
  run ${pr}_S27 gen:stencil27:150 ellr,ellr-i32,cusparse $pr
done
p bench
f=$B/tests/local_kernels/local_kernels_formats_test
timeout 200 $f --gtest_filter='Cuda*/*sell*:Cuda*/*ellr*' > $W/formats.log 2>&1; echo "formats sell+ellr rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_filter='Cuda*EdgeCases*sell*:Cuda*EdgeCases*ellr*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p done
