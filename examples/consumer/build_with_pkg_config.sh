#!/usr/bin/env bash
# The C example (and the Fortran one, where the install has the module) built with the MPI
# compiler wrappers and pkg-config alone, no CMake.
# Usage: examples/consumer/build_with_pkg_config.sh PREFIX OUT_DIR   (PREFIX: where distspmv is installed)
set -euo pipefail
prefix=$1
out=$2
embedding="$(cd "$(dirname "$0")/../embedding" && pwd)"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
mkdir -p "$out"
set -x
mpicc -std=c11 "$embedding/power_c.c" $(pkg-config --cflags --libs distspmv) -lm -o "$out/power_c"
fmoddir=$(pkg-config --variable=fmoddir distspmv)
if [ -f "$fmoddir/distspmv.mod" ]; then
  mpifort -I"$fmoddir" "$embedding/cg_fortran.f90" $(pkg-config --libs distspmv) -o "$out/cg_fortran"
fi
