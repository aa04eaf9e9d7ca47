#!/usr/bin/env bash
# One H200, the final code: the bench set in double and float (auto against cuSPARSE CSR in the
# caller's order), then auto on the shapes of run 92.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w97; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w97.tgz -C /tmp w97 2>/dev/null; }
M=$PWD/.device-data/matrices; B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
auto() {  # name matrix precision
  local n=$1; timeout 150 $bin $2 --backend cuda --precision $3 --iters 100 --vs-cusparse --check --json $W/$n.json > $W/$n.log 2>&1
  echo "AUTO $n $2 $3: rc=$? $(grep -E '^ +0 ' $W/$n.log | head -1 | awk '{print $12}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
SET="gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz"
for prec in double float; do
  BUILD=$B OUT=$W/bench_$prec ORDER_MATRICES="$SET" ORDERS=none PRECISION=$prec RUN_TIMEOUT=100 jobs/bench_order.sh order > $W/bench_$prec.log 2>&1
  echo "bench $prec rc=$?" >> $R/progress.txt
  tail -16 $W/bench_$prec/order_summary.txt | cut -c1-150 | sed "s|$M/||" >> $R/progress.txt
  p "bench $prec"
done
S="gen:lognormal:3000000:2.7:0.6:3000 gen:lognormal:6000000:2.2:1.0:1500 gen:lognormal:4000000:2.5:0.05:1000 gen:lognormal:4000000:2.5:0.15:1000 gen:lognormal:8000000:2.5:0.15:1000 gen:lognormal:4000000:2.5:0.3:1000 gen:lognormal:3000000:2.0:0.1:300 gen:lognormal:2000000:3.2:0.1:5000 gen:lognormal:3000000:3.0:0.2:100 gen:lognormal:6000000:1.5:0.3:50000 gen:lognormal:5000000:2.8:0.08:20000 gen:lognormal:100000:2.5:0.15:1000"
for prec in double float; do
  i=0; for m in $S; do i=$((i+1)); auto S${i}_$prec $m $prec; done
  p "shapes $prec"
done
p done
