#!/usr/bin/env python3
"""The apply model of `distspmv model` (issue 39) against measured runs, and the machine description.

    python3 jobs/model_check.py derive [-o jobs/machines/h100_ib.json] [INPUT ...]
    python3 jobs/model_check.py check  [--machine jobs/machines/h100_ib.json] [-o DIR] [--cli BUILD/apps/distspmv] [INPUT ...]

derive  fits the machine description to the runs (distspmv's --json reports, one file per run):
        per format, floor and rate of the one-GPU apply (least squares); then the floor of an apply
        on several ranks, each transport's latency, bandwidth and overlap (a grid search on the
        summed squared relative error of the multi-GPU runs). The network across hosts is not
        measured here: its figures are the assumption NETWORK below, written into the file.
check   predicts every run from its own per-rank figures (rows, nonzeros, ghosts, sends,
        neighbours, format, transport: the report's) with the same formula as apps/model/machine.cpp,
        and writes DIR/table.md (the error per run; also printed) and DIR/model_check.json. With --cli,
        the halo figures of the generator runs are also computed by `distspmv model --per-rank` and
        compared with the report's (they must be equal).

INPUT: report JSON files, .tgz of them, or folders (their *.json and *.tgz, recursively). Without
INPUTs: RUNS below. Runs without --check, with other precision than double, or with `--format all`
are left out. Pure Python 3 (no NumPy), so that the GPU machine's job can run it.
"""
import argparse
import json
import math
import pathlib
import statistics
import subprocess
import sys
import tarfile

REPO = pathlib.Path(__file__).resolve().parent.parent
EXCHANGE = "jobs/results/2026-11-27_h100x4_exchange"
# The latest multi-GPU runs on 4x and 2x H100 (revisions f23515d and, for cuda-ipc and nccl, 66d1834
# whose apply path they share); run 7 tried an uncommitted one-stream apply, run 1's peer-put was the
# first version (acks at the next packing), so both are left out.
RUNS = [f"{EXCHANGE}/run8_h100x4/runs.tgz", f"{EXCHANGE}/run6_h100x2/runs.tgz", f"{EXCHANGE}/run1_h100x4/runs.tgz"]
LEAVE_OUT = {"run1_h100x4": "peer-put"}
# Run 9 (d9ecd3f, 4x H100, the transport rule): its JSON was not kept; apply times as quoted in
# the folder's README, figures from run 8's report of the same matrix and partition.
RUN9 = {"table_stencil27_g4": 176.0, "table_lognormal_g4": 140.0, "table_rmat_g4": 209.6, "table_weak_g4": 218.8}
RUN9_TRANSPORT = {"table_stencil27_g4": "cuda-ipc", "table_lognormal_g4": "cuda-ipc", "table_rmat_g4": "peer-put",
                  "table_weak_g4": "cuda-ipc"}
# Generator seeds of jobs/dist_gpu.sh's runs (the reports do not record them), by run name prefix.
SEEDS = {"table_rmat": 11, "table_lognormal": 9}
# Across hosts: assumed, not measured (InfiniBand NDR, one 200 Gb/s port per GPU, NCCL over it).
NETWORK = {"latency_us": 3.0, "per_neighbour_us": 1.0, "bandwidth_gbps": 25.0, "overlap": 0.5,
           "note": "assumed, not measured: InfiniBand NDR, one 200 Gb/s (25 GB/s) port per GPU, 3 us for the first "
                   "message, 1 us for each further neighbour, half the exchange hidden by the local SpMV (the "
                   "measured one-host transports: 0.7-1.0; NCCL's is not determined by the runs)"}


def load(inputs):
    """(name, report) of every report JSON in the inputs."""
    out = []
    for item in inputs:
        p = pathlib.Path(item)
        if not p.is_absolute():
            p = REPO / p
        files = sorted(p.rglob("*")) if p.is_dir() else [p]
        for f in files:
            tag = f.parent.name if f.suffix == ".tgz" else f.parent.parent.name
            if f.suffix == ".json":
                out.append((f"{tag}/{f.stem}", json.loads(f.read_text())))
            elif f.name.endswith((".tgz", ".tar.gz")):
                with tarfile.open(f) as t:
                    for m in sorted(t.getmembers(), key=lambda m: m.name):
                        if m.name.endswith(".json"):
                            out.append((f"{tag}/{pathlib.Path(m.name).stem}", json.load(t.extractfile(m))))
    keep = []
    for name, j in out:
        if "per_rank" not in j or j.get("precision") != "double" or j.get("max_rel_error") is None:
            continue
        if LEAVE_OUT.get(name.split("/")[0]) == j.get("transport"):
            continue
        keep.append((name, j))
    for name, j in list(keep):
        stem = name.split("/")[-1]
        if name.startswith("run8_h100x4/") and stem in RUN9:
            k = json.loads(json.dumps(j))
            k["apply_median_us"] = RUN9[stem]
            k["transport"] = RUN9_TRANSPORT[stem]
            k["git_revision"] = "d9ecd3f"
            keep.append((f"run9_h100x4/{stem} (README)", k))
    return keep


def bytes_of(r):
    return r["nnz"] * 12.0 + r["rows"] * 24.0


def predict(m, r, ranks, cls, transport=None, gpus_per_host=8):
    """apps/model/machine.cpp's predict() for one rank's figures: (local, exchange, apply) in µs.
    `transport`: on one host (None: the description's single_host or on_host by ranks)."""
    c = m["spmv"][cls]
    compute = bytes_of(r) / (c["rate_gbps"] * 1e3)
    if ranks == 1:
        return c["floor_us"] + compute, 0.0, c["floor_us"] + compute
    local = m["multi_rank_floor_us"] + compute
    on = m["exchange"][transport or (m["single_host"] if ranks <= gpus_per_host else m["on_host"])]
    off = m["exchange"][m["across_hosts"]]

    def part(x, nb, entries):
        return 0.0 if nb == 0 else x["latency_us"] + (nb - 1) * x["per_neighbour_us"] + 8.0 * entries / (
            x["bandwidth_gbps"] * 1e3)
    nb_off, g_off, s_off = r.get("neighbours_off_host", 0), r.get("ghosts_off_host", 0), r.get("sends_off_host", 0)
    x_on = part(on, r["neighbours"] - nb_off, max(r["ghosts"] - g_off, r["sends"] - s_off))
    x_off = part(off, nb_off, max(g_off, s_off))
    ex = max(x_on, x_off)
    overlap = off["overlap"] if x_off > x_on else on["overlap"]
    return local, ex, max(local + (1 - overlap) * ex, m["multi_rank_floor_us"] + ex)


def predict_run(m, j):
    ranks = j["ranks"]
    return max(predict(m, r, ranks, r["format"], j["transport"])[2] for r in j["per_rank"])


def errors(m, runs):
    return [(predict_run(m, j) - j["apply_median_us"]) / j["apply_median_us"] for _, j in runs]


def fit_line(points):
    """Least squares t = floor + B / rate over (B, t); floor kept >= 0."""
    n = len(points)
    if n == 1 or len({b for b, _ in points}) == 1:
        b, t = points[0]
        return 0.0, b / t / 1e3
    mb = sum(b for b, _ in points) / n
    mt = sum(t for _, t in points) / n
    slope = sum((b - mb) * (t - mt) for b, t in points) / sum((b - mb) ** 2 for b, _ in points)
    floor = mt - slope * mb
    if floor < 0 or slope <= 0:
        return 0.0, sum(b for b, _ in points) / sum(t for _, t in points) / 1e3
    return floor, 1.0 / slope / 1e3


def derive(runs):
    one = [(j["per_rank"][0]["format"], bytes_of(j["per_rank"][0]), j["apply_median_us"]) for _, j in runs
           if j["ranks"] == 1]
    spmv = {}
    for fmt in sorted({f for f, _, _ in one}):
        floor, rate = fit_line([(b, t) for f, b, t in one if f == fmt])
        spmv[fmt] = {"floor_us": round(floor, 2), "rate_gbps": round(rate, 1)}
    multi = [(n, j) for n, j in runs if j["ranks"] > 1]
    formats = {r["format"] for _, j in multi for r in j["per_rank"]}
    transports = sorted({j["transport"] for _, j in multi})
    median_floor = statistics.median(s["floor_us"] for s in spmv.values())
    general = statistics.median(s["rate_gbps"] for s in spmv.values())
    for fmt in formats - set(spmv):  # formats seen only in rank blocks (cuSPARSE fallback): fitted below
        spmv[fmt] = {"floor_us": median_floor, "rate_gbps": general}
    m = {"multi_rank_floor_us": 18.0, "spmv": spmv,
         "exchange": {t: {"latency_us": 5.0, "per_neighbour_us": 1.0, "bandwidth_gbps": 200.0, "overlap": 0.5}
                      for t in transports}}

    def cost(m):
        return sum(e * e for e in errors(m, multi))

    # Coordinate descent over a few grids, three sweeps.
    grids = {"floor": [12 + 0.5 * k for k in range(21)], "latency": [0.5 * k for k in range(41)],
             "overlap": [0.05 * k for k in range(21)], "bandwidth": [50, 100, 150, 200, 300, 400],
             "per_neighbour": [0.5 * k for k in range(21)],
             "rate": [200 * k for k in range(2, 21)]}
    only_multi = sorted(formats - {f for f, _, _ in one})
    for _ in range(3):
        best = min(grids["floor"], key=lambda v: cost({**m, "multi_rank_floor_us": v}))
        m["multi_rank_floor_us"] = best
        for fmt in only_multi:
            def with_rate(v, fmt=fmt):
                s = dict(m["spmv"])
                s[fmt] = {"floor_us": median_floor, "rate_gbps": v}
                return {**m, "spmv": s}
            m = with_rate(min(grids["rate"], key=lambda v: cost(with_rate(v))))
        for t in transports:
            for key, grid in (("latency_us", grids["latency"]), ("overlap", grids["overlap"]),
                              ("bandwidth_gbps", grids["bandwidth"]), ("per_neighbour_us", grids["per_neighbour"])):
                def with_value(v, t=t, key=key):
                    ex = {k: dict(x) for k, x in m["exchange"].items()}
                    ex[t][key] = v
                    return {**m, "exchange": ex}
                m = with_value(min(grid, key=lambda v: cost(with_value(v))))
    # The model tool's two classes: diagonal (HDIA) and general (the larger-block CSR formats).
    m["spmv"]["diagonal"] = dict(m["spmv"].get("hdia", {"floor_us": median_floor, "rate_gbps": general}))
    big = [m["spmv"][f]["rate_gbps"] for f in ("panel", "cusparse") if f in m["spmv"]]
    m["spmv"]["general"] = {"floor_us": median_floor, "rate_gbps": round(statistics.median(big) if big else general, 1)}
    m["exchange"]["network"] = dict(NETWORK)
    return m


def recompute_halo(cli, runs, max_nnz):
    """Per generator run: does `distspmv model`'s per-rank halo equal the report's? name -> bool."""
    out, cache = {}, {}
    for name, j in runs:
        src = j["matrix"]["source"]
        if not src.startswith("gen:") or j["ranks"] == 1 or j["matrix"]["nnz"] > max_nnz:
            continue
        stem = name.split("/")[1].split(" ")[0]
        seed = next((v for k, v in SEEDS.items() if stem.startswith(k)), 1)
        key = (src, j["ranks"], j["partition"], seed)
        if key not in cache:
            cmd = [cli, "model", src, "--ranks", str(j["ranks"]), "--partition", j["partition"], "--per-rank",
                   "--json", "/dev/stdout", "--seed", str(seed)]
            res = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            cache[key] = json.loads(res[res.index("{\n"):])
        model = cache[key]
        if model["matrix"]["nnz"] != j["matrix"]["nnz"]:
            out[name] = False
            continue
        fig = model["per_ranks"][0]["per_rank"]
        out[name] = all(f[k] == r[k] for f, r in zip(fig, j["per_rank"]) for k in ("rows", "nnz", "ghosts", "sends",
                                                                                    "neighbours"))
    return out


def check(m, runs, outdir, halo):
    rows = []
    for name, j in runs:
        p = predict_run(m, j)
        meas = j["apply_median_us"]
        rows.append({"run": name, "matrix": j["matrix"]["source"].split("/")[-1], "ranks": j["ranks"],
                     "partition": j["partition"], "transport": j["transport"],
                     "formats": ",".join(sorted(set(j["format_per_rank"]))), "revision": j["git_revision"],
                     "ghosts_max": max(r["ghosts"] for r in j["per_rank"]),
                     "neighbours_max": max(r["neighbours"] for r in j["per_rank"]),
                     "measured_us": round(meas, 1), "predicted_us": round(p, 1), "error": round((p - meas) / meas, 4),
                     "halo_recomputed": halo.get(name)})
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "model_check.json").write_text(json.dumps({"machine": m, "runs": rows}, indent=1) + "\n")
    summary = {"runs": len(rows), "within_15_percent": sum(abs(r["error"]) <= 0.15 for r in rows)}
    within = sum(abs(r["error"]) <= 0.15 for r in rows)
    lines = [f"{within} of {len(rows)} runs within 15%; mean |error| "
             f"{100 * statistics.mean(abs(r['error']) for r in rows):.1f}%, max {100 * max(abs(r['error']) for r in rows):.1f}%.",
             "", "| run | matrix | P | partition | transport | formats | ghosts max | nb max | measured µs | predicted µs |"
             " error | halo = model |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["matrix"], r["ranks"], r["run"])):
        flag = "" if abs(r["error"]) <= 0.15 else " **"
        h = {True: "yes", False: "NO", None: ""}[r["halo_recomputed"]]
        lines.append(f"| {r['run']} | {r['matrix']} | {r['ranks']} | {r['partition']} | {r['transport']} | "
                     f"{r['formats']} | {r['ghosts_max']} | {r['neighbours_max']} | {r['measured_us']} | "
                     f"{r['predicted_us']} | {100 * r['error']:+.1f}%{flag} | {h} |")
    text = "\n".join(lines) + "\n"
    (outdir / "table.md").write_text(text)
    return text, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["derive", "check"])
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("-o", "--output")
    ap.add_argument("--machine", default=str(REPO / "jobs/machines/h100_ib.json"))
    ap.add_argument("--cli", help="distspmv binary: recompute the generator runs' halo figures")
    ap.add_argument("--max-nnz", type=float, default=1e8, help="check: recompute the halo up to this many nonzeros")
    ap.add_argument("--header", default="", help="derive: the description's 'description' field")
    a = ap.parse_args()
    runs = load(a.inputs or RUNS)
    if not runs:
        sys.exit("model_check.py: no usable runs in the inputs")
    if a.what == "derive":
        m = derive(runs)
        m = {"description": a.header or "fitted by jobs/model_check.py derive", **m,
             "rounded": "floors and latencies in us, rates and bandwidths in GB/s; rate: CSR-equivalent bytes "
                        "(nnz * 12 + rows * 24) per second",
             "single_host": "peer-put", "on_host": "nccl", "across_hosts": "network", "fitted_on": sorted({n.split('/')[0] for n, _ in runs})}
        text = json.dumps(m, indent=1) + "\n"
        (pathlib.Path(a.output).write_text(text) if a.output else sys.stdout.write(text))
        errs = errors(m, runs)
        print(f"fit: {sum(abs(e) <= 0.15 for e in errs)} of {len(errs)} runs within 15%", file=sys.stderr)
        return
    m = json.loads(pathlib.Path(a.machine).read_text())
    halo = recompute_halo(a.cli, runs, a.max_nnz) if a.cli else {}
    table, _ = check(m, runs, pathlib.Path(a.output or "."), halo)
    print(table)


if __name__ == "__main__":
    main()
