#!/usr/bin/env bash
# One H200: sell-w whose cut slices skip their rows' padding (row_length on the device); GPU
# tests and memcheck of the sell variants.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w102; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w102.tgz -C /tmp w102 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu local_kernels/sell/*.cpp | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv local_kernels_sell_ipcsr_build_cuda_test local_kernels_formats_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
run() {  # name matrix formats precision [env]
  local n=$1; env ${5:-X=0} timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
  grep -oE "sell-w +C=[^|]*" $W/$n.log | head -1 | cut -c1-120 | tee -a $R/progress.txt
}
M=gen:lognormal:4000000:2.5:0.8:2000
run bd1 $M sell-w,cusparse double
run bd2 $M sell-w,cusparse double
run bf1 $M sell-w,cusparse float
run rd1 gen:lognormal:4000000:2.5:0.15:1000 sell-w,cusparse double
run u1 gen:lognormal:3000000:2.7:0.6:3000 sell-w,cusparse double
run u2 gen:lognormal:6000000:2.2:1.0:1500 sell-w,csr-split,cusparse double
run u2f gen:lognormal:6000000:2.2:1.0:1500 sell-w,cusparse float
p timed
$B/tests/local_kernels/local_kernels_sell_ipcsr_build_cuda_test > $W/gpu_build.log 2>&1; echo "gpu build test rc=$? $(grep -E 'PASSED|FAILED' $W/gpu_build.log | tr '\n' ' ')" | tee -a $R/progress.txt
$B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*sell*' > $W/formats.log 2>&1; echo "formats sell rc=$? $(grep -E 'PASSED|FAILED' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*EdgeCases*sell*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p done
