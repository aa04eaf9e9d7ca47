#!/usr/bin/env bash
# One H200: --order none, rcm and auto (the sector-ratio rule) on the small matrices, unseen
# graphs and meshes, and unseen generator parameters; double.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w32; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w32.tgz -C /tmp w32 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu
p start
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
ms=""
for m in uk-2007-05@100000 cage11 soc-Slashdot0902 PGPgiantcompo as-caida musae-facebook cit-HepPh email-Enron vsp_model1_crew1_cr42_south31 nh2010 wing musae-deezer ca-CondMat-cc1 facebook-combined; do ms="$ms $M/$m.mtx.gz"; done
OUT=$W/order ORDER_MATRICES="$ms gen:rmat:20:16 gen:lognormal:2000000:2:1:500" ORDERS="none rcm auto" ORDER_ITERS=200 RUN_TIMEOUT=100 \
  jobs/bench_order.sh order > $W/order.log 2>&1; echo "bench rc=$?"
cut -c1-160 $W/order/order_summary.txt | sed "s|$M/||"
for f in $W/order/order/*_auto_auto.log; do echo "$(basename $f): $(grep -oE 'tiles of 2048 entries touch [0-9.]+x' $f | head -1)"; done
p done
