#!/usr/bin/env bash
# Sanitizer builds and runs for CI (.ci/run) and by hand (issue 20 item 3).
#
#   tests/sanitizers.sh asan   preset cpu-asan (clang-14, AddressSanitizer + UBSan, -O1 -g1; the
#                              command line's code and the io/apps/solvers tests' own sources at
#                              -O0): the test programs of labels cpu and mpi, the distspmv program
#                              the cli_* tests call, and the libFuzzer targets (the same build: the
#                              io library with libFuzzer's coverage instrumentation added); then
#                              the cpu and mpi tests (jobs_plots aside: Python)
#   tests/sanitizers.sh fuzz   the fuzz targets of that build: replays of the saved inputs, and
#                              a short fuzzing run of each (label fuzz, two at a time)
#   tests/sanitizers.sh tsan   preset cpu-tsan (clang-14, ThreadSanitizer, -fopenmp with LLVM's
#                              libomp and its Archer tool): the tests of the OpenMP host kernels
#                              (local_kernels, label cpu), of the OpenMP generators and of rcm's
#                              threaded adjacency lists, with 4 threads on any machine
#   tests/sanitizers.sh        all three (asan, fuzz, tsan)
#
# Only the targets those tests need are built (no benchmarks, examples, CUDA-labelled tests), at
# -O1 with line tables only: on CI's two cores the whole script must stay within 12 minutes (647
# and 701 s at f3e9c1f: ASan+UBSan build 210-257 s, its tests 190-197 s, fuzz 44 s, TSan 190 s).
# clang rather than gcc for ASan: a third less compile time, and one build serves the fuzzers too.
# Without UBSan's object-size check (ASan checks the same accesses exactly): with it, clang inlines
# none of the standard library's small functions (vector::operator[] stays a call), and the tests
# ran twice as long.
# Any report fails the run: ASan and TSan exit non-zero, UBSan is built with
# -fno-sanitize-recover. No suppression file: none was needed (leak checking is off for MPI
# programs only, see run_asan).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${DISTSPMV_SANITIZER_JOBS:-2}
start=$(date +%s)
stamp() { echo "=== sanitizers [$(( $(date +%s) - start )) s] $*"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMP threads sleep at barriers instead of spinning: 4 threads (and several ranks) share 2 cores
# here, and under TSan a spinning thread costs the others most (a TSan run of two formats' tests:
# 96 s spinning, 57 s passive).
export OMP_WAIT_POLICY=passive

# A new test program of label cpu or mpi missing from this list makes ctest fail ("Could not find
# executable"), so that it is added here rather than left out silently.
asan_targets=(
  io_coo_test io_matrix_market_test io_hdf5_test io_generators_test io_matrix_source_test io_row_split_test
  io_roundtrip_test io_petsc_binary_test io_vector_io_test cli_vectors_test
  local_kernels_formats_test local_kernels_csr_tiles_test local_kernels_csr_build_test local_kernels_hll_build_test
  local_kernels_hdia_build_test local_kernels_ipcsr_build_test local_kernels_ellr_build_test
  local_kernels_pellr_build_test local_kernels_sell_build_test local_kernels_panel_build_test
  local_kernels_format_selector_test
  partition_test ptscotch_test label_propagation_test ordering_test model_test
  dist_test auto_partition_test split_rows_test gpu_order_test solvers_test c_api_test fortran_api_test
  distspmv
)
fuzz_targets=(fuzz_matrix_market fuzz_hdf5 fuzz_petsc_binary fuzz_command_line)
tsan_targets=(
  local_kernels_formats_test local_kernels_csr_tiles_test local_kernels_csr_build_test local_kernels_hll_build_test
  local_kernels_hdia_build_test local_kernels_ipcsr_build_test local_kernels_ellr_build_test
  local_kernels_pellr_build_test local_kernels_sell_build_test local_kernels_panel_build_test
  local_kernels_format_selector_test io_generators_test ordering_test
)
# The tests of those targets (a regular expression over ctest's names).
tsan_tests='^(local_kernels_.*|io_generators_test|ordering_test)$'

# Tests that repeat their checks over every matrix of ../shared/matrices: they add run time (minutes
# under ASan and TSan), not code paths, which the edge-case matrices of the same tests already
# reach (empty rows, one long row, odd sizes, 50007 rows, above the kernels' 20000-row OpenMP
# threshold). They run in the regular ctest.
sweeps='*RealMatrices*:*SharedMatricesMatchSerial*:*ValidOnEverySharedMatrixRelabelled*'
sweeps+=':*SharedMatricesAreExactlyEqual*:*EveryFileReadsWithTheRowsAndNnzOfTheReadme*'

run_asan() {
  stamp "ASan+UBSan: configure (cpu-asan)"
  cmake --preset cpu-asan >/dev/null
  stamp "ASan+UBSan: build ${#asan_targets[@]} targets and ${#fuzz_targets[@]} fuzz targets"
  cmake --build build/cpu-asan -j "$jobs" --target "${asan_targets[@]}" "${fuzz_targets[@]}"
  local asan="detect_odr_violation=0:strict_string_checks=1:check_initialization_order=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" GTEST_FILTER="-$sweeps"
  # detect_odr_violation=0: HDF5 and Open MPI, not instrumented, define globals that instrumented
  # code sees through their headers (no violation of ours).
  stamp "ASan+UBSan: serial tests (label cpu), leak checking on"
  ASAN_OPTIONS="detect_leaks=1:$asan" \
    ctest --test-dir build/cpu-asan -L cpu -E '^(jobs_plots|cli_.*|docs_readme_commands|jobs_model_check|local_kernels_formats_test)$' \
          --output-on-failure -j "$jobs" --no-tests=error
  # The host instantiations only (its own filter; the CUDA ones skip without a GPU anyway).
  ASAN_OPTIONS="detect_leaks=1:$asan" \
    build/cpu-asan/tests/local_kernels/local_kernels_formats_test --gtest_filter="Host/*:-$sweeps" --gtest_brief=1
  # Programs that call MPI_Init (label mpi, and the distspmv program the cli_* and docs tests run): Open MPI
  # 4.1 does not free its start-up state at MPI_Finalize, much of it allocated by plugins it has
  # dlopen()ed and closed again (LeakSanitizer shows "<unknown module>", so no suppression by
  # library can match), and LeakSanitizer's tracer itself crashes (SIGSEGV) in processes where
  # Open MPI started its progress threads. Leak checking is off there; every other ASan and UBSan
  # check stays on.
  # jobs_model_check is left to the regular ctest: a Python harness over `distspmv model` (163 s
  # under ASan on 2 cores, 27 s without), whose C++ the model_test_np* and cli_model_* tests reach.
  stamp "ASan+UBSan: MPI programs (label mpi, cli_*, docs_readme_commands), leak checking off"
  ASAN_OPTIONS="detect_leaks=0:$asan" \
    ctest --test-dir build/cpu-asan -L cpu -R '^(cli_.*|docs_readme_commands)$' --output-on-failure -j "$jobs" --no-tests=error
  ASAN_OPTIONS="detect_leaks=0:$asan" \
    ctest --test-dir build/cpu-asan -L mpi --output-on-failure -j "$jobs" --no-tests=error
  unset GTEST_FILTER UBSAN_OPTIONS
}

run_fuzz() {
  [ -f build/cpu-asan/build.ninja ] || cmake --preset cpu-asan >/dev/null
  cmake --build build/cpu-asan -j "$jobs" --target "${fuzz_targets[@]}" # up to date after run_asan
  stamp "libFuzzer: replay of the saved inputs and a short run of each target"
  ctest --test-dir build/cpu-asan -L fuzz --output-on-failure -j 2 --no-tests=error # one core each
}

run_tsan() {
  local archer=/usr/lib/llvm-14/lib/libarcher.so
  if [ ! -f "$archer" ]; then
    echo "sanitizers: $archer is missing (Debian package libomp-14-dev): cannot check OpenMP under TSan" >&2
    return 1
  fi
  stamp "TSan: configure (cpu-tsan, clang-14 + libomp + Archer)"
  cmake --preset cpu-tsan >/dev/null
  if ! grep -q '^OpenMP_CXX_FLAGS:STRING=-fopenmp' build/cpu-tsan/CMakeCache.txt; then
    echo "sanitizers: clang-14 found no OpenMP (libomp-14-dev): the TSan run would check nothing" >&2
    return 1
  fi
  stamp "TSan: build ${#tsan_targets[@]} targets"
  cmake --build build/cpu-tsan -j "$jobs" --target "${tsan_targets[@]}"
  stamp "TSan: the OpenMP host kernels' tests, 4 threads"
  # LLVM's libomp is not built with TSan: its barriers, locks and task dependences are invisible
  # to TSan, which then reports every parallel region as racing with the code after it. Archer
  # (an OMPT tool shipped with libomp) tells TSan about those synchronisations; with it, a report
  # is a real race. ignore_noninstrumented_modules keeps TSan out of libomp's own accesses.
  # (libgomp, GCC's runtime, has no such tool: this build must use clang's -fopenmp.)
  # No suppression was needed: with Archer, these tests gave no report (a deliberate race in an
  # OpenMP loop is reported; libgomp with TSan reports a false race on a correct loop).
  export OMP_TOOL_LIBRARIES="$archer" OMP_NUM_THREADS=4 GTEST_FILTER="-$sweeps"
  export TSAN_OPTIONS="ignore_noninstrumented_modules=1:halt_on_error=1:second_deadlock_stack=1"
  ctest --test-dir build/cpu-tsan -R "$tsan_tests" -L cpu -E '^local_kernels_formats_test$' --output-on-failure \
        -j 1 --no-tests=error
  # Parameter variants of a format run the same host kernel and builder as their family's default
  # (format_registry.cpp: ellr_variant, hll_variant, sell_variant with other constants): under TSan
  # one of each is enough, and the six left out took 66 of the test's 175 s on 2 cores.
  local variants='*/ellr_t1_host:*/ellr_t2_host:*/ellr_t8_host:*/hll_sorted_host:*/sell_c32_s1_host:*/sell_c64_r2_host'
  build/cpu-tsan/tests/local_kernels/local_kernels_formats_test --gtest_filter="Host/*:-$sweeps:$variants" --gtest_brief=1
  unset OMP_TOOL_LIBRARIES OMP_NUM_THREADS GTEST_FILTER TSAN_OPTIONS
}

case "${1:-all}" in
  asan) run_asan ;;
  fuzz) run_fuzz ;;
  tsan) run_tsan ;;
  # Not "run_asan && run_tsan": bash ignores set -e inside a function called from such a list,
  # and a failing test would not fail the script.
  all)
    run_asan
    run_fuzz
    run_tsan
    ;;
  *) echo "usage: $0 [asan|fuzz|tsan|all]" >&2; exit 2 ;;
esac
stamp "done"
