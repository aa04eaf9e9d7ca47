#!/usr/bin/env python3
"""Would refitting jobs/machines/h200_ib.json's peer-put exchange help? (issue 39, check 7)

    /usr/bin/python3 jobs/results/2026-12-01_model_check7/exchange_refit.py > exchange_refit.txt

Each variant changes only the peer-put entry (the transport of every multi-GPU R-MAT run; the others
are held) and is judged on every committed H200 set by check 6's rule: no set's count within 15%
drops, and no run within 15% goes outside. Variants:
  A  latency, per-neighbour, bandwidth, overlap by coordinate descent (model_check's _search) on the
     applies of the 2026-11-28_h200x4_* folders (model_machine, default_order run 1, exchange runs
     3-4, halo_order runs 1-2): in sample for those, out of sample for the validate runs;
  B  the same on A's runs plus 2026-11-28_h200x2_validate runs 5-6 (4x H200): then in sample for
     the current revision's runs too;
  X  latency, per-neighbour, bandwidth fitted to the per-rank measured exchange_us of A's runs
     (non-negative least squares on the relative error), then the overlap alone on A's applies;
  C  bandwidth held at X's, latency, per-neighbour and overlap on A's applies.
Features from jobs/machines/features.json (no --cli). Pure Python."""
import copy
import json
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "jobs"))
import model_check as mc  # noqa: E402

R = "jobs/results"
V = R + "/2026-11-28_h200x2_validate"
H200_FIT = [f"{R}/2026-11-28_h200x4_model_machine/{s}/runs.tgz" for s in ("floor", "small", "table")] + [
    f"{R}/2026-11-28_h200x4_default_order/run1_h200x4/table_runs.tgz"]
EXCH = [f"{R}/2026-11-28_h200x4_exchange/run3_table/runs.tgz", f"{R}/2026-11-28_h200x4_exchange/run4_panel_rank_blocks/runs.tgz"]
HALO4 = [f"{R}/2026-11-28_h200x4_halo_order/run1_beafc4a/runs.tgz", f"{R}/2026-11-28_h200x4_halo_order/run2_fa1854b/runs.tgz"]
VAL56 = [f"{V}/run5_x4_3198db6/runs.tgz", f"{V}/run6_x4_ce71610/runs.tgz", f"{V}/run6_x4_ce71610/runs2.tgz"]
SETS = {
    "h200_ib.json's fit set (check 2)": H200_FIT,
    "h200x4_exchange runs 3-4": EXCH,
    "check 3's inputs": [f"{R}/2026-11-28_h200x2_halo_order/run5_e6e11ec/runs.tgz"] + HALO4,
    "check 4's inputs": [f"{V}/run{i}_2eaa6e6/runs.tgz" for i in (1, 2, 3)],
    "check 5's inputs": [f"{V}/run4_d52d685/runs.tgz"] + VAL56,
    "2x H200 gpu_order runs 1-3": [f"{R}/2026-11-28_h200_gpu_order/run{i}_logs.tgz" for i in (1, 2, 3)],
}
T = "peer-put"
KEYS = ("latency_us", "per_neighbour_us", "bandwidth_gbps", "overlap")


def loaded(inputs):
    runs = mc.load([str(REPO / i) for i in inputs])
    mc.features(runs, None, 3e8, mc.FEATURES, False, False)
    return runs


def errs(m, runs):
    out = {}
    for n, j in runs:
        p = mc.predict_run(m, j)
        if p == p:
            out[n] = (p - j["apply_median_us"]) / j["apply_median_us"]
    return out


def descend(m, runs, keys):
    def cost(mm):
        return sum(e * e for e in errs(mm, runs).values())
    for _ in range(4):
        for k in keys:
            lo, hi, log = mc.BOUNDS[k]

            def at(v, k=k):
                m["exchange"][T][k] = v
                return cost(m)
            m["exchange"][T][k] = mc._search(at, lo, hi, log, m["exchange"][T][k])
    return m


def exchange_fit(m, runs):
    pts = [(r["neighbours"], max(r["ghosts"], r["sends"]), r["exchange_us"]) for _, j in runs
           if j["ranks"] > 1 and j["transport"] == T for r in j["per_rank"] if r.get("exchange_us") and r["neighbours"]]
    lat, pn, inv = mc.nnls([[1 / t, (nb - 1) / t, 8 * e / 1e3 / t] for nb, e, t in pts], [1.0] * len(pts))
    res = [abs(lat + (nb - 1) * pn + 8 * e * inv / 1e3 - t) / t for nb, e, t in pts]
    print(f"  exchange_us fit: {len(pts)} rank exchanges, mean |error| {100 * sum(res) / len(res):.1f}%, "
          f"max {100 * max(res):.1f}%")
    m["exchange"][T].update(latency_us=lat, per_neighbour_us=pn, bandwidth_gbps=1 / inv)
    return m


def main():
    base = json.loads((REPO / "jobs/machines/h200_ib.json").read_text())
    sets = {k: loaded(v) for k, v in SETS.items()}
    fit_a = loaded(H200_FIT + EXCH + HALO4)
    fit_b = loaded(H200_FIT + EXCH + HALO4 + VAL56)
    variants = {}
    print("A")
    variants["A"] = (descend(copy.deepcopy(base), fit_a, KEYS), fit_a)
    print("B")
    variants["B"] = (descend(copy.deepcopy(base), fit_b, KEYS), fit_b)
    print("X")
    variants["X"] = (descend(exchange_fit(copy.deepcopy(base), fit_a), fit_a, ("overlap",)), fit_a)
    print("C")
    c = copy.deepcopy(base)
    c["exchange"][T]["bandwidth_gbps"] = variants["X"][0]["exchange"][T]["bandwidth_gbps"]
    variants["C"] = (descend(c, fit_a, ("latency_us", "per_neighbour_us", "overlap")), fit_a)
    print(f"\nh200_ib.json's {T}: " + ", ".join(f"{k} {base['exchange'][T][k]:g}" for k in KEYS))
    for name, (m, fit) in variants.items():
        fitted = {n for n, _ in fit}
        print(f"\nvariant {name} ({len(fit)} runs fitted): " + ", ".join(f"{k} {m['exchange'][T][k]:.3f}" for k in KEYS))
        print("| set | runs (in this fit) | within 15% before | after | mean abs before | after | max before | after | newly outside 15% |")
        print("|---|---|---|---|---|---|---|---|---|")
        ok = True
        for s, runs in sets.items():
            b, a = errs(base, runs), errs(m, runs)
            wb, wa = sum(abs(e) <= 0.15 for e in b.values()), sum(abs(e) <= 0.15 for e in a.values())
            out = [n for n in b if abs(b[n]) <= 0.15 < abs(a[n])]
            ok &= wa >= wb and not out
            mean = lambda e: 100 * sum(map(abs, e.values())) / len(e)  # noqa: E731
            mx = lambda e: 100 * max(map(abs, e.values()))  # noqa: E731
            print(f"| {s} | {len(b)} ({sum(n in fitted for n in b)}) | {wb} | {wa} | {mean(b):.1f}% | {mean(a):.1f}% | "
                  f"{mx(b):.1f}% | {mx(a):.1f}% | {', '.join(f'{n} {100 * a[n]:+.1f}%' for n in out)} |")
        print(f"criterion (no count drops, none newly outside): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
