#!/usr/bin/env bash
# The halo watchdog (dist/watchdog.hpp): one rank stops inside an apply
# (DISTSPMV_FAULT_STOP_AFTER); the others must end the job within seconds, naming the rank they
# waited for, instead of waiting for ever. At 2 and 3 ranks, over each transport given.
#
#   halo_watchdog.sh DISTSPMV MPIEXEC BACKEND TRANSPORT...
#
# On the CUDA backend one GPU per rank (NCCL refuses two ranks on one GPU): 2 ranks need 2 GPUs,
# 3 ranks 3; exit 77 (skipped) with fewer than 2.
set -uo pipefail
cli=$1 mpiexec=$2 backend=$3
shift 3
ranks="2 3"
if [ "$backend" = cuda ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ "$gpus" -lt 2 ]; then
    echo "$gpus GPUs (2 needed): skipped"
    exit 77
  fi
  [ "$gpus" -lt 3 ] && ranks="2"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export DISTSPMV_HALO_TIMEOUT=3 DISTSPMV_FAULT_STOP_AFTER=5 DISTSPMV_FAULT_RANK=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for transport in "$@"; do
  for np in $ranks; do
    start=$(date +%s)
    timeout 120 "$mpiexec" -np "$np" --oversubscribe -x NCCL_NVLS_ENABLE=0 -x DISTSPMV_HALO_TIMEOUT -x DISTSPMV_FAULT_STOP_AFTER \
      -x DISTSPMV_FAULT_RANK "$cli" gen:poisson3d:24 --backend "$backend" --transport "$transport" --iters 50 \
      >"$tmp/out" 2>"$tmp/err"
    rc=$?
    took=$(($(date +%s) - start))
    what="$transport at $np ranks: exit $rc after $took s"
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
      echo "FAIL $what (expected the watchdog to abort the job)"
      failed=1
    elif ! grep -q "rank 1 stops inside its apply 6" "$tmp/err" ||
         ! grep -Eq "rank [02]: waited [0-9.]+ s for .*rank 1" "$tmp/err"; then
      echo "FAIL $what, without the expected messages"
      failed=1
    else
      echo "ok   $what: $(grep -Em1 'waited' "$tmp/err")"
      continue
    fi
    sed -n 1,20p "$tmp/err"
  done
done
exit $failed
