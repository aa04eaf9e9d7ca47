#!/usr/bin/env bash
# One H200: build all, cuda tests, memcheck (CSR and HDIA edge cases, mixed included), then the
# bench set in PRECISION (auto and cuSPARSE CSR, caller's order).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w30; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w30.tgz -C /tmp w30 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
p start
if [ "${TESTS:-1}" = 1 ]; then
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built"
timeout 200 ctest --test-dir $B -L cuda -E "watchdog|big" --output-on-failure -j 4 > $W/ctest_cuda.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" $W/ctest_cuda.log | tail -14
p ctest
timeout 200 compute-sanitizer --tool memcheck $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*/*EdgeCases*csr*:Cuda*/*EdgeCases*hdia*' > $W/memcheck_csr_hdia.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|PASSED|FAILED" $W/memcheck_csr_hdia.log | tail -4
p memcheck
fi
for prec in ${PRECISIONS:-mixed}; do
  OUT=$W/bench_$prec ORDER_MATRICES="gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz" \
    ORDERS=none PRECISION=$prec RUN_TIMEOUT=100 jobs/bench_order.sh order > $W/bench_$prec.log 2>&1; echo "bench $prec rc=$?"
  tail -16 $W/bench_$prec/order_summary.txt | cut -c1-150
  p "bench $prec"
done
