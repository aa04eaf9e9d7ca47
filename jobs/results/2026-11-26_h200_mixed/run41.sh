#!/usr/bin/env bash
# One H200: the bench set in float and double at the final revision (auto and cuSPARSE CSR in the
# caller's order).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w41; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w41.tgz -C /tmp w41 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
for prec in float double; do
  OUT=$W/bench_$prec ORDER_MATRICES="gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz" \
    ORDERS=none PRECISION=$prec RUN_TIMEOUT=100 jobs/bench_order.sh order > $W/bench_$prec.log 2>&1; echo "bench $prec rc=$?"
  tail -14 $W/bench_$prec/order_summary.txt | cut -c1-150 | sed "s|$M/||"
  p "bench $prec"
done
