#!/usr/bin/env bash
# One H200: csr-split's blocks per SM (__launch_bounds__ min blocks, DISTSPMV_SPLIT_BLOCKS; -1 =
# as built: 6 unstreamed, none streamed in double).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w67; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w67.tgz -C /tmp w67 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run() {  # name matrix precision hint
  local n=$1; DISTSPMV_SPLIT_BLOCKS=$4 timeout 120 $bin $2 --backend cuda --format csr-split --precision $3 --iters 100 --vs-cusparse --check > $W/$n.log 2>&1
  echo "$n: rc=$? local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^(]*' $W/$n.log | head -1); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | grep -oE 'passed|FAILED')" | tee -a $R/progress.txt
}
L=gen:lognormal:4000000:2.5:0.8:2000
for h in -1 5 7 -1; do run L_d_b$h $L double $h; done
for h in -1 5 7; do run P_b$h gen:poisson3d:200 double $h; done
p more
for h in -1 6 -1; do run R_b$h gen:rmat:22:16 double $h; done
p done
