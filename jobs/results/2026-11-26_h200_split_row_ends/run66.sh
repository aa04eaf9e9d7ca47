#!/usr/bin/env bash
# One H200: split tiles that end with a row (no carry fix-up where no row is cut): the CSR GPU
# tests, memcheck on csr-split's edge cases, and csr-split against cuSPARSE.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w66; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w66.tgz -C /tmp w66 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test local_kernels_csr_build_cuda_test local_kernels_csr_tiles_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 200 ctest --test-dir $B -R "local_kernels_formats|csr_build_cuda|csr_tiles" --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|Failed' $W/ctest.log | tr '\n' ' ')" | tee -a $R/progress.txt
f=$(find $B -name local_kernels_formats_test -type f | head -1)
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_filter='Cuda*EdgeCases*csr_split*:Cuda*EdgeCases*csr_merge*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
run() {  # name matrix format precision
  local n=$1; timeout 120 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --vs-cusparse --check > $W/$n.log 2>&1
  echo "$n: rc=$? local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'tiles=[0-9]+' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
L=gen:lognormal:4000000:2.5:0.8:2000
run L_split $L csr-split double
run L_split2 $L csr-split double
run L_auto $L auto double
run L500_split gen:lognormal:3000000:3:0.6:500 csr-split double
run P_split gen:poisson3d:200 csr-split double
run R_split gen:rmat:22:16 csr-split double
run R_split2 gen:rmat:22:16 csr-split double
run L_f_split $L csr-split float
run L_mixed $L csr-split mixed
p done
