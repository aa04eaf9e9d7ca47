#!/usr/bin/env bash
# One H200, the final code: every CUDA test (ctest -L cuda, without the >2^31 block), memcheck of
# the sell variants' edge cases, and the distributed GPU setup picking sell-w (2-3 ranks sharing
# the GPU, --check).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w96; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(head -1 .device-data/REVISION) GTEST_COLOR=no
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w96.tgz -C /tmp w96 2>/dev/null; }
B=build-gpu; bin=$B/apps/distspmv
md5sum local_kernels/sell/*.cu local_kernels/sell/*.cpp local_kernels/format_selector*.cpp | tee -a $R/progress.txt
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 330 cmake --build $B -j $(nproc) > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; p "build failed"; exit 1; }
p built
mp() {  # name np args...
  local n=$1 np=$2; shift 2
  timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $np -x NCCL_NVLS_ENABLE=0 $bin "$@" --backend cuda --iters 20 --check > $W/$n.log 2>&1
  echo "== $n rc=$? $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | head -1)" | tee -a $R/progress.txt
  grep -E '^ +[0-9]+ +[0-9]+ ' $W/$n.log | awk '{print "   rank", $1, $2, "rows", $3, "nnz", $12}' | tee -a $R/progress.txt
}
mp ln2_block 2 gen:lognormal:4000000:2.5:0.8:2000 --partition block
mp ln2_metis 2 gen:lognormal:2000000:2.5:0.15:1000 --partition metis
mp ln3_float 3 gen:lognormal:6000000:2.5:0.15:1000 --precision float
mp ln2_mixed 2 gen:lognormal:4000000:2.5:0.8:2000 --precision mixed
p dist
timeout 200 ctest --test-dir $B -L cuda -LE gpu_big --output-on-failure > $W/ctest_cuda.log 2>&1; echo "ctest -L cuda rc=$? $(grep -E 'tests passed|Failed|\*\*\*' $W/ctest_cuda.log | tr '\n' ' ')" | tee -a $R/progress.txt
p tests
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*EdgeCases*sell*' > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $W/memcheck.log | tr '\n' ' ')" | tee -a $R/progress.txt
p done
