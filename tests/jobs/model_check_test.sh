#!/usr/bin/env bash
# jobs/model_check.py against distspmv model (issue 39), on the CPU, in a few seconds:
#  1. the check table's halo figures recomputed: for the committed runs up to 3e5 nonzeros
#     (gen:poisson3d:32 at 1, 2 and 4 ranks, each transport), `distspmv model --per-rank` gives each
#     rank's rows, nonzeros, ghosts, sends and neighbours exactly as the run's report, and every
#     figure as jobs/machines/features.json holds it;
#  2. the Python predict() of the check and the C++ one of `distspmv model` agree (to 1e-6 us) on
#     every rank of gen:poisson3d:32 at 1, 2, 4 and 16 ranks, 2 GPUs per host (hosts included).
# Usage: model_check_test.sh PYTHON3 SOURCE_DIR DISTSPMV WORK_DIR
set -euo pipefail
py=$1 src=$2 cli=$3 work=$4
mkdir -p "$work"
"$py" "$src/jobs/model_check.py" check --cli "$cli" --recompute --max-nnz 3e5 -o "$work" > "$work/table.txt" 2> "$work/stderr.txt"
# ... and equal to the committed jobs/machines/features.json (x_lines, halo_nnz, max_row included).
if grep "differs from" "$work/stderr.txt"; then exit 1; fi
"$py" - "$work/model_check.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
checked = [r for r in runs if r["halo_recomputed"] is not None]
bad = [r["run"] for r in checked if not r["halo_recomputed"]]
print(f"{len(checked)} runs' halo figures recomputed, {len(bad)} differ")
sys.exit(1 if bad or len(checked) < 4 else 0)
PY
"$cli" model gen:poisson3d:32 --ranks 1,2,4,16 --gpus-per-host 2 --per-rank --json "$work/model.json" > /dev/null
"$py" - "$src" "$work/model.json" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1] + "/jobs")
import model_check
j = json.load(open(sys.argv[2]))
m = json.load(open(j["machine"]["file"]))
for e in j["per_ranks"]:
    p = e["ranks"]
    apply = max(model_check.predict(m, r, p, j["format_class"], gpus_per_host=j["gpus_per_host"])[2]
                for r in e["per_rank"])
    if abs(apply - e["predicted"]["apply_us"]) > 1e-6:
        sys.exit(f"P={p}: Python {apply} us, distspmv model {e['predicted']['apply_us']} us")
print("Python and C++ predictions agree")
PY
