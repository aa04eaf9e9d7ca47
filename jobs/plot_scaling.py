#!/usr/bin/env python3
"""Parallel efficiency versus GPUs, as an SVG with no plotting library (the GPU machine and CI have
none): weak scaling T(1)/T(g) and strong scaling T(1)/(g T(g)), from jobs/dist_gpu.sh's JSON.

    python3 jobs/plot_scaling.py RESULTS_DIR OUT.svg
"""
import json
import pathlib
import re
import sys

W, H, L, B = 560, 360, 60, 50  # size, left and bottom margins


def series(folder):
    base, points = {}, {}
    for f in sorted(pathlib.Path(folder).glob("*.json")):
        m = re.match(r"(weak|strong)_(\w+?)_g(\d+)_(\w+?)_(.+)", f.stem)
        if not m:
            continue
        kind, matrix, g, part, transport = m.groups()
        t = json.loads(f.read_text())["apply_median_us"]
        if g == "1":
            base[(kind, matrix)] = t
        points.setdefault((kind, matrix, part, transport), []).append((int(g), t))
    out = {}
    for (kind, matrix, part, transport), pts in points.items():
        if (kind, matrix) not in base:
            continue
        t1 = base[(kind, matrix)]
        eff = [(1, 1.0)] + [(g, t1 / t if kind == "weak" else t1 / (g * t)) for g, t in sorted(pts) if g > 1]
        out[f"{kind} {matrix} {part} {transport}"] = eff
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    data = series(sys.argv[1])
    gmax = max((g for pts in data.values() for g, _ in pts), default=1)
    x = lambda g: L + (W - L - 20) * (g - 1) / max(1, gmax - 1)
    y = lambda e: H - B - (H - B - 20) * e / 1.1
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in (0, 0.25, 0.5, 0.75, 1.0):
        svg.append(f'<line x1="{L}" x2="{W - 20}" y1="{y(e)}" y2="{y(e)}" stroke="#ddd"/>'
                   f'<text x="{L - 8}" y="{y(e) + 4}" text-anchor="end">{e:.2f}</text>')
    for g in range(1, gmax + 1):
        svg.append(f'<text x="{x(g)}" y="{H - B + 16}" text-anchor="middle">{g}</text>')
    svg.append(f'<text x="{(W + L) / 2}" y="{H - 12}" text-anchor="middle">GPUs</text>')
    svg.append(f'<text x="14" y="{(H - B) / 2}" transform="rotate(-90 14 {(H - B) / 2})" text-anchor="middle">'
               'parallel efficiency of the apply</text>')
    for i, (name, pts) in enumerate(sorted(data.items())):
        c = colours[i % len(colours)]
        path = " ".join(f"{x(g):.1f},{y(e):.1f}" for g, e in pts)
        svg.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        svg += [f'<circle cx="{x(g):.1f}" cy="{y(e):.1f}" r="3" fill="{c}"/>' for g, e in pts]
        svg.append(f'<text x="{L + 10}" y="{34 + 14 * i}" fill="{c}">{name}</text>')
    svg.append("</svg>")
    pathlib.Path(sys.argv[2]).write_text("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
