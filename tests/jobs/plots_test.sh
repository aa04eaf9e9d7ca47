#!/usr/bin/env bash
# jobs/plots.py on the committed JSON (label cpu): each subcommand writes a non-empty PNG (scaling
# also an SVG), the same bytes when run again; bandwidth in float; setup on JSON with the newer
# fields (the read's split) and on JSON without them (older runs, `solve`), and a clear failure on
# an input without the figures a plot needs.
#
#   tests/jobs/plots_test.sh PYTHON REPO_ROOT OUT_DIR
#
# PYTHON is the interpreter with Debian's python3-matplotlib (CMake passes /usr/bin/python3: a
# pyenv python3 on PATH may lack it). Without matplotlib it prints SKIP and exits 77, except under
# CI=true, where cmake/install_deps.sh has installed it and its absence is a failure.
set -euo pipefail
PY=${1:-python3}
REPO=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${3:-$(mktemp -d)}
[ -n "$PY" ] || PY=python3

if ! "$PY" -c 'import matplotlib' >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: CI=true but $PY has no matplotlib (cmake/install_deps.sh installs python3-matplotlib)" >&2
    exit 1
  fi
  echo "SKIP: $PY has no matplotlib (apt-get install python3-matplotlib)"
  exit 77
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
png_ok() {  # non-empty, a PNG, and big enough to hold a drawn figure
  [ -s "$1" ] || fail "$1 missing or empty"
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
  [ "$(stat -c %s "$1")" -gt 20000 ] || fail "$1 is suspiciously small ($(stat -c %s "$1") bytes)"
}
rm -rf "$OUT" && mkdir -p "$OUT"
cd "$REPO"

for cmd in scaling bandwidth setup; do
  "$PY" jobs/plots.py "$cmd" -o "$OUT/$cmd.png" $([ "$cmd" = scaling ] && echo --svg) 2> "$OUT/$cmd.err" ||
    { cat "$OUT/$cmd.err" >&2; fail "plots.py $cmd"; }
  png_ok "$OUT/$cmd.png"
  "$PY" jobs/plots.py "$cmd" -o "$OUT/$cmd.again.png" 2>/dev/null >/dev/null
  cmp -s "$OUT/$cmd.png" "$OUT/$cmd.again.png" || fail "plots.py $cmd: not the same bytes twice"
  echo "ok: $cmd ($(stat -c %s "$OUT/$cmd.png") bytes)"
done
[ -s "$OUT/scaling.svg" ] && grep -q '<svg' "$OUT/scaling.svg" || fail "no SVG beside scaling.png"
! grep -q '<dc:date>' "$OUT/scaling.svg" || fail "the SVG carries a date"

"$PY" jobs/plots.py bandwidth --precision float -o "$OUT/bandwidth_float.png" >/dev/null
png_ok "$OUT/bandwidth_float.png"

# Setup JSON as newer binaries write it (the read's split) and as older ones did (no memory
# figures, no rate), a solve run's single setup figure, and a broken file that is named and left out.
mkdir -p "$OUT/json"
"$PY" - "$REPO/jobs/results/2026-11-23_h100_setup/run3_poisson450_hdf5.json" "$OUT/json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["setup_seconds"].update(read_wait=2.1, upload=1.3, split=3.0)
json.dump(j, open(sys.argv[2] + "/new.json", "w"))
for k in ("host_peak_bytes_per_nnz", "gpu_held_gib", "gpu_setup_peak_gib", "gpu_total_gib", "setup_nnz_per_second",
          "host_peak_gib"):
    j.pop(k)
for k in ("read_wait", "upload", "split", "total_max_over_ranks"):
    j["setup_seconds"].pop(k, None)
json.dump(j, open(sys.argv[2] + "/old.json", "w"))
json.dump({"setup_seconds": 1.5, "iterations": 10, "matrix": {"source": "gen:poisson3d:64", "nnz": 1777664}},
          open(sys.argv[2] + "/solve.json", "w"))
PYEOF
echo '{"setup_seconds": ' > "$OUT/json/broken.json"
"$PY" jobs/plots.py setup "$OUT/json" -o "$OUT/setup_fields.png" 2> "$OUT/fields.err" >/dev/null ||
  { cat "$OUT/fields.err" >&2; fail "plots.py setup on old and new fields"; }
png_ok "$OUT/setup_fields.png"
grep -q 'broken.json: unreadable JSON' "$OUT/fields.err" || fail "the broken JSON was not named"

if "$PY" jobs/plots.py bandwidth "$OUT/json" -o "$OUT/none.png" 2> "$OUT/none.err" >/dev/null; then
  fail "plots.py bandwidth succeeded without any --format all JSON"
fi
grep -q 'no `--format all` JSON' "$OUT/none.err" || fail "no clear message without --format all JSON"
[ ! -e "$OUT/none.png" ] || fail "an image was written without data"
echo "PASS"
