#!/usr/bin/env bash
# One H200: sell-w with the slice offsets in shared memory and the next item taken early: timings
# against runs 90-92, then the GPU builder test, format tests and memcheck of the sell variants.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w94; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w94.tgz -C /tmp w94 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu local_kernels/sell/*.cpp | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_sell_ipcsr_build_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
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
t=$B/tests/local_kernels/local_kernels_sell_ipcsr_build_cuda_test
timeout 200 $t > $W/gpu_build.log 2>&1; echo "gpu build test rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/gpu_build.log | tr '\n' ' ')" | tee -a $R/progress.txt
grep -E "Failure" -A5 $W/gpu_build.log | head -20 | tee -a $R/progress.txt
f=$B/tests/local_kernels/local_kernels_formats_test
timeout 200 $f --gtest_filter='Cuda*/*sell*' > $W/formats.log 2>&1; echo "formats sell rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
grep -E "Failure" -A5 $W/formats.log | head -20 | tee -a $R/progress.txt
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_filter='Cuda*EdgeCases*sell*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p done
