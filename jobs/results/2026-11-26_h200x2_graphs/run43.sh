#!/usr/bin/env bash
# 2x H200: CUDA graphs of the apply (matrix_options::cuda_graphs). Tests on 1 and 2 ranks (nccl,
# cuda-ipc), then apply and host enqueue times with --cuda-graphs on/off, and CG per iteration.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w43; mkdir -p $W
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) GTEST_COLOR=no DISTSPMV_MATRICES=$PWD/.device-data/matrices
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w43.tgz -C /tmp w43 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
mpi() { local n=$1; shift; timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
          -x NCCL_NVLS_ENABLE -x GTEST_COLOR -x DISTSPMV_MATRICES -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT "$@"; }
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 400 cmake --build $B -j $(nproc) --target distspmv dist_test solvers_test > $W/build.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build.log | head -40; exit 1; }
p built
export DISTSPMV_TEST_BACKEND=cuda
F='*CudaGraphs*:*GeneratedMatricesMatchSerial*:*EmptyRowsColumns*'
for c in "1 mpi-staged" "2 nccl" "2 cuda-ipc"; do
  read -r n t <<<"$c"; export DISTSPMV_TEST_TRANSPORT=$t
  mpi $n $B/tests/dist/dist_test --gtest_filter="$F" > $W/dist_test_np${n}_$t.log 2>&1; echo "dist_test np=$n $t rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/dist_test_np${n}_$t.log | tr '\n' ' ')"
done
unset DISTSPMV_TEST_BACKEND DISTSPMV_TEST_TRANSPORT
mpi 2 $B/tests/dist/solvers_test > $W/solvers_test.log 2>&1; echo "solvers_test np=2 rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $W/solvers_test.log | tr '\n' ' ')"
p tests
row() {  # name np args
  local n=$1 np=$2; shift 2
  mpi $np $bin "$@" --iters 200 --check > $W/$n.log 2>&1
  echo "$n: apply $(grep -E '^  apply ' $W/$n.log | awk '{print $2}') us, local $(grep -E '^  local SpMV' $W/$n.log | awk '{print $3}'), host $(grep -oE 'enqueue one apply [0-9.]+' $W/$n.log | awk '{print $3}') us; $(grep -oE 'CUDA graph: .*' $W/$n.log | cut -c1-70); $(grep -oE 'check: .*(passed|FAILED)' $W/$n.log | cut -c1-50)"
}
for m in gen:poisson3d:32 gen:poisson3d:64 gen:poisson3d:128 $M/soc-Slashdot0902.mtx.gz $M/uk-2007-05@100000.mtx.gz $M/cage11.mtx.gz gen:rmat:18:16; do
  b=$(basename $m); b=${b//:/_}
  for g in on off; do row ${b}_np1_$g 1 $m --cuda-graphs $g; done
  for g in on off; do row ${b}_np2_nccl_$g 2 $m --transport nccl --cuda-graphs $g; done
  row ${b}_np2_ipc 2 $m --transport cuda-ipc
  p "bench $b"
done
for m in gen:poisson3d:32 gen:poisson3d:96; do
  for c in "1 auto" "2 nccl" "2 cuda-ipc"; do
    read -r n t <<<"$c"
    for g in on off; do
      b=$(basename $m); b=${b//:/_}_cg_np${n}_${t}_$g
      mpi $n $bin solve $m --method cg --transport $t --cuda-graphs $g --rtol 1e-8 > $W/$b.log 2>&1
      echo "$b: $(grep -oE '[0-9.]+ us per iteration; SpMV [0-9.]+%' $W/$b.log) $(grep -oE '(NOT )?converged after [0-9]+' $W/$b.log)"
    done
  done
done
p done
