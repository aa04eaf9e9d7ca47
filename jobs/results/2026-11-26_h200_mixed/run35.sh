#!/usr/bin/env bash
# One H200: adaptive CSR, csr-split and cuSPARSE CSR on small irregular matrices with values (0.3-2 M nonzeros).
# (R-MAT and lognormal at unseen scales, the small bench graphs), double and float: where the
# selector's switch from csr to csr-split (and to cuSPARSE in float) belongs.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w34b; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w34b.tgz -C /tmp w34b 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
for m in gen:rmat:14:16 gen:rmat:15:16 gen:rmat:16:16 gen:rmat:16:8 gen:lognormal:30000:2.5:0.8:2000 gen:lognormal:60000:2.5:0.8:2000 gen:lognormal:120000:2.5:0.8:2000 gen:lognormal:120000:2:1.2:20000; do
  for prec in double float; do
    n=$(basename $m); n=${n//:/_}
    timeout 90 $bin $m --format csr,csr-split,cusparse --precision $prec --iters 200 > $W/${n}_$prec.log 2>&1
    nnz=$(grep -oE '[0-9]+ nonzeros' $W/${n}_$prec.log | head -1)
    echo "$n $prec ($nnz): $(grep -E '^(csr|csr-split|cusparse) ' $W/${n}_$prec.log | awk '{printf "%s %s us %s | ", $1, $4, $7}')"
  done
done
p done
