#!/usr/bin/env bash
# Installs distspmv's build and test dependencies from Debian/Ubuntu packages.
# Usage: cmake/install_deps.sh [run|test|all]      (as root, or with sudo available)
#   run   what the command line needs: compiler, CMake, Ninja, Open MPI, METIS, HDF5 and the small
#         header libraries (README's first command)
#   test  run + what the tests need: GoogleTest, PT-Scotch, Python with numpy/scipy/h5py (an
#         interoperability test) and matplotlib (jobs/plots.py's test), and what the Python module
#         and its tests need: Python's headers, pybind11, mpi4py, pytest (README's second command)
#   all   (default; what CI uses) test + gfortran (the Fortran module and its tests), clang-14 with
#         libFuzzer and libomp (the fuzz targets, tests/sanitizers.sh tsan), SLURM and munge (the
#         jobs/slurm tests), PETSc and petsc4py (the bridge's tests, the Python module's petsc tests)
# The CUDA toolkit (nvcc, cuSPARSE, NCCL) is not installed here: CUDA is optional and detected
# at configure time; install NVIDIA's toolkit separately on GPU machines.
set -euo pipefail
profile=${1:-all}
run=(build-essential cmake ninja-build pkg-config git ca-certificates
     libopenmpi-dev openmpi-bin libmetis-dev libhdf5-dev zlib1g-dev
     libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev)
test=(libgtest-dev libgmock-dev libptscotch-dev python3 python3-numpy python3-scipy python3-h5py python3-matplotlib
      python3-dev pybind11-dev python3-mpi4py python3-pytest)
all=(gfortran clang-14 libclang-rt-14-dev libomp-14-dev slurm-wlm munge petsc-dev python3-petsc4py)
case "$profile" in
  run) packages=("${run[@]}") ;;
  test) packages=("${run[@]}" "${test[@]}") ;;
  all) packages=("${run[@]}" "${test[@]}" "${all[@]}") ;;
  *) echo "cmake/install_deps.sh: unknown profile '$profile' (expected run, test or all)" >&2; exit 2 ;;
esac
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# --force-unsafe-io: dpkg skips its fsync per unpacked file (as Debian's container images do);
# the packages are the same, a crash during the install would need it rerun.
$SUDO apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-unsafe-io "${packages[@]}"
