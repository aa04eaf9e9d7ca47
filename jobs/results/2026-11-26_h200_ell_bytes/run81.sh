#!/usr/bin/env bash
# One H200: the SELL kernel with the columns loaded before the values: the CUDA format tests of the
# sell variants, memcheck, and auto on the SELL shapes in float and double.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w81; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w81.tgz -C /tmp w81 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/sell_cuda.cu local_kernels/format_registry.cpp | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_sell_ipcsr_build_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
grep -c "sizeof(V) == sizeof(double)" local_kernels/format_registry.cpp | sed 's/^/registry double-only lines: /' | tee -a $R/progress.txt
p built
f=$B/tests/local_kernels/local_kernels_formats_test
timeout 200 $f --gtest_filter='Cuda*/*sell*' > $W/formats.log 2>&1; echo "formats sell rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $W/formats.log | tr '\n' ' ')" | tee -a $R/progress.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_filter='Cuda*EdgeCases*sell*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
auto() {  # name matrix precision
  local n=$1; timeout 150 $bin $2 --backend cuda --precision $3 --iters 100 --vs-cusparse --check --json $W/$n.json > $W/$n.log 2>&1
  echo "AUTO $n $2 $3: rc=$? $(grep -E '^ +0 ' $W/$n.log | head -1 | awk '{print $12}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
for pr in float double; do
  auto s0.05_$pr gen:lognormal:4000000:2.5:0.05:1000 $pr
  auto s0.15_$pr gen:lognormal:4000000:2.5:0.15:1000 $pr
  auto U2_$pr gen:lognormal:2000000:3.2:0.1:5000 $pr
  auto U5_$pr gen:lognormal:5000000:2.8:0.08:20000 $pr
done
p done
