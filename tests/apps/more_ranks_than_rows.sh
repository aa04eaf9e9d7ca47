#!/usr/bin/env bash
# More ranks than rows: ranks that own no rows (the block split of 1 or 3 rows, or a partitioner
# that leaves a part empty) run the same collectives as the others, through setup, the apply and
# --check. A rank that skipped one ended the job with MPI_ERR_TRUNCATE (or a hang). Each
# partition built in, on the host backend, a generated 1-row matrix (read in place) and a 3-row Matrix
# Market file (parsed by every rank); about half a second per run.
#
#   more_ranks_than_rows.sh DISTSPMV MPIEXEC NP PARTITIONS MATRIX...   (PARTITIONS: "auto block ...")
#
# BACKEND (default host; jobs/dist_gpu.sh sets cuda) and TRANSPORT (default auto) choose the path.
set -uo pipefail
cli=$1 mpiexec=$2 np=$3 partitions=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A rank that takes another path through setup is reported by the setup watchdog within seconds.
export DISTSPMV_HALO_TIMEOUT=20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for matrix in "$@"; do
  for partition in $partitions; do
    timeout 60 "$mpiexec" -np "$np" --oversubscribe -x DISTSPMV_HALO_TIMEOUT "$cli" "$matrix" --backend "${BACKEND:-host}" \
      --transport "${TRANSPORT:-auto}" --partition "$partition" --iters 2 --warmup 1 --check >"$tmp/out" 2>&1
    rc=$?
    what="$(basename "$matrix") at $np ranks, --backend ${BACKEND:-host} --transport ${TRANSPORT:-auto} --partition $partition: exit $rc"
    if [ $rc -eq 0 ] && grep -q 'check: .*passed' "$tmp/out"; then
      echo "ok   $what"
    else
      echo "FAIL $what"
      tail -n 20 "$tmp/out"
      failed=1
    fi
  done
done
exit $failed
