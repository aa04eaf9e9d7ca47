#!/usr/bin/env bash
# Two H200s: mixed precision across ranks (cuda-ipc and NCCL, --check), the cuda tests on 2 GPUs,
# and the C API's float_values.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w37; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w37.tgz -C /tmp w37 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
p start
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
run2() { timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE "$@"; }
for m in gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000; do
  for t in auto nccl; do
    for prec in double mixed; do
      n=${m//:/_}_${t}_$prec
      run2 $bin $m --precision $prec --transport $t --check --iters 100 > $W/$n.log 2>&1
      echo "$m $t $prec: apply $(grep -E '^  apply ' $W/$n.log | awk '{print $2}') us, $(grep -E '^ +[01] ' $W/$n.log | awk '{print $NF}' | head -0)$(grep -E '^ +0 ' $W/$n.log | grep -oE '(hdia|csr|csr-split|cusparse|ellr) \[[^]]*\]' | head -1) $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | cut -c1-45)"
    done
  done
  p "$m"
done
timeout 240 ctest --test-dir $B -L cuda -E "watchdog|big" --output-on-failure -j 2 > $W/ctest_cuda.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" $W/ctest_cuda.log | tail -14
p ctest
