#!/usr/bin/env bash
# A checked list of the command lines that README.md and docs/user-guide.md show and that run
# without a GPU (issue 40): each entry is the documented line, found verbatim in its page (so the
# list fails when a page changes without it), then run with `distspmv` replaced by the built binary,
# `mpirun` by MPIEXEC, and `--backend host` added where the line lacks it. Commands that need a GPU,
# a cluster (sbatch, srun, --hostfile) or an install prefix are not run here.
# Usage: readme_commands.sh DISTSPMV MPIEXEC SOURCE_DIR WORK_DIR
set -euo pipefail
D=$1 MPIEXEC=$2 SRC=$3 WORK=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"

# documented PAGE 'COMMAND': COMMAND must appear verbatim in PAGE; it is then run (host backend).
documented() {
  local page=$1 cmd=$2
  grep -qF -- "$cmd" "$SRC/$page" || { echo "FAIL: not in $page any more: $cmd" >&2; exit 1; }
  local run=" $cmd "
  run=${run// mpirun / $MPIEXEC }
  run=${run// distspmv / $D }
  run=${run// build\/cpu-release\/apps\/distspmv / $D }
  run=${run# }
  case "$cmd" in
    "distspmv info "* | "distspmv convert "*) ;;
    *--backend\ host*) ;;
    *) run="$run --backend host" ;;
  esac
  echo "== $page: $cmd"
  echo "   running: $run"
  eval "$run" > out.txt 2>&1 || { cat out.txt; echo "FAIL: $cmd" >&2; exit 1; }
  tail -n 3 out.txt
}

# Inputs the pages take as given: A.mtx (a small SPD matrix), vectors written by distspmv itself.
"$D" convert gen:poisson3d:8 A.mtx

# README.md, first command's last step, and "Running"
documented README.md 'build/cpu-release/apps/distspmv --check'
documented README.md 'distspmv info A.mtx'
documented README.md 'distspmv convert A.mtx A.h5'
documented README.md 'mpirun -np 8 distspmv A.h5 --check'
documented README.md 'mpirun -np 4 distspmv gen:stencil27:32 --backend host --check'
grep -q 'max relative error .*passed' out.txt

# docs/user-guide.md, "Vectors in and out"
"$D" A.h5 --backend host --iters 1 -o x.npy > /dev/null
"$D" A.mtx --backend host --iters 1 -o x.h5:/vectors/x > /dev/null
"$D" convert A.mtx A.petsc > /dev/null
"$D" A.petsc --backend host --iters 1 -o b.petsc > /dev/null
documented docs/user-guide.md 'mpirun -np 8 distspmv A.h5 --x x.npy --output y.npy'
test -s y.npy
documented docs/user-guide.md 'distspmv A.mtx --x x.h5:/vectors/x -o y.h5:/out/y --backend host'
test -s y.h5
documented docs/user-guide.md 'mpirun -np 4 distspmv solve A.petsc --method cg --rhs b.petsc -o x.petsc'
grep -q 'converged' out.txt && test -s x.petsc

# docs/user-guide.md, "The HDF5 layout": the Python snippet, where h5py and scipy are installed
# (cmake/install_deps.sh test; Debian's python3, which a pyenv python3 on PATH may hide).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if "$py" -c 'import h5py, scipy' 2> /dev/null; then
  mkdir -p hdf5 && cd hdf5
  # The python block that writes A.h5 (the guide's Python-module snippet is a sketch, not a program).
  awk '/^```python$/ {on = 1; block = ""; next}
       /^```$/ && on {on = 0; if (block ~ /create_group\("A"\)/) printf "%s", block; next}
       on {block = block $0 "\n"}' "$SRC/docs/user-guide.md" > snippet.py
  grep -q 'create_group("A")' snippet.py
  "$py" snippet.py
  "$D" A.h5 --backend host --iters 2 --check | tail -n 1
  cd ..
else
  echo "note: no h5py/scipy for $py: the HDF5 layout's Python snippet was not run"
fi
echo "all documented commands ran"
