#!/usr/bin/env bash
# One H200: HDIA with float values (mixed): blocks per SM of the float-value kernel (its register
# cap) and diagonals in flight, on poisson3d:200 and stencil27:150, against double HDIA.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w31; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w31.tgz -C /tmp w31 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv; F=local_kernels/hdia/hdia_cuda.cu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
cp $F /tmp/hdia_orig.cu
for v in "8 8" "12 8" "16 8" "8 12" "12 12" "16 16"; do
  read mb fl <<<"$v"
  cp /tmp/hdia_orig.cu $F
  sed -i "s/? 8 : min_blocks;  \/\/ F32MB/? $mb : min_blocks;/" $F
  [ $fl != 8 ] && sed -i "s/^constexpr int in_flight = 8;/constexpr int in_flight = $fl;/" $F
  timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build_${mb}_$fl.log 2>&1 || { grep -E "error" -A3 $W/build_${mb}_$fl.log | head; continue; }
  for m in gen:poisson3d:200 gen:stencil27:150; do
    for prec in mixed double; do
      [ $prec = double ] && [ "$v" != "8 8" ] && [ $fl = 8 ] && continue
      timeout 60 $bin $m --format hdia --precision $prec --iters 200 --check > $W/${m//:/_}_${prec}_mb${mb}_fl$fl.log 2>&1
      echo "mb=$mb fl=$fl $m $prec: $(grep -E '^ +0 ' $W/${m//:/_}_${prec}_mb${mb}_fl$fl.log | awk '{print $11}') us $(grep -oE 'check: .*(passed|FAILED)' $W/${m//:/_}_${prec}_mb${mb}_fl$fl.log | cut -c1-40)"
    done
  done
  p "variant $v"
done
cp /tmp/hdia_orig.cu $F
