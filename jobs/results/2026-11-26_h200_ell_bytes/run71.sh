#!/usr/bin/env bash
# One H200: SELL with 16-bit column offsets. GPU builder tests, the CUDA format tests of the sell
# variants, memcheck, and sell (16-bit) against sell-i32, ellr, csr-split and cuSPARSE on the
# shapes of runs 69-70.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w71; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w71.tgz -C /tmp w71 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_sell_ipcsr_build_cuda_test local_kernels_ell_family_build_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 200 ctest --test-dir $B -R "sell_ipcsr_build_cuda|ell_family_build_cuda" --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|Failed' $W/ctest.log | tr '\n' ' ')" | tee -a $R/progress.txt
f=$(find $B -name local_kernels_formats_test -type f | head -1)
timeout 200 $f --gtest_filter='Cuda*/*sell*:Cuda*/*ellr*' > $W/formats.log 2>&1; echo "formats sell+ellr rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_filter='Cuda*EdgeCases*sell*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(ellr|sell|sell-i32|cusparse|csr|csr-split) " $W/$n.log | cut -c1-78 | tee -a $R/progress.txt
}
F=sell,sell-i32,ellr,csr-split,cusparse
for s in 0.05 0.1 0.15 0.3; do run b_s$s gen:lognormal:4000000:2.5:$s:1000 $F double; done
p big
U="gen:lognormal:3000000:2.0:0.1:300 gen:lognormal:2000000:3.2:0.1:5000 gen:lognormal:3000000:3.0:0.2:100 gen:lognormal:6000000:1.5:0.3:50000 gen:lognormal:5000000:2.8:0.08:20000"
i=0; for m in $U; do i=$((i+1)); run U${i}_d $m $F double; done
p unseen
run f_s0.05 gen:lognormal:4000000:2.5:0.05:1000 $F float
run f_s0.15 gen:lognormal:4000000:2.5:0.15:1000 $F float
run f_s0.3 gen:lognormal:4000000:2.5:0.3:1000 $F float
run U3_f gen:lognormal:3000000:3.0:0.2:100 $F float
run S27_d gen:stencil27:150 sell,sell-i32,ellr,cusparse double
p done
