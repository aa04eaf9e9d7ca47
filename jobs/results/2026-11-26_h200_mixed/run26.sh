#!/usr/bin/env bash
# One H200: build all, cuda tests, then --precision mixed against double and float on the two
# irregular bench matrices (format list: one process, cuSPARSE double as the baseline), and the
# distributed run with auto + --vs-cusparse + --check.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w26; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w26.tgz -C /tmp w26 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
p start
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 330 cmake --build $B -j $(nproc) --target distspmv > $W/build_app.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build_app.log | head -40; p "build failed"; exit 1; }
p "built distspmv"
(timeout 400 cmake --build $B -j 12 > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log) &
bpid=$!
for m in gen:lognormal:4000000:2.5:0.8:2000 gen:rmat:22:16; do
  for prec in double mixed float; do
    timeout 90 $bin $m --format csr,csr-split,cusparse --precision $prec --iters 100 --check > $W/bench_${m//:/_}_$prec.log 2>&1
    echo "== $m $prec"; grep -E "^(csr|csr-split|cusparse) |check:" $W/bench_${m//:/_}_$prec.log
  done
  p "$m bench"
done
for m in gen:lognormal:4000000:2.5:0.8:2000 gen:rmat:22:16 gen:poisson3d:200; do
  timeout 120 $bin $m --precision mixed --vs-cusparse --check --iters 100 --json $W/dist_${m//:/_}_mixed.json > $W/dist_${m//:/_}_mixed.log 2>&1
  echo "== dist $m mixed"; grep -E "^ +0 |vs cuSPARSE|cusparse|check:|memory" $W/dist_${m//:/_}_mixed.log | cut -c1-220
done
p "dist done"
wait $bpid; tail -2 $W/build.log
p "built all"
timeout 200 ctest --test-dir $B -L cuda -E "watchdog|big" --output-on-failure -j 4 > $W/ctest_cuda.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" $W/ctest_cuda.log | tail -14
p ctest
