#!/usr/bin/env python3
"""Plots of the committed GPU results, drawn with matplotlib (Debian: python3-matplotlib).

    python3 jobs/plots.py scaling   [-o jobs/plots/scaling.png]   [--svg] [INPUT ...]
    python3 jobs/plots.py bandwidth [-o jobs/plots/bandwidth.png] [--svg] [--precision double|float] [INPUT ...]
    python3 jobs/plots.py setup     [-o jobs/plots/setup.png]     [--svg] [INPUT ...]

scaling    weak-scaling efficiency T(1)/T(g) and strong-scaling speedup T(1)/T(g) of the apply against
           GPU count, from jobs/dist_gpu.sh's JSON (one file per run); one line per transport and
           results folder, the 1-GPU time from the same folder, repeats reduced to their median.
bandwidth  each format's effective GB/s (CSR byte model) per matrix from `distspmv --format all`'s
           JSON, with the device-to-device copy bandwidth and cuSPARSE CSR's bar marked.
setup      setup time per phase (read, partition, redistribute, build; the read split into waiting
           for the reader / copying to the GPU / splitting where the JSON has it) as stacked bars per
           run, with nonzeros per second, host bytes per nonzero and the memory held.

An INPUT is a JSON file, a .tgz/.tar.gz of JSON files (as the GPU scripts commit them) or a folder
(its *.json and *.tgz, not its subfolders); relative paths are taken from the current directory.
Without INPUTs each subcommand reads the committed runs its --help names; without -o it writes
jobs/plots/NAME.png of the repository. Files that do not hold the figures a plot needs are left out
and named on stderr. The images carry no timestamp, so the same JSON gives the same bytes. Run it
with the Python that has Debian's matplotlib (/usr/bin/python3 where a pyenv python3 comes first).
"""
import argparse
import json
import math
import pathlib
import re
import statistics
import sys
import tarfile

REPO = pathlib.Path(__file__).resolve().parent.parent
RESULTS = "jobs/results"

# The committed runs each plot is made from (relative to the repository root).
DEFAULTS = {
    "scaling": [f"{RESULTS}/2026-11-22_h200x8_dist_run2",
                f"{RESULTS}/2026-11-22_h200x4_dist_run3",
                f"{RESULTS}/2026-11-22_h200x4_dist_run4",
                f"{RESULTS}/2026-11-22_h200x2_dist_run6",
                f"{RESULTS}/2026-11-22_h200x2_dist_run7/bench/runs.tgz",
                f"{RESULTS}/2026-11-22_h200x2_dist_run8/runs.tgz"],
    "bandwidth": [f"{RESULTS}/2026-11-22_h100_formats/bench_run19.tgz"],
    "setup": [f"{RESULTS}/2026-11-23_h100_setup"],
}

# Folders whose JSON carry a wrong git_revision (a stale .git on the GPU machine); the revision
# actually measured, as their README.md states. Keyed by folder, since the stale value is shared.
REVISION_FIXES = {
    "2026-11-22_h200x4_dist_run1": "033a5d5",
    "2026-11-22_h200x8_dist_run2": "cb5b7ba",
}

TRANSPORT_COLOURS = {"nccl": "#1f77b4", "cuda-ipc": "#2ca02c", "mpi-staged": "#d62728",
                     "mpi-cuda": "#9467bd", "mpi-host": "#8c564b"}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]


def warn(msg):
    print(f"plots.py: {msg}", file=sys.stderr)


# ---------------------------------------------------------------- reading the JSON

class Record:
    """One JSON document and where it came from."""

    def __init__(self, data, path, name):
        self.data, self.path, self.name = data, path, name  # name: the file's stem
        folder = next((p.name for p in [path, *path.parents] if re.match(r"\d{4}-\d\d-\d\d_", p.name)), path.parent.name)
        self.folder = folder  # the results folder, e.g. 2026-11-22_h200x4_dist_run3

    def get(self, *keys, default=None):
        v = self.data
        for k in keys:
            if not isinstance(v, dict) or k not in v:
                return default
            v = v[k]
        return v

    @property
    def revision(self):
        return REVISION_FIXES.get(self.folder) or (self.get("git_revision") or "?")[:7]

    @property
    def device(self):
        d = self.get("device") or self.get("gpu") or "?"
        return re.sub(r"\s*\([0-9a-fA-F:.]+\)$", "", d)  # drop the PCI address


def data_sources(records):
    """Where records came from, relative to jobs/results where they are under it: the folder of a
    JSON file, or the archive."""
    out = set()
    for r in records:
        p = r.path.parent if r.path.suffix == ".json" else r.path
        out.add(re.sub(r"^.*?jobs/results/", "", str(p)))
    return sorted(out)


def resolve(p, default):
    p = pathlib.Path(p)
    return REPO / p if default and not p.is_absolute() else p


def read_inputs(inputs, default):
    """Every JSON document under the inputs, in a stable order."""
    records = []
    for given in inputs:
        path = resolve(given, default)
        if path.is_dir():
            members = sorted(f for f in path.iterdir() if f.is_file() and
                             (f.suffix == ".json" or f.name.endswith((".tgz", ".tar.gz"))))
        elif path.exists():
            members = [path]
        else:
            warn(f"{given}: no such file or folder")
            continue
        for f in members:
            if f.suffix == ".json":
                try:
                    records.append(Record(json.loads(f.read_text()), f, f.stem))
                except (OSError, json.JSONDecodeError) as e:
                    warn(f"{f}: unreadable JSON ({e}); left out")
            else:
                try:
                    with tarfile.open(f) as tf:
                        for m in sorted(tf.getmembers(), key=lambda m: m.name):
                            if m.isfile() and m.name.endswith(".json"):
                                try:
                                    records.append(Record(json.load(tf.extractfile(m)), f,
                                                          pathlib.PurePath(m.name).stem))
                                except json.JSONDecodeError as e:
                                    warn(f"{f}:{m.name}: unreadable JSON ({e}); left out")
                except (OSError, tarfile.TarError) as e:
                    warn(f"{f}: unreadable archive ({e}); left out")
    return records


# ---------------------------------------------------------------- matplotlib

def pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit("plots.py: needs matplotlib (Debian: apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8,
        "axes.grid": True, "grid.color": "#dddddd", "grid.linewidth": 0.6, "axes.axisbelow": True,
        "svg.hashsalt": "distspmv", "svg.fonttype": "none",  # deterministic SVG ids, text kept as text
        "savefig.facecolor": "white", "figure.facecolor": "white",
    })
    return plt


def save(fig, out, svg):
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    targets = [out] + ([out.with_suffix(".svg")] if svg and out.suffix.lower() != ".svg" else [])
    for t in targets:
        if t.suffix.lower() == ".svg":
            meta = {"Date": None, "Creator": None}
        elif t.suffix.lower() == ".pdf":
            meta = {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}
        else:
            meta = {"Software": None}
        fig.savefig(t, dpi=110, metadata=meta, bbox_inches="tight", pad_inches=0.15)
        print(t)


def plain_log_axis(axis, base=10):
    """Log scale with ticks written as plain numbers (1, 2, 4 or 10, 30, 100, ...)."""
    import matplotlib.ticker as mt
    fmt = mt.FuncFormatter(lambda v, _: f"{v:g}")
    if base == 2:
        axis.set_major_locator(mt.LogLocator(base=2))
    else:
        axis.set_major_locator(mt.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(fmt)
    axis.set_minor_formatter(mt.NullFormatter())


# ---------------------------------------------------------------- scaling

def scaling_series(records):
    """{(kind, matrix): {(folder, partition, transport): [(gpus, value, repeats)]}}, the runs'
    descriptions and the rows per GPU of each weak-scaling matrix family."""
    runs = {}  # (origin folder, kind, matrix) -> {gpus: {(partition, transport): [apply µs]}}
    about = {}  # results folder -> [device, revisions, max GPUs]
    rows_per_gpu = {}  # weak-scaling matrix family -> [rows / ranks]
    for r in records:
        t = r.get("apply_median_us")
        ranks = r.get("ranks")
        source = r.get("matrix", "source")
        if t is None or ranks is None or source is None or r.get("results") is not None:
            continue  # not a distributed SpMV run (a CG run, --format all, ...)
        if r.get("gpu_shared"):
            warn(f"{r.path}:{r.name}: ranks share a GPU; left out of the scaling plot")
            continue
        stem = r.name.lower()
        table = stem.startswith("table_")  # jobs/dist_gpu.sh table: issue 36's table, default options
        if table:
            stem = stem[len("table_"):]
        kind = "weak" if stem.startswith("weak") else "strong" if table or stem.startswith(("strong", "stencil")) else None
        if kind is None:
            warn(f"{r.path}:{r.name}: neither weak nor strong by its name; left out")
            continue
        src = source[4:] if source.startswith("gen:") else source
        matrix = src.split(":")[0] if kind == "weak" else src
        if kind == "weak" and r.get("matrix", "rows"):
            rows_per_gpu.setdefault(matrix, []).append(r.get("matrix", "rows") / ranks)
        label = r.folder
        d = about.setdefault(label, [r.device, set(), 0])
        d[1].add(r.revision)
        d[2] = max(d[2], ranks)
        key = (r.get("partition") or "?", r.get("transport") or "?")
        runs.setdefault((label, kind, matrix), {}).setdefault(ranks, {}).setdefault(key, []).append(t)
    panels = {}
    for (label, kind, matrix), by_g in runs.items():
        if 1 not in by_g:
            warn(f"{label}: {kind} {matrix} has no 1-GPU run; left out")
            continue
        t1 = statistics.median(v for ts in by_g[1].values() for v in ts)
        n1 = sum(len(ts) for ts in by_g[1].values())
        series = {}
        for g, by_key in by_g.items():
            if g == 1:
                continue
            for (part, transport), ts in by_key.items():
                series.setdefault((label, part, transport), [(1, 1.0, n1)]).append(
                    (g, t1 / statistics.median(ts), len(ts)))
        for k, pts in series.items():
            panels.setdefault((kind, matrix), {})[k] = sorted(pts)
    return panels, about, {m: statistics.median(v) for m, v in rows_per_gpu.items()}


def folder_label(folder, about):
    device, revs, gmax = about[folder]
    m = re.match(r"(\d{4}-\d\d-\d\d)_(.*)", folder)
    rest = m.group(2) if m else folder
    machine = re.match(r"([a-z]+\d*)x(\d+)", rest)
    if machine and int(machine.group(2)) < gmax:  # a folder named for a smaller machine than its runs used
        machine = None
    gpus = f"{machine.group(2)}×{machine.group(1).upper()}" if machine else f"{gmax} GPUs, {device}"
    run = re.search(r"run\d+", rest)
    return f"{gpus} {run.group(0) if run else rest}, rev {', '.join(sorted(revs))}"


def cmd_scaling(args, records):
    panels, about, rows_per_gpu = scaling_series(records)
    if not panels:
        sys.exit("plots.py scaling: no weak- or strong-scaling runs in the input")
    plt = pyplot()
    from matplotlib.lines import Line2D

    order = sorted(panels, key=lambda k: (k[0] != "weak", k[1]))
    folders = sorted(about, key=lambda f: (re.sub(r"^\d{4}-\d\d-\d\d_", "", f)))
    marker = {f: MARKERS[i % len(MARKERS)] for i, f in enumerate(folders)}
    transports = sorted({k[2] for p in panels.values() for k in p})
    # Runs share GPU counts: each run's points are moved a little sideways so that none hides another.
    dodge = {f: 2 ** ((i - (len(folders) - 1) / 2) * 0.08) for i, f in enumerate(folders)}
    shift = {t: 2 ** ((j - (len(transports) - 1) / 2) * 0.025) for j, t in enumerate(transports)}
    rows_legend = math.ceil((len(transports) + 3 + len(folders)) / 4)
    fig, axes = plt.subplots(1, len(order), figsize=(5.4 * len(order), 5.0 + 0.2 * rows_legend), squeeze=False)
    for ax, (kind, matrix) in zip(axes[0], order):
        gmax = max(g for s in panels[(kind, matrix)].values() for g, _, _ in s)
        gs = [2 ** i for i in range(int(math.log2(gmax)) + 1)]
        if kind == "weak":
            ax.plot([1, gmax], [1, 1], color="black", lw=1, ls=":", label="ideal")
            ax.set_ylabel("weak-scaling efficiency T(1) / T(g)")
            per = f", ~{human(rows_per_gpu[matrix])} rows per GPU" if matrix in rows_per_gpu else ""
            ax.set_title(f"weak scaling: {matrix}{per}")
        else:
            ax.plot(gs, gs, color="black", lw=1, ls=":", label="ideal")
            ax.set_ylabel("strong-scaling speedup T(1) / T(g)")
            ax.set_title(f"strong scaling: {matrix}")
            ax.set_yscale("log", base=2)
            plain_log_axis(ax.yaxis, base=2)

        def draw(target, ms):
            for (folder, part, transport), pts in sorted(panels[(kind, matrix)].items()):
                gx = [p[0] * (dodge[folder] * shift[transport] if p[0] > 1 else 1) for p in pts]
                metis = part == "metis"
                target.plot(gx, [p[1] for p in pts], color=TRANSPORT_COLOURS.get(transport, "#7f7f7f"),
                            marker=marker[folder], ls="--" if metis else "-", lw=1.5, ms=ms,
                            mfc="white" if metis else None, alpha=0.85)

        draw(ax, 7)
        ax.set_xscale("log", base=2)
        plain_log_axis(ax.xaxis, base=2)
        ax.set_xlim(0.8, gmax * 1.25)
        ax.set_xticks(gs)
        if kind == "weak":
            # Efficiencies far below the rest would squash the others: the axis stops at 0.78 and
            # such points are written at its foot with their value.
            lo = min(v for s in panels[(kind, matrix)].values() for _, v, _ in s)
            floor = 0.78 if lo < 0.78 else math.floor(lo * 50) / 50 - 0.02
            ax.set_ylim(floor, 1.02)
            for (folder, part, transport), pts in sorted(panels[(kind, matrix)].items()):
                for g, v, _ in pts:
                    if v < floor:
                        x = g * dodge[folder] * shift[transport]
                        colour = TRANSPORT_COLOURS.get(transport, "#7f7f7f")
                        ax.plot([x], [floor + 0.004], marker="v", color=colour, ms=8, clip_on=False)
                        ax.annotate(f"{transport}: {v:.2f}\n(below the axis)", (x, floor + 0.004), xytext=(0, 8),
                                    textcoords="offset points", ha="center", va="bottom", fontsize=7.5,
                                    color=colour)
        ax.set_xlabel("GPUs (one MPI rank each)")
    handles = [Line2D([], [], color="black", ls=":", label="ideal")]
    handles += [Line2D([], [], color=TRANSPORT_COLOURS.get(t, "#7f7f7f"), lw=2, label=t) for t in transports]
    handles += [Line2D([], [], color="#555555", ls="-", label="block partition"),
                Line2D([], [], color="#555555", ls="--", marker="o", mfc="white", label="METIS")]
    handles += [Line2D([], [], color="#555555", ls="none", marker=marker[f], label=folder_label(f, about))
                for f in folders]
    bottom = (0.45 + 0.2 * rows_legend) / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 1, 0.95))
    fig.legend(handles=handles, loc="upper center", ncol=4, frameon=False, bbox_to_anchor=(0.5, bottom - 0.01))
    devices = known(about[f][0] for f in folders)
    fig.suptitle(f"distspmv apply, double precision, {', '.join(devices)}: median over iterations of the "
                 "slowest rank; the 1-GPU time from the same run, repeats by their median", fontsize=10)
    fig.text(0.5, 0.0, "data (jobs/results/): " + "; ".join(data_sources(r for r in records if r.folder in about)),
             ha="center", va="bottom", fontsize=7, color="#555555")
    save(fig, args.output, args.svg)


# ---------------------------------------------------------------- bandwidth

FAMILIES = [  # (test on the format name, family, colour)
    (lambda f: f.startswith("cusparse"), "cuSPARSE", "#7f7f7f"),
    (lambda f: f == "hdia", "HDIA (diagonals)", "#9467bd"),
    (lambda f: f.startswith(("hll", "sell")), "SELL / HLL (slices)", "#2ca02c"),
    (lambda f: f.startswith(("ell", "pellr")), "ELL family", "#ff7f0e"),
    (lambda f: "csr" in f, "CSR family", "#1f77b4"),
]


def family(fmt):
    return next(((name, c) for test, name, c in FAMILIES if test(fmt)), ("other", "#bcbd22"))


def known(values):
    """The distinct values, sorted, without the placeholder '?' unless nothing else is known."""
    v = sorted(set(values))
    return [x for x in v if x != "?"] or v


def human(n):
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.3g} {unit}"
    return f"{n:.3g}"


def short_source(source):
    s = re.sub(r"^gen:", "", source)
    return re.sub(r"\.mtx(\.gz)?$", "", pathlib.PurePath(s).name if "/" in s else s)


def cmd_bandwidth(args, records):
    runs = []
    for r in records:
        if not isinstance(r.get("results"), list) or r.get("matrix", "source") is None:
            continue
        if r.get("precision") != args.precision:
            continue
        runs.append(r)
    if not runs:
        sys.exit(f"plots.py bandwidth: no `--format all` JSON in {args.precision} precision in the input")
    runs.sort(key=lambda r: (not r.get("matrix", "source").startswith("gen:"), r.get("matrix", "source")))
    plt = pyplot()
    import matplotlib.patches as mpatches
    from matplotlib.lines import Line2D

    ncol = 2
    nrow = math.ceil((len(runs) + 1) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(7.2 * ncol, 3.3 * nrow), squeeze=False)
    flat = [a for row in axes for a in row]
    formats = []
    for r in runs:  # the union of formats, in the order the runs list them
        for res in r.get("results"):
            if res.get("format") and res["format"] not in formats:
                formats.append(res["format"])
    lo, hi = math.inf, 0.0
    for r in runs:
        for res in r.get("results"):
            if res.get("effective_gbps"):
                lo, hi = min(lo, res["effective_gbps"]), max(hi, res["effective_gbps"])
        hi = max(hi, r.get("copy_gbps") or 0)
    ylim = (10 ** math.floor(math.log10(max(lo, 1e-3))), 10 ** (math.log10(hi) + 0.35))
    for ax, r in zip(flat, runs):
        by = {res.get("format"): res for res in r.get("results")}
        auto = r.get("auto_choice")
        xs = range(len(formats))
        for x, f in zip(xs, formats):
            res = by.get(f)
            gbps = (res or {}).get("effective_gbps")
            if not gbps:
                why = "skipped" if res and res.get("skipped") else "not run" if res is None else "no figure"
                ax.text(x, ylim[0] * 1.15, why, rotation=90, ha="center", va="bottom", fontsize=6, color="#999999")
                continue
            is_cusp, is_auto = f == "cusparse", f == auto
            ax.bar(x, gbps, width=0.78, color=family(f)[1], hatch="///" if is_cusp else None,
                   edgecolor="black" if is_cusp else "#b00000" if is_auto else "none",
                   linewidth=1.6 if is_cusp or is_auto else 0)
            if is_cusp:  # a reference line at cuSPARSE CSR's level across the panel
                ax.axhline(gbps, color="black", ls=":", lw=0.9)
            if is_auto:
                base = (by.get("cusparse") or {}).get("median_us")
                ratio = f" {base / res['median_us']:.2f}×" if base and res.get("median_us") else ""
                ax.annotate(f"★ auto{ratio}", (x, gbps), xytext=(-6 if x < 1.5 else 0, 3), textcoords="offset points",
                            ha="left" if x < 1.5 else "right" if x > len(formats) - 2.5 else "center",
                            va="bottom", fontsize=7, color="#b00000", fontweight="bold")
        copy = r.get("copy_gbps")
        if copy:
            ax.axhline(copy, color="#d62728", ls="--", lw=1.3)
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis)
        ax.set_ylim(*ylim)
        ax.set_xlim(-0.7, len(formats) - 0.3)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(formats, rotation=60, ha="right", fontsize=7)
        for t in ax.get_xticklabels():
            if t.get_text() == "cusparse":
                t.set_fontweight("bold")
            if t.get_text() == auto:
                t.set_color("#b00000")
        ax.tick_params(axis="x", length=0)
        ax.grid(axis="x", visible=False)
        ax.set_ylabel("effective GB/s")
        rows, nnz = r.get("matrix", "rows"), r.get("matrix", "nnz")
        size = f": {human(rows)} rows, {human(nnz)} nonzeros" if rows and nnz else ""
        ax.set_title(f"{short_source(r.get('matrix', 'source'))}{size}" + (f"; copy {copy:.0f} GB/s" if copy else ""))
    legend_ax = flat[len(runs)]
    for ax in flat[len(runs) + 1:]:
        ax.set_visible(False)
    legend_ax.axis("off")
    fams = []
    for f in formats:
        if family(f) not in fams:
            fams.append(family(f))
    handles = [mpatches.Patch(color=c, label=n) for n, c in fams]
    handles += [mpatches.Patch(facecolor=family("cusparse")[1], edgecolor="black", hatch="///",
                               label="cusparse: cuSPARSE CSR, default algorithm (the baseline)"),
                Line2D([], [], color="black", ls=":", label="cuSPARSE CSR's level"),
                Line2D([], [], color="#d62728", ls="--", label="device-to-device copy bandwidth, same run"),
                mpatches.Patch(facecolor="white", edgecolor="#b00000", linewidth=1.6,
                               label="★ auto's pick, its speed against cuSPARSE CSR")]
    legend_ax.legend(handles=handles, loc="center", frameon=False, fontsize=8.5)
    revs = known(r.revision for r in runs)
    devices = known(r.device for r in runs)
    dates = sorted({(r.get("date") or "")[:10] for r in runs} - {""})
    data = data_sources(runs)
    fig.text(0.75, 0.005, "effective GB/s: the CSR byte model's bytes (DESIGN.md §10) / median time of the timed runs,\n"
             "so a format that moves fewer bytes (HDIA) can pass the copy line; a format that refused the\n"
             f"matrix says skipped. Data (jobs/results/): {', '.join(data)}",
             ha="center", va="bottom", fontsize=7.5, color="#555555")
    fig.suptitle(f"distspmv --format all on one {', '.join(devices)}, {args.precision} precision, "
                 f"rev {', '.join(revs)}{' (' + ', '.join(dates) + ')' if dates else ''}", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    save(fig, args.output, args.svg)


# ---------------------------------------------------------------- setup

PHASES = [  # (key, label, colour)
    ("read_wait", "read: waiting for the reader", "#9ecae1"),
    ("upload", "read: copying to the GPU", "#4292c6"),
    ("split", "read: splitting", "#08519c"),
    ("read_rest", "read: the rest", "#deebf7"),
    ("read", "read (and split where on the GPU)", "#3182bd"),
    ("partition", "partition", "#ff7f0e"),
    ("redistribute", "redistribute", "#d62728"),
    ("build", "build the format", "#2ca02c"),
    ("other", "slowest rank's total beyond rank 0's phases", "#bdbdbd"),
    ("total", "setup (one figure, no phases)", "#7f7f7f"),
]


def setup_phases(r):
    """(phases in seconds, the total) of one run, or None when its JSON has no setup figures."""
    s = r.get("setup_seconds")
    if isinstance(s, (int, float)):  # `distspmv solve` writes one number
        return {"total": float(s)}, float(s)
    if not isinstance(s, dict):
        return None
    out = {k: float(s.get(k) or 0) for k in ("read", "partition", "redistribute", "build")}
    parts = {k: float(s.get(k) or 0) for k in ("read_wait", "upload", "split")}
    if sum(parts.values()) > 0:  # newer JSON: the read's split, drawn in place of the read
        rest = out.pop("read") - sum(parts.values())
        out = {**parts, **({"read_rest": rest} if rest > 1e-3 else {}), **out}
    total = float(s.get("total_max_over_ranks") or sum(out.values()))
    if total > sum(out.values()) * 1.01:  # the phases are rank 0's; the slowest rank took longer
        out["other"] = total - sum(out.values())
    return out, total


def gib(v):
    return v.get("max") if isinstance(v, dict) else v


def cmd_setup(args, records):
    runs = []
    for r in records:
        ph = setup_phases(r)
        if ph is None:
            if r.get("apply_median_us") is not None:
                warn(f"{r.path}:{r.name}: no setup_seconds (JSON older than the setup timings); left out")
            continue
        runs.append((r, ph))
    if not runs:
        sys.exit("plots.py setup: no JSON with setup_seconds in the input")
    runs.sort(key=lambda rp: (rp[0].get("matrix", "nnz") or 0, rp[0].name))
    plt = pyplot()
    import matplotlib.patches as mpatches

    fig, (ax, mem) = plt.subplots(1, 2, figsize=(13.5, 5.6), gridspec_kw={"width_ratios": [1.35, 1]})
    labels = []
    for r, _ in runs:
        src = r.get("matrix", "source") or r.name
        name = short_source(src) + (" (HDF5)" if src.endswith((".h5", ".hdf5")) else "")
        fmts = sorted(set(r.get("format_per_rank") or []))
        nnz = r.get("matrix", "nnz")
        labels.append(f"{name}\n{', '.join(fmts) or '?'}, {r.get('ranks') or '?'} rank"
                      f"{'' if r.get('ranks') == 1 else 's'}"
                      + (f"\n{human(nnz)} nonzeros" if nnz else "") + f"\nrev {r.revision}")
    used, segments = [], []
    top = 0.0
    for x, (r, (ph, total)) in enumerate(runs):
        bottom = 0.0
        for key, _, colour in PHASES:
            if ph.get(key, 0) > 0:
                ax.bar(x, ph[key], bottom=bottom, width=0.6, color=colour, edgecolor="white", linewidth=0.5)
                segments.append((x, bottom, ph[key], key))
                bottom += ph[key]
                if key not in used:
                    used.append(key)
        nnz = r.get("matrix", "nnz")
        rate = r.get("setup_nnz_per_second") or (nnz / total if nnz and total else None)
        host = gib(r.get("host_peak_gib"))
        per_nnz = r.get("host_peak_bytes_per_nnz")
        if per_nnz is None and host is not None and nnz:
            per_nnz = host * 2 ** 30 / (nnz / (r.get("ranks") or 1))
        note = [f"{total:.2f} s"]
        if rate:
            note.append(f"{human(rate)} nonzeros/s")
        if host is not None:
            note.append(f"host peak {host:.2f} GiB" + (f"\n= {per_nnz:.1f} B per nonzero" if per_nnz else ""))
        ax.annotate("\n".join(note), (x, bottom), xytext=(0, 4), textcoords="offset points", ha="center",
                    va="bottom", fontsize=8)
        top = max(top, bottom)
    legend_rows = len(used) if len(used) <= 3 else math.ceil(len(used) / 2)
    ytop = top * (1.3 + 0.08 * legend_rows)
    ax.set_ylim(0, ytop)
    for x, y0, v, key in segments:  # each phase's seconds where its segment is tall enough to hold them
        if v > ytop * 0.035:
            light = key in ("read_wait", "read_rest", "other")
            ax.text(x, y0 + v / 2, f"{v:.2f} s", ha="center", va="center", fontsize=7.5,
                    color="black" if light else "white")
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel("setup time, s (slowest rank)")
    ax.set_title("setup time by phase")
    ax.legend(handles=[mpatches.Patch(color=c, label=l) for k, l, c in PHASES if k in used][::-1],
              loc="upper left", frameon=False, ncol=1 if len(used) <= 3 else 2)

    # memory: host peak RSS, GPU setup peak and held, against the GPU's size
    series = [("host_peak_gib", "host peak RSS at the end of setup", "#8c564b"),
              ("gpu_setup_peak_gib", "GPU peak during setup", "#ff7f0e"),
              ("gpu_held_gib", "GPU memory held after setup", "#1f77b4")]
    width = 0.8 / len(series)
    have = False
    for i, (key, label, colour) in enumerate(series):
        xs, vs = [], []
        for x, (r, _) in enumerate(runs):
            v = gib(r.get(key))
            if v is not None:
                xs.append(x + (i - (len(series) - 1) / 2) * width)
                vs.append(v)
        if vs:
            have = True
            bars = mem.bar(xs, vs, width=width * 0.95, color=colour, label=label)
            mem.bar_label(bars, labels=[f"{v:.1f}" for v in vs], fontsize=7, padding=2)
    totals = sorted({r.get("gpu_total_gib") for r, _ in runs if r.get("gpu_total_gib")})
    for t in totals:
        mem.axhline(t, color="#d62728", ls="--", lw=1.2)
        mem.text(len(runs) - 0.55, t * 1.01, f"GPU memory {t:.1f} GiB", ha="right", va="bottom", fontsize=7,
                 color="#d62728")
    if not have:
        mem.text(0.5, 0.5, "no memory figures in this JSON", transform=mem.transAxes, ha="center")
    mem.set_xticks(range(len(runs)))
    mem.set_xlim(-0.5, len(runs) - 0.5)
    mem.set_xticklabels([l.split("\n")[0] for l in labels], fontsize=8)
    mem.grid(axis="x", visible=False)
    mem.set_ylabel("GiB (max over ranks)")
    mem.set_title("memory")
    ymax = max([t for t in totals] + [gib(r.get(k)) or 0 for r, _ in runs for k, _, _ in series])
    mem.set_ylim(0, ymax * 1.4)
    mem.legend(loc="upper left", frameon=False)

    devices = known(r.device for r, _ in runs)
    data = data_sources(r for r, _ in runs)
    fig.suptitle(f"distspmv setup on {', '.join(devices)}, {', '.join(known(r.get('precision') or '?' for r, _ in runs))} "
                 f"precision, rev {', '.join(known(r.revision for r, _ in runs))}", fontsize=11)
    split = any(k in ph for _, (ph, _) in runs for k in ("read_wait", "upload", "split"))
    fig.text(0.5, 0.005, f"data (jobs/results/): {', '.join(data)}" +
             ("" if split else "; these JSON predate the read's split into waiting for the reader, "
              "copying to the GPU and splitting"), ha="center", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.025, 1, 0.96))
    save(fig, args.output, args.svg)


# ---------------------------------------------------------------- command line

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2] if __doc__.count("\n\n") >= 2 else None)
    sub = p.add_subparsers(dest="command", required=True)
    for name, help_ in [("scaling", "weak-scaling efficiency and strong-scaling speedup against GPUs"),
                        ("bandwidth", "effective GB/s of every format per matrix (--format all)"),
                        ("setup", "setup phases as stacked bars, with rates and memory")]:
        s = sub.add_parser(name, help=help_, description=help_)
        s.add_argument("inputs", nargs="*", metavar="INPUT",
                       help="JSON files, .tgz archives or folders (default: " + ", ".join(DEFAULTS[name]) + ")")
        s.add_argument("-o", "--output", default=str(REPO / "jobs" / "plots" / f"{name}.png"),
                       help="the image to write, .png or .svg (default: jobs/plots/%s.png of the repository)" % name)
        s.add_argument("--svg", action="store_true", help="also write an SVG beside the PNG")
        if name == "bandwidth":
            s.add_argument("--precision", choices=["double", "float"], default="double")
    args = p.parse_args(argv)
    default = not args.inputs
    records = read_inputs(args.inputs or DEFAULTS[args.command], default)
    {"scaling": cmd_scaling, "bandwidth": cmd_bandwidth, "setup": cmd_setup}[args.command](args, records)


if __name__ == "__main__":
    main()
