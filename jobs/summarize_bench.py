#!/usr/bin/env python3
"""Prints one line per (matrix, precision) from the JSON files of `distspmv --format all`:
copy bandwidth, cuSPARSE CSR and SELL, our best format, the auto pick, and the ratios that the
issue's targets are stated in. Usage: summarize_bench.py DIR_WITH_JSON [--markdown]"""
import glob
import json
import os
import sys


def main():
    folder = sys.argv[1]
    markdown = "--markdown" in sys.argv
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        run = json.load(open(path))
        res = {r["format"]: r for r in run["results"] if "median_us" in r}
        ours = {k: v for k, v in res.items() if not k.startswith("cusparse")}
        if not ours or "cusparse" not in res:
            continue
        best = min(ours.values(), key=lambda r: r["median_us"])
        csr_family = [v for k, v in ours.items() if k.startswith("csr") or k == "ipcsr"]
        best_csr = min(csr_family, key=lambda r: r["median_us"]) if csr_family else None
        base = res["cusparse"]["median_us"]
        sell = res.get("cusparse-sell")
        auto_fmt = run.get("auto_choice", "-")
        auto_us = res[auto_fmt]["median_us"] if auto_fmt in res else float("nan")
        rows.append([
            os.path.basename(run["matrix"]["source"]), run["precision"], f'{run["copy_gbps"]:.0f}',
            f'{res["cusparse"]["effective_gbps"]:.0f}',
            f'{sell["effective_gbps"]:.0f}' if sell else "-",
            best["format"], f'{best["effective_gbps"]:.0f}', f'{best["effective_gbps"] / run["copy_gbps"]:.0%}',
            f'{base / best["median_us"]:.2f}',
            f'{best_csr["format"]} {base / best_csr["median_us"]:.2f}' if best_csr else "-",
            f'{auto_fmt} {best["median_us"] / auto_us:.2f}', f'{base / auto_us:.2f}',
            f'{run.get("max_rel_error", float("nan")):.1e}'])
    head = ["matrix", "prec", "copy", "cusp GB/s", "cuspSELL", "best", "GB/s", "copy%", "best/cusp",
            "best CSR-family/cusp", "auto (best/auto)", "auto/cusp", "max err"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
        for r in [head] + rows:
            print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))


if __name__ == "__main__":
    main()
