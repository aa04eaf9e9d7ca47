#!/usr/bin/env python3
"""Per rank: the model's terms (jobs/model_check.py's predict, the committed description) beside the
report's local / exchange / apply, for the README's reading of the misses.

    python3 jobs/results/2026-11-28_h200_model_check4/breakdown.py [--machine FILE] INPUT ... > breakdown.txt

Features from jobs/machines/features.json (no recomputation); runs without --check included."""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
import model_check as mc  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("inputs", nargs="+")
ap.add_argument("--machine", default=str(mc.REPO / "jobs/machines/h200_ib.json"))
a = ap.parse_args()
runs = mc.load(a.inputs, True)
mc.features(runs, None, 3e8, mc.FEATURES, False, False)
m = json.loads(pathlib.Path(a.machine).read_text())
for name, j in runs:
    P = j["ranks"]
    d = mc.predict_run_detail(m, j)
    if d is None:
        continue
    print(f"== {name}: {P} GPU(s), {j['transport']}, order {j.get('order')} ({mc.requested_order(j)}); measured "
          f"{j['apply_median_us']:.1f} us, predicted {d[0]:.1f} ({100 * (d[0] / j['apply_median_us'] - 1):+.1f}%)")
    for r, (o, f) in zip(j["per_rank"], d[1]):
        fig = mc.degree_figures(r) if o == "degree" else r
        cls = f if f in m["spmv"] else "general"
        run = (f"report local {r.get('local_us', 0):.1f} X {r.get('exchange_us', 0):.1f} apply {r.get('apply_us', 0):.1f}"
               f" ({r['format']}" + (f", halo {r['halo_format']}" if r.get("halo_format") else "") + ")")
        if P > 1 and "halo_trial" in r and "panel" in m["spmv"]:
            pick = r["halo_trial"]["pick"] if r["halo_trial"]["pick"] in m["spmv"] else "general"
            hp, hk = mc.halo_us(m, r, "panel"), mc.halo_us(m, r, pick)
            h = pick if hp >= hk * (1 - mc.ORDER_MARGIN) else "panel"
            loc, ex, ap_ = mc.predict(m, fig, P, cls, j["transport"], halo_cls=h)
            print(f"  rank {r['rank']}: model {o}/{f}: local block {mc.spmv_us(m, fig, cls, True):.1f}, halo block {h} "
                  f"{mc.halo_us(m, r, h):.1f} (panel {hp:.1f}, {pick} {hk:.1f}); local {loc:.1f} X {ex:.1f} apply {ap_:.1f}"
                  f" | {run} [{r.get('halo_format_reason', '')}]")
        else:
            loc, ex, ap_ = mc.predict(m, fig, P, cls, j["transport"])
            floor = m["spmv"][cls]["floor_us"] if P == 1 else m["multi_rank_floor_us"]
            print(f"  rank {r['rank']}: model {o}/{f}: floor {floor:.2f} + SpMV {loc - floor:.1f}; local {loc:.1f} "
                  f"X {ex:.1f} apply {ap_:.1f} | {run}")
