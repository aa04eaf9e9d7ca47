#!/usr/bin/env bash
# Two revisions timed in the same device call (DEVICE.md: a comparison holds only within one call):
# builds this tree ("new") and the source tree in $OLD_SRC ("old") side by side, then runs each
# case of CASES on new and then on old, with --check and a JSON report, packing after every run so
# that a call cut short still returns what it measured.
#
#   OLD_SRC=.device-old jobs/ab_gpu.sh CASES
#
# CASES: a file, one case a line: NAME RANKS ARGS... (ARGS as for distspmv; '#' starts a comment),
# e.g. "rmat2216_g4 4 gen:rmat:22:16 --seed 11 --vs-cusparse". Runs are $OUT/runs/NAME_new and
# NAME_old (.json, .log: its first line the command); $OUT/progress.txt has each run's report
# lines; $OUT/runs.tgz all of them.
#
# OLD_SRC: the old revision's source, e.g. made here with
#   rm -rf .device-old && mkdir .device-old && git archive REV | tar -x -C .device-old
# and carried to the machine (the device tool's `carry`); its revision is OLD_REV (default: the
# folder's name). Without OLD_SRC only new runs. TARGETS: what to build of new (default: distspmv);
# REPEAT (default 1): the case list's passes, new and old alternating in each. METIS comes from
# .device-deps as in jobs/dist_gpu.sh. ENABLE_CUDA=OFF builds for the host (a smoke test of the
# script on a machine without a GPU).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
CASES=${1:?usage: OLD_SRC=DIR jobs/ab_gpu.sh CASES}
OUT=${OUT:-jobs/results/local}
OLD_SRC=${OLD_SRC:-}
OLD_REV=${OLD_REV:-$(basename "${OLD_SRC:-none}")}
P="$OUT/progress.txt"
mkdir -p "$OUT/runs"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NEW_REV=$(cat .device-data/REVISION 2>/dev/null || echo unknown)

mkdir -p /opt/metis && for f in .device-deps/*.deb; do [ -f "$f" ] && dpkg -x "$f" /opt/metis; done
configure() {  # source build revision
  DISTSPMV_GIT_REVISION=$3 cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA="${ENABLE_CUDA:-ON}" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr >"$OUT/configure_$(basename "$2").log" 2>&1
}
cores=$(nproc)
jobs_new=$cores jobs_old=0
[ -n "$OLD_SRC" ] && jobs_new=$((cores * 2 / 3)) jobs_old=$((cores - cores * 2 / 3))
# shellcheck disable=SC2086  # TARGETS: several targets, split on purpose
(configure . build-gpu "$NEW_REV" && cmake --build build-gpu -j "$jobs_new" --target ${TARGETS:-distspmv} \
   >"$OUT/build_new.log" 2>&1; echo "build new ($NEW_REV) rc $?" >>"$P") &
if [ -n "$OLD_SRC" ]; then
  (configure "$OLD_SRC" build-old "$OLD_REV" && cmake --build build-old -j "$jobs_old" --target distspmv \
     >"$OUT/build_old.log" 2>&1; echo "build old ($OLD_REV) rc $?" >>"$P") &
fi
wait
echo "built $(date +%T)" >>"$P"

one() {  # name ranks binary args...
  local name=$1 n=$2 bin=$3; shift 3
  echo "$name $(date +%T)" >>"$P"
  # The log's first line: the command (jobs/model_check.py reads --seed there where a report has none).
  echo "command: $bin $* --check --json $OUT/runs/$name.json (ranks $n)" >"$OUT/runs/$name.log"
  timeout "${RUN_TIMEOUT:-150}" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NCCL_NVLS_ENABLE \
    "$bin" "$@" --check --json "$OUT/runs/$name.json" >>"$OUT/runs/$name.log" 2>&1 </dev/null  # (not the case list)
  echo "  rc $?" >>"$P"
  grep -E "^setup|build includes|^memory|^    [0-9]+ |  apply  |vs cuSPARSE|check:" "$OUT/runs/$name.log" | cut -c1-300 >>"$P"
  tar -czf "$OUT/runs.tgz" -C "$OUT" runs
}
for pass in $(seq "${REPEAT:-1}"); do
  suffix=$([ "${REPEAT:-1}" -gt 1 ] && echo "$pass")
  while read -r name ranks args; do
    [ -z "$name" ] || [[ $name == \#* ]] && continue
    # shellcheck disable=SC2086  # ARGS split into words on purpose
    one "${name}_new$suffix" "$ranks" build-gpu/apps/distspmv $args
    # shellcheck disable=SC2086
    [ -n "$OLD_SRC" ] && one "${name}_old$suffix" "$ranks" build-old/apps/distspmv $args
  done <"$CASES"
done
echo "done $(date +%T)" >>"$P"
