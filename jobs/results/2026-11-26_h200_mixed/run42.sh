#!/usr/bin/env bash
# One H200: csr-split on rmat:22:16 with gathers of columns >= hot bypassing L1 (ld.global.cg),
# under orders none/degree/rcm, and the smem carveout; ncu L1 hit for degree.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w42; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w42.tgz -C /tmp w42 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 300 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
m=gen:rmat:22:16
run() {  # name, then env assignments
  local n=$1; shift
  env "$@" timeout 100 $bin $m --backend cuda --format csr-split --order $o --iters 100 --vs-cusparse > $W/$n.log 2>&1
  echo "$n: local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [0-9.]+ us, [0-9.]+x' $W/$n.log | sed 's/vs cuSPARSE CSR on the same rows/cusp same/')"
}
for o in none degree rcm; do
  for hot in max 0 4096 16384 65536; do
    if [ $hot = max ]; then run ${o}_hotmax X=1; else run ${o}_hot$hot DISTSPMV_HOT_COLUMNS=$hot; fi
  done
  p "order $o"
done
o=degree
for c in 0 25 50 75 100; do run degree_hot16384_carve$c DISTSPMV_HOT_COLUMNS=16384 DISTSPMV_CARVEOUT=$c; done
p carve
for hot in max 16384; do
  o=degree
  e=X=1; [ $hot != max ] && e=DISTSPMV_HOT_COLUMNS=$hot
  env $e timeout 200 ncu --clock-control none --cache-control none --launch-skip 20 --launch-count 1 -k regex:split_kernel --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --metrics l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct \
    $bin $m --backend cuda --format csr-split --order degree --iters 30 > $W/ncu_degree_$hot.log 2>&1
  echo "ncu degree hot=$hot: $(grep -E 'Duration|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|sector_hit_rate' $W/ncu_degree_$hot.log | awk '{print $1, $NF}' | tr '\n' ' ')"
done
p done
