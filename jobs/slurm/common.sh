# shellcheck shell=bash
# Sourced by the jobs/slurm/*.sbatch scripts (not run on its own). It
#   - finds the distspmv binary and checks the matrix (clear message, non-zero exit otherwise),
#   - picks the launcher: `srun --mpi=pmix` where srun works with PMIx, else `mpirun` (Open MPI
#     reads the SLURM allocation), one rank per GPU, ranks bound to cores and spread over sockets,
#   - writes $RESULTS_DIR/provenance.txt (revision, GPUs, MPI, host, date, SLURM_* variables and
#     every command line run).
# GPUs: every rank sees all the GPUs of its node. Request them at the job level
# (--gpus-per-node=N or --gres=gpu:N), never per task (--gpus-per-task / --gpu-bind=per_task):
# per-task binding hides the other GPUs from each rank and breaks CUDA peer access (and NCCL's P2P).
#
# Environment read here: DISTSPMV, MATRIX, RESULTS_DIR, BACKEND, PARTITION, ITERS, LAUNCHER
# (srun|mpirun, default: probe), DISTSPMV_GIT_REVISION, DISTSPMV_REPO. See jobs/slurm/README.md.

export NCCL_NVLS_ENABLE=0 # NVLink multicast (NVLS) stays off on the lent machines

die() {
  echo "distspmv job: ERROR: $*" >&2
  exit 3
}
note() { echo "distspmv job: $*" >&2; }

# ---- where things are --------------------------------------------------------------------------
# sbatch runs a copy of the script from slurmd's spool directory, so the repository is found from
# DISTSPMV_REPO, or from the path the job was submitted with (scontrol's Command=), or from here.
distspmv_repo() {
  if [ -n "${DISTSPMV_REPO:-}" ]; then
    echo "$DISTSPMV_REPO"
    return
  fi
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  (cd "$here/../.." && pwd)
}
REPO=$(distspmv_repo)

if [ -z "${DISTSPMV:-}" ]; then
  for candidate in "$REPO/build/cuda-h100/apps/distspmv" "$REPO/build/cpu-release/apps/distspmv" \
                   "$(command -v distspmv 2>/dev/null || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      DISTSPMV=$candidate
      break
    fi
  done
  [ -n "${DISTSPMV:-}" ] || die "no distspmv binary: set DISTSPMV=/path/to/distspmv (looked in $REPO/build/cuda-h100/apps, $REPO/build/cpu-release/apps and PATH)"
fi
[ -f "$DISTSPMV" ] || die "DISTSPMV=$DISTSPMV: no such file"
[ -x "$DISTSPMV" ] || die "DISTSPMV=$DISTSPMV: not executable"

MATRIX=${MATRIX:-gen:poisson3d:64}
case "$MATRIX" in
  gen:*) ;;
  *) [ -r "$MATRIX" ] || die "MATRIX=$MATRIX: no such file (or not readable)" ;;
esac

BACKEND=${BACKEND:-cuda}
case "$BACKEND" in cuda | host) ;; *) die "BACKEND=$BACKEND: expected cuda or host" ;; esac
PARTITION=${PARTITION:-metis}
case "$PARTITION" in metis | block) ;; *) die "PARTITION=$PARTITION: expected metis or block" ;; esac
if [ "$BACKEND" = host ]; then ITERS=${ITERS:-10}; else ITERS=${ITERS:-100}; fi

RESULTS_DIR=${RESULTS_DIR:-$PWD/distspmv-results/${SLURM_JOB_NAME:-job}-${SLURM_JOB_ID:-$$}}
mkdir -p "$RESULTS_DIR" || die "cannot create RESULTS_DIR=$RESULTS_DIR"
RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)
PROVENANCE=$RESULTS_DIR/provenance.txt

if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if [ -n "${SLURM_GPUS_PER_TASK:-}" ]; then
  die "the job was submitted with --gpus-per-task: it hides the node's other GPUs from each rank and breaks GPU peer access; use --gpus-per-node=N (or --gres=gpu:N) instead"
fi

# ---- what the binary supports ------------------------------------------------------------------
# TODO(distributed distspmv): once the MPI binary with --partition/--transport/solve (DESIGN.md §8)
# has landed, drop this detection and always pass the options. Until then an older single-process
# binary runs without them, and provenance.txt says so ("dropped options").
HELP_TEXT=$("$DISTSPMV" --help 2>&1 || true)
supports_option() { grep -q -- "$1" <<<"$HELP_TEXT"; }
supports_solve() { grep -Eq '^[[:space:]]+solve([[:space:]]|$)' <<<"$HELP_TEXT"; }
DROPPED_OPTIONS=()
# add_option ARRAY NAME VALUE: appends "--NAME VALUE" to the array ARRAY if the binary knows --NAME
add_option() {
  local -n args_ref=$1
  if supports_option "--$2"; then
    args_ref+=("--$2" "$3")
  else
    DROPPED_OPTIONS+=("--$2")
  fi
}

# ---- launcher ----------------------------------------------------------------------------------
# Ranks and CPUs of the batch node: SLURM_TASKS_PER_NODE is like "4", "4(x2)" or "3,2".
TASKS_PER_NODE=${SLURM_NTASKS_PER_NODE:-${SLURM_TASKS_PER_NODE:-${SLURM_NTASKS:-1}}}
TASKS_PER_NODE=${TASKS_PER_NODE%%[(,]*}
NTASKS=${SLURM_NTASKS:-$TASKS_PER_NODE}
CPUS_ON_NODE=${SLURM_CPUS_ON_NODE:-$(nproc)}
CPUS_PER_RANK=$((CPUS_ON_NODE / TASKS_PER_NODE))
# SLURM counts hardware threads as CPUs where they are configured; mpirun's PE= counts cores.
THREADS_PER_CORE=$(lscpu 2>/dev/null | sed -n 's/^Thread(s) per core: *\([0-9]*\).*/\1/p')
THREADS_PER_CORE=${THREADS_PER_CORE:-1}
CORES_PER_RANK=$((CPUS_PER_RANK / THREADS_PER_CORE > 0 ? CPUS_PER_RANK / THREADS_PER_CORE : 1))
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$((CPUS_PER_RANK > 0 ? CPUS_PER_RANK : 1))}

srun_works_with_pmix() {
  command -v srun >/dev/null 2>&1 || return 1
  [ -n "${SLURM_JOB_ID:-}" ] || return 1
  srun --mpi=list 2>&1 | grep -q pmix || return 1
  timeout 60 srun --mpi=pmix -N 1 -n 1 true >/dev/null 2>&1
}

if [ -z "${LAUNCHER:-}" ]; then
  if srun_works_with_pmix; then LAUNCHER=srun; else LAUNCHER=mpirun; fi
fi
case "$LAUNCHER" in
  srun) command -v srun >/dev/null 2>&1 || die "LAUNCHER=srun but there is no srun" ;;
  mpirun) command -v mpirun >/dev/null 2>&1 || die "no mpirun (and srun --mpi=pmix does not work here)" ;;
  *) die "LAUNCHER=$LAUNCHER: expected srun or mpirun" ;;
esac

# launch_prefix N: prints the launcher command for N ranks, one word a line.
# One rank per GPU (the job asks for one task per GPU); each rank gets CPUS_PER_RANK CPUs (SLURM's
# count) bound as whole cores; consecutive ranks get consecutive cores, so the ranks fill the
# sockets in order (as GPUs 0..k-1 usually sit on the first socket). The bindings are printed
# (--cpu-bind=verbose, --report-bindings) in the job's output.
# With more ranks than CPUs (small CI machines) the ranks are not bound.
launch_prefix() {
  local n=$1 nodes
  nodes=$(((n + TASKS_PER_NODE - 1) / TASKS_PER_NODE))
  if [ "$LAUNCHER" = srun ]; then
    printf '%s\n' srun --mpi=pmix -n "$n" -N "$nodes" --kill-on-bad-exit=1
    if [ "$CPUS_PER_RANK" -ge 1 ]; then
      printf '%s\n' --cpus-per-task="$CPUS_PER_RANK" --cpu-bind=verbose,cores --distribution=block:block
    else
      printf '%s\n' --overcommit --cpu-bind=none
    fi
  else
    printf '%s\n' mpirun -n "$n" -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS
    if [ "$CPUS_PER_RANK" -ge 1 ]; then
      printf '%s\n' --map-by "socket:PE=$CORES_PER_RANK" --rank-by core --bind-to core --report-bindings
    else
      printf '%s\n' --map-by slot --bind-to none --oversubscribe
    fi
  fi
}

# ---- provenance --------------------------------------------------------------------------------
git_revision() {
  if [ -n "${DISTSPMV_GIT_REVISION:-}" ]; then
    echo "$DISTSPMV_GIT_REVISION"
  elif git -C "$REPO" rev-parse HEAD 2>/dev/null; then
    :
  else
    echo "unknown"
  fi
}

# write_provenance: called by each script once its options are known (so that options the binary
# lacks are recorded); run_distspmv then appends every command line and its exit status.
write_provenance() {
  if [ "${#DROPPED_OPTIONS[@]}" -gt 0 ]; then
    note "WARNING: $DISTSPMV does not support ${DROPPED_OPTIONS[*]} (pre-distributed binary); running without them"
  fi
  {
    echo "# distspmv job provenance"
    echo "git_revision: $(git_revision)"
    if [ -z "${DISTSPMV_GIT_REVISION:-}" ] && git -C "$REPO" rev-parse HEAD >/dev/null 2>&1; then
      if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        echo "git_worktree: modified (uncommitted changes to tracked files)"
      else
        echo "git_worktree: clean"
      fi
    fi
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "hostname: $(hostname)"
    echo "job_script: ${DISTSPMV_JOB_SCRIPT:-unknown}"
    echo "binary: $DISTSPMV"
    echo "binary_version: $("$DISTSPMV" --version 2>&1 || true)"
    echo "matrix: $MATRIX"
    echo "backend: $BACKEND"
    echo "launcher: $LAUNCHER"
    echo "ranks: $NTASKS (per node: $TASKS_PER_NODE, cpus per rank: $CPUS_PER_RANK, threads per core: $THREADS_PER_CORE, OMP_NUM_THREADS=$OMP_NUM_THREADS)"
    echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
    echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-<unset>}"
    if [ "${#DROPPED_OPTIONS[@]}" -gt 0 ]; then
      echo "dropped options (binary does not support them): ${DROPPED_OPTIONS[*]}"
    fi
    echo
    echo "## SLURM job variables"
    env | grep -E '^SLURM_' | sort || echo "(none: not run under SLURM)"
    echo
    echo "## nvidia-smi"
    if command -v nvidia-smi >/dev/null 2>&1; then
      nvidia-smi 2>&1 || true
      nvidia-smi topo -m 2>&1 || true
    else
      echo "no nvidia-smi"
    fi
    echo
    echo "## mpirun --version"
    if command -v mpirun >/dev/null 2>&1; then mpirun --version 2>&1 || true; else echo "no mpirun"; fi
    echo
    echo "## srun --version"
    if command -v srun >/dev/null 2>&1; then srun --version 2>&1 || true; else echo "no srun"; fi
    echo
    echo "## commands"
  } >"$PROVENANCE"
}

# run_distspmv N ARGS...: runs distspmv ARGS on N ranks, logs the exact command line in
# provenance.txt and on stdout, and returns distspmv's exit status.
run_distspmv() {
  local n=$1
  shift
  local -a cmd
  mapfile -t cmd < <(launch_prefix "$n")
  cmd+=("$DISTSPMV" "$@")
  local quoted
  quoted=$(printf '%q ' "${cmd[@]}")
  echo "command: ${quoted% }" >>"$PROVENANCE"
  echo "+ ${quoted% }"
  local rc=0
  "${cmd[@]}" || rc=$?
  echo "exit: $rc" >>"$PROVENANCE"
  return "$rc"
}

note "binary $DISTSPMV, matrix $MATRIX, backend $BACKEND, launcher $LAUNCHER, results in $RESULTS_DIR"
