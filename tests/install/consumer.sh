#!/usr/bin/env bash
# Issue 19: distspmv used from outside its tree. Installs the build into a temporary prefix,
# compiles each installed header on its own, builds examples/consumer against the prefix with
# CMake (find_package(distspmv)) and with pkg-config (examples/consumer/build_with_pkg_config.sh),
# and runs every program at 1 and 2 ranks. Any failure fails the script.
# Usage: tests/install/consumer.sh BUILD_DIR SOURCE_DIR   (ctest: install_consumer, label install)
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/distspmv_install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$(date +%s)
step() { echo "=== [$(($(date +%s) - start)) s] $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
# The package must not point back into the source or build tree.
if grep -rlF -e "$src" -e "$build" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  echo "FAIL: the installed package refers to the source or build tree (files above)" >&2
  exit 1
fi

step "each installed header compiles on its own"
include=$prefix/include/distspmv
for header in $(cd "$include" && find . -name '*.hpp' | sort); do
  echo "#include \"$header\"" | mpicxx -std=c++17 -fsyntax-only -Wall -I"$include" -x c++ -
done
echo '#include "dist/capi/distspmv.h"' | mpicc -std=c99 -fsyntax-only -Wall -Wpedantic -I"$include" -x c -

step "CMake consumer: find_package(distspmv) with CMAKE_PREFIX_PATH"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$src/examples/consumer" -B "$work/cmake" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
grep -F "distspmv 0" "$work/configure.log"
grep -qF "from $prefix/" "$work/configure.log" || { echo "FAIL: distspmv was not found in $prefix" >&2; exit 1; }
cmake --build "$work/cmake" -j 2

step "pkg-config consumer"
bash "$src/examples/consumer/build_with_pkg_config.sh" "$prefix" "$work/pkg-config"

programs=(cmake/solve_cpp cmake/power_c pkg-config/power_c)
if [ -f "$include/fortran/distspmv.mod" ]; then # the build had Fortran: its programs must exist
  programs+=(cmake/cg_fortran pkg-config/cg_fortran)
fi
for program in "${programs[@]}"; do
  for np in 1 2; do
    step "mpirun -n $np $program"
    mpirun -n "$np" --oversubscribe "$work/$program"
  done
done
step "passed"
