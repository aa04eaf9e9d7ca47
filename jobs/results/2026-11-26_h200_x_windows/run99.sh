#!/usr/bin/env bash
# One H200: auto on the bench lognormal in double and in mixed precision (sell-w keeps double
# values), against cuSPARSE CSR in double.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w99; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w99.tgz -C /tmp w99 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
auto() {  # name matrix precision
  local n=$1; timeout 150 $bin $2 --backend cuda --precision $3 --iters 100 --vs-cusparse --check --json $W/$n.json > $W/$n.log 2>&1
  echo "AUTO $n $2 $3: rc=$? $(grep -E '^ +0 ' $W/$n.log | head -1 | awk '{print $12}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log)" | tee -a $R/progress.txt
}
M=gen:lognormal:4000000:2.5:0.8:2000
auto d1 $M double
auto m1 $M mixed
auto d2 $M double
auto m2 $M mixed
p done
