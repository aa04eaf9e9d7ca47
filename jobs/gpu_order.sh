#!/usr/bin/env bash
# The locality order on the GPU (issue 37), one call on a GPU machine: build, the CUDA tests of
# the order (GPU orders and permuted splits against the host's, dist_test's order tests on the CUDA
# backend at 1-3 ranks), and the order benchmark on one GPU: `distspmv MATRIX --format auto
# [--order O] --check --vs-cusparse` for each order (an empty order: the default options), plus
# a setup-only run per matrix for the host peak (without --check and --vs-cusparse, which hold
# copies of the rows). Logs and JSON go to $OUT (the device tool's folder), one table last.
#
#   jobs/gpu_order.sh [build] [tests] [bench] [shared] [pack]   (default: all but shared; pack archives
#                                                                logs and JSON)
#
# Knobs: BUILD (default build-gpu), ORDER_MATRICES (each MATRIX or MATRIX=order,order,...),
# ORDERS (default "none rcm degree default"), DIST_FILTER (dist_test's tests), PRECISION (double),
# ORDER_ITERS (100), RUN_TIMEOUT
# (s per run, 120), TEST_NP ("1 2 3"), PEAK_RUNS (1: the setup-only runs), CUSPARSE_RUN (0; 1: also
# cuSPARSE as our format), NP (1: ranks of the benchmark runs; they share the visible GPUs),
# SHARED_NP (1: ranks of the shared stage's runs, e.g. "2 3"), SHARED_FLOAT (1: float too, on every
# matrix; SHARED_FLOAT=trial: only where the double run's trial ran).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-jobs/results/local}
LOG="$OUT/logs"
mkdir -p "$LOG" "$OUT/order"
export DISTSPMV_MATRICES=${DISTSPMV_MATRICES:-$PWD/.device-data/matrices}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
BUILD=${BUILD:-build-gpu}
PRECISION=${PRECISION:-double}
ORDERS=${ORDERS:-none rcm degree default}
ORDER_ITERS=${ORDER_ITERS:-100}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
TEST_NP=${TEST_NP:-1 2 3}
PEAK_RUNS=${PEAK_RUNS:-1}
read -r -a matrices <<<"${ORDER_MATRICES:-gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000}"
stages=${*:-build tests bench pack}
mkdir -p "$OUT/order"
status=0
has() { [[ " $stages " == *" $1 "* ]]; }
mpi() { local n=$1; shift; timeout "${MPI_TIMEOUT:-300}" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
          -x NCCL_NVLS_ENABLE -x GTEST_COLOR -x DISTSPMV_MATRICES -x DISTSPMV_TEST_BACKEND "$@"; }

if has build; then
  echo "=== build ($(nproc) cores)"
  mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DMETIS_ROOT=/opt/metis/usr >"$LOG/configure.log" 2>&1 || { tail -40 "$LOG/configure.log"; exit 1; }
  cmake --build "$BUILD" -j "$(nproc)" --target distspmv gpu_order_test split_rows_test dist_test >"$LOG/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$LOG/build.log" | head -60; exit 1; }
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
fi

if has tests; then
  echo "=== CUDA tests of the order"
  for t in "gpu_order_test --gtest_filter=GpuOrderCuda.*" "split_rows_test --gtest_filter=SplitRowsCuda.*"; do
    read -r prog filter <<<"$t"
    if timeout 300 "$BUILD/tests/dist/$prog" "$filter" >"$LOG/$prog.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
    echo "$prog: $r $(grep -E '^\[  PASSED|^\[  FAILED' "$LOG/$prog.log" | tr '\n' ' ')"
    [ "$r" = ok ] || grep -E "Failure|Expected|Which is|error" "$LOG/$prog.log" | head -20
  done
  export DISTSPMV_TEST_BACKEND=cuda
  for n in $TEST_NP; do
    if mpi "$n" "$BUILD/tests/dist/dist_test" --gtest_filter="${DIST_FILTER:-DistributedOrder.*:Distributed.LayoutMoves*:Distributed.UpdateValues*}" \
         >"$LOG/dist_test_np$n.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
    echo "dist_test (CUDA backend, order tests) np=$n: $r $(grep -E '^\[  PASSED|^\[  FAILED' "$LOG/dist_test_np$n.log" | tr '\n' ' ')"
    [ "$r" = ok ] || grep -E "Failure|Expected|Which is|error" "$LOG/dist_test_np$n.log" | head -20
  done
  unset DISTSPMV_TEST_BACKEND
fi

if has bench; then
  echo "=== order on one GPU ($PRECISION): ${matrices[*]}"
  for spec in "${matrices[@]}"; do
    # MATRIX or MATRIX=order,order,... (that matrix's own orders)
    m=${spec%%=*}
    orders=$ORDERS
    [[ "$spec" == *=* ]] && orders=$(echo "${spec#*=}" | tr , ' ')
    base=$(basename "$m" | sed 's/[^A-Za-z0-9._-]/_/g')
    runs=()
    [ "${CUSPARSE_RUN:-0}" = 1 ] && runs+=("cusparse none")
    for o in $orders; do runs+=("auto $o"); done
    for run in "${runs[@]}"; do
      read -r f o <<<"$run"
      name=${base}_np${NP:-1}_${PRECISION}_${f}_${o}
      args=(--backend cuda --format "$f" --precision "$PRECISION")
      [ "$o" = default ] || args+=(--order "$o")
      t0=$SECONDS
      timeout "$RUN_TIMEOUT" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "${NP:-1}" -x NCCL_NVLS_ENABLE \
        "$BUILD/apps/distspmv" "$m" "${args[@]}" --iters "$ORDER_ITERS" --check --vs-cusparse \
        --json "$OUT/order/$name.json" >"$OUT/order/$name.log" 2>&1 ||
        { status=1; echo "FAILED ($?): $m ${args[*]}"; tail -5 "$OUT/order/$name.log"; }
      echo "  $name: $((SECONDS - t0)) s"
    done
    if [ "$PEAK_RUNS" = 1 ]; then  # setup and host peak alone, default options and none
      for o in default none; do
        args=(--backend cuda --precision "$PRECISION" --iters 10)
        [ "$o" = default ] || args+=(--order "$o")
        timeout "$RUN_TIMEOUT" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "${NP:-1}" -x NCCL_NVLS_ENABLE \
          "$BUILD/apps/distspmv" "$m" "${args[@]}" --json "$OUT/order/${base}_np${NP:-1}_peak_$o.json" \
          >"$OUT/order/${base}_np${NP:-1}_peak_$o.log" 2>&1 || { status=1; echo "FAILED: $m peak $o"; }
      done
    fi
  done
  python3 - "$OUT/order" <<'EOF' | tee "$OUT/order_summary.txt"
import glob, json, os, sys
print("vs caller: cuSPARSE CSR on the caller's order / our local SpMV; vs same: cuSPARSE on our order. peak_*: setup-only runs.")
print(f"{'run':<48} {'format':<9} {'order':<7} {'order s':>7} {'setup s':>7} {'B/nnz':>6} {'apply us':>9} {'vs caller':>9} {'vs same':>8} {'rel.err':>8}")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    with open(path) as f:
        j = json.load(f)
    num = lambda k: j.get(k) if isinstance(j.get(k), (int, float)) else float("nan")
    s = j.get("setup_seconds", {})
    print(f"{os.path.basename(path)[:-5]:<48} {j['format_per_rank'][0]:<9} {j.get('order', 'none'):<7} {s.get('order', 0.0):>7.3f} "
          f"{s.get('total_max_over_ranks', 0.0):>7.2f} {num('host_peak_bytes_per_nnz'):>6.1f} {num('apply_median_us'):>9.1f} "
          f"{num('vs_cusparse_caller_order'):>9.2f} {num('vs_cusparse_same_order'):>8.2f} {num('max_rel_error'):>8.1e}")
EOF
fi
if has shared; then
  # Every square shared matrix with the default options; where the sample rule finds the numbering
  # not local (auto's trial runs), also --order none, and the same in float (SHARED_FLOAT=1). One
  # line a run as it goes: matrix, precision, order asked, order kept, format, apply us, ratio to
  # cuSPARSE in the caller's order, check.
  echo "=== shared matrices, default options (and none where auto's trial ran)"
  line() { python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
num = lambda k: j[k] if isinstance(j.get(k), (int, float)) else float('nan')  # null where not measured
print(f\"  {sys.argv[2]:<34} {j['precision']:<6} {sys.argv[3]:<7} {j['order']:<6} {j['format_per_rank'][0]:<9} {num('apply_median_us'):>8.1f} {num('vs_cusparse_caller_order'):>6.2f} {num('max_rel_error'):>8.1e}\")" "$@"; }
  run_one() {  # matrix file, precision, order (default: none given), ranks
    local f=$1 p=$2 o=$3 n=$4 b; b=$(basename "$f" .mtx.gz)
    local args=(--backend cuda --precision "$p" --iters "$ORDER_ITERS" --check --vs-cusparse)
    [ "$o" = default ] || args+=(--order "$o")
    local j="$OUT/order/shared_${b}_np${n}_${p}_$o.json"
    timeout 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NCCL_NVLS_ENABLE \
      "$BUILD/apps/distspmv" "$f" "${args[@]}" --json "$j" >"${j%.json}.log" 2>&1 || { status=1; echo "  FAILED: $b np$n $p $o"; return 1; }
    line "$j" "$b np$n" "$o"
  }
  for n in ${SHARED_NP:-1}; do
    for p in double ${SHARED_FLOAT:+float}; do
      for f in "$DISTSPMV_MATRICES"/*.mtx.gz; do
        b=$(basename "$f" .mtx.gz)
        [ "$b" = lp_e226 ] && continue  # 223 x 472: not square
        j="$OUT/order/shared_${b}_np${n}_${p}_default.json"
        [ "$p" = float ] && [ "${SHARED_FLOAT:-}" = trial ] &&
          ! grep -q "timed on this rank" "$OUT/order/shared_${b}_np${n}_double_default.json" 2>/dev/null && continue
        run_one "$f" "$p" default "$n" || continue
        [ "${SHARED_NONE:-1}" = 1 ] && grep -q "timed on this rank" "$j" && run_one "$f" "$p" none "$n"
      done
    done
  done
fi

if has pack; then  # the device tool returns few files: logs and JSON travel as one archive
  tar czf "$OUT/logs.tgz" -C "$OUT" logs order 2>/dev/null && rm -rf "$LOG" "$OUT/order"
fi
exit $status
