#!/usr/bin/env python3
"""Predicted strong scaling to 1024 GPUs (issue 39): `distspmv model` on the bench matrices, and a
matrix of 1e10 nonzeros whose halo is derived from the generator's structure.

    python3 jobs/model_curves.py run  --cli BUILD/apps/distspmv [--machine FILE.json] [-o DIR]   # the JSON, minutes
    python3 jobs/model_curves.py plot [-o jobs/plots/model_scaling.png] [--svg] [DIR]

--machine: the description (default jobs/machines/h100_ib.json, `distspmv model`'s own default), passed
to `distspmv model` and used for the derived 1e10-nonzero matrix; plot names it from the JSON.

run   writes DIR/<name>.json (distspmv model --json, 8 GPUs per host, the committed machine
      description) for each matrix of CURVES, and DIR/stencil27_718.json for the 1e10-nonzero
      matrix (gen:stencil27:718, 9.99e9 nonzeros; too large to build here): its block partition's
      figures follow from the stencil (below), checked against the model's own figures of
      gen:stencil27:200 at every P before they are used.
plot  draws the predicted apply time and the parallel efficiency T1 / (P T_P) against P, one line
      per matrix, and prints where each stops scaling (efficiency below 50%) and the bound there.

Block partition of gen:stencil27:N over P ranks: contiguous slices of k = N^3 / P rows in grid order.
The columns of a row i are i + a N^2 + b N + c (a, b, c in -1..1), so those of a slice [lo, hi) lie in
three windows [lo + a N^2 - N - 1, hi + a N^2 + N + 1), a = -1, 0, 1: its ghosts are their union
less the slice (interior slices; a grid face drops some, so this is an upper bound), its neighbours
the ranks that own them, and it sends as many as it receives (the stencil is symmetric). With 8
consecutive ranks per host the rank taken is the last of a host in the middle: its ghosts above
come from the next host.
"""
import argparse
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import model_check  # noqa: E402  (the same predict() as the check)
import plots  # noqa: E402  (the house style)

REPO = pathlib.Path(__file__).resolve().parent.parent
RANKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
GPUS_PER_HOST = 8
# name, source, partition (what --partition auto picks there), generator seed
CURVES = [("stencil27_200", "gen:stencil27:200", "block", 1),
          ("poisson3d_200", "gen:poisson3d:200", "block", 1),
          ("lognormal_4M", "gen:lognormal:4000000:2.0:1.0:300000", "block", 9),
          ("rmat_22_16_lp", "gen:rmat:22:16", "lp", 11),
          ("rmat_22_16_block", "gen:rmat:22:16", "block", 11)]
BIG_N = 718


def stencil27_block(n, p, g=GPUS_PER_HOST):
    """Figures of one rank of gen:stencil27:N on P ranks, block partition (see above): the rank just
    below the middle host boundary (the slowest: an interior slice whose ghosts on one side live on
    another host)."""
    rows = n ** 3
    base, extra = divmod(rows, p)
    bound = lambda q: q * base + min(q, extra)  # noqa: E731  (io::split_rows_evenly)
    owner = lambda i: next(q for q in range(max(0, i // (base + 1) - 1), p + 1) if bound(q + 1) > i)  # noqa: E731
    me = max(0, min(p - 1, (p // g // 2) * g - 1)) if p > g else (p - 1) // 2
    lo, hi = bound(me), bound(me + 1)
    if p == 1:
        return {"rows": rows, "nnz": 27 * rows, "ghosts": 0, "sends": 0, "neighbours": 0}
    # The columns of rows [lo, hi): three windows, one per plane offset, each k + 2N + 2 wide.
    spans = sorted((max(0, lo + a * n * n - n - 1), min(rows, hi + a * n * n + n + 1)) for a in (-1, 0, 1))
    merged = []
    for a, b in spans:
        if a >= b:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    ghosts = off = 0
    peers = set()
    for a, b in merged:
        for q in range(owner(a), owner(b - 1) + 1):
            if q == me:
                continue
            c = max(0, min(b, bound(q + 1)) - max(a, bound(q)))
            if c:
                ghosts += c
                peers.add(q)
                off += c if q // g != me // g else 0
    r = {"rows": hi - lo, "nnz": 27 * (hi - lo), "ghosts": ghosts, "sends": ghosts, "neighbours": len(peers),
         "ghosts_off_host": off, "sends_off_host": off,
         "neighbours_off_host": sum(1 for q in peers if q // g != me // g)}
    return r


def _json_of(cmd):
    """`distspmv model ... --json /dev/stdout`'s JSON (after its table)."""
    out = subprocess.run(cmd + ["--json", "/dev/stdout"], capture_output=True, text=True, check=True).stdout
    return json.loads(out[out.index("{\n"):])


def run(args):
    out = pathlib.Path(args.output or REPO / "jobs/results/model_curves")
    out.mkdir(parents=True, exist_ok=True)
    machine = pathlib.Path(args.machine or REPO / "jobs/machines/h100_ib.json").resolve()
    ranks = ",".join(map(str, RANKS))
    for name, source, partition, seed in CURVES:
        if (out / f"{name}.json").exists():  # kept from an earlier run (delete it to redo)
            continue
        cmd = [args.cli, "model", source, "--ranks", ranks, "--partition", partition, "--seed", str(seed),
               "--gpus-per-host", str(GPUS_PER_HOST), "--machine", str(machine), "--json", str(out / f"{name}.json")]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    # The structural figures against the model's own at N = 200, P = 2..1024 (max ghosts, neighbours:
    # the model's slowest rank may sit elsewhere, but interior slices all look alike).
    ref = json.loads((out / "stencil27_200.json").read_text())
    for entry in ref["per_ranks"][1:]:
        f = stencil27_block(200, entry["ranks"])
        if (abs(f["ghosts"] - entry["ghosts_max"]) > 0.02 * entry["ghosts_max"]
                or f["neighbours"] != entry["neighbours_max"]):
            sys.exit(f"stencil27 structure: P={entry['ranks']}: derived ghosts {f['ghosts']:.0f} / neighbours "
                     f"{f['neighbours']} against the model's {entry['ghosts_max']} / {entry['neighbours_max']}")
    # What the stencil's figures above leave out, per row and per ghost, from distspmv model's own
    # figures of a smaller stencil (interior slices all look alike): x's lines, entries in ghost columns.
    small = _json_of([args.cli, "model", "gen:stencil27:100", "--ranks", "1,4", "--per-rank"])
    one_rank = small["per_ranks"][0]["per_rank"][0]
    inner = small["per_ranks"][1]["per_rank"][1]
    shape = {"x_lines_per_row": one_rank["x_lines"] / one_rank["rows"],
             "halo_nnz_per_ghost": inner["halo_nnz"] / inner["ghosts"]}
    m = json.loads(machine.read_text())
    big = {"tool": "jobs/model_curves.py (derived)", "machine": {"file": str(machine)}, "matrix": {"source": f"gen:stencil27:{BIG_N}",
           "rows": BIG_N ** 3, "nnz": 27 * BIG_N ** 3}, "partition": "block", "gpus_per_host": GPUS_PER_HOST,
           "format_class": "diagonal", "per_ranks": []}

    def figures(p):
        f = stencil27_block(BIG_N, p)
        f.update(x_lines=round(shape["x_lines_per_row"] * f["rows"]), max_row=27,
                 halo_nnz=round(shape["halo_nnz_per_ghost"] * f["ghosts"]))
        return f
    one = model_check.predict(m, figures(1), 1, "diagonal")[2]
    for p in RANKS:
        f = figures(p)
        local, ex, apply = model_check.predict(m, f, p, "diagonal", gpus_per_host=GPUS_PER_HOST)
        big["per_ranks"].append({"ranks": p, "nnz_max": f["nnz"], "ghosts_max": f["ghosts"],
                                 "neighbours_max": f["neighbours"],
                                 "predicted": {"local_us": local, "exchange_us": ex, "apply_us": apply,
                                               "speedup": one / apply}})
    big["predicted_one_gpu_us"] = one
    big["note"] = ("one GPU cannot hold it (1.2e11 bytes); the 1-GPU time is the model's, the reference of the "
                   "speedups. Figures derived from the stencil, checked against distspmv model on gen:stencil27:200")
    (out / f"stencil27_{BIG_N}.json").write_text(json.dumps(big, indent=1) + "\n")
    print(out / f"stencil27_{BIG_N}.json")


def plot(args):
    folder = pathlib.Path(args.input or REPO / "jobs/results/model_curves")
    plt = plots.pyplot()
    machines = set()
    fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(12, 4.8))
    for f in sorted(folder.glob("*.json")):
        j = json.loads(f.read_text())
        machines.add(pathlib.Path(j.get("machine", {}).get("file", "h100_ib.json")).stem)
        pts = [(e["ranks"], e["predicted"]["apply_us"]) for e in j["per_ranks"]]
        one = j["predicted_one_gpu_us"]
        label = f"{j['matrix']['source']} ({j['partition']}, {j['matrix']['nnz'] / 1e6:,.0f} M nnz)"
        ax_t.plot([p for p, _ in pts], [t for _, t in pts], marker="o", ms=3, label=label)
        ax_e.plot([p for p, _ in pts], [one / (p * t) for p, t in pts], marker="o", ms=3, label=label)
        stop = next((e for e in j["per_ranks"] if one / (e["ranks"] * e["predicted"]["apply_us"]) < 0.5), None)
        where = (f"efficiency < 50% from P = {stop['ranks']} ({stop['predicted'].get('bound', 'exchange')}: "
                 f"{stop['predicted']['apply_us']:.1f} us, exchange {stop['predicted']['exchange_us']:.1f} us)"
                 if stop else "efficiency >= 50% up to 1024")
        print(f"{f.stem}: T1 {one:.0f} us, T1024 {pts[-1][1]:.1f} us; {where}")
    for ax in (ax_t, ax_e):
        ax.set_xscale("log", base=2)
        plots.plain_log_axis(ax.xaxis, base=2)
        ax.set_xlabel(f"GPUs ({GPUS_PER_HOST} per host)")
    ax_t.set_yscale("log")
    plots.plain_log_axis(ax_t.yaxis)
    ax_t.set_ylabel("predicted apply (µs, slowest rank)")
    ax_e.set_ylabel("parallel efficiency T1 / (P · TP)")
    ax_e.set_ylim(0, 1.05)
    ax_e.axhline(0.5, color="#999999", lw=0.8, ls="--")
    handles, labels = ax_t.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.08))
    gpu = "/".join(sorted(m.split("_")[0].upper() for m in machines))
    fig.suptitle(f"distspmv model (issue 39): predicted strong scaling; {gpu} description ({', '.join(sorted(machines))}) "
                 "fitted to 1-4 GPU runs,\nnetwork across hosts ASSUMED (25 GB/s, 3 µs per GPU)")
    plots.save(fig, args.output or REPO / "jobs/plots/model_scaling.png", args.svg)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["run", "plot"])
    ap.add_argument("input", nargs="?")
    ap.add_argument("-o", "--output")
    ap.add_argument("--cli")
    ap.add_argument("--machine", help="run: the machine description (default jobs/machines/h100_ib.json)")
    ap.add_argument("--svg", action="store_true")
    a = ap.parse_args()
    (run if a.what == "run" else plot)(a)


if __name__ == "__main__":
    main()
