#!/usr/bin/env bash
# One H200: auto (rule 2a, x windows) on the short-row shapes of runs 68-75 and two more band widths,
# double and float.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w92; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w92.tgz -C /tmp w92 2>/dev/null; }
M=$PWD/.device-data/matrices; B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
auto() {  # name matrix precision
  local n=$1; timeout 150 $bin $2 --backend cuda --precision $3 --iters 100 --vs-cusparse --check --json $W/$n.json > $W/$n.log 2>&1
  echo "AUTO $n $2 $3: rc=$? $(grep -E '^ +0 ' $W/$n.log | head -1 | awk '{print $12}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
S="gen:lognormal:3000000:2.7:0.6:3000 gen:lognormal:6000000:2.2:1.0:1500 gen:lognormal:4000000:2.5:0.05:1000 gen:lognormal:4000000:2.5:0.15:1000 gen:lognormal:8000000:2.5:0.15:1000 gen:lognormal:4000000:2.5:0.3:1000 gen:lognormal:3000000:2.0:0.1:300 gen:lognormal:2000000:3.2:0.1:5000 gen:lognormal:3000000:3.0:0.2:100 gen:lognormal:6000000:1.5:0.3:50000 gen:lognormal:5000000:2.8:0.08:20000 gen:lognormal:100000:2.5:0.15:1000"
for prec in double float; do
  i=0; for m in $S; do i=$((i+1)); auto S${i}_$prec $m $prec; done
  p "shapes $prec"
done
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
}
for prec in double float; do
  run F1_$prec gen:lognormal:3000000:2.7:0.6:3000 sell-w,sell,csr-split,cusparse $prec
  run F2_$prec gen:lognormal:6000000:2.2:1.0:1500 sell-w,sell,csr-split,cusparse $prec
done
p done
