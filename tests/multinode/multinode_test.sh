#!/usr/bin/env bash
# distspmv across two hosts: network-namespace hosts on this machine (tests/multinode/hosts.sh),
# ranks started by Open MPI's rsh launcher, halo over TCP between the hosts.
#
#   tests/multinode/multinode_test.sh DISTSPMV_BINARY
#
# Checks, on the host backend:
#   - 1 and 2 ranks per host, a generator and a matrix file that both hosts read (HDF5, written by
#     `distspmv convert`): --check passes, the report and the JSON show two hosts with the ranks
#     where mpirun put them, local ranks per host as MPI's shared-memory split sees them;
#   - the transport: auto chooses MPI (mpi-host) across hosts; --transport cuda-ipc, which reaches
#     the GPUs of one host only, is refused with that reason; nccl is refused without a GPU;
#   - hosts that share one host name (MN_SAME_HOSTNAME=1) still count as two (MPI's view), and
#     the report warns about the names;
#   - `distspmv solve` (CG) across the hosts.
# Needs root, `ip netns` and `unshare`; without them it prints SKIP and exits 77, except under
# CI=true, where that is a failure. KEEP_MULTINODE_TMP=1 keeps the logs and JSON files.
set -uo pipefail

BIN=${1:?usage: multinode_test.sh DISTSPMV_BINARY}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
HERE=$(cd "$(dirname "$0")" && pwd)
T0=$(date +%s)
say() { echo "[multinode_test $(($(date +%s) - T0))s] $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# shellcheck source-path=SCRIPTDIR source=hosts.sh
source "$HERE/hosts.sh"
if ! why=$(mn_requirements); then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: CI=true but the multinode test cannot run, missing: $why (CI runs as root on a machine with ip netns)" >&2
    exit 1
  fi
  echo "SKIP: the multinode test needs root and network namespaces; missing: $why"
  exit 77
fi
[ -x "$BIN" ] || fail "$BIN is not an executable"
command -v python3 >/dev/null 2>&1 || fail "no python3 (reads the JSON reports)"

trap mn_down EXIT
trap 'exit 130' INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export MN_DEADLINE=$((T0 + 240)) # a hang fails here, before ctest's TIMEOUT (300) kills the cleanup too
mn_up 2 || fail "could not make the namespace hosts"
LOG=$MN_DIR/log
mkdir -p "$LOG"

# run NAME MPIRUN-ARGS...: mn_mpirun, output in $LOG/NAME.out; returns mpirun's status
run() {
  local name=$1 rc=0
  shift
  mn_mpirun "$@" >"$LOG/$name.out" 2>&1 || rc=$?
  say "$name: exit $rc ($(grep -c . "$LOG/$name.out") lines)"
  return "$rc"
}
show() { sed 's/^/    | /' "$LOG/$1.out" | tail -n 40; }

# check_json NAME RANKS PER_HOST [NAMES]: the run's JSON has RANKS ranks on 2 hosts, PER_HOST ranks
# on each (ranks 0..PER_HOST-1 on node1), and, unless NAMES=same, host names node1 and node2
check_json() {
  python3 - "$MN_DIR/$1.json" "$2" "$3" "${4:-distinct}" <<'EOF' || fail "$1: JSON report: see above; output:
$(show "$1")"
import json, sys
path, ranks, per_host, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
j = json.load(open(path))
def need(cond, what):
    if not cond:
        sys.exit(f"{path}: {what}")
need(j.get("ranks") == ranks, f"ranks = {j.get('ranks')}, expected {ranks}")
need(j.get("hosts") == 2, f"hosts = {j.get('hosts')}, expected 2")
need(j.get("transport") == "mpi-host", f"transport = {j.get('transport')}, expected mpi-host")
hosts = [r["host"] for r in j["per_rank"]]
if names == "same":
    need(len(set(hosts)) == 1, f"hosts {hosts}: expected one shared name")
else:
    expected = ["node1"] * per_host + ["node2"] * per_host
    need(hosts == expected, f"per-rank hosts {hosts}, expected {expected}")
if "max_rel_error" in j:
    need(j["max_rel_error"] <= 1e-12, f"max_rel_error {j['max_rel_error']}")
EOF
}

# spmv NAME PER_HOST MATRIX [ARGS...]: a checked run on 2 hosts, PER_HOST ranks each
spmv() {
  local name=$1 per_host=$2 matrix=$3
  shift 3
  local n=$((2 * per_host))
  run "$name" -n "$n" --map-by "ppr:$per_host:node" "$BIN" "$matrix" --backend host --check --iters 3 \
    --json "$MN_DIR/$name.json" "$@" || fail "$name: distspmv failed; output:
$(show "$name")"
  grep -q "^check: .*passed" "$LOG/$name.out" || fail "$name: no passed check; output:
$(show "$name")"
  grep -q "$n ranks on 2 hosts" "$LOG/$name.out" || fail "$name: the report does not say '$n ranks on 2 hosts'"
  for r in $(seq 0 $((n - 1))); do
    local host=node$((r / per_host + 1))
    grep -Eq "^ +rank +$r +host $host +local rank $((r % per_host))/$per_host " "$LOG/$name.out" ||
      fail "$name: the report does not put rank $r on $host as local rank $((r % per_host))/$per_host; output:
$(show "$name")"
  done
  check_json "$name" "$n" "$per_host"
}

# ---- (a) checked SpMV across the hosts ------------------------------------------------------------
"$BIN" convert gen:poisson3d:16 "$MN_DIR/poisson16.h5" >"$LOG/convert.out" 2>&1 ||
  fail "distspmv convert failed: $(cat "$LOG/convert.out")"
spmv gen_1pn 1 gen:poisson3d:20
spmv gen_2pn 2 gen:poisson3d:20
spmv file_1pn 1 "$MN_DIR/poisson16.h5" --partition metis
spmv file_2pn 2 "$MN_DIR/poisson16.h5" --partition block
say "checked SpMV on 2 hosts, 1 and 2 ranks each, generator and HDF5 file: passed"

# ---- (b) the transport across hosts -----------------------------------------------------------------
grep -q "^transport: mpi-host (host backend" "$LOG/gen_2pn.out" || fail "auto did not choose mpi-host across hosts"
# refused: nonzero exit, the message, and no rank reaching the SpMV
refused() { # refused NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  if run "$name" -n 2 --map-by ppr:1:node "$BIN" gen:poisson3d:8 --iters 1 "$@"; then
    fail "$name: '$*' across hosts was accepted; output:
$(show "$name")"
  fi
  grep -q -- "$pattern" "$LOG/$name.out" || fail "$name: refusal without '$pattern'; output:
$(show "$name")"
  ! grep -q "^check:\|^timings" "$LOG/$name.out" || fail "$name: ran after the refusal"
}
refused ipc_refused "cuda-ipc: needs --backend cuda and all ranks on one host: the ranks run on several hosts" \
  --backend host --transport cuda-ipc
refused nccl_refused "nccl: needs --backend cuda" --backend host --transport nccl
run mpi_host_forced -n 2 --map-by ppr:1:node "$BIN" gen:poisson3d:8 --iters 1 --backend host --transport mpi-host ||
  fail "--transport mpi-host across hosts failed: $(show mpi_host_forced)"
say "transport: auto chose mpi-host; cuda-ipc and nccl refused with the reason; mpi-host forced works"

# ---- hosts of one name: MPI tells them apart ---------------------------------------------------
export MN_SAME_HOSTNAME=1
run same_name -n 2 --map-by ppr:1:node "$BIN" gen:poisson3d:12 --backend host --check --iters 2 \
  --json "$MN_DIR/same_name.json" || fail "same_name: distspmv failed: $(show same_name)"
check_json same_name 2 1 same
grep -q "^warning: MPI puts the ranks on 2 nodes, but they report 1 host name" "$LOG/same_name.out" ||
  fail "same_name: no warning about the shared host name; output:
$(show same_name)"
refused same_name_ipc "the ranks run on several hosts" --backend host --transport cuda-ipc
unset MN_SAME_HOSTNAME
say "hosts sharing one name: 2 hosts, warning printed, cuda-ipc refused"

# ---- a solve across the hosts -------------------------------------------------------------------------
run solve -n 4 --map-by ppr:2:node "$BIN" solve gen:poisson3d:12 --backend host --rtol 1e-8 \
  --json "$MN_DIR/solve.json" || fail "solve across hosts failed: $(show solve)"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j.get("converged") else "not converged")' \
  "$MN_DIR/solve.json" || fail "solve: $(show solve)"
say "CG solve on 2 hosts x 2 ranks: converged"

say "PASS"
