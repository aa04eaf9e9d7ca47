#!/usr/bin/env bash
# One call on a lent GPU machine (../shared/DEVICE.md), run from the root of the carried tree with
# the revision to build in .device-src (a `git archive`), METIS's .debs in .device-deps and the
# inputs in .device-data (matrices/, case lists, REVISION):
#
#   bash .device-src/jobs/device_call.sh STEPS
#
# STEPS (a bash file, e.g. .device-data/steps.sh) runs inside .device-src with W (a work folder
# outside $OUT), P (W/progress.txt, the call's log) and DISTSPMV_MATRICES set; it calls
# jobs/ab_gpu.sh with OUT=$W and the tests (`gtest TARGET ARGS`). Every 5 s progress.txt and runs.tgz are copied
# to $OUT, so that a call cut short by its time limit still returns what it measured; at the end
# W's logs go to $OUT/logs.tgz and the GPU's name to $OUT/gpu.txt. STEPS is sourced: a bare `wait`
# there also waits for that copy loop and holds the call to its time limit (wait for a PID instead).
set -u
STEPS=$(realpath "${1:?usage: bash .device-src/jobs/device_call.sh STEPS}")
R=$(pwd)
cp -r .device-deps .device-data .device-src/
cd .device-src || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$OUT/gpu.txt" 2>&1
export W=$R/abwork
export P=$W/progress.txt DISTSPMV_MATRICES=$PWD/.device-data/matrices
mkdir -p "$W"
(while true; do cp "$P" "$W/runs.tgz" "$OUT/" 2>/dev/null; sleep 5; done) &
SYNC=$!
# gtest TARGET [ARGS...]: build-gpu's test TARGET (150 s at most), its log in W, its summary in P.
gtest() {
  local t=$1
  shift
  echo "test $t $* $(date +%T)" >>"$P"
  timeout 150 build-gpu/tests/*/"$t" "$@" >"$W/$t.log" 2>&1
  echo "  rc $?" >>"$P"
  grep -E "PASSED|FAILED|tests? ran" "$W/$t.log" | tail -4 >>"$P"
}
# shellcheck disable=SC1090  # the call's own steps
source "$STEPS"
echo "end $(date +%T)" >>"$P"
kill "$SYNC"
cp "$P" "$W/runs.tgz" "$OUT/" 2>/dev/null
cp "$W"/*.log "$OUT/" 2>/dev/null
(cd "$OUT" && ls ./*.log >/dev/null 2>&1 && tar -czf logs.tgz --remove-files ./*.log)
