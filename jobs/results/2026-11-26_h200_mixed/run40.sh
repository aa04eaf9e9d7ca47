#!/usr/bin/env bash
# One H200: mixed precision on one block of more than 2^31 nonzeros (gen:stencil27:440, 2.27 G):
# csr-split (float values rounded in place on the GPU) and auto (HDIA with float values), --check.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w40; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w40.tgz -C /tmp w40 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
for f in csr-split auto; do
  timeout 250 $bin gen:stencil27:440 --format $f --precision mixed --check --iters 20 --warmup 3 > $W/big_$f.log 2>&1
  echo "rc=$? $f: $(grep -oE '[0-9]+ nonzeros' $W/big_$f.log | head -1) | $(grep -E '^ +0 ' $W/big_$f.log | cut -c100-230) | $(grep -E '^  apply ' $W/big_$f.log) | $(grep -oE 'check: .*(passed|FAILED)' $W/big_$f.log)"
  grep -E "^setup|GPU peak|memory:" $W/big_$f.log | head -3
  p "$f"
done
