#!/usr/bin/env bash
# One H200: ELLR with 16-bit column offsets. The ELL family's GPU builder tests, every format's
# CUDA tests on the ellr variants, memcheck, and ellr (16-bit) against ellr-c32 and cuSPARSE.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w68; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w68.tgz -C /tmp w68 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_ell_family_build_cuda_test local_kernels_ellr_build_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 200 ctest --test-dir $B -R "ell_family_build_cuda|ellr_build" --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|Failed' $W/ctest.log | tr '\n' ' ')" | tee -a $R/progress.txt
f=$(find $B -name local_kernels_formats_test -type f | head -1)
timeout 200 $f --gtest_filter='Cuda*/*ellr*' > $W/formats.log 2>&1; echo "formats ellr rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_filter='Cuda*EdgeCases*ellr*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(ellr|ellr-c32|cusparse|hdia|csr|csr-split|copy)" $W/$n.log | tee -a $R/progress.txt
}
run S27_d gen:stencil27:150 ellr,ellr-c32,hdia,cusparse double
run P_d gen:poisson3d:200 ellr,ellr-c32,hdia,cusparse double
run LN_d gen:lognormal:8000000:2.5:0.15:1000 ellr,ellr-c32,cusparse double
run S27_f gen:stencil27:150 ellr,ellr-c32,cusparse float
run LN_f gen:lognormal:8000000:2.5:0.15:1000 ellr,ellr-c32,cusparse float
run S27_d2 gen:stencil27:150 ellr,ellr-c32,cusparse double
run cage .device-data/matrices/cage11.mtx.gz ellr,ellr-c32,cusparse double
p bench
timeout 100 $bin gen:lognormal:8000000:2.5:0.15:1000 --backend cuda --iters 50 --vs-cusparse --check > $W/LN_auto.log 2>&1; echo "LN auto rc=$?"; grep -E "format|vs cuSPARSE|check" $W/LN_auto.log | head -8 | tee -a $R/progress.txt
p mixed
for m in gen:rmat:19:16 gen:rmat:20:16 gen:lognormal:500000:2.5:0.8:2000 gen:lognormal:1000000:2.5:0.8:2000 gen:lognormal:1500000:2.5:0.8:2000; do
  n=mx_$(echo $m | tr ':' '_'); run $n $m csr,csr-split,cusparse mixed
done
p done
