#!/usr/bin/env bash
# One H200: x windows in the selector. GPU statistics = host (selector cuda test), GPU builder and
# format tests, memcheck of sell-w; then the bench set in double and float (auto against cuSPARSE
# CSR in the caller's order).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w91; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w91.tgz -C /tmp w91 2>/dev/null; }
M=$PWD/.device-data/matrices; B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu local_kernels/format_selector*.cpp local_kernels/format_selector_cuda.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_sell_ipcsr_build_cuda_test local_kernels_format_selector_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
T=$B/tests/local_kernels
for t in local_kernels_format_selector_cuda_test local_kernels_sell_ipcsr_build_cuda_test; do
  timeout 200 $T/$t > $W/$t.log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/$t.log | tr '\n' ' ')" | tee -a $R/progress.txt
  grep -E "Failure" -A6 $W/$t.log | head -20 | tee -a $R/progress.txt
done
timeout 200 $T/local_kernels_formats_test --gtest_filter='Cuda*/*sell*' > $W/formats.log 2>&1; echo "formats sell rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T/local_kernels_formats_test --gtest_filter='Cuda*EdgeCases*sell_w*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
SET="gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz"
for prec in double float; do
  BUILD=$B OUT=$W/bench_$prec ORDER_MATRICES="$SET" ORDERS=none PRECISION=$prec RUN_TIMEOUT=100 jobs/bench_order.sh order > $W/bench_$prec.log 2>&1
  echo "bench $prec rc=$?" >> $R/progress.txt
  tail -16 $W/bench_$prec/order_summary.txt | cut -c1-150 | sed "s|$M/||" >> $R/progress.txt
  p "bench $prec"
done
p done
