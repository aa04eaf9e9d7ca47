#!/usr/bin/env bash
# The Python module on the GPU machine (issue 38): built for that machine's python3 (3.12, CuPy,
# mpi4py 4, pybind11 3), its CuPy tests and examples at 1 and 2 ranks, and the apply's time from
# Python against the C++ apply's on the same matrices. Logs and JSON go to $OUT.
#
#   jobs/python_gpu.sh build tests bench        (any subset, in that order; default: all three)
#
# Run on nvidia-h100-x2 (or nvidia-h200-x2), carrying .device-deps (METIS, DEVICE.md) and
# .device-data (the shared matrices in .device-data/matrices, and REVISION):
#   run(kind="nvidia-h100-x2", carry=[".device-deps", ".device-data"], command="jobs/python_gpu.sh")
# build takes a few minutes on a fresh machine; on a warm one the next call rebuilds nothing.
# BUILD_TARGETS (default "distspmv_python distspmv"; bench needs the second) limits the build.
# tests: pytest on tests/python at 1 and 2 ranks (test_cupy.py against the host backend and SciPy
# on every shared square matrix: DISTSPMV_PY_ALL_MATRICES=1; the host tests too where SciPy is
# there), examples/python/cg_cupy.py at 1 and 2 ranks. bench: jobs/python_apply_timing.py (Python's
# apply against the same loop in C++ on the same matrix and arrays, and `distspmv MATRIX --json`)
# on BENCH_MATRICES (default gen:poisson3d:64 and gen:poisson3d:200) at 1 and 2 ranks; one line
# each, last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-jobs/results/local}
LOG="$OUT/logs"
mkdir -p "$LOG"
export DISTSPMV_MATRICES=${DISTSPMV_MATRICES:-$PWD/.device-data/matrices}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PYTHONDONTWRITEBYTECODE=1
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
BUILD=${BUILD:-build-gpu}
PY=${PY:-$(command -v python3)}
export PYTHONPATH=$PWD/$BUILD/python
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
BENCH_MATRICES=${BENCH_MATRICES:-gen:poisson3d:64 gen:poisson3d:200}
stages=${*:-build tests bench}
status=0
has() { [[ " $stages " == *" $1 "* ]]; }
mpi() { local n=$1; shift; timeout "${MPI_TIMEOUT:-300}" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
          -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x DISTSPMV_MATRICES -x PYTHONPATH -x PYTHONDONTWRITEBYTECODE \
          -x DISTSPMV_PY_ALL_MATRICES "$@"; }
ranks() { local n=1; while [ "$n" -le "$GPUS" ] && [ "$n" -le 2 ]; do echo "$n"; n=$((n * 2)); done; }

echo "=== $PY: $("$PY" -c 'import sys; print(sys.version.split()[0])' 2>&1); packages:"
for m in numpy cupy mpi4py pybind11 pytest scipy petsc4py; do
  printf '  %-9s %s\n' "$m" "$("$PY" -c "import $m; print(getattr($m, '__version__', 'yes'))" 2>/dev/null || echo missing)"
done

if has build; then
  echo "=== build ($(nproc) cores, $GPUS GPUs) in $BUILD"
  mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
  pybind11_dir=$("$PY" -m pybind11 --cmakedir 2>/dev/null)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DMETIS_ROOT=/opt/metis/usr -DDISTSPMV_PYTHON=ON -DPython3_EXECUTABLE="$PY" ${pybind11_dir:+-Dpybind11_DIR=$pybind11_dir} \
        >"$LOG/configure.log" 2>&1 || { tail -40 "$LOG/configure.log"; exit 1; }
  grep -E "^--   (CUDA|NCCL|MPI|METIS|Python)" "$LOG/configure.log"
  cmake --build "$BUILD" -j "$(nproc)" --target ${BUILD_TARGETS:-distspmv_python distspmv} >"$LOG/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$LOG/build.log" | head -60; exit 1; }
  ls "$BUILD"/python/distspmv/
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
fi

if has tests; then
  echo "=== tests/python with CuPy (every shared square matrix), and the host tests where SciPy is there"
  if "$PY" -c "import pytest" 2>/dev/null; then
    for n in $(ranks); do
      if DISTSPMV_PY_ALL_MATRICES=1 mpi "$n" "$PY" -m pytest -q -p no:cacheprovider --color=no tests/python -m "not petsc" \
           >"$LOG/pytest_np$n.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
      echo "pytest tests/python np=$n: $r: $(grep -aE '(passed|failed|error|skipped)' "$LOG/pytest_np$n.log" | tail -1)"
      grep -aE "^(FAILED|ERROR)" "$LOG/pytest_np$n.log" | head -10
    done
  else
    echo "pytest is missing for $PY: tests/python not run"; status=1
  fi
  for n in $(ranks); do
    if mpi "$n" "$PY" examples/python/cg_cupy.py gen:poisson3d:64 >"$LOG/cg_cupy_np$n.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
    echo "examples/python/cg_cupy.py np=$n: $r"; sed 's/^/  /' "$LOG/cg_cupy_np$n.log" | tail -4
  done
fi

if has bench; then
  echo "=== apply from Python (CuPy) against C++ on the same matrix: the same loop in C++ in the same process"
  echo "    (Matrix._time_apply), and the command line's --json where $BUILD/apps/distspmv is built"
  mkdir -p "$OUT/runs"
  for m in $BENCH_MATRICES; do
    for n in $(ranks); do
      name="$(echo "$m" | tr ':/' '__')_np$n"
      json=""
      if [ -x "$BUILD/apps/distspmv" ]; then
        if mpi "$n" "$BUILD/apps/distspmv" "$m" --iters 200 --warmup 20 --json "$OUT/runs/$name.json" \
             >"$OUT/runs/$name.log" 2>&1; then json="$OUT/runs/$name.json"; else
          echo "FAILED: distspmv $m np=$n"; tail -5 "$OUT/runs/$name.log"; status=1; fi
      fi
      mpi "$n" "$PY" jobs/python_apply_timing.py "$m" $json --out "$OUT/runs/${name}_python.json" --iters 200 \
        --warmup 20 >"$OUT/runs/${name}_python.log" 2>&1 || status=1
      tail -1 "$OUT/runs/${name}_python.log"
    done
  done
fi
# The device tool returns at most 8 files: the runs travel as one archive too.
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs && { [ ! -d runs ] || { tar czf runs.tgz runs && rm -rf runs; }; })
exit $status
