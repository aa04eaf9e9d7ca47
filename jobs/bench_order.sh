#!/usr/bin/env bash
# Locality ordering inside a rank (issue 16), one GPU: for each matrix, `distspmv --order O` for O
# in none, degree and rcm (format auto, --check), and cuSPARSE CSR through the same program for
# reference; then one table: apply us, effective GB/s (CSR byte model), and cuSPARSE's time over
# ours on the same rows in the caller's order (what a cuSPARSE or PETSc user gets) and in our
# order (the kernel alone). Logs and JSON go to $OUT (the device tool's folder) or
# jobs/results/local.
#
#   jobs/bench_order.sh [build] [order]       (default: both)
#
# The build stage builds only the distspmv program (BUILD, default build-gpu, shared with
# gpu_check.sh). Knobs: ORDER_MATRICES (space-separated), ORDERS (default "none degree rcm"),
# PRECISION (default double), ORDER_ITERS (default 100), RUN_TIMEOUT (seconds per run, default 150).
# Orders other than none set up through the host (--order is applied after the rows reach their
# owner); expect about 30 s per run on the 67 M nonzeros of gen:rmat:22:16, and about 3-4 minutes
# for the order stage with the default set.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-jobs/results/local}
mkdir -p "$OUT/order"
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
stages=${*:-build order}
BUILD=${BUILD:-build-gpu}
PRECISION=${PRECISION:-double}
ORDERS=${ORDERS:-none degree rcm}
ORDER_ITERS=${ORDER_ITERS:-100}
RUN_TIMEOUT=${RUN_TIMEOUT:-150}
read -r -a matrices <<<"${ORDER_MATRICES:-gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000}"
status=0
has() { [[ " $stages " == *" $1 "* ]]; }

if has build; then
  echo "=== build (distspmv only)"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
  cmake --build "$BUILD" -j "$(nproc)" --target distspmv >"$OUT/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -60; exit 1; }
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
fi

if has order; then
  echo "=== --order on one GPU ($PRECISION): ${matrices[*]}"
  start=$SECONDS
  for m in "${matrices[@]}"; do
    base=$(basename "$m" | sed 's/[^A-Za-z0-9._-]/_/g')
    # cuSPARSE CSR as the local format (read order), then our auto format under each order.
    runs=("cusparse none")
    for o in $ORDERS; do runs+=("auto $o"); done
    for run in "${runs[@]}"; do
      read -r f o <<<"$run"
      name=${base}_${f}_${o}
      t0=$SECONDS
      timeout "$RUN_TIMEOUT" "$BUILD/apps/distspmv" "$m" --backend cuda --format "$f" --order "$o" --precision "$PRECISION" \
        --iters "$ORDER_ITERS" --check --vs-cusparse --json "$OUT/order/$name.json" >"$OUT/order/$name.log" 2>&1 ||
        { status=1; echo "FAILED ($?): $m --format $f --order $o"; tail -5 "$OUT/order/$name.log"; }
      echo "  $name: $((SECONDS - t0)) s"
    done
  done
  echo "  order stage: $((SECONDS - start)) s"
  python3 - "$OUT/order" <<'EOF' | tee "$OUT/order_summary.txt"
import glob, json, os, sys
rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    with open(path) as f:
        j = json.load(f)
    num = lambda k: j.get(k) if isinstance(j.get(k), (int, float)) else float("nan")
    s = j.get("setup_seconds", {})
    rows.append((j["matrix"]["source"], j["format_per_rank"][0], j.get("order", "none"), s.get("order", 0.0),
                 s.get("total_max_over_ranks", 0.0), num("apply_median_us"), num("effective_gbps_per_gpu"),
                 num("vs_cusparse_caller_order"), num("vs_cusparse_same_order"), num("max_rel_error")))
print("ratios: cuSPARSE CSR time / ours on the same rows (> 1: faster than cuSPARSE); caller = the caller's order,")
print("same = cuSPARSE on the rows after our ordering. Setup through the host for orders other than none.")
head = f"{'matrix':<36} {'format':<10} {'order':<7} {'order s':>7} {'setup s':>7} {'apply us':>9} {'GB/s':>7} {'vs caller':>9} {'vs same':>8} {'rel.err':>8}"
print(head)
for r in rows:
    print(f"{r[0]:<36} {r[1]:<10} {r[2]:<7} {r[3]:>7.2f} {r[4]:>7.1f} {r[5]:>9.1f} {r[6]:>7.0f} {r[7]:>9.2f} {r[8]:>8.2f} {r[9]:>8.1e}")
EOF
fi
exit $status
