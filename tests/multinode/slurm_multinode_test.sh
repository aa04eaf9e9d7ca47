#!/usr/bin/env bash
# jobs/slurm/spmv_bench.sbatch with `sbatch -N 2` on a private two-node SLURM cluster whose nodes
# are the network-namespace hosts of tests/multinode/hosts.sh: munged, slurmctld and slurmd on
# node1, a second slurmd on node2 (slurmd -N <node>, one slurm.conf naming both nodes by their
# veth addresses; %n keeps their spool, tmp, pid and log files apart: the two nodes share one file
# system, where srun's PMIx plugin would make the same directory under TmpFS twice). Every daemon
# runs inside a namespace, so mn_down's cleanup stops whatever is left.
#
#   tests/multinode/slurm_multinode_test.sh DISTSPMV_BINARY [REPO_ROOT]
#
# Checks, on the host backend with 2 ranks per node, for both launchers of common.sh (srun
# --mpi=pmix and mpirun, which starts its daemons with srun): the job COMPLETED with exit 0, its
# spmv.json has 4 ranks on 2 hosts (node1 node1 node2 node2) and a passed --check.
# Needs root, `ip netns`, slurm-wlm and munge; without them it prints SKIP and exits 77, except
# under CI=true, where that is a failure. KEEP_MULTINODE_TMP=1 keeps the logs.
set -uo pipefail

BIN=${1:?usage: slurm_multinode_test.sh DISTSPMV_BINARY [REPO_ROOT]}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=${2:-$(cd "$HERE/../.." && pwd)}
T0=$(date +%s)
say() { echo "[slurm_multinode_test $(($(date +%s) - T0))s] $*"; }

# shellcheck source-path=SCRIPTDIR source=hosts.sh
source "$HERE/hosts.sh"
source "$HERE/../slurm/slurm_conf.sh"
why=$(mn_requirements) || true
for tool in slurmctld slurmd sbatch squeue sinfo scontrol munged python3; do
  command -v "$tool" >/dev/null 2>&1 || why+=" $tool"
done
why=${why# }
if [ -n "$why" ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: CI=true but the two-node SLURM test cannot run, missing: $why (cmake/install_deps.sh installs slurm-wlm and munge; CI runs as root)" >&2
    exit 1
  fi
  echo "SKIP: the two-node SLURM test needs root, network namespaces, slurm-wlm and munge; missing: $why"
  exit 77
fi
[ -x "$BIN" ] || { echo "FAIL: $BIN is not an executable" >&2; exit 1; }

# A SLURM job running this test must not leak its variables into the private cluster.
while IFS= read -r v; do unset "$v"; done < <(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p')

dump_logs() {
  local f
  for f in "$MN_DIR"/log/*.log "$MN_DIR"/out/*.out; do
    [ -f "$f" ] || continue
    echo "----- $f (last 30 lines)"
    tail -n 30 "$f"
  done
}
cleanup() {
  local rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "$MN_DIR" ]; then dump_logs; fi
  mn_down
  exit "$rc"
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mn_up 2 || fail "could not make the namespace hosts"
T=$MN_DIR
mkdir -p "$T"/{munge,state,spool,log,run,out,results}
chmod 755 "$T/munge"

# ---- munge, on node1; its socket is a file, which the daemons on node2 reach as well -------------
KEY=$T/munge/munge.key
SOCKET=$T/munge/munge.socket
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --keyfile="$KEY" >/dev/null
else
  dd if=/dev/urandom of="$KEY" bs=1024 count=1 status=none
fi
chmod 600 "$KEY"
mn_exec 1 munged --force --socket="$SOCKET" --key-file="$KEY" --pid-file="$T/run/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" || fail "munged did not start"

# ---- slurm.conf: two nodes at their veth addresses, default ports (each namespace has its own) ----
NODE_HW=$(slurmd -C | sed -n 's/^NodeName=[^ ]* //p' | head -n 1)
NODE_HW=${NODE_HW:-CPUs=$(nproc)}
NODE_CPUS=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$NODE_HW")
export SLURM_CONF=$T/slurm.conf
: >"$T/plugstack.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=distspmvmn
SlurmctldHost=node1($MN_SUBNET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
TmpFS=$T/tmp/%n
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
PlugStackConfig=$T/plugstack.conf
$(slurm_conf_policies "task/none")
NodeName=node1 NodeAddr=$MN_SUBNET.1 NodeHostname=node1 $NODE_HW State=UNKNOWN
NodeName=node2 NodeAddr=$MN_SUBNET.2 NodeHostname=node2 $NODE_HW State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF

# `ip netns exec` mounts a fresh /sys, without the cgroup file systems under /sys/fs/cgroup, and
# slurmd 22.05 refuses to start without them ("No filesystem mounted on /sys/fs/cgroup"). Mount
# them again, as the machine has them, in slurmd's own mount namespace (private to it: the
# machine's mounts do not change).
CGROUP_MOUNTS=$(awk '$2 ~ "^/sys/fs/cgroup(/|$)" {
  printf "mkdir -p %s && mount -t %s -o %s %s %s && ", $2, $3, $4, $1, $2 }' /proc/self/mounts)
mn_exec 1 slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
for i in 1 2; do
  mkdir -p "$T/spool/node$i" "$T/tmp/node$i"
  mn_exec "$i" sh -c "${CGROUP_MOUNTS}exec \"\$@\"" sh slurmd -f "$SLURM_CONF" -N "node$i" ||
    fail "slurmd on node$i did not start"
done
# client commands talk to slurmctld at node1's address: run them on node1
on1() { mn_exec 1 "$@"; }
state=""
for ((i = 0; i < 120; i++)); do
  state=$(on1 sinfo -h -N -o '%N=%T' 2>/dev/null | sort | tr '\n' ' ' || true)
  [ "$state" = "node1=idle node2=idle " ] && break
  sleep 0.5
done
[ "$state" = "node1=idle node2=idle " ] || fail "nodes not idle after 60 s (sinfo: '${state:-none}')"
say "two-node cluster up: $state"

# ---- jobs: spmv_bench with -N 2, 2 tasks per node, srun and mpirun ---------------------------------
# Open MPI between the namespace hosts: TCP on the subnet (mn_up's settings; no rsh agent here,
# the launcher is SLURM's).
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=$MN_SUBNET.0/24 \
  OMPI_MCA_oob_tcp_if_include=$MN_SUBNET.0/24 OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_base_warn_component_unused=0
submit() { # submit NAME VAR=VALUE...: prints the job id
  local name=$1
  shift
  local -a opts=(--parsable -N 2 --ntasks-per-node=2 --oversubscribe -J "$name" -D "$T" -o "$T/out/$name.out" --time=10)
  if [ 2 -gt "${NODE_CPUS:-1}" ]; then opts+=(--overcommit); fi
  on1 env "$@" sbatch "${opts[@]}" "$REPO/jobs/slurm/spmv_bench.sbatch" | cut -d';' -f1
}
common=(BACKEND=host MATRIX=gen:poisson3d:16 ITERS=3 PARTITION=block DISTSPMV="$BIN" DISTSPMV_REPO="$REPO"
        DISTSPMV_GIT_REVISION=multinode-test)
declare -A JOB
JOB[srun]=$(submit srun "${common[@]}" LAUNCHER=srun RESULTS_DIR="$T/results/srun")
JOB[mpirun]=$(submit mpirun "${common[@]}" LAUNCHER=mpirun RESULTS_DIR="$T/results/mpirun")
say "submitted: srun=${JOB[srun]} mpirun=${JOB[mpirun]}"
if [ -z "${JOB[srun]}" ] || [ -z "${JOB[mpirun]}" ]; then fail "sbatch gave no job id"; fi

deadline=$((T0 + 240)) # a hang fails here, before ctest's TIMEOUT (300) kills the cleanup too
while :; do
  pending=$(on1 squeue -h -j "${JOB[srun]},${JOB[mpirun]}" -o '%i %T' 2>/dev/null || true)
  [ -z "$pending" ] && break
  [ "$(date +%s)" -lt "$deadline" ] || fail "jobs still queued or running at the timeout: $pending"
  sleep 1
done
say "both jobs left the queue"

job_field() { on1 scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
for name in srun mpirun; do
  id=${JOB[$name]}
  st=$(job_field "$id" JobState)
  code=$(job_field "$id" ExitCode)
  nodes=$(job_field "$id" NodeList)
  say "job $name ($id): JobState=$st ExitCode=$code NodeList=$nodes"
  if [ "$st" != COMPLETED ] || [ "$code" != 0:0 ]; then
    fail "job $name: JobState=$st ExitCode=$code; output:
$(cat "$T/out/$name.out" 2>/dev/null)"
  fi
  [ "$nodes" = "node[1-2]" ] || fail "job $name ran on '$nodes', not node[1-2]"
  grep -q "^check: .*passed" "$T/out/$name.out" || fail "job $name: no passed check; output:
$(cat "$T/out/$name.out")"
  grep -Eq "^command: $name( .*)? -n 4 " "$T/results/$name/provenance.txt" ||
    fail "job $name: provenance has no '$name ... -n 4' command: $(grep '^command' "$T/results/$name/provenance.txt")"
  python3 - "$T/results/$name/spmv.json" <<'EOF' || fail "job $name: $(cat "$T/out/$name.out")"
import json, sys
j = json.load(open(sys.argv[1]))
hosts = [r["host"] for r in j["per_rank"]]
if j.get("ranks") != 4 or j.get("hosts") != 2 or hosts != ["node1", "node1", "node2", "node2"]:
    sys.exit(f"{sys.argv[1]}: ranks {j.get('ranks')}, hosts {j.get('hosts')}, per rank {hosts}; expected 4 ranks on node1 node1 node2 node2")
EOF
  say "job $name: 4 ranks on node1 node1 node2 node2, check passed"
done
say "PASS"
