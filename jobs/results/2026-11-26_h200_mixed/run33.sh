#!/usr/bin/env bash
# One H200: adaptive CSR, csr-split and cuSPARSE CSR on irregular matrices of 1-34 M nonzeros
# (R-MAT and lognormal at unseen scales, the small bench graphs), double and float: where the
# selector's switch from csr to csr-split (and to cuSPARSE in float) belongs.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w33; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w33.tgz -C /tmp w33 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
for m in gen:rmat:17:16 gen:rmat:18:16 gen:rmat:19:16 gen:rmat:20:16 gen:rmat:20:8 gen:rmat:21:8 gen:rmat:21:16 \
         gen:lognormal:250000:2.5:0.8:2000 gen:lognormal:500000:2.5:0.8:2000 gen:lognormal:1000000:2.5:0.8:2000 gen:lognormal:1000000:2:1.2:20000 \
         $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/musae-facebook.mtx.gz; do
  for prec in double float; do
    n=$(basename $m); n=${n//:/_}
    timeout 90 $bin $m --format csr,csr-split,cusparse --precision $prec --iters 200 > $W/${n}_$prec.log 2>&1
    nnz=$(grep -oE '[0-9]+ nonzeros' $W/${n}_$prec.log | head -1)
    echo "$n $prec ($nnz): $(grep -E '^(csr|csr-split|cusparse) ' $W/${n}_$prec.log | awk '{printf "%s %s us %s | ", $1, $4, $7}')"
  done
done
p done
