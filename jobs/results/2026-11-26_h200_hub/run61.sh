#!/usr/bin/env bash
# One H200: csr-hub variants: DISTSPMV_HUB_MODE 0 = shared hubs (run 60), 1 = the same with one
# generic load per gather (no branch), 2 = split kernel with hubs in a compact global copy.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w61; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w61.tgz -C /tmp w61 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
[ -d /opt/metis ] || for d in .device-deps/*.deb; do dpkg -x $d /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv local_kernels_formats_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
f=$(find $B -name local_kernels_formats_test -type f | head -1)
timeout 120 $f --gtest_filter='*csr_hub*' > $W/gtest.log 2>&1; p "gtest rc=$? $(grep -E 'PASSED|FAILED' $W/gtest.log | tail -3 | tr '\n' ' ')"
run() {  # name matrix format order [env...]
  local n=$1 m=$2 f=$3 o=$4; shift 4
  env X=1 "$@" timeout 150 $bin $m --backend cuda --format $f --order $o --iters 100 --vs-cusparse --check > $W/$n.log 2>&1
  echo "$n: rc=$? local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}') us; $(grep -oE 'vs cuSPARSE CSR on the same rows: [^;]*' $W/$n.log | head -1); $(grep -oE 'check[^;]*(passed|FAILED)[^;]*' $W/$n.log | head -1); $(grep -oE 'hubs=[0-9]+ \([0-9]+%' $W/$n.log | head -1)" | tee -a $R/progress.txt
}
for mode in 1 2; do DISTSPMV_HUB_MODE=$mode timeout 120 $f --gtest_filter='Cuda*csr_hub*' > $W/gtest$mode.log 2>&1; p "gtest mode $mode rc=$? $(grep -E 'PASSED|FAILED' $W/gtest$mode.log | tail -2 | tr '\n' ' ')"; done
M=gen:rmat:22:16
run R_split $M csr-split none
run R_m0_1 $M csr-hub none DISTSPMV_HUB_COLUMNS=1
run R_m0_2k $M csr-hub none DISTSPMV_HUB_COLUMNS=2048
run R_m1_1 $M csr-hub none DISTSPMV_HUB_COLUMNS=1 DISTSPMV_HUB_MODE=1
run R_m1_2k $M csr-hub none DISTSPMV_HUB_COLUMNS=2048 DISTSPMV_HUB_MODE=1
run R_m1_8k $M csr-hub none DISTSPMV_HUB_COLUMNS=8192 DISTSPMV_HUB_MODE=1
p mode1
run R_m2_8k $M csr-hub none DISTSPMV_HUB_COLUMNS=8192 DISTSPMV_HUB_MODE=2
run R_m2_64k $M csr-hub none DISTSPMV_HUB_COLUMNS=65536 DISTSPMV_HUB_MODE=2
run R_m2_256k $M csr-hub none DISTSPMV_HUB_COLUMNS=262144 DISTSPMV_HUB_MODE=2
p mode2
L=gen:lognormal:4000000:2.5:0.8:2000
run L_split $L csr-split none
run L_m1_1 $L csr-hub none DISTSPMV_HUB_COLUMNS=1 DISTSPMV_HUB_MODE=1
run L_m2_4k $L csr-hub none DISTSPMV_HUB_COLUMNS=4096 DISTSPMV_HUB_MODE=2
p done
