#!/usr/bin/env bash
# The setup watchdog (dist/watchdog.hpp, dist::collective_try): one rank stops in a named setup
# step (DISTSPMV_FAULT_STOP_IN_SETUP); the other must end the job within DISTSPMV_HALO_TIMEOUT
# (3 s here; 15 s allowed for start and teardown), naming the step and the rank it waited for,
# instead of waiting for ever in a blocking collective. 2 ranks, host backend: the in-place setup
# (block partition of the read ranges) and the partitioned one (label propagation).
#
#   setup_watchdog.sh DISTSPMV MPIEXEC
set -uo pipefail
cli=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export DISTSPMV_HALO_TIMEOUT=3 DISTSPMV_FAULT_RANK=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for case in "halo plan:block" "redistribute:lp"; do
  export DISTSPMV_FAULT_STOP_IN_SETUP=${case%%:*}
  partition=${case##*:}
  start=$(date +%s)
  timeout 120 "$mpiexec" -np 2 --oversubscribe -x DISTSPMV_HALO_TIMEOUT -x DISTSPMV_FAULT_RANK \
    -x DISTSPMV_FAULT_STOP_IN_SETUP "$cli" gen:poisson3d:12 --backend host --partition "$partition" --iters 2 \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  took=$(($(date +%s) - start))
  step=$DISTSPMV_FAULT_STOP_IN_SETUP
  what="step '$step' (--partition $partition): exit $rc after $took s"
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $took -gt 18 ]; then
    echo "FAIL $what (expected the watchdog to abort the job within 3 s of the stop)"
    failed=1
  elif ! grep -q "rank 1 stops in setup step '$step'" "$tmp/err" ||
       ! grep -Eq "rank 0: waited [0-9.]+ s in setup step '$step' for rank 1 " "$tmp/err"; then
    echo "FAIL $what, without the expected messages"
    failed=1
  else
    echo "ok   $what: $(grep -m1 'waited' "$tmp/err")"
    continue
  fi
  sed -n 1,20p "$tmp/err"
done
exit $failed
