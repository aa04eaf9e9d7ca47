#!/usr/bin/env bash
# Multi-GPU checks and benchmarks of the distributed engine, one call on a GPU machine
# (DEVICE.md; issues 4-6). Logs and JSON go to $OUT (the device tool's folder).
#
#   jobs/dist_gpu.sh build tests bench-weak bench-strong cg floor small table rankblocks rules   (any subset, in that order)
#
# floor: the exchange floor (issue 36): gen:poisson3d:32 and soc-Slashdot0902 at 1, 2 and 4 GPUs
# over each of FLOOR_TRANSPORTS (default "peer-put cuda-ipc nccl"). small: the shared matrices of
# 0.3-3 M nonzeros at 1 and 4 GPUs with the default options. table: issue 36's scaling table at 1,
# 2 and 4 GPUs with the default options (stencil27:200, rmat:22:16, the bench lognormal, weak
# poisson3d 200/252/317), R-MAT and lognormal also against cuSPARSE (--vs-cusparse). rankblocks: R-MAT
# and lognormal at 2 and 4 ranks against cuSPARSE on the rank blocks, on any number of GPUs (one
# GPU: the ranks take turns in their timings). rules: the
# transport rule on four matrices outside the table (auto against peer-put and cuda-ipc).
#
# NVSHMEM is found where NVSHMEM_ROOT says (default: the GPU machines' PyTorch copy, DEVICE.md); a
# build with it adds nvshmem to the default transports of the tests and the floor.
# BUILD_TARGETS (default: all) limits the build. TRANSPORTS (default "peer-put nccl cuda-ipc mpi-staged") and RMAT_SCALE (24; 0 skips
# R-MAT) trim the benchmarks, TEST_NP and TEST_TRANSPORTS the tests (TEST_SHARED=0 skips the two-ranks-per-GPU runs). GPUS (default: all visible) caps the sweep; with fewer GPUs
# than ranks, ranks share GPUs (the -np 8 on 4 GPUs correctness check). A whole sweep takes longer than one device call (600 s):
# run the stages in separate calls. Real matrices come from $DISTSPMV_MATRICES
# (.device-data/matrices carried to the machine). METIS comes from .device-deps (DEVICE.md).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-jobs/results/local}
LOG="$OUT/logs"       # the device tool returns at most 8 files: logs travel as one archive
mkdir -p "$LOG"
export DISTSPMV_MATRICES=${DISTSPMV_MATRICES:-$PWD/.device-data/matrices}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GTEST_COLOR=no   # the pass counts below are grepped from the logs
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
BUILD=${BUILD:-build-gpu}
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
NVSHMEM_ROOT=${NVSHMEM_ROOT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
# NVSHMEM loads its bootstrap and network plugins by name at run time
[ -d "$NVSHMEM_ROOT/lib" ] && export LD_LIBRARY_PATH=$NVSHMEM_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# " nvshmem" where the build has it (read once it is built), for the default transport lists
nvshmem() { grep -qs "DISTSPMV_HAVE_NVSHMEM 1" "$BUILD/generated/distspmv/config.hpp" && echo " nvshmem"; }
TRANSPORTS=${TRANSPORTS:-peer-put nccl cuda-ipc mpi-staged}   # of the benchmarks
stages=${*:-build tests}
status=0
has() { [[ " $stages " == *" $1 "* ]]; }
bin="$BUILD/apps/distspmv"
# One rank per GPU, every rank seeing every GPU (the program picks local_rank % GPUs).
# MPI_TIMEOUT (seconds, default 300) ends a run that hangs, so that one hang cannot eat a device call.
mpi() { local n=$1; shift; timeout "${MPI_TIMEOUT:-300}" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
          -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x GTEST_COLOR -x DISTSPMV_MATRICES -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT "$@"; }
sweep() { local g=1; while [ "$g" -le "$GPUS" ]; do echo "$g"; g=$((g * 2)); done; }
TEST_NP=${TEST_NP:-$(sweep)}   # rank counts of the correctness tests

if has build; then
  echo "=== build ($(nproc) cores, $GPUS GPUs)"
  mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DMETIS_ROOT=/opt/metis/usr -DNVSHMEM_ROOT="$NVSHMEM_ROOT" >"$LOG/configure.log" 2>&1 || { tail -40 "$LOG/configure.log"; exit 1; }
  grep -E "^--   (CUDA|NCCL|NVSHMEM|MPI|METIS)" "$LOG/configure.log"
  cmake --build "$BUILD" -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} >"$LOG/build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$LOG/build.log" | head -60; exit 1; }
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
  nvidia-smi topo -m > "$LOG/topology.txt" 2>&1
fi

if has tests; then
  echo "=== distributed tests on the CUDA backend, each transport"
  export DISTSPMV_TEST_BACKEND=cuda
  TEST_TRANSPORTS=${TEST_TRANSPORTS:-peer-put$(nvshmem) nccl cuda-ipc mpi-staged}
  for n in $TEST_NP; do
    for t in $TEST_TRANSPORTS; do
      [ "$n" = 1 ] && [ "$t" != mpi-staged ] && continue
      # NVSHMEM refuses ranks that share a GPU unless CUDA MPS runs (results/2026-12-04_h200_nvshmem)
      [ "$t" = nvshmem ] && [ "$n" -gt "$GPUS" ] && [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && continue
      export DISTSPMV_TEST_TRANSPORT=$t
      if mpi "$n" "$BUILD/tests/dist/dist_test" >"$LOG/dist_test_np${n}_$t.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
      echo "dist_test np=$n transport=$t: $r $(grep -E '^\[  PASSED|^\[  FAILED' "$LOG/dist_test_np${n}_$t.log" | tr '\n' ' ')"
    done
  done
  # Two ranks per GPU (e.g. -np 8 on 4 GPUs): auto (MPI there) must avoid NCCL, warn, and still
  # be right; cuda-ipc too, which works between two processes on one GPU when asked for.
  if [ "${TEST_SHARED:-1}" = 1 ]; then  # TEST_SHARED=0 skips these
  export DISTSPMV_TEST_TRANSPORT=auto
  if mpi $((2 * GPUS)) "$BUILD/tests/dist/dist_test" >"$LOG/dist_test_shared.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
  echo "dist_test np=$((2 * GPUS)) on $GPUS GPUs (two ranks per GPU): $r"
  mpi $((2 * GPUS)) "$bin" gen:poisson3d:64 --check 2>&1 | grep -aE "warning|transport|check" | head -4
  export DISTSPMV_TEST_TRANSPORT=cuda-ipc
  if mpi $((2 * GPUS)) "$BUILD/tests/dist/dist_test" >"$LOG/dist_test_shared_ipc.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
  echo "dist_test np=$((2 * GPUS)) on $GPUS GPUs over cuda-ipc: $r"
  fi
  unset DISTSPMV_TEST_BACKEND DISTSPMV_TEST_TRANSPORT
  echo "=== more ranks than rows through the command line, CUDA backend (1 and 3 rows at 2-$GPUS ranks, ${MORE_RANKS_TRANSPORTS:-peer-put nccl})"
  printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 4\n1 3 -1\n2 2 3\n3 1 -1\n3 3 5\n' > "$LOG/three_rows.mtx"
  for n in $(seq 2 "$GPUS"); do
    for t in ${MORE_RANKS_TRANSPORTS:-peer-put nccl}; do
      BACKEND=cuda TRANSPORT=$t bash tests/apps/more_ranks_than_rows.sh "$bin" mpirun "$n" "auto block metis lp" \
        gen:poisson3d:1 "$LOG/three_rows.mtx" >"$LOG/more_ranks_np${n}_$t.log" 2>&1 || status=1
      echo "more ranks than rows np=$n transport=$t: $(grep -c '^ok' "$LOG/more_ranks_np${n}_$t.log") ok, $(grep -c '^FAIL' "$LOG/more_ranks_np${n}_$t.log") failed"
    done
  done
  if [ -x "$BUILD/tests/dist/solvers_test" ]; then   # not when BUILD_TARGETS left it out
    echo "=== solvers on the GPU, and the single-GPU cuda tests"
    mpi "$(( GPUS < 4 ? GPUS : 4 ))" "$BUILD/tests/dist/solvers_test" >"$LOG/solvers_test.log" 2>&1 || status=1
    grep -E '^\[  PASSED|^\[  FAILED|SKIPPED' "$LOG/solvers_test.log" | head -5
    ctest --test-dir "$BUILD" -L cuda --output-on-failure >"$LOG/ctest_cuda.log" 2>&1 || status=1
    tail -4 "$LOG/ctest_cuda.log"
  fi
fi

run_case() {  # name ranks args...: one JSON per case under $OUT/runs
  local name=$1 n=$2; shift 2
  mkdir -p "$OUT/runs"
  if mpi "$n" "$bin" "$@" --check --json "$OUT/runs/$name.json" >"$OUT/runs/$name.log" 2>&1; then :; else
    status=1; echo "FAILED: $name"; tail -5 "$OUT/runs/$name.log"; fi
}

if has bench-weak; then
  echo "=== weak scaling: gen:poisson3d, about 8 M rows per GPU"
  declare -A edge=([1]=200 [2]=252 [4]=317 [8]=400)
  for g in $(sweep); do
    for t in $TRANSPORTS; do
      [ "$g" = 1 ] && [ "$t" != nccl ] && continue
      run_case "weak_poisson_g${g}_block_$t" "$g" "gen:poisson3d:${edge[$g]}" --partition block --transport "$t"
    done
  done
fi

if has bench-strong; then
  echo "=== strong scaling: gen:stencil27:200 and gen:rmat:${RMAT_SCALE:-24}:16"
  for g in $(sweep); do
    for t in $TRANSPORTS; do
      [ "$g" = 1 ] && [ "$t" != nccl ] && continue
      run_case "strong_stencil27_g${g}_block_$t" "$g" gen:stencil27:200 --partition block --transport "$t"
      [ "${RMAT_SCALE:-24}" != 0 ] && run_case "strong_rmat_g${g}_block_$t" "$g" "gen:rmat:${RMAT_SCALE:-24}:16" --partition block --transport "$t"
    done
    [ "$g" -gt 1 ] && run_case "strong_stencil27_g${g}_metis_nccl" "$g" gen:stencil27:200 --partition metis --transport nccl
  done
fi

if has cg; then
  # The same matrix on 1, 2, 4, ... GPUs: iteration counts must agree (Jacobi-CG does not depend on
  # the partition, up to rounding). About 8 M rows per GPU at the largest count.
  declare -A edge=([1]=200 [2]=252 [4]=317 [8]=400)
  cg_matrix="gen:poisson3d:${edge[$GPUS]:-200}"
  echo "=== CG on $cg_matrix"
  mkdir -p "$OUT/runs"
  for g in $(sweep); do
    mpi "$g" "$bin" solve "$cg_matrix" --method cg --rtol 1e-8 --partition block \
      --json "$OUT/runs/cg_poisson_g$g.json" >"$OUT/runs/cg_poisson_g$g.log" 2>&1 || { status=1; tail -5 "$OUT/runs/cg_poisson_g$g.log"; }
  done
fi

progress() { echo "$(date +%T) $*" >> "$OUT/progress.txt"; }

if has floor; then
  echo "=== exchange floor: poisson3d:32 and Slashdot, 1/2/4 GPUs, ${FLOOR_TRANSPORTS:=peer-put$(nvshmem) cuda-ipc nccl}"
  for m in gen:poisson3d:32 "$DISTSPMV_MATRICES/soc-Slashdot0902.mtx.gz"; do
    tag=$(basename "$m" .mtx.gz | tr ':' '_')
    for g in $(sweep); do
      for t in $FLOOR_TRANSPORTS; do
        [ "$g" = 1 ] && [ "$t" != peer-put ] && continue
        run_case "floor_${tag}_g${g}_$t" "$g" "$m" --transport "$t" --iters 300; progress "floor $tag g$g $t"
      done
    done
  done
fi

if has small; then
  echo "=== the shared matrices of 0.3-3 M nonzeros, 1 and $GPUS GPUs, default options"
  for f in uk-2007-05@100000 soc-Slashdot0902-u soc-Slashdot0902 cage11 cit-HepPh vsp_model1_crew1_cr42_south31 \
           email-Enron musae-facebook; do
    for g in 1 "$GPUS"; do
      run_case "small_${f}_g$g" "$g" "$DISTSPMV_MATRICES/$f.mtx.gz" --iters 300; progress "small $f g$g"
    done
  done
fi

if has table; then
  echo "=== issue 36's table: 1, 2, 4 GPUs, default options"
  declare -A weak=([1]=200 [2]=252 [4]=317 [8]=400)
  for g in $(sweep); do
    run_case "table_stencil27_g$g" "$g" gen:stencil27:200; progress "table stencil27 g$g"
    run_case "table_rmat_g$g" "$g" gen:rmat:22:16 --seed 11 --vs-cusparse; progress "table rmat g$g"
    run_case "table_lognormal_g$g" "$g" gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
    progress "table lognormal g$g"
    run_case "table_weak_g$g" "$g" "gen:poisson3d:${weak[$g]}"; progress "table weak g$g"
  done
fi

if has rankblocks; then
  # The table's irregular matrices as 2 and 4 ranks would hold them, on however many GPUs there
  # are: on fewer GPUs than ranks the ranks of a GPU take turns in their trials and in timing the
  # local product and cuSPARSE, so the per-rank table and the ratio to cuSPARSE on the rank blocks
  # are the 4-GPU run's (within 0-4% on one H200; jobs/results/2026-12-03_h200_gpu_turns); the
  # exchange and the apply are not.
  echo "=== rank blocks of R-MAT and lognormal at 2 and 4 ranks on $GPUS GPUs (--vs-cusparse)"
  for n in 2 4; do
    run_case "rankblocks_rmat_r$n" "$n" gen:rmat:22:16 --seed 11 --vs-cusparse; progress "rankblocks rmat r$n"
    run_case "rankblocks_lognormal_r$n" "$n" gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
    progress "rankblocks lognormal r$n"
    grep -hE "vs cuSPARSE CSR on the same rows" "$OUT"/runs/rankblocks_*_r$n.log | cut -c1-110
  done
fi

if has rules; then
  # The transport rule (dist/transport/transport.hpp) on matrices outside the table: auto against
  # each of the two transports it chooses between, at $GPUS GPUs.
  echo "=== the transport rule outside the table, $GPUS GPUs: auto, peer-put, cuda-ipc"
  for m in gen:stencil27:150 "gen:rmat:21:16 --seed 5" "gen:lognormal:2000000:2.0:1.0:100000 --seed 3" gen:poisson3d:120; do
    tag=$(echo "$m" | cut -d' ' -f1 | tr ':' '_')
    for t in auto peer-put cuda-ipc; do
      # shellcheck disable=SC2086
      run_case "rules_${tag}_g${GPUS}_$t" "$GPUS" $m --transport "$t"; progress "rules $tag $t"
    done
  done
fi

if ls "$OUT"/runs/*.json >/dev/null 2>&1; then
  python3 jobs/summarize_scaling.py "$OUT/runs" | tee "$OUT/scaling_summary.txt"
  tar czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOG"
exit $status
