#!/usr/bin/env bash
# One H200: build all, cuda tests; the bench set in double with the new selector (auto and
# cuSPARSE CSR, caller's order); auto on unseen irregular sizes (it should tie or beat cuSPARSE).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w36; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w36.tgz -C /tmp w36 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
p start
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built"
timeout 200 ctest --test-dir $B -L cuda -E "watchdog|big" --output-on-failure -j 4 > $W/ctest_cuda.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" $W/ctest_cuda.log | tail -14
p ctest
OUT=$W/bench_double ORDER_MATRICES="gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz" \
  ORDERS=none PRECISION=double RUN_TIMEOUT=100 jobs/bench_order.sh order > $W/bench_double.log 2>&1; echo "bench rc=$?"
tail -16 $W/bench_double/order_summary.txt | cut -c1-150 | sed "s|$M/||"
p "bench double"
for m in gen:rmat:16:16 gen:rmat:19:16 gen:rmat:20:16 gen:lognormal:500000:2.5:0.8:2000 gen:lognormal:120000:2:1.2:20000; do
  for prec in double float; do
    timeout 90 $bin $m --precision $prec --vs-cusparse --check --iters 200 > $W/auto_${m//:/_}_$prec.log 2>&1
    echo "$m $prec: $(grep -E '^ +0 ' $W/auto_${m//:/_}_$prec.log | awk '{print $11, $12}') $(grep -oE 'vs cuSPARSE CSR on the same rows: [0-9.]+ us, [0-9.]+x' $W/auto_${m//:/_}_$prec.log) $(grep -oE 'check: .*(passed|FAILED)' $W/auto_${m//:/_}_$prec.log | cut -c1-40)"
  done
done
p done
