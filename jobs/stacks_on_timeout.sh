#!/usr/bin/env bash
# Runs a command; if it is still running after SECONDS, prints the host stacks of every process
# named NAME (cuda-gdb attaches to CPU processes too; the GPU machines have no gdb), then kills it.
# For hangs that no watchdog names (issue 36).
#
#   jobs/stacks_on_timeout.sh SECONDS NAME command...
set -u
seconds=$1 name=$2; shift 2
"$@" &
pid=$!
for _ in $(seq "$seconds"); do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; exit $?; }
  sleep 1
done
echo "=== still running after $seconds s: stacks of every '$name'"
for p in $(pgrep -x "$name"); do
  echo "--- pid $p"
  timeout 60 cuda-gdb -p "$p" -batch -ex "thread apply all bt 25" 2>&1 | grep -E "^#|^Thread" | head -120
done
pkill -9 -x "$name"; kill "$pid" 2>/dev/null
exit 124
