#!/usr/bin/env bash
# One H200: the bytes rule for short rows (ELLR / SELL / irregular path) on generator parameters
# it was not made from, and auto with --vs-cusparse on them and on the earlier failure.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w70; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w70.tgz -C /tmp w70 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 420 cmake --build $B -j $(nproc) --target distspmv local_kernels_format_selector_cuda_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
timeout 100 ctest --test-dir $B -R "format_selector_cuda" --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|Failed' $W/ctest.log | tr '\n' ' ')" | tee -a $R/progress.txt
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(ellr|sell|cusparse|csr|csr-split) " $W/$n.log | cut -c1-78 | tee -a $R/progress.txt
}
auto() {  # name matrix precision
  local n=$1; timeout 150 $bin $2 --backend cuda --precision $3 --iters 100 --vs-cusparse --check > $W/$n.log 2>&1
  echo "AUTO $n $2 $3: rc=$? $(grep -E '^ +0 ' $W/$n.log | head -1 | awk '{print $12}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
F=ellr,sell,csr-split,cusparse
U="gen:lognormal:3000000:2.0:0.1:300 gen:lognormal:2000000:3.2:0.1:5000 gen:lognormal:3000000:3.0:0.2:100 gen:lognormal:6000000:1.5:0.3:50000 gen:lognormal:5000000:2.8:0.08:20000"
i=0; for m in $U; do i=$((i+1)); run U${i}_d $m $F double; done
p unseen_double
run U6_d gen:lognormal:100000:2.5:0.15:1000 ellr,sell,csr,cusparse double
run U7_d gen:lognormal:140000:2.5:0.15:1000 ellr,sell,csr,cusparse double
i=0; for m in $U; do i=$((i+1)); [ $i -le 3 ] && run U${i}_f $m $F float; done
p unseen_float
i=0; for m in $U; do i=$((i+1)); auto A${i}_d $m double; done
auto A6_d gen:lognormal:100000:2.5:0.15:1000 double
auto A7_d gen:lognormal:140000:2.5:0.15:1000 double
auto LN_d gen:lognormal:8000000:2.5:0.15:1000 double
auto LN_f gen:lognormal:8000000:2.5:0.15:1000 float
auto A1_f gen:lognormal:3000000:2.0:0.1:300 float
auto cage .device-data/matrices/cage11.mtx.gz double
p done
