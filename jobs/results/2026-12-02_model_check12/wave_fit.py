#!/usr/bin/env python3
"""Check 12 (issue 39): forms of panel's one-GPU time fitted on the one-rank H200 panel products,
each matrix (generator source) left out in turn.

    python3 jobs/results/2026-12-02_model_check12/wave_fit.py DUMPS_DIR > wave_fit.json

Points: jobs/model_check.py's panel_points on jobs/results, H200 runs only (the first H200 run of each
matrix, seed and order; the order trial's "ORDER panel T us" on one rank, else the apply).
DUMPS_DIR: panel_waves's files (NAME_none.txt, NAME_degree.txt; NAME in DUMPS below).
Features (MB = 1e6 bytes; rounds of 1024 stored entries):
  B     CSR-equivalent bytes, nnz * 12 + rows * 24 (the model's)
  xl    64 * x_lines (the model's gather term)
  sec   32 * panel sectors (the distinct x sectors each panel reads)
  ms    makespan in rounds: the panels in block order on 528 resident blocks (4 of 512 threads on
        each of 132 SMs), one round a step, a panel taking the first free block
  tail  ms - (all panels' rounds) / 528: the rounds the last panels run on a partly idle GPU
  *_np  the same with rounds = ceil(nonzeros / 1024) (no padding: what plan_panels alone gives)
t = 11.63 (panel's floor in h200_ib.json) + sum of coefficient * feature, least squares on the
relative error; the floor also fitted where "floor" is "fit".
"""
import heapq
import json
import math
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "jobs"))
import model_check as mc  # noqa: E402

DUMPS = {("gen:lognormal:2000000:2.0:1.0:100000", 3): "logn2m", ("gen:lognormal:150000:2.0:2.0:150000", 3): "logn150k",
         ("gen:lognormal:300000:1.5:2.0:300000", 3): "logn300k", ("gen:rmat:19:16", 11): "rmat1916",
         ("gen:rmat:20:12", 5): "rmat2012", ("gen:rmat:20:16", 11): "rmat2016",
         ("gen:lognormal:4000000:2.0:1.0:300000", 9): "logn4m", ("gen:lognormal:4000000:2.5:0.8:20000", 1): "logn20000",
         ("gen:lognormal:4000000:2.2:1.0:4000", 6): "L8", ("gen:rmat:22:8", 5): "rmat228s5",
         ("gen:rmat:22:16", 11): "rmat2216s11", ("gen:rmat:22:8", 1): "rmat228s1", ("gen:rmat:22:16", 1): "rmat2216s1"}
RESIDENT, FLOOR = 528, 11.63


def points():
    here = pathlib.Path(__file__).resolve().parent  # (this folder's own JSON are not runs)
    runs = mc.load([str(d) for d in sorted((REPO / "jobs/results").iterdir()) if d.is_dir() and d != here])
    mc.features(runs, None, 3e8, mc.FEATURES, False, False)
    out, seen = [], set()
    for name, j in runs:
        r = j["per_rank"][0]
        if j["ranks"] != 1 or "x_lines" not in r or "H200" not in j.get("gpu", ""):
            continue
        timed = {o: float(t) for o, f, t in mc.TRIAL.findall(j.get("order_reason", "")) if f == "panel"}
        if r["format"] == "panel" and j.get("order", "none") in ("none", "degree"):
            timed.setdefault(j.get("order", "none"), j["apply_median_us"])
        for o, t in timed.items():
            src, seed = j["matrix"]["source"], mc.run_key(name, j)[2]
            if (src, seed, o) in seen or not (o == "none" or (o == "degree" and "trial" in r)):
                continue
            seen.add((src, seed, o))
            out.append({"run": name, "matrix": src, "seed": seed, "order": o, "measured_us": t,
                        "fig": r if o == "none" else mc.degree_figures(r), "dump": DUMPS[(src, seed)]})
    return out


def makespan(rounds):
    q = [0.0] * RESIDENT
    end = 0.0
    for r in rounds:
        t = heapq.heappop(q) + r
        end = max(end, t)
        heapq.heappush(q, t)
    return end


def features(p, dumps):
    panels = [tuple(map(float, line.split())) for line in (dumps / f"{p['dump']}_{p['order']}.txt").read_text().splitlines()]
    f = p["fig"]
    d = {"B": (f["nnz"] * 12 + f["rows"] * 24) / 1e6, "xl": 64 * f["x_lines"] / 1e6,
         "sec": 32 * sum(s for _, s, _, _ in panels) / 1e6, "panels": len(panels)}
    for tag, rounds in (("", [r for r, _, _, _ in panels]), ("_np", [math.ceil(e / 1024) for _, _, _, e in panels])):
        d["ms" + tag] = makespan(rounds)
        d["tail" + tag] = d["ms" + tag] - sum(rounds) / RESIDENT
    return d


def solve(rows, target, weight):
    n = len(rows[0])
    a = [[sum(w * r[i] * r[j] for r, w in zip(rows, weight)) for j in range(n)] for i in range(n)]
    b = [sum(w * r[i] * t for r, t, w in zip(rows, target, weight)) for i in range(n)]
    for c in range(n):
        piv = max(range(c, n), key=lambda k: abs(a[k][c]))
        a[c], a[piv], b[c], b[piv] = a[piv], a[c], b[piv], b[c]
        for k in range(n):
            if k != c:
                f = a[k][c] / a[c][c]
                a[k] = [x - f * y for x, y in zip(a[k], a[c])]
                b[k] -= f * b[c]
    return [b[c] / a[c][c] for c in range(n)]


def fit(pts, feats, form, fit_floor):
    def row(i):
        return ([1.0] if fit_floor else []) + [feats[i][k] for k in form]

    def go(idx):
        return solve([row(i) for i in idx], [pts[i]["measured_us"] - (0 if fit_floor else FLOOR) for i in idx],
                     [1 / pts[i]["measured_us"] ** 2 for i in idx])

    def pred(c, i):
        return (0 if fit_floor else FLOOR) + sum(x * y for x, y in zip(c, row(i)))
    idx = list(range(len(pts)))
    c = go(idx)
    err = [pred(c, i) / pts[i]["measured_us"] - 1 for i in idx]
    loo = [0.0] * len(pts)
    for g in {p["matrix"] for p in pts}:
        cg = go([i for i in idx if pts[i]["matrix"] != g])
        for i in idx:
            if pts[i]["matrix"] == g:
                loo[i] = pred(cg, i) / pts[i]["measured_us"] - 1
    return c, err, loo


def main():
    dumps = pathlib.Path(sys.argv[1])
    pts = points()
    feats = [features(p, dumps) for p in pts]
    m = json.loads((REPO / "jobs/machines/h200_ib.json").read_text())
    model = [mc.predict(m, {**p["fig"], "format": "panel"}, 1, "panel")[2] / p["measured_us"] - 1 for p in pts]
    forms = [["B", "xl"], ["ms"], ["ms", "sec"], ["B", "sec", "tail"], ["B", "sec", "tail_np"], ["B", "xl", "tail"],
             ["B", "sec", "xl", "tail"]]
    out = {"resident_blocks": RESIDENT, "panel_floor_us": FLOOR,
           "points": [{k: p[k] for k in ("run", "matrix", "seed", "order", "measured_us")} |
                      {"panels": f["panels"], "makespan_rounds": round(f["ms"], 1), "tail_rounds": round(f["tail"], 1),
                       "tail_rounds_no_padding": round(f["tail_np"], 1), "sectors_mb": round(f["sec"], 1),
                       "us_per_makespan_round": round((p["measured_us"] - FLOOR) / f["ms"], 3),
                       "error_h200_ib": round(e, 4)}
                      for p, f, e in zip(pts, feats, model)],
           "fits": []}
    for sel_name, sel in (("all", lambda p: True),
                          ("without lognormal degree", lambda p: not ("lognormal" in p["matrix"] and p["order"] == "degree"))):
        idx = [i for i, p in enumerate(pts) if sel(p)]
        sp, sf = [pts[i] for i in idx], [feats[i] for i in idx]
        for form in forms:
            for fit_floor in (False, True):
                c, err, loo = fit(sp, sf, form, fit_floor)
                logn2m = [x for p, x in zip(sp, loo) if p["dump"] == "logn2m" and p["order"] == "none"][0]
                out["fits"].append({"points": sel_name, "form": "+".join(form), "floor": "fit" if fit_floor else FLOOR,
                                    "coefficients_us_per_mb_or_round": [round(x, 5) for x in c],
                                    "max_abs_error": round(max(map(abs, err)), 4),
                                    "left_out_max_abs_error": round(max(map(abs, loo)), 4),
                                    "left_out_mean_abs_error": round(sum(map(abs, loo)) / len(loo), 4),
                                    "logn2m_none_left_out": round(logn2m, 4),
                                    "left_out_over_15": {f"{p['dump']} {p['order']}": round(x, 4)
                                                         for p, x in zip(sp, loo) if abs(x) > 0.15},
                                    "left_out_errors": {f"{p['dump']} {p['order']}": round(x, 4) for p, x in zip(sp, loo)}})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
