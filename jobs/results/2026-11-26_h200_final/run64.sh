#!/usr/bin/env bash
# One H200, the submitted revision: the bench set in double and float (auto and cuSPARSE CSR,
# caller's order), and rmat:22:16 with --order rcm (the order phase now threaded).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w64; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w64.tgz -C /tmp w64 2>/dev/null; }
M=$PWD/.device-data/matrices; B=build-gpu
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SET="gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz"
for prec in ${PRECISIONS:-double}; do
  BUILD=$B OUT=$W/bench_$prec ORDER_MATRICES="$SET" ORDERS=none PRECISION=$prec RUN_TIMEOUT=100 jobs/bench_order.sh order > $W/bench_$prec.log 2>&1
  echo "bench $prec rc=$?" >> $R/progress.txt
  tail -16 $W/bench_$prec/order_summary.txt | cut -c1-150 | sed "s|$M/||" >> $R/progress.txt
  p "bench $prec"
done
if [ -n "${RCM:-}" ]; then
  BUILD=$B OUT=$W/rcm ORDER_MATRICES="gen:rmat:22:16" ORDERS=rcm PRECISION=double RUN_TIMEOUT=150 jobs/bench_order.sh order > $W/rcm.log 2>&1
  echo "rcm rc=$?" >> $R/progress.txt
  tail -4 $W/rcm/order_summary.txt | cut -c1-150 >> $R/progress.txt
  grep -h "setup:" $W/rcm/order/*.log >> $R/progress.txt
  p rcm
fi
p done
