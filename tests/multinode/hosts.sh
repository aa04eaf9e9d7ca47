#!/usr/bin/env bash
# Several "hosts" on one machine, for multi-node tests without a cluster. Host i (node1..nodeN) is
# a network namespace with loopback up and one interface eth0 at 10.77.0.i/24; the hosts are joined
# by a veth pair (2 hosts) or by a bridge in a separate switch namespace (3 or more). Every command
# run on a host also gets its own UTS namespace with the host's name, so gethostname() differs from
# host to host as on a cluster (`ip netns exec` alone keeps the machine's name). Each namespace has
# /etc/netns/<namespace>/hosts (ip-netns(8) binds it over /etc/hosts there) naming all the hosts.
# Nothing is created in the machine's own network namespace: its interfaces, addresses, routes and
# firewall stay as they were. The file system is shared, as NFS is on a cluster.
#
# Open MPI starts ranks on the hosts through its rsh launcher: mn_mpirun runs mpirun on node1 with
# a hostfile of the hosts, plm_rsh_agent set to a generated agent that runs its command on the
# named host (where ssh would log in), and the TCP BTL and out-of-band traffic kept on the subnet.
# Shared memory (vader) serves ranks of one host only, as on a cluster.
#
# Sourced (tests/multinode/multinode_test.sh does this):
#   source tests/multinode/hosts.sh
#   mn_requirements || skip         # prints what is missing
#   trap mn_down EXIT; mn_up 2      # mn_down kills what still runs on the hosts and removes them
#   mn_mpirun -n 4 --map-by ppr:2:node distspmv gen:poisson3d:20 --backend host --check
#   mn_exec 2 COMMAND...            # COMMAND on node2
# By hand (as root), for a look:
#   tests/multinode/hosts.sh [HOSTS] [COMMAND...]
# starts HOSTS hosts (default 2), runs COMMAND (default: a shell) on node1 with the MCA settings
# exported as OMPI_MCA_* (so a plain `mpirun --hostfile $MN_HOSTFILE -n 4 ...` crosses hosts), and
# removes the hosts afterwards.
#
# Settings: MN_SUBNET (first three octets, default 10.77.0), MN_SLOTS (slots per host in the
# hostfile, default 2), MN_SAME_HOSTNAME=1 (commands keep the machine's host name: the hosts then
# differ only in MPI's view, as two machines of one name do).

MN_SUBNET=${MN_SUBNET:-10.77.0}
MN_SLOTS=${MN_SLOTS:-2}
MN_HOSTS=0
MN_DIR=""
MN_PREFIX=""
MN_NAMESPACES=()
# /etc/netns made here carries this mark, so that the last run to leave removes it
MN_ETC_MARK=.made-by-distspmv-multinode

mn_log() { echo "[hosts] $*" >&2; }

# mn_requirements: prints what is missing to stdout and returns 1, or returns 0. It tries the real
# thing (a probe namespace, a UTS namespace) rather than trusting that the tools are installed.
mn_requirements() {
  local missing=() probe=dspmv-probe-$$
  [ "$(id -u)" = 0 ] || missing+=("root")
  for tool in ip unshare mpirun timeout; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ "${#missing[@]}" = 0 ]; then
    if ip netns add "$probe" 2>/dev/null; then
      ip netns exec "$probe" unshare --uts true 2>/dev/null || missing+=("unshare --uts in a network namespace")
      ip netns del "$probe" 2>/dev/null
    else
      missing+=("ip netns (creating a network namespace failed)")
    fi
  fi
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "${missing[*]}"
    return 1
  fi
}

mn_namespace() { echo "$MN_PREFIX-node$1"; }

# mn_sweep: removes the namespaces of earlier runs whose script is gone (killed by a signal that
# no trap sees, such as ctest's SIGKILL at its timeout): dspmv-<pid>-* with no process <pid>.
mn_sweep() {
  local ns pid pids
  for ns in $(ip netns list 2>/dev/null | sed -n 's/^\(dspmv-[0-9]*-\(node[0-9]*\|switch\)\)\( .*\)\{0,1\}$/\1/p'); do
    pid=${ns#dspmv-}
    pid=${pid%%-*}
    if [ "$pid" = $$ ] || kill -0 "$pid" 2>/dev/null; then continue; fi
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    mn_log "removing $ns, left by run $pid${pids:+ (stopping $pids)}"
    # shellcheck disable=SC2086
    [ -z "${pids// /}" ] || kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns" "/tmp/distspmv-multinode-$pid".*
  done
  mn_tidy_etc
}

# mn_tidy_etc: removes /etc/netns where a run of this file made it and nothing else is left in it
mn_tidy_etc() {
  local entry
  [ -f "/etc/netns/$MN_ETC_MARK" ] || return 0
  for entry in /etc/netns/* /etc/netns/.[!.]*; do
    [ -e "$entry" ] && [ "$entry" != "/etc/netns/$MN_ETC_MARK" ] && return 0
  done
  rm -f "/etc/netns/$MN_ETC_MARK"
  rmdir /etc/netns 2>/dev/null
  return 0
}

# mn_up N: creates hosts node1..nodeN and MN_DIR (hostfile, agent). Call `trap mn_down EXIT` first:
# a failure half-way leaves things that mn_down removes.
mn_up() {
  local n=${1:-2} i ns peer switch
  [ "$n" -ge 2 ] || { mn_log "mn_up: at least 2 hosts"; return 1; }
  mn_sweep
  MN_HOSTS=$n
  MN_PREFIX=dspmv-$$
  MN_DIR=$(mktemp -d "/tmp/distspmv-multinode-$$.XXXXXX")
  chmod 755 "$MN_DIR"
  if [ ! -d /etc/netns ]; then
    mkdir /etc/netns && : >"/etc/netns/$MN_ETC_MARK"
  fi
  for ((i = 1; i <= n; i++)); do
    ns=$(mn_namespace "$i")
    ip netns add "$ns" || return 1
    MN_NAMESPACES+=("$ns")
  done
  if [ "$n" = 2 ]; then
    # created straight in the two namespaces: no interface ever appears in the machine's own
    ip link add name eth0 netns "$(mn_namespace 1)" type veth peer name eth0 netns "$(mn_namespace 2)" || return 1
  else
    switch=$MN_PREFIX-switch
    ip netns add "$switch" || return 1
    MN_NAMESPACES+=("$switch")
    ip -n "$switch" link add br0 type bridge || return 1
    ip -n "$switch" link set br0 up
    for ((i = 1; i <= n; i++)); do
      peer=port$i
      ip link add name eth0 netns "$(mn_namespace "$i")" type veth peer name "$peer" netns "$switch" || return 1
      ip -n "$switch" link set "$peer" master br0 up || return 1
    done
  fi
  {
    echo "127.0.0.1 localhost"
    for ((i = 1; i <= n; i++)); do echo "$MN_SUBNET.$i node$i"; done
  } >"$MN_DIR/hosts"
  : >"$MN_DIR/hostfile"
  for ((i = 1; i <= n; i++)); do
    ns=$(mn_namespace "$i")
    ip -n "$ns" link set lo up || return 1
    ip -n "$ns" addr add "$MN_SUBNET.$i/24" dev eth0 || return 1
    ip -n "$ns" link set eth0 up || return 1
    mkdir -p "/etc/netns/$ns"
    cp "$MN_DIR/hosts" "/etc/netns/$ns/hosts"
    echo "node$i slots=$MN_SLOTS" >>"$MN_DIR/hostfile"
  done
  mn_write_agent
  MN_HOSTFILE=$MN_DIR/hostfile
  # Open MPI: the rsh launcher through the agent, no tree spawn (the agent runs on node1 only), the
  # ob1 PML over TCP between hosts and shared memory within one, TCP on the subnet only. The hosts
  # share this machine's cores, which Open MPI cannot see: waiting ranks yield (a CG solve on
  # 2 hosts x 2 ranks of a 2-core machine: 66 ms per iteration busy-polling, 10 ms yielding).
  MN_MCA=(plm_rsh_agent "$MN_DIR/rsh_agent" plm_rsh_no_tree_spawn 1 pml ob1 btl "self,vader,tcp"
          btl_tcp_if_include "$MN_SUBNET.0/24" oob_tcp_if_include "$MN_SUBNET.0/24"
          btl_base_warn_component_unused 0 mpi_yield_when_idle 1)
  mn_wait_links || return 1
  mn_log "$n hosts up: $(for ((i = 1; i <= n; i++)); do printf 'node%s=%s.%s(%s) ' "$i" "$MN_SUBNET" "$i" "$(mn_namespace "$i")"; done)"
}

# mn_wait_links: until node1 reaches every other host over TCP. "Connection refused" comes back
# from the host itself (nothing listens on port 9), so the link carries packets.
mn_wait_links() {
  local i t out
  for ((i = 2; i <= MN_HOSTS; i++)); do
    for ((t = 0; t < 50; t++)); do
      out=$(ip netns exec "$(mn_namespace 1)" timeout 1 bash -c "exec 3<>/dev/tcp/$MN_SUBNET.$i/9" 2>&1)
      grep -q "refused" <<<"$out" && break
      sleep 0.1
    done
    [ "$t" -lt 50 ] || { mn_log "node1 does not reach node$i ($MN_SUBNET.$i): $out"; return 1; }
  done
}

# The agent Open MPI runs instead of ssh: `rsh_agent HOST COMMAND...` runs the command line on HOST
# (joined and evaluated by a shell, as ssh does). Generated, so that it knows this run's namespaces.
# shellcheck disable=SC2016 # the single-quoted lines are the agent's own shell code
mn_write_agent() {
  local i
  {
    echo '#!/bin/sh'
    echo "# Open MPI's plm_rsh_agent for the namespace hosts of $MN_DIR (tests/multinode/hosts.sh)."
    echo 'case "$1" in'
    for ((i = 1; i <= MN_HOSTS; i++)); do echo "  node$i | $MN_SUBNET.$i) host=node$i ns=$(mn_namespace "$i") ;;"; done
    echo '  *) echo "rsh_agent: no host $1 here (hosts: node1..node'"$MN_HOSTS"')" >&2; exit 255 ;;'
    echo 'esac'
    echo 'shift'
    echo 'if [ "${MN_SAME_HOSTNAME:-0}" = 1 ]; then exec ip netns exec "$ns" /bin/sh -c '\''eval "$*"'\'' sh "$@"; fi'
    echo 'exec ip netns exec "$ns" unshare --uts /bin/sh -c '\''echo "$0" >/proc/sys/kernel/hostname && eval "$*"'\'' "$host" "$@"'
  } >"$MN_DIR/rsh_agent"
  chmod 755 "$MN_DIR/rsh_agent"
}

# mn_exec I COMMAND...: runs COMMAND (argv, not a shell line) on host nodeI, under its host name.
mn_exec() {
  local i=$1 ns
  shift
  ns=$(mn_namespace "$i")
  if [ "${MN_SAME_HOSTNAME:-0}" = 1 ]; then
    ip netns exec "$ns" "$@"
  else
    # shellcheck disable=SC2016 # $0 and $@ belong to the inner shell
    ip netns exec "$ns" unshare --uts /bin/sh -c 'echo "$0" >/proc/sys/kernel/hostname && exec "$@"' "node$i" "$@"
  fi
}

# mn_mpirun MPIRUN-ARGS...: mpirun on node1 over the hostfile with the MCA settings of mn_up. It
# is killed after MN_TIMEOUT seconds (default 120), or at MN_DEADLINE (seconds since the epoch)
# if that comes first: a hang fails the test itself, with time left for mn_down, before ctest's
# timeout kills the script and the hosts with it would stay behind.
mn_mpirun() {
  local mca=() i limit=${MN_TIMEOUT:-120}
  for ((i = 0; i < ${#MN_MCA[@]}; i += 2)); do mca+=(--mca "${MN_MCA[i]}" "${MN_MCA[i + 1]}"); done
  if [ -n "${MN_DEADLINE:-}" ] && [ $((MN_DEADLINE - $(date +%s))) -lt "$limit" ]; then
    limit=$((MN_DEADLINE - $(date +%s)))
    [ "$limit" -gt 0 ] || { mn_log "mn_mpirun: past MN_DEADLINE"; return 124; }
  fi
  mn_exec 1 timeout -k 5 "$limit" mpirun --hostfile "$MN_HOSTFILE" --bind-to none "${mca[@]}" "$@"
}

# mn_mca_env: the MCA settings as OMPI_MCA_* variables (for mpirun typed by hand, or under SLURM)
mn_mca_env() {
  local i
  for ((i = 0; i < ${#MN_MCA[@]}; i += 2)); do export "OMPI_MCA_${MN_MCA[i]}=${MN_MCA[i + 1]}"; done
}

# mn_down: kills what still runs in the namespaces (orted daemons of a failed run, daemons a test
# started there), deletes the namespaces (their interfaces go with them) and the files. Idempotent.
mn_down() {
  local ns pids t
  for ns in "${MN_NAMESPACES[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    if [ -n "${pids// /}" ]; then
      mn_log "stopping what still runs on $ns: $pids"
      # shellcheck disable=SC2086
      kill $pids 2>/dev/null
      for ((t = 0; t < 50; t++)); do
        [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
        sleep 0.1
      done
      pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
      # shellcheck disable=SC2086
      [ -z "${pids// /}" ] || kill -9 $pids 2>/dev/null
    fi
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns"
  done
  MN_NAMESPACES=()
  mn_tidy_etc
  if [ -n "$MN_DIR" ] && [ "${KEEP_MULTINODE_TMP:-0}" != 1 ]; then rm -rf "$MN_DIR"; fi
  [ "${KEEP_MULTINODE_TMP:-0}" = 1 ] && [ -n "$MN_DIR" ] && mn_log "kept $MN_DIR"
  MN_DIR=""
  return 0
}

# ---- run by hand ---------------------------------------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  if ! why=$(mn_requirements); then
    echo "hosts.sh: cannot make namespace hosts here, missing: $why" >&2
    exit 1
  fi
  n=2
  if [[ "${1:-}" =~ ^[0-9]+$ ]]; then n=$1; shift; fi
  trap mn_down EXIT
  trap 'exit 130' INT TERM
  mn_up "$n" || exit 1
  mn_mca_env
  export MN_DIR MN_HOSTFILE OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mn_log "on node1; try: mpirun --hostfile \$MN_HOSTFILE -n $n --map-by ppr:1:node hostname"
  if [ "$#" -gt 0 ]; then mn_exec 1 "$@"; else mn_exec 1 bash -i; fi
fi
