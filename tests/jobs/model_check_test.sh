#!/usr/bin/env bash
# jobs/model_check.py against distspmv model (issue 39), on the CPU, in a few seconds:
#  1. the check table's halo figures recomputed: for the committed runs up to 3e5 nonzeros
#     (gen:poisson3d:32 at 1, 2 and 4 ranks, each transport), `distspmv model --per-rank` gives each
#     rank's rows, nonzeros, ghosts, sends and neighbours exactly as the run's report, and every
#     figure as jobs/machines/features.json holds it;
#  2. the Python predict() of the check and the C++ one of `distspmv model` agree (to 1e-6 us) on
#     every rank of gen:poisson3d:32 at 1, 2, 4 and 16 ranks, 2 GPUs per host (hosts included);
#  3. the same (tests/jobs/model_agree.py) with the H200 description where its panel terms count: gen:rmat:20:16 on 1 GPU (panel
#     in degree order: panel's floor and panel_lines) and 2 (the halo blocks' trial of panel: their panel_lines);
#  4. the same on a CSR block whose trial times CSR alone in each order (gen:rmat:14:8, --format-class
#     csr, 1 and 2 ranks): degree kept on one rank by CSR's order_gather_gbps (check 9);
#  5. the same on blocks the selector gives sell-w (gen:lognormal:600000:2.5:0.8:2000 at 1 and 2
#     ranks: select_format on each block's statistics picks it; priced by the selector's bytes and
#     x's staged windows at the sell-w class's format_bytes_gbps, check 10);
#  6. the generator seed of a run: the report's matrix.seed, else (reports before 2026-12-02) its
#     line in the case list beside an ab_gpu.sh runs.tgz (RESULTS/runN/cases*.txt).
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
"$cli" model gen:rmat:20:16 --seed 11 --ranks 1,2 --machine "$src/jobs/machines/h200_ib.json" --per-rank \
  --json "$work/model_panel.json" > /dev/null
"$py" - "$src" "$work/model_panel.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/jobs")
from model_agree import agree
j, m, per_p = agree(sys.argv[1], sys.argv[2], "rmat:20:16", lambda r: "auto" if "trial" in r else "none")
assert j["predicted_one_gpu"]["format"] == "panel", j["predicted_one_gpu"]
for e, ranks, _ in per_p:
    assert e["ranks"] == 1 or all("halo_trial" in r for r in ranks), "no halo trial at 2 ranks"
print("Python and C++ predictions agree on panel blocks (floor, halo trial)")
PY
"$cli" model gen:rmat:14:8 --ranks 1,2 --format-class csr --machine "$src/jobs/machines/h200_ib.json" --per-rank \
  --json "$work/model_csr_order.json" > /dev/null
"$py" - "$src" "$work/model_csr_order.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/jobs")
from model_agree import agree
j, m, per_p = agree(sys.argv[1], sys.argv[2], "rmat:14:8 csr", lambda r: "auto")
assert m["spmv"]["csr"].get("order_gather_gbps"), "h200_ib.json: no order_gather_gbps for csr"
for e, ranks, out in per_p:
    assert all("trial" in r and not r["trial"]["degree_formats"] for r in ranks), "no CSR-alone trial"
    if e["ranks"] == 1:
        assert out[0][1] == "degree" and e["predicted"]["slowest_order"] == "degree", (out, e["predicted"])
print("Python and C++ predictions agree on a CSR block's order trial (degree kept on one rank)")
PY
"$cli" model gen:lognormal:600000:2.5:0.8:2000 --ranks 1,2 --machine "$src/jobs/machines/h200_ib.json" --per-rank \
  --json "$work/model_sellw.json" > /dev/null
"$py" - "$src" "$work/model_sellw.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/jobs")
from model_agree import agree
j, m, per_p = agree(sys.argv[1], sys.argv[2], "sell-w", lambda r: "auto" if "trial" in r else "none")
assert m["spmv"]["sell-w"].get("format_bytes_gbps"), "h200_ib.json: no sell-w class priced by its bytes"
assert j["predicted_one_gpu"]["format"] == "sell-w", j["predicted_one_gpu"]
for e, ranks, out in per_p:
    assert all(r.get("pick") == "sell-w" and "sell_w" in r for r in ranks), "no sell-w pick"
    assert all(o[2] == "sell-w" for o in out) and e["predicted"]["slowest_format"] == "sell-w", (out, e["predicted"])
print("Python and C++ predictions agree on sell-w blocks (the selector's pick)")
PY
"$cli" gen:rmat:10:8 --seed 7 --backend host --iters 1 --check --json "$work/seeded.json" > /dev/null
"$py" - "$src" "$work" <<'PY'
import json, pathlib, shutil, sys, tarfile
sys.path.insert(0, sys.argv[1] + "/jobs")
import model_check
work = pathlib.Path(sys.argv[2])
j = json.loads((work / "seeded.json").read_text())
assert model_check.recorded_seed(j) == 7, "matrix.seed not read"
for k in ("seed", "partition_seed", "requested"):  # a report of before 2026-12-02
    j.pop(k)
j["matrix"].pop("seed")
run = work / "ab/2026-12-02_example/run1"
shutil.rmtree(work / "ab", ignore_errors=True)
(run / "runs").mkdir(parents=True)
(run / "cases1.txt").write_text("# name ranks args\nseeded 1 gen:rmat:10:8 --seed 7 --vs-cusparse\nplain 1 gen:rmat:10:8\n")
for name in ("seeded_new", "seeded_old", "plain_new"):
    (run / "runs" / f"{name}.json").write_text(json.dumps(j))
with tarfile.open(run / "runs.tgz", "w:gz") as t:
    t.add(run / "runs", arcname="runs")
shutil.rmtree(run / "runs")
got = {n: model_check.run_key(n, r)[2] for n, r in model_check.load([run / "runs.tgz"])}
want = {"example_run1/seeded_new": 7, "example_run1/seeded_old": 7, "example_run1/plain_new": 1}
assert got == want, got
print("seeds from matrix.seed and from the case list:", got)
PY
