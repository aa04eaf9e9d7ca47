#!/usr/bin/env python3
"""The apply model of `distspmv model` (issue 39) against measured runs, and the machine description.

    python3 jobs/model_check.py derive [-o FILE.json] [--fit-ranks 1,2] [INPUT ...]
    python3 jobs/model_check.py check  [--machine FILE.json] [-o DIR] [--cli BUILD/apps/distspmv] [INPUT ...]
    python3 jobs/model_check.py panel  [--set current] [INPUT ...]   (panel's floor, rate and line rate)
    python3 jobs/model_check.py order  [--format csr] [INPUT ...]   (a class's order_gather_gbps)
    python3 jobs/model_check.py class  [--format ellr] [INPUT ...]   (a one-GPU class's floor and rate)

The model (apps/model/machine.cpp computes the same): for one rank, B = nnz * 12 + rows * 24 bytes
(CSR-equivalent) and G = 64 * x_lines (x_lines: the distinct 64-byte lines of x that each 32
consecutive rows of the local block read, summed; `distspmv model --per-rank` gives it),
    S     = (rows * row_ns + max_row * max_row_ns)[format] / 1000 + B / rate[format] + G / gather
    1 GPU: floor[format] + S
    P GPUs: local = F + S; X = the exchange (latency, per neighbour, bytes / bandwidth);
            apply = max(local + (1 - overlap) X, F + X + S * halo_nnz / nnz)
    (the halo block's product, halo_nnz of the rank's nonzeros in ghost columns, follows the exchange).
    Where the GPU's halo trial times panel on the halo block (the figures' "halo_trial"), that block
    is predicted on its own, H = halo_nnz * 12 / rate + 64 * its x_lines / gather (the class's own
    gather rate, else the machine's; panel: 128 * its panel_lines / line instead) in the pick's class
    and in panel's, the faster by the trial's margin kept: S = S(local block) + H, and H replaces
    S * halo_nnz / nnz. Panels: 128 * panel_lines / line in place of G (panel_lines: the distinct
    128-byte lines of x each panel reads), floor, rate and line rate fitted alone (`panel` below;
    check 14, 2026-12-03).

panel   fits panel's floor, rate and line rate on one GPU alone to the inputs' one-rank panel
        products: the order trial's "ORDER panel T us" (none, rcm, degree) where it timed panel, else the
        apply (panel_points, fit_panel), each matrix also left out.
order   fits a class's order_gather_gbps (check 9, 2026-12-02): where the order's trial times the
        selector's pick alone in each order (small irregular blocks: CSR), the model predicts rcm
        and degree order as the read order plus 64 * (ORDER_x_lines - x_lines) at that rate, kept
        by the trial's margin; the rate by least squares through the origin on the one-rank trials'
        own timings, the order minus none (order_points, fit_order_gather; rcm's points since
        2026-12-03), each matrix also left out.
class   fits one GPU class's floor and rate (--format; check 10 for sell-w, 2026-12-02; check 16 for
        ellr and csr, 2026-12-03): t = floor + B / rate + the class's row terms and x's gathers, held
        as the description has them, least squares on the relative error over the one-rank applies
        in that class (class_points: one point per matrix, the median of its applies, in the order
        they ran), each matrix also left out. sell-w is priced by its own bytes, B = the selector's
        bytes of the block (format_bytes_per_nonzero's sell_windows x nnz) + x's staged windows
        ("sell_w" of the figures), and no gathers; its rate is format_bytes_gbps.
derive  fits the machine description to the runs (distspmv's --json reports, one file per run): per
        format floor, row_ns and rate, the gather rate, the floor F of an apply on several ranks,
        each transport's latency, per-neighbour cost, bandwidth and overlap, by coordinate descent
        on the summed squared relative error of the apply over all runs (--fit-ranks: only the runs
        of those rank counts, for an out-of-sample check of the others). The network across hosts
        is not measured here: its figures are the assumption NETWORK below, written into the file.
check   predicts every run from its own per-rank figures (rows, nonzeros, ghosts, sends,
        neighbours, format, transport: the report's; x_lines: FEATURES) and writes DIR/table.md (the
        error per run, and per rank count whether it was in the description's fit; also printed) and
        DIR/model_check.json.
FEATURES (jobs/machines/features.json) holds `distspmv model --per-rank`'s figures of every run's
matrix, partition and rank count. With --cli, the runs up to --max-nnz are recomputed and compared
with the report (rows, nonzeros, ghosts, sends, neighbours must be equal: the "halo = model"
column) and with the file (--update-features writes them there); without, the file is read as is.

INPUT: report JSON files, .tgz of them, or folders (their *.json and *.tgz, recursively). Without
INPUTs: RUNS below. Runs without --check, with other precision than double, or with `--format all`
are left out; --include-unchecked keeps the runs without --check (named "RUN (no --check)" in the
table), the others stay out. --set current: the runs at the current revision's apply path (CURRENT).
Generator seeds: the report's own where it records one (recorded_seed(): matrix.seed, written since
2026-12-02), else the --seed of the run's line in an ab_gpu.sh case list (cases*.txt beside runs.tgz)
or log, else SEEDS by run name, else 1; files take none. Pure Python 3 (no NumPy), so that the GPU
machine's job can run it.
"""
import argparse
import json
import math
import pathlib
import re
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
# `--set current`: the committed runs at the current revision's apply path (issue 39's first
# acceptance bullet; checks 7 and 8), each input with the runs kept (a regular expression on the
# run's name, FOLDER/RUN) and why.
VALIDATE, SPLIT = "jobs/results/2026-11-28_h200x2_validate", "jobs/results/2026-12-01_h200_panel_split"
DISPATCH = "jobs/results/2026-12-03_h200_panel_dispatch"
LINES = "jobs/results/2026-12-03_h200_csr_blocks_panel_lines"
ELLR_CALLS, TURNS = "jobs/results/2026-12-03_h200_deferred_ellr", "jobs/results/2026-12-03_h200_gpu_turns"
CURRENT = [
    # 4x H200 at 3198db6 and ce71610 (check 7's 22): the apply path since then changed only where a
    # panel block has a row longer than a panel (6d8dc67) and on one rank's trial of 4-16 M nonzeros
    # (b50a933); their *_old twins (9ca33b6) predate the halo trial and the halo rows' order.
    # (Slashdot at 4 ranks left with check 16: its CSR blocks now run the 512-thread kernel.)
    (f"{VALIDATE}/run5_x4_3198db6/runs.tgz", r"^(?!.*_old)(?!.*/slashdot_g4)"),
    (f"{VALIDATE}/run6_x4_ce71610/runs.tgz", r"^(?!.*_old)"),
    (f"{VALIDATE}/run6_x4_ce71610/runs2.tgz", r"^(?!.*_old)"),
    # One H200, ab_gpu.sh (seeds from cases*.txt). Run 1: only rmat2216 has a per-rank report (the
    # others are `--format panel,cusparse` benchmarks); both sides, 6d8dc67 and 4a7a1a1, take
    # today's path on it (65 M nonzeros: outside b50a933's 4-16 M; no row longer than its panels).
    (f"{SPLIT}/run1/runs.tgz", r"/rmat2216_(new|old)$"),
    # Run 2: b50a933 (today's path; later code changes: a0c8238's refusal only); its old side,
    # 6d8dc67, times only cuSPARSE in the one-rank trial below 16 M, which the model no longer
    # follows: only logn2m_old (24.4 M, panel by the rule alike).
    (f"{SPLIT}/run2/runs.tgz", r"(_new|/logn2m_old)$"),
    # Run 6: fb83ad5, the bench set (no old side); since check 16 without the blocks whose kernels
    # changed since (ELLR, adaptive CSR, sell-w: c38b4e0, 316a7c7 and the 512-thread CSR).
    (f"{SPLIT}/run6/runs.tgz", r"/(?!(cage11|lognbench|slashdot|uk2007)_new$)\w+_new$"),
    # One H200 at 10f6f9d (the panels' dispatch; since then, comments only): call 2's new side on
    # one rank (rmat2216_2r's two ranks shared the GPU), call 3 the bench set. The runs above stay:
    # their panels (degree order, lognormal) are still dispatched in panel order; only rcm's go
    # largest first now.
    (f"{DISPATCH}/call2/runs.tgz", r"/(?!rmat2216_2r)[^/]*_new$"),
    (f"{DISPATCH}/call3/runs.tgz", r"/(?!(cage11|lognbench|slashdot|uk2007)_new$)\w+_new$"),
    # One H200 at 5cfda3f with experimental CSR variants beside (cf5a9a7; the defaults' path is
    # 5cfda3f's): panel on lognormal blocks of 1-6 M rows, bands 20 k to all rows, forced (`--format
    # panel --order none`); its Slashdot and uk-2007 (CSR) left with check 16.
    (f"{LINES}/call1/runs.tgz", r"/lp\w+_new$"),
    # Check 16: one H200 at c38b4e0 (ELLR's first trip, sell-w's deferred list, CSR's block offsets):
    # call 2's bench set and its new-kernel CSR runs, call 4's bench set, call 6's sell-w (cur) and
    # call 1's deferred list (D, the same sell-w); at 4a4bb0b (316a7c7's ELLR threads per row):
    # seven small lognormal blocks with the defaults.
    (f"{ELLR_CALLS}/call2/runs.tgz", r"/(bench_\w+|\w+_new_\d)$"),
    (f"{ELLR_CALLS}/call4/runs.tgz", r"/bench_\w+$"),
    (f"{ELLR_CALLS}/call6/runs.tgz", r"/\w+_cur(_\d)?$"),
    (f"{ELLR_CALLS}/call1/runs.tgz", r"/\w+_D(_\d)?$"),
    (f"{TURNS}/call6/runs.tgz", r"/l\w+_auto_new$"),
]
# Generator seeds of jobs/dist_gpu.sh's runs (the reports do not record them), by run name prefix.
SEEDS = {"table_rmat": 11, "table_lognormal": 9, "rules_gen_rmat": 5, "rules_gen_lognormal": 3, "rmat_g": 11,
         "lognormal_g": 9, "rmat228_g": 5, "rmat2124_g": 3,  # (the last two: the halo_order jobs' call.sh)
         "rmat2216_g": 11}  # (2026-11-28_h200x2_validate's call.sh: rmat2216_g*, rmat228_g*, lognormal_g*)
# (poisson3d and stencil generators and files take no seed: their runs (poisson32_, p200_, p252_, p32_,
# slashdot_, a file's name) keep the default 1, as their features' keys have it.)
FEATURES = REPO / "jobs/machines/features.json"
MATRICES = REPO.parent / "shared/matrices"  # the real matrices beside the checkout
# Across hosts: assumed, not measured (InfiniBand NDR, one 200 Gb/s port per GPU, NCCL over it).
NETWORK = {"latency_us": 3.0, "per_neighbour_us": 1.0, "bandwidth_gbps": 25.0, "overlap": 0.5,
           "note": "assumed, not measured: InfiniBand NDR, one 200 Gb/s (25 GB/s) port per GPU, 3 us for the first "
                   "message, 1 us for each further neighbour, half the exchange hidden by the local SpMV (the "
                   "measured one-host transports: 0.7-1.0; NCCL's is not determined by the runs)"}


def case_list(folder):
    """jobs/ab_gpu.sh's case lists in `folder` (cases*.txt, "NAME RANKS ARGS...", '#' comments):
    NAME -> ARGS (a list of words); {} where there is none."""
    cases = {}
    for f in sorted(folder.glob("cases*.txt")):
        for line in f.read_text().splitlines():
            words = line.split("#", 1)[0].split()
            if len(words) >= 3:
                cases[words[0]] = words[2:]
    return cases


def case_args(stem, cases, log):
    """The command-line words of the run `stem` of an ab_gpu.sh folder: its case's ARGS (the run is
    NAME_new or NAME_old, a digit after it with REPEAT), else its log's "command:" line (ab_gpu.sh
    writes one since 2026-12-02); None where neither says."""
    name = re.sub(r"_(new|old)\d*$", "", stem)
    if name != stem and name in cases:
        return cases[name]
    for line in (log or "").splitlines()[:5]:
        if line.startswith("command:"):
            return line.split()[1:]
    return None


def tag_of(f):
    """A run's folder name in the tables: the folder of runs.tgz (or of runs/*.json), prefixed with
    its parent's (without the date) where it is a bare runN (ab_gpu.sh's layout: RESULTS/runN/)."""
    folder = f.parent if f.suffix == ".tgz" else f.parent.parent
    tag = folder.name
    if f.suffix == ".tgz" and f.stem != "runs" and not f.stem.endswith("_runs"):
        # runN_logs.tgz beside others in one folder: the folder (without its date) and N
        return f"{folder.name.split('_', 1)[-1]}_{f.stem.removesuffix('_logs')}"
    if re.fullmatch(r"run\d+", tag):
        tag = f"{folder.parent.name.split('_', 1)[-1]}_{tag}"
    return tag


def load(inputs, unchecked=False):
    """(name, report) of every report JSON in the inputs; `unchecked`: with the runs without --check
    (named "RUN (no --check)"). A run of an ab_gpu.sh folder (a cases*.txt beside it) gets its case's
    command-line words as "case_args" (recorded_seed reads --seed there where the report has none)."""
    out = []
    for item in inputs:
        p = pathlib.Path(item)
        if not p.is_absolute():
            p = REPO / p
        files = sorted(p.rglob("*")) if p.is_dir() else [p]
        for f in files:
            tag = tag_of(f)
            folder = f.parent if f.suffix == ".tgz" else f.parent.parent
            cases = case_list(folder)
            if f.suffix == ".json":
                j = json.loads(f.read_text())
                log = f.with_suffix(".log")
                args = case_args(f.stem, cases, log.read_text(errors="replace") if log.exists() else None)
                out.append((f"{tag}/{f.stem}", {**j, "case_args": args} if args is not None else j))
            elif f.name.endswith((".tgz", ".tar.gz")):
                with tarfile.open(f) as t:
                    members = {m.name: m for m in t.getmembers()}
                    for name in sorted(members):
                        if not name.endswith(".json"):
                            continue
                        j = json.load(t.extractfile(members[name]))
                        log = members.get(name[:-5] + ".log")
                        text = t.extractfile(log).read().decode(errors="replace") if log else None
                        args = case_args(pathlib.Path(name).stem, cases, text)
                        if args is not None:
                            j["case_args"] = args
                        out.append((f"{tag}/{pathlib.Path(name).stem}", j))
    keep = []
    for name, j in out:
        if "per_rank" not in j or j.get("precision") != "double":
            continue
        if j.get("max_rel_error") is None:
            if not unchecked:  # (`--format all` reports have no per_rank: out above either way)
                continue
            name += " (no --check)"
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


PANEL_LINE_BYTES = 128.0  # the unit of panel_lines (model.hpp's panel_line_doubles doubles)


def bytes_of(r):
    return r["nnz"] * 12.0 + r["rows"] * 24.0


def spmv_us(m, r, cls, own_halo=False):
    """The local SpMV of one rank without its floor (machine.cpp's predict); own_halo: without the
    halo block's nonzeros (predicted on their own, halo_us)."""
    c = m["spmv"][cls]
    # a class priced by its own bytes (sell-w: the selector's bytes of the block and x's staged
    # windows, the halo block's nonzeros as CSR's; no x_lines term), where the figures are there
    own_bytes = c.get("format_bytes_gbps", 0.0) > 0 and r.get("sell_w", {}).get("bytes", 0) > 0
    if own_bytes:
        b = r["sell_w"]["bytes"] + r["sell_w"]["window_bytes"] + (0.0 if own_halo else 12.0 * r.get("halo_nnz", 0))
    else:
        b = bytes_of(r) - (r.get("halo_nnz", 0) * 12.0 if own_halo else 0.0)
    t = (r["rows"] * c.get("row_ns", 0.0) + r.get("max_row", 0) * c.get("max_row_ns", 0.0)) / 1e3 + b / (
        (c["format_bytes_gbps"] if own_bytes else c["rate_gbps"]) * 1e3)
    gather = c.get("gather_gbps") or m.get("gather_gbps")
    if c.get("line_gbps"):  # panels: the distinct 128-byte lines of x each panel reads
        t += PANEL_LINE_BYTES * r.get("panel_lines", 0) / (c["line_gbps"] * 1e3)
    elif gather and not own_bytes:
        t += 64.0 * r.get("x_lines", 0) / (gather * 1e3)
    return t


def halo_us(m, r, cls):
    """The halo block's product on its own in class `cls`: halo_nnz * 12 bytes at its rate and
    64 * its x_lines at the class's own gather rate or else the machine's, for panels 128 * its
    panel_lines at the line rate instead (machine.cpp's predict)."""
    c = m["spmv"][cls]
    t = r.get("halo_nnz", 0) * 12.0 / (c["rate_gbps"] * 1e3)
    gather = c.get("gather_gbps") or m.get("gather_gbps")
    if c.get("line_gbps"):  # panels: the ghost lines each of the halo block's panels reads
        t += PANEL_LINE_BYTES * r["halo_trial"].get("panel_lines", 0) / (c["line_gbps"] * 1e3)
    elif gather:
        t += 64.0 * r["halo_trial"]["x_lines"] / (gather * 1e3)
    return t


def predict(m, r, ranks, cls, transport=None, gpus_per_host=8, halo_cls=None, order_us=0.0):
    """apps/model/machine.cpp's predict() for one rank's figures: (local, exchange, apply) in µs.
    `transport`: on one host (None: the description's single_host or on_host by ranks). `halo_cls`:
    the halo block on its own in that class (None: its share halo_nnz / nnz of the rank's SpMV).
    `order_us`: added to the local block's SpMV (an order's change of gathers, predict_rank)."""
    own = ranks > 1 and halo_cls is not None
    compute = spmv_us(m, r, cls, own) + order_us
    h = halo_us(m, r, halo_cls) if own else None
    if own:
        compute += h
    if ranks == 1:
        t = m["spmv"][cls]["floor_us"] + compute
        return t, 0.0, t
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
    # The halo block's product waits for the exchange: its share of the SpMV (halo_nnz / nnz) follows it.
    after = h if own else compute * r.get("halo_nnz", 0) / r["nnz"] if r["nnz"] else 0.0
    return local, ex, max(local + (1 - overlap) * ex, m["multi_rank_floor_us"] + ex + after)


ORDER_MARGIN = 0.02  # dist/matrix_order.cpp's order_trial_margin (model.hpp's)


def requested_order(j):
    """'auto' where the program's rule and trial chose the run's order (order_reason 'auto: ...'), else
    the order the run was given ('requested'; runs before the default order: none)."""
    return "auto" if j.get("order_reason", "requested").startswith("auto") else j.get("order", "none")


def order_figures(r, order):
    """A rank's figures in the trial's `order` (rcm, degree): its x_lines and panel_lines there."""
    t = r["trial"]
    return {**r, "x_lines": t[f"{order}_x_lines"], "panel_lines": t[f"{order}_panel_lines"]}


def degree_figures(r):
    return order_figures(r, "degree")


TRIAL_ORDERS = ("rcm", "degree")  # the trial's orders after the read order, in its sequence


def predict_rank(m, r, ranks, transport, order, follow_pick=True):
    """apps/model/machine.cpp's predict_rank(): (apply µs, order, format) of one rank, the none
    candidate in the report's format (the selector's pick) where the trial figures list none.
    `follow_pick`: where the model's figures say the selector picks sell-w for the block (its
    "sell_w" figures, `distspmv model --per-rank`) and the description has that class, the block is
    sell-w; where the report says sell-w and the figures do not, the model's class for it is
    "general" (what `distspmv model` predicts there)."""
    if follow_pick and "sell-w" in m["spmv"]:
        picked = "sell-w" if "sell_w" in r else r["format"] if r["format"] != "sell-w" else "general"
        if picked != r["format"]:
            return predict_rank(m, {**r, "format": picked}, ranks, transport, order, False)

    def cls(f):
        return f if f in m["spmv"] else r["format"] if r["format"] in m["spmv"] else "general"

    def one(fig, o, f, order_us=0.0):
        if ranks > 1 and "halo_trial" in r and "panel" in m["spmv"]:
            # the halo block's trial: its pick and panel each on its own, panel kept by the margin
            pick = cls(r["halo_trial"]["pick"])
            h = pick if halo_us(m, r, "panel") >= halo_us(m, r, pick) * (1 - ORDER_MARGIN) else "panel"
            return predict(m, fig, ranks, cls(f), transport, halo_cls=h, order_us=order_us)[2], o, f
        return predict(m, fig, ranks, cls(f), transport, order_us=order_us)[2], o, f
    if order in TRIAL_ORDERS:
        return one(order_figures(r, order), order, r["format"])
    if order != "auto" or "trial" not in r:
        return one(r, "none", r["format"])
    t = r["trial"]
    best = min(one(r, "none", f) for f in (t["none_formats"] or [r["format"]]))
    g = m["spmv"][cls(r["format"])].get("order_gather_gbps", 0.0)

    def need():  # a candidate beats the best so far, by the margin while that is the read order's
        return 1 - ORDER_MARGIN if best[1] == "none" else 1.0
    for o in (o for o in TRIAL_ORDERS if f"{o}_x_lines" in t):  # (features before rcm's: degree only)
        formats = t[f"{o}_formats"]
        if "panel" in formats:
            d = one(order_figures(r, o), o, "panel")
            # kept with panel only where its panels also read fewer lines than the read order's by the margin
            fewer_lines = t[f"{o}_panel_lines"] < r.get("panel_lines", 0) * (1 - ORDER_MARGIN)
            if d[0] < best[0] * need() and fewer_lines:
                best = d
        # the pick alone in each order: the order's change of x_lines at the class's order_gather_gbps
        if not formats and g > 0:
            d = one(r, o, r["format"], 64.0 * (t[f"{o}_x_lines"] - r["x_lines"]) / (g * 1e3))
            if d[0] < best[0] * need():
                best = d
    return best


def predict_run_detail(m, j):
    """(apply µs: the slowest rank's, [(order, format) per rank]); None where the model cannot say
    (an order requested whose figures the ranks lack)."""
    order = requested_order(j)
    if order not in ("auto", "none") + TRIAL_ORDERS or (
            order in TRIAL_ORDERS and any(f"{order}_x_lines" not in r.get("trial", {}) for r in j["per_rank"])):
        return None
    if any(r["format"] not in m["spmv"] for r in j["per_rank"]):
        return None
    out = [predict_rank(m, r, j["ranks"], j["transport"], order) for r in j["per_rank"]]
    return max(o[0] for o in out), [(o[1], o[2]) for o in out]


def predict_run(m, j):
    d = predict_run_detail(m, j)
    return d[0] if d else float("nan")


def errors(m, runs):
    return [(predict_run(m, j) - j["apply_median_us"]) / j["apply_median_us"] for _, j in runs
            if predict_run_detail(m, j)]


# ---- fitting ---------------------------------------------------------------------------------------

# Each parameter: where it sits in the description, its bounds, and whether it is searched on a log scale.
BOUNDS = {"floor_us": (0.0, 40.0, False), "row_ns": (0.0, 0.5, False), "rate_gbps": (100.0, 20000.0, True),
          "gather_gbps": (100.0, 100000.0, True), "multi_rank_floor_us": (0.0, 40.0, False),
          "latency_us": (0.0, 80.0, False), "per_neighbour_us": (0.0, 30.0, False),
          "bandwidth_gbps": (10.0, 1000.0, True), "overlap": (0.0, 1.0, False)}


def _get(m, path):
    for k in path[:-1]:
        m = m[k]
    return m[path[-1]]


def _set(m, path, v):
    for k in path[:-1]:
        m = m[k]
    m[path[-1]] = v


def _search(cost, lo, hi, log, current):
    """The best value of a one-parameter cost: a grid of 41 over [lo, hi], then two finer grids."""
    def grid(a, b, n):
        if log:
            a, b = math.log(max(a, 1e-9)), math.log(b)
            return [math.exp(a + (b - a) * k / (n - 1)) for k in range(n)]
        return [a + (b - a) * k / (n - 1) for k in range(n)]
    best, best_cost = current, cost(current)
    a, b = lo, hi
    for _ in range(3):
        pts = grid(a, b, 41 if a == lo and b == hi else 21)
        for v in pts:
            c = cost(v)
            if c < best_cost:
                best, best_cost = v, c
        step = (pts[1] - pts[0]) if not log else None
        if log:
            ratio = pts[1] / pts[0]
            a, b = max(lo, best / ratio), min(hi, best * ratio)
        else:
            a, b = max(lo, best - step), min(hi, best + step)
    return best


def nnls(rows, target, sweeps=3000):
    """min sum_i (rows[i] . x - target[i])^2 over x >= 0: cyclic coordinate descent (the problem is
    convex, so it converges to the optimum), columns scaled to unit norm first."""
    n = len(rows[0])
    scale = [math.sqrt(sum(r[k] ** 2 for r in rows)) or 1.0 for k in range(n)]
    a = [[r[k] / scale[k] for k in range(n)] for r in rows]
    x = [0.0] * n
    res = [-t for t in target]  # a . x - target
    for _ in range(sweeps):
        moved = 0.0
        for k in range(n):
            g = sum(a[i][k] * res[i] for i in range(len(a)))
            new = max(0.0, x[k] - g)  # unit-norm column: the exact minimiser along k
            if new != x[k]:
                d = new - x[k]
                for i in range(len(a)):
                    res[i] += a[i][k] * d
                moved = max(moved, abs(d))
                x[k] = new
        if moved < 1e-12:
            break
    return [x[k] / scale[k] for k in range(n)]


ROW_FORMATS = ("csr", "ellr")
# Panels gather x in column order within each panel: the distinct 128-byte lines each panel reads
# (panel_lines) in place of x_lines, at their own line rate.
LINE_FORMATS = ("panel",)


def applied_figures(j, r):
    """A rank's figures in the order the run applied (rcm, degree: the trial's figures there)."""
    o = j.get("order")
    return order_figures(r, o) if o in TRIAL_ORDERS and f"{o}_x_lines" in r.get("trial", {}) else r


def fit_one_gpu(runs, formats):
    """Each format's floor, row_ns and rate and the shared gather rate from the one-GPU applies:
    linear in (floor, row_ns, 1 / rate, 1 / gather), fitted on the relative error (nnls); panels:
    1 / rate and 1 / line rate (their floor: `panel`)."""
    one = [j for _, j in runs if j["ranks"] == 1 and (j.get("order", "none") == "none" or
                                                      applied_figures(j, j["per_rank"][0]) is not j["per_rank"][0])]
    cols = []
    for f in formats:
        # (no floor: the panel applies here are hundreds of µs; `panel` fits it alone on the one-rank
        # panel products, blocks of 4-16 M nonzeros included since b50a933)
        cols += [(f, k) for k in (("byte", "line") if f in LINE_FORMATS
                                  else ("floor", "row", "byte", "max_row"))]
    cols.append(("*", "gather"))
    rows, target = [], []
    for j in one:
        r, t = applied_figures(j, j["per_rank"][0]), j["apply_median_us"]
        x = [0.0] * len(cols)
        f = r["format"]
        if (f, "floor") in cols:
            x[cols.index((f, "floor"))] = 1.0
        x[cols.index((f, "byte"))] = bytes_of(r) / 1e3
        if f in LINE_FORMATS:
            x[cols.index((f, "line"))] = PANEL_LINE_BYTES * r.get("panel_lines", 0) / 1e3
        else:
            x[cols.index((f, "row"))] = r["rows"] / 1e3
            # The longest row costs only where a row is one thread group's work (CSR, ELLPACK-R): panel
            # splits long rows, HDIA has none; fitted there, it only told the matrices apart.
            x[cols.index((f, "max_row"))] = r.get("max_row", 0) / 1e3 if f in ROW_FORMATS else 0.0
            x[-1] = 64.0 * r.get("x_lines", 0) / 1e3
        rows.append([v / t for v in x])
        target.append(1.0)
    sol = nnls(rows, target)

    def get(f, k):
        return sol[cols.index((f, k))] if (f, k) in cols else 0.0
    spmv = {}
    for f in formats:
        # A rate the runs cannot tell (their times all floor) is capped at 1e5 GB/s.
        spmv[f] = {"floor_us": get(f, "floor"), "row_ns": get(f, "row"), "max_row_ns": get(f, "max_row"),
                   "rate_gbps": min(1e5, 1.0 / max(get(f, "byte"), 1e-12))}
        if f in LINE_FORMATS:
            spmv[f]["line_gbps"] = min(1e6, 1.0 / max(get(f, "line"), 1e-12))
    return spmv, (1.0 / sol[-1] if sol[-1] > 0 else 0.0)


TRIAL = re.compile(r"(none|rcm|degree) (\S+) ([\d.]+) us")


def panel_points(runs):
    """The one-rank panel products of `runs`, one per matrix (source, seed) and order: (label, figures,
    µs) in each order the model knows (none, rcm, degree) that the order's trial timed with panel (its
    order_reason: "none panel 61.2 us, ..."; on one rank the trial times the whole apply), else the
    apply where the run kept panel in such an order; the first run that has it."""
    out, seen = [], set()
    for name, j in runs:
        r = j["per_rank"][0]
        if j["ranks"] != 1 or "x_lines" not in r:
            continue
        timed = {o: float(t) for o, f, t in TRIAL.findall(j.get("order_reason", "")) if f == "panel"}
        if r["format"] == "panel" and j.get("order", "none") in ("none",) + TRIAL_ORDERS:
            timed.setdefault(j.get("order", "none"), j["apply_median_us"])
        for o, t in timed.items():
            key = (j["matrix"]["source"], run_key(name, j)[2], o)
            if key not in seen and (o == "none" or f"{o}_x_lines" in r.get("trial", {})):
                seen.add(key)
                label = f"{key[0].split('/')[-1]} seed {key[1]} {o}"
                out.append((label, r if o == "none" else order_figures(r, o), t))
    return out


def fit_panel(points):
    """Panel's floor, rate and line rate on one GPU from panel_points: t = floor + B / rate + 128 *
    panel_lines / line, least squares on the relative error (nnls). Returns (floor µs, rate GB/s,
    line GB/s, {label: relative error}, {label: error with the products of its matrix left out})."""
    def fit(pts):
        rows = [[1.0 / t, bytes_of(r) / 1e3 / t, PANEL_LINE_BYTES * r.get("panel_lines", 0) / 1e3 / t]
                for _, r, t in pts]
        floor, byte, line = nnls(rows, [1.0] * len(rows))
        return floor, 1.0 / max(byte, 1e-12), 1.0 / max(line, 1e-12)

    def err(f, r, t):
        m = {"spmv": {"panel": {"floor_us": f[0], "rate_gbps": f[1], "line_gbps": f[2]}}}
        return (m["spmv"]["panel"]["floor_us"] + spmv_us(m, r, "panel") - t) / t
    whole = fit(points)
    matrix = lambda label: label.rsplit(" seed ", 1)[0]
    loo = {}
    for label, r, t in points:
        rest = [p for p in points if matrix(p[0]) != matrix(label)]
        loo[label] = err(fit(rest), r, t) if len(rest) >= 3 else float("nan")
    return (round(whole[0], 2), round(whole[1], 1), round(whole[2], 1),
            {label: err(whole, r, t) for label, r, t in points}, loo)


def order_points(runs, fmt="csr"):
    """The one-rank order trials that timed the selector's pick `fmt` alone in the read order and in
    rcm or degree order (order_reason "none csr 10.1 us, rcm csr 9.2 us, degree csr 9.1 us"; the
    trial times the whole product on one rank, in batches): (source, 64 * (ORDER_x_lines - x_lines)
    / 1e3, ORDER µs - none µs) per order and distinct trial (the same matrix, revision and timings
    once)."""
    out, seen = [], set()
    for name, j in runs:
        r = j["per_rank"][0]
        if j["ranks"] != 1 or "trial" not in r or r["trial"]["degree_formats"]:
            continue
        timed = {o: float(t) for o, f, t in TRIAL.findall(j.get("order_reason", "")) if f == fmt}
        for o in TRIAL_ORDERS:
            key = (j["matrix"]["source"], j["git_revision"], o, timed.get("none"), timed.get(o))
            if "none" not in timed or o not in timed or f"{o}_x_lines" not in r["trial"] or key in seen:
                continue
            seen.add(key)
            out.append((j["matrix"]["source"].split("/")[-1],
                        64.0 * (r["trial"][f"{o}_x_lines"] - r["x_lines"]) / 1e3, timed[o] - timed["none"]))
    return out


def fit_order_gather(points):
    """order_gather_gbps: the rate at which degree order's change of x lines changes the trial's time,
    least squares through the origin on order_points (GB/s), and the same with each matrix left out."""
    def rate(pts):
        c = sum(dx * dt for _, dx, dt in pts) / sum(dx * dx for _, dx, dt in pts)
        return round(1.0 / c, 1) if c > 0 else 0.0
    names = sorted({n for n, _, _ in points})
    return rate(points), {n: rate([p for p in points if p[0] != n]) for n in names}


def class_points(runs, fmt):
    """The one-rank applies of class `fmt` in the order they ran (the read order, or the trial's
    figures of the order kept): per matrix (source, seed) its figures (applied_figures) and the
    median of its applies, with the runs' names. sell-w: only runs whose figures carry sell-w's
    bytes ("sell_w": the selector's bytes of the block, x's staged windows) in the read order."""
    by = {}
    for name, j in runs:
        if j["ranks"] != 1 or j["per_rank"][0]["format"] != fmt:
            continue
        r = applied_figures(j, j["per_rank"][0])
        if j.get("order", "none") != "none" and r is j["per_rank"][0]:
            continue  # an order whose figures the features lack
        if fmt == "sell-w" and ("sell_w" not in r or j.get("order", "none") != "none"):
            continue
        key = (j["matrix"]["source"], run_key(name, j)[2])
        by.setdefault(key, (r, [], []))
        by[key][1].append(j["apply_median_us"])
        by[key][2].append(name)
    return [(f"{src.split('/')[-1]}" + (f" --seed {seed}" if seed != 1 else ""), r, statistics.median(t), names)
            for (src, seed), (r, t, names) in sorted(by.items())]


def fit_floor_rate(points, size, rest):
    """A one-GPU class's floor (µs) and rate (GB/s): t = floor + size(r) / rate + rest(r), with
    size(r) bytes and rest(r) µs of the terms held (the class's row and longest-row terms, x's
    gathers), least squares on the relative error (two normal equations); and each matrix left out
    in turn: (floor, rate, {matrix: error}, {matrix: error of the fit without it})."""
    def fit(pts):
        # (t - rest) / t = floor / t + size / (rate t): unknowns floor and 1 / rate
        a = [(1.0 / t, size(r) / 1e3 / t, 1.0 - rest(r) / t) for _, r, t, _ in pts]
        s00, s01, s11 = (sum(x * x for x, _, _ in a), sum(x * y for x, y, _ in a), sum(y * y for _, y, _ in a))
        b0, b1 = sum(x * z for x, _, z in a), sum(y * z for _, y, z in a)
        det = s00 * s11 - s01 * s01
        return (b0 * s11 - b1 * s01) / det, 1.0 / ((s00 * b1 - s01 * b0) / det)

    def err(floor, rate, r, t):
        return (floor + size(r) / (rate * 1e3) + rest(r) - t) / t
    floor, rate = fit(points)
    loo = {}
    for k, (n, r, t, _) in enumerate(points):
        f, g = fit(points[:k] + points[k + 1:])
        loo[n] = err(f, g, r, t)
    return floor, rate, {n: err(floor, rate, r, t) for n, r, t, _ in points}, loo


def fit_class(m, points, fmt):
    """fit_floor_rate for class `fmt` of description `m`: sell-w by its own bytes (format_bytes_gbps),
    the others by the CSR-equivalent bytes with their row terms and the gathers held (spmv_us)."""
    if fmt == "sell-w":
        return fit_floor_rate(points, lambda r: r["sell_w"]["bytes"] + r["sell_w"]["window_bytes"], lambda r: 0.0)
    c = m["spmv"][fmt]
    held = {**m, "spmv": {fmt: {**c, "rate_gbps": float("inf")}}}  # spmv_us without the bytes' term
    return fit_floor_rate(points, bytes_of, lambda r: spmv_us(held, r, fmt))


def derive(runs):
    """The description fitted to `runs` (see the module's doc)."""
    formats = sorted({r["format"] for _, j in runs for r in j["per_rank"]})
    transports = sorted({j["transport"] for _, j in runs if j["ranks"] > 1})
    one = {j["per_rank"][0]["format"] for _, j in runs if j["ranks"] == 1}
    spmv, gather = fit_one_gpu(runs, sorted(one))
    if "panel" in spmv and len(panel_points(runs)) >= 3:  # its class alone, on the one-rank panel products
        floor, rate, line = fit_panel(panel_points(runs))[:3]
        spmv["panel"].update({"floor_us": floor, "rate_gbps": rate, "line_gbps": line})
    for f in formats:
        spmv.setdefault(f, {"floor_us": 8.0, "row_ns": 0.0, "max_row_ns": 0.0, "rate_gbps": 2000.0})
    m = {"multi_rank_floor_us": 17.0, "gather_gbps": gather, "spmv": spmv,
         "exchange": {t: {"latency_us": 5.0, "per_neighbour_us": 1.0, "bandwidth_gbps": 100.0, "overlap": 0.5}
                      for t in transports},
         "single_host": "peer-put", "on_host": "nccl", "across_hosts": "network"}
    m["exchange"]["network"] = dict(NETWORK)
    # The parameters the runs can tell: a format's floor only where it ran on one GPU; a transport's
    # per-neighbour cost only where some rank had several neighbours over it.
    several = {j["transport"] for _, j in runs if j["ranks"] > 1 and max(r["neighbours"] for r in j["per_rank"]) > 1}
    # The one-GPU fit stands (a convex problem, solved); the rest by coordinate descent over all runs:
    # the multi-rank floor, the exchanges, and the formats seen only in rank blocks.
    params = [("multi_rank_floor_us",)]
    for f in formats:
        params += [] if f in one else [("spmv", f, "rate_gbps"), ("spmv", f, "row_ns")]
    for t in transports:
        params += [("exchange", t, k) for k in ("latency_us", "bandwidth_gbps", "overlap")]
        params += [("exchange", t, "per_neighbour_us")] if t in several else []

    def cost(m):
        return sum(e * e for e in errors(m, runs))
    for _ in range(4):
        for path in params:
            lo, hi, log = BOUNDS[path[-1]]

            def at(v, path=path):
                _set(m, path, v)
                return cost(m)
            _set(m, path, _search(at, lo, hi, log, _get(m, path)))
    for f in formats:  # a format seen only in rank blocks: the median floor of those seen alone
        if f not in one:
            m["spmv"][f]["floor_us"] = statistics.median(m["spmv"][g]["floor_us"] for g in one) if one else 8.0
    # The model tool's two classes: diagonal (HDIA) and general (the larger blocks' CSR family).
    spmv = m["spmv"]
    if "hdia" in spmv:
        spmv["diagonal"] = dict(spmv["hdia"])
    big = [spmv[f] for f in ("cusparse",) if f in spmv] or list(spmv.values())
    spmv["general"] = {k: statistics.median(c[k] for c in big) for k in ("floor_us", "row_ns", "max_row_ns", "rate_gbps")}
    for c in spmv.values():
        for k in c:
            c[k] = round(c[k], 4 if k.endswith("_ns") else 2)
    m["multi_rank_floor_us"] = round(m["multi_rank_floor_us"], 2)
    m["gather_gbps"] = round(m["gather_gbps"], 1)  # 0: gathers cost nothing extra
    for t in transports:
        for k, v in m["exchange"][t].items():
            m["exchange"][t][k] = round(v, 3)
    return m


# ---- features (distspmv model --per-rank) ---------------------------------------------------------

def recorded_seed(j):
    """The generator seed the report records (matrix.seed or seed: distspmv writes both since
    2026-12-02, 2eaa6e6's and later reports up to then neither), else --seed in a recorded command
    line ("command", "command_line", "argv", or "case_args": the run's line of an ab_gpu.sh case
    list or log, load()); a case's line without --seed ran with the default, 1. None where nothing
    says."""
    for v in (j.get("matrix", {}).get("seed"), j.get("seed")):
        if isinstance(v, int):
            return v
    for k in ("command", "command_line", "argv", "case_args"):
        v = j.get(k)
        v = " ".join(map(str, v)) if isinstance(v, list) else v
        found = re.search(r"--seed[= ]+(\d+)", v) if isinstance(v, str) else None
        if found:
            return int(found.group(1))
        if k == "case_args" and isinstance(v, str):
            return 1  # (distspmv's default --seed)
    return None


def run_key(name, j):
    """(source, partition, seed) of a run: what `distspmv model` needs to recompute it. The seed: the
    report's (recorded_seed), else SEEDS by the run's name, else 1."""
    stem = name.split("/")[1].split(" ")[0]
    if not j["matrix"]["source"].startswith("gen:"):
        return j["matrix"]["source"], j["partition"], 1  # (a file takes no seed; its features' key has 1)
    seed = recorded_seed(j)
    if seed is None:
        seed = next((v for k, v in SEEDS.items() if stem.startswith(k)), 1)
    return j["matrix"]["source"], j["partition"], seed


def model_source(source):
    """A run's source as this machine reaches it: generators as they are, files in MATRICES."""
    return source if source.startswith("gen:") else str(MATRICES / pathlib.Path(source).name)


def features(runs, cli, max_nnz, path, update, recompute=True):
    """Attaches x_lines from the features file `path` to every run's ranks (where its halo figures are
    the report's). With --cli, first recomputes the runs up to max_nnz nonzeros (and with `update`
    writes them to `path`). Returns name -> True/False (recomputed, equal to the report or not)."""
    store = json.loads(path.read_text()) if path.exists() else {}
    groups = {}
    for name, j in runs:
        source, partition, seed = run_key(name, j)
        if j["matrix"]["nnz"] <= max_nnz and (recompute or str(j["ranks"]) not in store.get(
                f"{source}|{partition}|{seed}", {})):
            groups.setdefault(run_key(name, j), set()).add(j["ranks"])
    computed = set()
    for (source, partition, seed), ranks in sorted(groups.items(), key=lambda kv: str(kv[0])) if cli else []:
        key = f"{source}|{partition}|{seed}"
        cmd = [cli, "model", model_source(source), "--ranks", ",".join(map(str, sorted(ranks))), "--partition",
               partition, "--per-rank", "--json", "/dev/stdout", "--seed", str(seed)]
        print(" ".join(cmd), file=sys.stderr, flush=True)
        res = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        out = json.loads(res[res.index("{\n"):])
        have = store.setdefault(key, {})
        for e in out["per_ranks"]:
            fig = [{**{k: r[k] for k in ("rows", "nnz", "ghosts", "sends", "neighbours", "x_lines", "halo_nnz",
                                         "max_row", "panel_lines")},
                    **({"trial": r["trial"]} if "trial" in r else {}),
                    **({"halo_trial": r["halo_trial"]} if "halo_trial" in r else {}),
                    **({"sell_w": r["sell_w"]} if "sell_w" in r else {})}
                   for r in e["per_rank"]]
            if have.get(str(e["ranks"]), fig) != fig:
                print(f"model_check.py: {key} at {e['ranks']} ranks differs from {path}", file=sys.stderr)
            have[str(e["ranks"])] = fig
            computed.add((key, e["ranks"]))
    if cli and update:
        path.write_text(json.dumps(store, indent=0, sort_keys=True) + "\n")
    halo = {}
    for name, j in runs:
        source, partition, seed = run_key(name, j)
        key = f"{source}|{partition}|{seed}"
        fig = store.get(key, {}).get(str(j["ranks"]))
        if fig is None:
            continue
        same = len(fig) == len(j["per_rank"]) and all(
            f[k] == r[k] for f, r in zip(fig, j["per_rank"]) for k in ("rows", "nnz", "ghosts", "sends", "neighbours"))
        if same:
            for f, r in zip(fig, j["per_rank"]):
                r["x_lines"], r["halo_nnz"], r["max_row"] = f["x_lines"], f.get("halo_nnz", 0), f.get("max_row", 0)
                r["panel_lines"] = f.get("panel_lines", 0)
                if "trial" in f:
                    r["trial"] = f["trial"]
                if "halo_trial" in f:
                    r["halo_trial"] = f["halo_trial"]
                if "sell_w" in f:
                    r["sell_w"] = f["sell_w"]
        halo[name] = same
    return halo


def check(m, runs, outdir, halo, machines=None):
    """The table and JSON of every run's prediction. `machines`: a description per run name (--machine
    auto: by the report's GPU), else `m` for all."""
    fit = m.get("fit_ranks")
    rows, skipped = [], []
    for name, j in runs:
        mm = (machines or {}).get(name, m)
        d = predict_run_detail(mm, j)
        if d is None:
            missing = sorted({r["format"] for r in j["per_rank"]} - set(mm["spmv"]))
            why = (f"format {', '.join(missing)}: the description has no class for it" if missing else
                   f"--order {j.get('order')} requested: the figures have no trial in that order")
            skipped.append(f"{name} ({j['matrix']['source'].split('/')[-1]}, {j['ranks']} GPUs; {why})")
            continue
        p, chosen = d
        meas = j["apply_median_us"]
        model_order = sorted({o for o, _ in chosen})
        model_formats = sorted({f for _, f in chosen})
        rows.append({"run": name, "matrix": j["matrix"]["source"].split("/")[-1], "ranks": j["ranks"],
                     "partition": j["partition"], "transport": j["transport"],
                     "formats": ",".join(sorted(set(j["format_per_rank"]))), "revision": j["git_revision"],
                     "order": j.get("order", "none"), "order_requested": requested_order(j),
                     "model_order": ",".join(model_order), "model_formats": ",".join(model_formats),
                     "ghosts_max": max(r["ghosts"] for r in j["per_rank"]),
                     "neighbours_max": max(r["neighbours"] for r in j["per_rank"]),
                     "x_lines": all("x_lines" in r for r in j["per_rank"]),
                     "machine": pathlib.Path(mm.get("file", "")).name if machines else None,
                     "measured_us": round(meas, 1), "predicted_us": round(p, 1), "error": round((p - meas) / meas, 4),
                     "in_fit": (fit is None or j["ranks"] in fit) and name.split("/")[0] in mm.get("fitted_on", [name.split("/")[0]]),
                     "halo_recomputed": halo.get(name)})
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "model_check.json").write_text(json.dumps({"machine": m, "runs": rows, "not_predicted": skipped},
                                                        indent=1) + "\n")

    def summary(sel, what):
        if not sel:
            return f"{what}: no runs."
        within = sum(abs(r["error"]) <= 0.15 for r in sel)
        return (f"{what}: {within} of {len(sel)} runs within 15%; mean |error| "
                f"{100 * statistics.mean(abs(r['error']) for r in sel):.1f}%, max "
                f"{100 * max(abs(r['error']) for r in sel):.1f}%.")
    lines = [summary(rows, "All runs")]
    if not all(r["in_fit"] for r in rows):
        what = f"{','.join(map(str, fit))} GPUs of " if fit else ""
        lines += [summary([r for r in rows if r["in_fit"]], f"In the fit ({what}{', '.join(m.get('fitted_on', []))})"),
                  summary([r for r in rows if not r["in_fit"]], "Out of sample (the others, marked (out))")]
    auto = [r for r in rows if r["order_requested"] == "auto"]
    if auto:
        same = sum(r["model_order"] == r["order"] and r["model_formats"] == r["formats"] for r in auto)
        lines.append(f"Order and format as the runs kept them (--order auto): {same} of {len(auto)}.")
    if skipped:
        lines.append("Not predicted: " + "; ".join(skipped) + ".")
    lines += ["", "| run | matrix | P | partition | transport | order (run / model) | formats (run / model) | "
              "ghosts max | nb max | measured µs | predicted µs | error | halo = model |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["matrix"], r["ranks"], r["run"])):
        flag = "" if abs(r["error"]) <= 0.15 else " **"
        h = {True: "yes", False: "NO", None: ""}[r["halo_recomputed"]]
        note = "" if r["x_lines"] else " (no x_lines)"
        fitted = "" if r["in_fit"] else " (out)"
        order = r["order"] if r["order_requested"] != "auto" else f"auto: {r['order']} / {r['model_order']}"
        formats = r["formats"] if r["formats"] == r["model_formats"] else f"{r['formats']} / {r['model_formats']}"
        lines.append(f"| {r['run']}{fitted} | {r['matrix']} | {r['ranks']} | {r['partition']} | {r['transport']} | "
                     f"{order} | {formats}{note} | {r['ghosts_max']} | {r['neighbours_max']} | {r['measured_us']} | "
                     f"{r['predicted_us']} | {100 * r['error']:+.1f}%{flag} | {h} |")
    text = "\n".join(lines) + "\n"
    (outdir / "table.md").write_text(text)
    return text


def machine_for(j):
    """--machine auto: the committed description of the report's GPU."""
    gpu = j.get("gpu", "")
    name = "h200_ib" if "H200" in gpu else "h100_ib" if "H100" in gpu else None
    if name is None:
        sys.exit(f"model_check.py: no description for GPU '{gpu}' (pass --machine)")
    return REPO / "jobs/machines" / f"{name}.json"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["derive", "check", "panel", "order", "class"])
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("-o", "--output")
    ap.add_argument("--machine", default="auto", help="description JSON; auto: by each report's GPU (jobs/machines/)")
    ap.add_argument("--cli", help="distspmv binary: compute missing features, compare the halo with the reports "
                                  "(default: build/model/apps/distspmv where it exists)")
    ap.add_argument("--recompute", action="store_true",
                    help="--cli: recompute every run's features (default: only those the features file lacks)")
    ap.add_argument("--max-nnz", type=float, default=3e8, help="--cli: recompute runs up to this many nonzeros")
    ap.add_argument("--features", default=str(FEATURES), help="the per-rank figures of the runs' matrices (JSON)")
    ap.add_argument("--update-features", action="store_true", help="--cli: write what was computed to --features")
    ap.add_argument("--format", default="csr",
                    help="order: the class whose trials are fitted; class: the class fitted (default csr)")
    ap.add_argument("--fit-ranks", help="derive: fit only the runs of these rank counts (e.g. 1,2)")
    ap.add_argument("--header", default="", help="derive: the description's 'description' field")
    ap.add_argument("--only", help="only the runs whose name (FOLDER/RUN) matches this regular expression")
    ap.add_argument("--include-unchecked", action="store_true",
                    help="keep the runs without --check (left out by default), named 'RUN (no --check)'")
    ap.add_argument("--set", choices=["current"],
                    help="current: the runs at the current revision's apply path (CURRENT), besides any INPUT")
    a = ap.parse_intermixed_args()
    runs = load(a.inputs, a.include_unchecked) if a.inputs else [] if a.set else load(RUNS, a.include_unchecked)
    for item, keep in CURRENT if a.set == "current" else []:
        runs += [(n, j) for n, j in load([item], a.include_unchecked) if re.search(keep, n)]
    if a.only:
        runs = [(n, j) for n, j in runs if re.search(a.only, n)]
    if not runs:
        sys.exit("model_check.py: no usable runs in the inputs")
    cli = a.cli
    if cli is None and (REPO / "build/model/apps/distspmv").exists():
        cli = str(REPO / "build/model/apps/distspmv")
    halo = features(runs, cli, a.max_nnz, pathlib.Path(a.features), a.update_features, a.recompute)
    if a.what == "panel":  # panel's class alone (fit_panel on the inputs' one-rank panel products)
        points = panel_points(runs)
        if len(points) < 3:
            sys.exit("model_check.py: fewer than 3 one-rank panel products in the inputs")
        floor, rate, line, errs, loo = fit_panel(points)
        print(json.dumps({"floor_us": floor, "rate_gbps": rate, "line_gbps": line, "products": [
            {"product": label, "rows": r["rows"], "nnz": r["nnz"], "panel_lines": r.get("panel_lines", 0),
             "measured_us": t, "error": round(errs[label], 4), "left_out_error": round(loo[label], 4)}
            for label, r, t in points]}, indent=1))
        return
    if a.what == "order":  # the class's order_gather_gbps (fit_order_gather on the inputs' trials)
        points = order_points(runs, a.format)
        if not points:
            sys.exit(f"model_check.py: no one-rank trial of {a.format} in the read and the degree order in the inputs")
        rate, loo = fit_order_gather(points)
        print(json.dumps({"format": a.format, "order_gather_gbps": rate, "leave_one_matrix_out": loo,
                          "trials": [{"matrix": n, "delta_x_kb": round(dx, 1), "delta_us": round(dt, 2),
                                      "predicted_delta_us": round(dx / rate, 2) if rate else None}
                                     for n, dx, dt in points]}, indent=1))
        return
    if a.what == "class":  # a one-GPU class's floor and rate (fit_class on the one-rank applies in that class)
        points = class_points(runs, a.format)
        if len(points) < 3:
            sys.exit(f"model_check.py: fewer than 3 matrices of one-rank {a.format} applies in the inputs")
        m = json.loads(pathlib.Path(a.machine if a.machine != "auto" else machine_for(runs[0][1])).read_text())
        floor, rate, err, loo = fit_class(m, points, a.format)
        print(json.dumps({"format": a.format, "floor_us": round(floor, 2),
                          ("format_bytes_gbps" if a.format == "sell-w" else "rate_gbps"): round(rate, 1),
                          "matrices": [{"matrix": n, "runs": names, "rows": r["rows"], "nnz": r["nnz"],
                                        "measured_us": round(t, 1), "error": round(err[n], 4),
                                        "left_out_error": round(loo[n], 4)} for n, r, t, names in points]},
                         indent=1))
        return
    if a.what == "derive":
        fit_ranks = sorted(int(p) for p in a.fit_ranks.split(",")) if a.fit_ranks else None
        fitted = [(n, j) for n, j in runs if fit_ranks is None or j["ranks"] in fit_ranks]
        m = derive(fitted)
        m = {"description": a.header or "fitted by jobs/model_check.py derive", **m,
             "rounded": "floors and latencies in us, row_ns in ns per row, max_row_ns in ns per entry of the longest row, rates and bandwidths in GB/s; rate: "
                        "CSR-equivalent bytes (nnz * 12 + rows * 24) per second; gather: 64-byte x lines per second; "
                        "line (panel): 128-byte x lines distinct within each panel per second",
             "fitted_on": sorted({n.split('/')[0] for n, _ in fitted})}
        if fit_ranks:
            m["fit_ranks"] = fit_ranks
        text = json.dumps(m, indent=1) + "\n"
        (pathlib.Path(a.output).write_text(text) if a.output else sys.stdout.write(text))
        errs = errors(m, fitted)
        print(f"fit: {sum(abs(e) <= 0.15 for e in errs)} of {len(errs)} runs within 15%", file=sys.stderr)
        return
    machines = None
    if a.machine == "auto":
        files = {name: machine_for(j) for name, j in runs}
        loaded = {f: {**json.loads(f.read_text()), "file": str(f.relative_to(REPO))} for f in set(files.values())}
        machines = {name: loaded[f] for name, f in files.items()}
        m = next(iter(loaded.values())) if len(loaded) == 1 else {"descriptions": sorted(str(f) for f in loaded)}
        if len(loaded) == 1:
            machines = None
    else:
        m = json.loads(pathlib.Path(a.machine).read_text())
    print(check(m, runs, pathlib.Path(a.output or "."), halo, machines))


if __name__ == "__main__":
    main()
