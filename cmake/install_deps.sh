#!/usr/bin/env bash
# Installs every build and test dependency of distspmv from Debian/Ubuntu packages.
# Usage: cmake/install_deps.sh          (as root, or with sudo available)
# The CUDA toolkit (nvcc, cuSPARSE, NCCL) is not installed here: CUDA is optional and detected
# at configure time; install NVIDIA's toolkit separately on GPU machines.
# clang-14 and libclang-rt-14-dev build the libFuzzer targets (tests/fuzz); libomp-14-dev gives
# clang's OpenMP runtime and its Archer tool, which the ThreadSanitizer run needs
# (tests/sanitizers.sh tsan).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
  build-essential gfortran cmake ninja-build pkg-config git ca-certificates \
  libopenmpi-dev openmpi-bin libmetis-dev libptscotch-dev libhdf5-dev zlib1g-dev \
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev \
  python3 python3-numpy python3-scipy python3-h5py python3-matplotlib \
  clang-14 libclang-rt-14-dev libomp-14-dev \
  slurm-wlm munge \
  petsc-dev
