#!/usr/bin/env python3
"""Table of the distributed runs written by jobs/dist_gpu.sh (one JSON per run).

    python3 jobs/summarize_scaling.py DIR [--markdown]

Prints every run, then the derived figures the issues ask for: weak-scaling efficiency
T(1)/T(g), strong-scaling speedup T(1)/T(g), NCCL against host-staged MPI, and CG iterations.
"""
import json
import pathlib
import re
import sys


def load(folder):
    runs = {}
    for f in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            runs[f.stem] = json.loads(f.read_text())
        except json.JSONDecodeError as e:
            print(f"{f.name}: unreadable JSON ({e})")
    return runs


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    md = "--markdown" in sys.argv
    sep = " | " if md else "  "
    spmv = {k: v for k, v in runs.items() if "apply_median_us" in v}
    head = ["run", "ranks", "transport", "apply us", "local us", "exch us", "overlap", "GB/s/GPU", "copy%",
            "rel.err", "formats"]
    rows = []
    for name, j in spmv.items():
        rows.append([name, str(j["ranks"]), j["transport"], fmt(j["apply_median_us"], ".1f"),
                     fmt(j["local_median_us"], ".1f"), fmt(j["exchange_median_us"], ".1f"),
                     fmt(j.get("overlap_efficiency"), ".2f"), fmt(j["effective_gbps_per_gpu"], ".0f"),
                     fmt(100 * j["copy_fraction"], ".0f") if "copy_fraction" in j else "-",
                     fmt(j.get("max_rel_error"), ".1e"), ",".join(sorted(set(j["format_per_rank"])))])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: sep.join(c.ljust(w) for c, w in zip(r, widths))
    print(line(head))
    if md:
        print(sep.join("-" * w for w in widths))
    for r in rows:
        print(line(r))

    # Derived figures: group by (experiment, partition, transport) and compare with 1 GPU.
    def key(name):
        m = re.match(r"(weak|strong)_(\w+?)_g(\d+)_(\w+?)_(.+)", name)
        return m.groups() if m else None

    print()
    base = {}
    for name, j in spmv.items():
        k = key(name)
        if k and k[2] == "1":
            base[(k[0], k[1])] = j["apply_median_us"]
    for name, j in sorted(spmv.items(), key=lambda kv: (key(kv[0]) or ("",) * 5)[:2] + (int((key(kv[0]) or "0" * 5)[2]),)):
        k = key(name)
        if not k or k[2] == "1" or (k[0], k[1]) not in base:
            continue
        kind, matrix, g, part, transport = k
        t1, tg = base[(kind, matrix)], j["apply_median_us"]
        if kind == "weak":
            print(f"weak   {matrix:<10} {g} GPUs {part:<5} {transport:<10}: efficiency T1/Tg = {t1 / tg:.3f}")
        else:
            print(f"strong {matrix:<10} {g} GPUs {part:<5} {transport:<10}: speedup T1/Tg = {t1 / tg:.2f}")
    for name, j in sorted(spmv.items()):
        if name.endswith("_nccl") and name.replace("_nccl", "_mpi-staged") in spmv:
            s = spmv[name.replace("_nccl", "_mpi-staged")]
            print(f"nccl vs staged {name[:-5]}: exchange {j['exchange_median_us']:.1f} vs {s['exchange_median_us']:.1f} us, "
                  f"apply {j['apply_median_us']:.1f} vs {s['apply_median_us']:.1f} us")
    for name, j in sorted(runs.items()):
        if "iterations" in j:
            print(f"{name}: {j.get('ranks')} ranks, {j['iterations']} iterations, converged {j['converged']}, "
                  f"rel. residual {j['final_relative_residual']:.2e}, {j['time_per_iteration_us']:.1f} us/iteration, "
                  f"SpMV share {j['spmv_fraction']:.2f}")


if __name__ == "__main__":
    main()
