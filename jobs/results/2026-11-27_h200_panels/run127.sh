#!/usr/bin/env bash
# The bench set with --format auto --order auto, double and float: both ratios against cuSPARSE CSR.
set -u
W=$OUT; B=build-gpu; bin=$B/apps/distspmv; M=$PWD/.device-data/matrices
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/cfg.log 2>&1 && cmake --build $B -j 16 --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
auto() {  # name matrix precision
  local n=$1; timeout 100 $bin $2 --backend cuda --precision $3 --order auto --iters 100 --vs-cusparse --check --json $W/$n.json > $W/$n.log 2>&1
  echo "AUTO $n $3: rc=$? $(grep -E '^ +0 ' $W/$n.log | head -1 | awk '{print $NF}') local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: .*' $W/$n.log | head -1 | cut -c36-140); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $W/progress.txt
}
for prec in double float; do
  i=0; for m in gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000 $M/uk-2007-05@100000.mtx.gz $M/soc-Slashdot0902.mtx.gz $M/cage11.mtx.gz; do
    i=$((i+1)); auto b${i}_$prec $m $prec
  done
done
