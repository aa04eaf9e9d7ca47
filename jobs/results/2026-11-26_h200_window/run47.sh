#!/usr/bin/env bash
# One H200: csr-window (split tiles with x's window staged in shared memory) against csr-split and
# cuSPARSE on lognormal, R-MAT (none/rcm/degree, prefix windows) and poisson3d; window_tiles sweep.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w47; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w47.tgz -C /tmp w47 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
run() {  # name matrix format order [env...]
  local n=$1 m=$2 f=$3 o=$4; shift 4
  env X=1 "$@" timeout 150 $bin $m --backend cuda --format $f --order $o --iters 100 --vs-cusparse --check > $W/$n.log 2>&1
  echo "$n: rc=$? local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [0-9.]+ us, [0-9.]+x' $W/$n.log | sed 's/vs cuSPARSE CSR on the same rows/cusp same/'); $(grep -oE 'check[^;]*(passed|FAILED)[^;]*' $W/$n.log | head -1); $(grep -oE 'windows=[0-9/]+ longest=[0-9]+' $W/$n.log | head -1)" | tee -a $R/progress.txt
}
L=gen:lognormal:4000000:2.5:0.8:2000
run L_split $L csr-split none
run L_win8 $L csr-window none
run L_win2 $L csr-window none DISTSPMV_WINDOW_TILES=2
run L_win4 $L csr-window none DISTSPMV_WINDOW_TILES=4
run L_win16 $L csr-window none DISTSPMV_WINDOW_TILES=16
run L_win32 $L csr-window none DISTSPMV_WINDOW_TILES=32
p lognormal
M=gen:rmat:22:16
run R_split $M csr-split none
run R_win8 $M csr-window none
run R_rcm_split $M csr-split rcm
run R_rcm_win8 $M csr-window rcm
run R_deg_split $M csr-split degree
run R_deg_prefix8 $M csr-window degree DISTSPMV_WINDOW_PREFIX=1
run R_deg_prefix32 $M csr-window degree DISTSPMV_WINDOW_PREFIX=1 DISTSPMV_WINDOW_TILES=32
run R_rcm_prefix32 $M csr-window rcm DISTSPMV_WINDOW_PREFIX=1 DISTSPMV_WINDOW_TILES=32
p rmat
run P_auto gen:poisson3d:200 auto none
run P_win8 gen:poisson3d:200 csr-window none
run L500_split gen:lognormal:3000000:3:0.6:500 csr-split none
run L500_win8 gen:lognormal:3000000:3:0.6:500 csr-window none
p done
