#!/usr/bin/env bash
# One H200: sell-w on lognormal blocks whose windows fit only in part, now that the wide blocks run
# in a launch of their own (run 88: 0.49x with one launch), against sell, csr-split and cuSPARSE.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w101; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w101.tgz -C /tmp w101 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p "built; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
run() {  # name matrix formats precision
  local n=$1; timeout 150 $bin $2 --backend cuda --format $3 --precision $4 --iters 100 --check --json $W/$n.json > $W/$n.log 2>&1
  echo "== $n $2 $4: rc=$? $(grep -ciE 'check.*passed' $W/$n.log) checks passed" | tee -a $R/progress.txt
  grep -E "^ *(sell[a-z0-9-]*|cusparse|csr-split) " $W/$n.log | cut -c1-100 | tee -a $R/progress.txt
  grep -oE "x-window=[0-9]+( wide=[0-9]+)?" $W/$n.log | head -1 | tee -a $R/progress.txt
}
i=0
for M in gen:lognormal:2000000:3.2:0.1:5000 gen:lognormal:4000000:2.5:0.8:3000 gen:lognormal:4000000:2.5:0.8:4000 \
         gen:lognormal:4000000:2.5:0.15:3500 gen:lognormal:3000000:2.7:0.6:3000 gen:lognormal:3000000:2.2:0.4:6000; do
  i=$((i+1))
  timeout 60 $bin info $M > $W/info$i.log 2>&1; grep -E "x windows|suggested" $W/info$i.log | cut -c1-160 | tee -a $R/progress.txt
  run s${i}_d $M sell-w,sell,csr-split,cusparse double
done
run s1_f gen:lognormal:2000000:3.2:0.1:5000 sell-w,sell,cusparse float
run s3_f gen:lognormal:4000000:2.5:0.8:4000 sell-w,sell,cusparse float
p done
