#!/usr/bin/env bash
# One H200: pattern matrices (every value 1) at unseen scales: adaptive CSR, csr-split and
# cuSPARSE CSR, double and float (the selector's pattern rule).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w34; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w34.tgz -C /tmp w34 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
for g in rmat:18:16 rmat:20:16 lognormal:1000000:2.5:0.8:2000 rmat:21:16; do
  f=/tmp/pat_${g//:/_}.mtx
  timeout 120 $bin convert gen:$g /tmp/v.mtx > /dev/null 2>&1 || { echo "convert $g failed"; continue; }
  awk 'NR==1{sub(/real|integer/,"pattern"); print; next} /^%/{print; next} !d{print; d=1; next} {print $1, $2}' /tmp/v.mtx > $f
  rm -f /tmp/v.mtx
  p "made $g"
  for prec in double float; do
    timeout 120 $bin $f --format csr,csr-split,cusparse --precision $prec --iters 200 > $W/pat_${g//:/_}_$prec.log 2>&1
    nnz=$(grep -oE '[0-9]+ nonzeros' $W/pat_${g//:/_}_$prec.log | head -1)
    echo "pattern $g $prec ($nnz): $(grep -E '^(csr|csr-split|cusparse) ' $W/pat_${g//:/_}_$prec.log | awk '{printf "%s %s us %s | ", $1, $4, $7}') $(grep -oE 'kernel=[a-z]+ ?[a-z]*' $W/pat_${g//:/_}_$prec.log | head -1)"
  done
  rm -f $f
done
p done
