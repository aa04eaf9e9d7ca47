#!/usr/bin/env bash
# The setup watchdog (dist/watchdog.hpp, dist::collective_try): one rank stops in a named setup
# step (DISTSPMV_FAULT_STOP_IN_SETUP); the other must end the job within DISTSPMV_HALO_TIMEOUT
# (3 s here; 15 s allowed for start and teardown), naming the step and the rank it waited for,
# instead of waiting for ever in a blocking collective. 2 ranks, host backend: the in-place setup
# (block partition of the read ranges) and the partitioned one (label propagation); and the
# writing of --output, where the ranks write in turn and rank 1 waits for rank 0's slice.
#
#   setup_watchdog.sh DISTSPMV MPIEXEC
set -uo pipefail
cli=$1 mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export DISTSPMV_HALO_TIMEOUT=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
# step:partition:rank that stops:what the other rank's message says after "waited N s"
for case in "halo plan:block:1:in setup step 'halo plan' for rank 1 " \
            "redistribute:lp:1:in setup step 'redistribute' for rank 1 " \
            "write vector:block:0:for rank 0 to write its slice of $tmp/y.dat, "; do
  IFS=: read -r step partition stopped waited <<<"$case"
  export DISTSPMV_FAULT_STOP_IN_SETUP=$step DISTSPMV_FAULT_RANK=$stopped
  other=$((1 - stopped))
  start=$(date +%s)
  timeout 120 "$mpiexec" -np 2 --oversubscribe -x DISTSPMV_HALO_TIMEOUT -x DISTSPMV_FAULT_RANK \
    -x DISTSPMV_FAULT_STOP_IN_SETUP "$cli" gen:poisson3d:12 --backend host --partition "$partition" --iters 2 \
    --output "$tmp/y.dat" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  took=$(($(date +%s) - start))
  what="step '$step' (--partition $partition): exit $rc after $took s"
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $took -gt 18 ]; then
    echo "FAIL $what (expected the watchdog to abort the job within 3 s of the stop)"
    failed=1
  elif ! grep -q "rank $stopped stops in setup step '$step'" "$tmp/err" ||
       ! grep -Fq "rank $other: waited" "$tmp/err" || ! grep -Fq " s $waited" "$tmp/err"; then
    echo "FAIL $what, without the expected messages"
    failed=1
  else
    echo "ok   $what: $(grep -m1 'waited' "$tmp/err")"
    continue
  fi
  sed -n 1,20p "$tmp/err"
done
exit $failed
