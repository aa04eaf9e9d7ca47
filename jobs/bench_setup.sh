#!/usr/bin/env bash
# Setup at scale (issue 14, DESIGN.md §11), one call on a GPU machine: the setup of matrices that
# fill the GPU, with time per phase, nonzeros per second, host peak RSS and GPU peak memory.
# Logs and JSON go to $OUT (the device tool's folder) or jobs/results/local.
#
#   jobs/bench_setup.sh [build] [tests] [poisson] [hdf5] [fill] [big] [two] [faults]   (default: build poisson hdf5 fill)
#
#   build    sm_90 build of the command line and the cuda tests (BUILD_TARGETS to narrow it)
#   tests    the cuda tests (GPU builders against the host builders, every format through the GPU build path)
#   poisson  gen:poisson3d:${POISSON_N:-450} on one GPU with --check (the issue's 637 M nonzeros)
#   hdf5     the same matrix written to HDF5 by `distspmv convert`, read back with --check (page cache)
#   fill     gen:stencil27:${FILL_N:-590} in ${FILL_FORMAT:-csr-split} with --check: storage above 75% of an
#            H100's memory, more than 2^31 nonzeros on one rank
#   big      every CUDA format on one GPU-generated block of more than 2^31 nonzeros (label gpu_big,
#            tests/local_kernels/big_block_test.cpp): ${BIG_ROWS:-80000000} rows of 27 diagonals (2.16e9
#            nonzeros, 26.5 GB of CSR); BIG_FILTER, a gtest filter, splits it: '*/gpu_build_*' (GPU
#            builders, about a minute) and '*/host_build_*' (download, host build, upload: ~30 s each)
#   two      two ranks on two GPUs, a matrix whose storage is larger than one H200 (141 GB):
#            gen:stencil27:${TWO_N:-780} (475 M rows, 12.8 G nonzeros, 157 GB of CSR) in ${TWO_FORMAT:-csr-split}
#            with --check, then `solve --method cg` (${TWO_CG_ITERS:-30} iterations at most: exit 2, the
#            iteration limit, is expected); needs
#            nvidia-h200-x2 (2 x 141 GB GPUs, 256 GB host); on 2 x H100 set TWO_N=700 (113 GB)
#   faults   issue 20 on 2+ GPUs: the halo watchdog test (one rank stops inside an apply; the others
#            must end the job naming it, over cuda-ipc, mpi-staged and NCCL) and the soak test
#            (${SOAK_APPLIES:-1000000} applies, update_values every 10^4, 2 ranks, no memory growth)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-jobs/results/local}
mkdir -p "$OUT"
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BUILD=${BUILD:-build-gpu}
H5=${H5:-/tmp/poisson.h5}
stages=${*:-build poisson hdf5 fill}
has() { [[ " $stages " == *" $1 "* ]]; }
bin="$BUILD/apps/distspmv"
status=0
progress() { echo "$(date +%T) $*" | tee -a "$OUT/progress.txt"; }

# /usr/bin/time -v gives the kernel's view of the peak RSS next to the program's own report.
run() {
  local name=$1; shift
  progress "start $name: $*"
  /usr/bin/time -v "$@" --json "$OUT/$name.json" >"$OUT/$name.log" 2>"$OUT/$name.time" || status=1
  grep -E "^setup|^memory|^ +GPU|^  apply|GB/s effective|^check|^ +0 " "$OUT/$name.log"
  grep -E "Maximum resident|Elapsed" "$OUT/$name.time" | sed 's/^\s*/  time -v: /'
  progress "end $name (status $status)"
}

if has build; then
  progress "build"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
  cmake --build "$BUILD" -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} >"$OUT/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -60; exit 1; }
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
  progress "build done"
fi

if has tests; then
  progress "cuda tests"
  ctest --test-dir "$BUILD" -L cuda --output-on-failure -j 4 >"$OUT/ctest_cuda.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_cuda.log" | tail -20
  progress "cuda tests done (status $status)"
fi

if has poisson; then
  run poisson "$bin" "gen:poisson3d:${POISSON_N:-450}" --check --iters 20
fi

if has hdf5; then
  progress "convert to $H5"
  rm -f "$H5"
  /usr/bin/time -v "$bin" convert "gen:poisson3d:${POISSON_N:-450}" "$H5" >"$OUT/convert.log" 2>&1 || status=1
  grep -E "Maximum resident|Elapsed" "$OUT/convert.log" | sed 's/^\s*/  convert: /'
  cat "$H5" >/dev/null  # into the page cache: the rate measured is the reader's, not the disk's
  run hdf5 "$bin" "$H5" --check --iters 20
  rm -f "$H5"
fi

if has fill; then
  run fill "$bin" "gen:stencil27:${FILL_N:-590}" --format "${FILL_FORMAT:-csr-split}" --check --iters 10
fi

if has big; then
  progress "start big: ${BIG_FILTER:-every format}"
  DISTSPMV_BIG_ROWS=${BIG_ROWS:-} /usr/bin/time -v "$BUILD/tests/local_kernels/local_kernels_big_block_test" \
    ${BIG_FILTER:+--gtest_filter="$BIG_FILTER"} >"$OUT/big.log" 2>"$OUT/big.time" || status=1
  # The table (every line starts with "big "), gtest's verdict and the first skip's reason.
  grep -E "^big |^\[  (PASSED|FAILED) |^\[  SKIPPED \] [0-9]+ test" "$OUT/big.log"
  grep -m1 -A1 ": Skipped$" "$OUT/big.log"
  grep -E "Maximum resident|Elapsed" "$OUT/big.time" | sed 's/^\s*/  time -v: /'
  progress "end big (status $status)"
fi

if has two; then
  two=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE=0)
  run two "${two[@]}" "$bin" "gen:stencil27:${TWO_N:-780}" --format "${TWO_FORMAT:-csr-split}" --check --iters 10
  run two_cg "${two[@]}" "$bin" solve "gen:stencil27:${TWO_N:-780}" --method cg --format "${TWO_FORMAT:-csr-split}" \
    --max-iters "${TWO_CG_ITERS:-30}" --history-every 10
fi

if has faults; then
  progress "halo watchdog"
  ctest --test-dir "$BUILD" -R cli_halo_watchdog_cuda --output-on-failure >"$OUT/watchdog.log" 2>&1 || status=1
  grep -E "^ok|^FAIL|Passed|Failed|Skipped" "$OUT/watchdog.log"
  progress "soak"
  DISTSPMV_SOAK_APPLIES=${SOAK_APPLIES:-1000000} DISTSPMV_TEST_BACKEND=cuda timeout 540 mpirun --allow-run-as-root \
    --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE=0 -x DISTSPMV_SOAK_APPLIES -x DISTSPMV_TEST_BACKEND \
    "$BUILD/tests/dist/soak_test" >"$OUT/soak.log" 2>&1 || status=1
  grep -E "^soak|OK|FAILED" "$OUT/soak.log"
  progress "end faults (status $status)"
fi

progress "done (status $status)"
exit $status
