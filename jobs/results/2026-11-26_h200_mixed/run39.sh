#!/usr/bin/env bash
# One H200: csr-split with each tile sorted by column (csr-split-sorted, host-built) against
# csr-split and cuSPARSE; ncu L1/L2/DRAM on lognormal; its GPU tests and memcheck.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w39; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) GTEST_COLOR=no DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w39.tgz -C /tmp w39 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
(timeout 300 cmake --build $B -j 12 --target local_kernels_formats_test > $W/build_t.log 2>&1; echo "build rc=$?" >> $W/build_t.log) &
bpid=$!
for m in gen:lognormal:4000000:2.5:0.8:2000 gen:rmat:22:16 gen:poisson3d:200 gen:lognormal:1000000:2:1.2:20000 $M/uk-2007-05@100000.mtx.gz; do
  for prec in double mixed float; do
    [ $prec != double ] && [ "$m" != gen:lognormal:4000000:2.5:0.8:2000 ] && continue
    n=$(basename $m); n=${n//:/_}
    timeout 150 $bin $m --format csr-split,csr-split-sorted,cusparse --precision $prec --iters 100 --check > $W/bench_${n}_$prec.log 2>&1
    echo "$n $prec: $(grep -E '^(csr-split|csr-split-sorted|cusparse) ' $W/bench_${n}_$prec.log | awk '{printf "%s %s us %s | ", $1, $4, $7}') $(grep -oE 'check: .*(passed|FAILED)' $W/bench_${n}_$prec.log | cut -c1-40)"
  done
done
p bench
timeout 200 ncu --clock-control none --cache-control none --launch-skip 20 --launch-count 1 -k regex:split_kernel --section SpeedOfLight --section Occupancy \
  $bin gen:lognormal:4000000:2.5:0.8:2000 --format csr-split-sorted --iters 30 > $W/ncu_sorted.log 2>&1
grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy" $W/ncu_sorted.log
p ncu
wait $bpid; tail -1 $W/build_t.log
timeout 200 $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*/*csr_split_sorted*' > $W/formats_sorted.log 2>&1; echo "formats rc=$?"; tail -2 $W/formats_sorted.log
timeout 150 compute-sanitizer --tool memcheck $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda/*EdgeCases*csr_split_sorted*' > $W/memcheck_sorted.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|PASSED|FAILED" $W/memcheck_sorted.log | tail -3
p done
