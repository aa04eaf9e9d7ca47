#!/usr/bin/env bash
# One call on the GPU machine (DEVICE.md): build for sm_90, run the `cuda` tests plainly and
# under compute-sanitizer memcheck, then the single-GPU format benchmark of issue 3, and print a
# short table last. Logs and JSON go to $OUT (the device tool's folder) or jobs/results/local.
#
#   jobs/gpu_check.sh [build] [tests] [sanitize] [bench] [bench-quick]     (default: all but bench-quick)
#
# Real matrices are read from $DISTSPMV_MATRICES (default .device-data/matrices, a copy of
# ../shared/matrices carried to the machine). Knobs: BUILD_TARGETS (default all), TEST_FILTER and
# SANITIZE_FILTER (gtest filters of the formats test), BENCH_MATRICES, BENCH_FORMATS (default all;
# a comma-separated list times just those), BENCH_ITERS, PRECISIONS.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-jobs/results/local}
mkdir -p "$OUT"
export DISTSPMV_MATRICES=${DISTSPMV_MATRICES:-$PWD/.device-data/matrices}
export NCCL_NVLS_ENABLE=0
# The tree copied to the GPU machine has no .git: take the revision from the caller's file.
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
PRECISIONS=${PRECISIONS:-double float}
TEST_FILTER=${TEST_FILTER:-}
stages=${*:-build tests sanitize bench}
BUILD=${BUILD:-build-gpu}
status=0
has() { [[ " $stages " == *" $1 "* ]]; }

if has build; then
  echo "=== build"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
  grep -E "^-- (distspmv|  )" "$OUT/configure.log" | head -20
  cmake --build "$BUILD" -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -60; exit 1; }
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
fi

if has tests; then
  echo "=== cuda tests"
  if [ -n "$TEST_FILTER" ]; then
    "$BUILD/tests/local_kernels/local_kernels_formats_test" --gtest_filter="$TEST_FILTER" >"$OUT/ctest_cuda.log" 2>&1 || status=1
  else
    ctest --test-dir "$BUILD" -L cuda --output-on-failure >"$OUT/ctest_cuda.log" 2>&1 || status=1
  fi
  tail -15 "$OUT/ctest_cuda.log"
  grep -E "^\[  FAILED  \]|Failure|error" "$OUT/ctest_cuda.log" | head -40
fi

if has sanitize; then
  echo "=== compute-sanitizer memcheck (edge cases, every CUDA format)"
  compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
    "$BUILD/tests/local_kernels/local_kernels_formats_test" --gtest_filter="${SANITIZE_FILTER:-Cuda/*EdgeCases*}" \
    >"$OUT/memcheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck.log" | tail -5
fi

bench_set=(gen:poisson3d:200 gen:stencil27:150 gen:rmat:22:16 gen:lognormal:4000000:2.5:0.8:2000
           "$DISTSPMV_MATRICES/uk-2007-05@100000.mtx.gz" "$DISTSPMV_MATRICES/soc-Slashdot0902.mtx.gz"
           "$DISTSPMV_MATRICES/cage11.mtx.gz")
if has bench-quick; then bench_set=(gen:poisson3d:200 gen:rmat:22:16); fi
# BENCH_MATRICES (space-separated) replaces the set, e.g. to re-run the irregular matrices only.
if [ -n "${BENCH_MATRICES:-}" ]; then read -r -a bench_set <<<"$BENCH_MATRICES"; fi
BENCH_ITERS=${BENCH_ITERS:-100}
if has bench || has bench-quick; then
  echo "=== benchmark: --format all, one GPU"
  mkdir -p "$OUT/bench"
  for m in "${bench_set[@]}"; do
    for p in $PRECISIONS; do
      name=$(basename "$m" | sed 's/[^A-Za-z0-9._-]/_/g')_$p
      "$BUILD/apps/distspmv" "$m" --format "${BENCH_FORMATS:-all}" --backend cuda --precision "$p" --iters "$BENCH_ITERS" --check \
        --json "$OUT/bench/$name.json" >"$OUT/bench/$name.log" 2>&1 || { status=1; echo "FAILED: $m $p"; tail -5 "$OUT/bench/$name.log"; }
    done
  done
  python3 jobs/summarize_bench.py "$OUT/bench" | tee "$OUT/summary.txt"
  tar czf "$OUT/bench.tgz" -C "$OUT" bench && rm -rf "$OUT/bench"
fi
exit $status
