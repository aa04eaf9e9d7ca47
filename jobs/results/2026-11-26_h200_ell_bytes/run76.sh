#!/usr/bin/env bash
# One H200, two ranks sharing it: the distributed GPU setup builds SELL (16-bit columns) and
# ELLR per rank block from the split, and --check passes (block and METIS partitions).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w76; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w76.tgz -C /tmp w76 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
mp() {  # name np args...
  local n=$1 np=$2; shift 2
  timeout 200 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $np -x NCCL_NVLS_ENABLE=0 $bin "$@" --backend cuda --iters 20 --check > $W/$n.log 2>&1
  echo "== $n rc=$? $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | head -1)" | tee -a $R/progress.txt
  grep -E '^ +[0-9]+ +[0-9]+ ' $W/$n.log | awk '{print "   rank", $1, $2, "rows", $3, "nnz", $12}' | tee -a $R/progress.txt
}
mp ln2_block 2 gen:lognormal:4000000:2.5:0.15:1000 --partition block
mp ln2_metis 2 gen:lognormal:1000000:2.5:0.15:1000 --partition metis
mp ln3_float 3 gen:lognormal:3000000:3.2:0.1:5000 --precision float
mp ln2_mixed 2 gen:lognormal:2000000:3.2:0.1:5000 --precision mixed
mp cage3 3 .device-data/matrices/cage11.mtx.gz
p done
