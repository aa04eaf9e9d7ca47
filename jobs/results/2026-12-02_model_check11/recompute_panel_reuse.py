"""Recompute the panel blocks' figures (panel_reuse added) of the listed features.json keys with
distspmv model --per-rank; every figure already stored must come out equal."""
import json, subprocess, sys, re, pathlib
cli, path = sys.argv[1], pathlib.Path(sys.argv[2])
store = json.loads(path.read_text())
keys = [k for k in store if re.match(r"gen:(rmat|lognormal:(150000|2000000:2.0:1.0|300000|4000000:2.0:1.0:300000|4000000:2.2:1.0:4000|4000000:2.5:0.8:20000))", k)]
keys += sys.argv[3:]
keys = sorted(set(keys), key=lambda k: sum(r['nnz'] for v in store[k].values() for r in v))
print(len(keys), "keys", file=sys.stderr)
for key in keys:
    source, partition, seed = key.split("|")
    ranks = sorted(store[key], key=int)
    cmd = [cli, "model", source, "--ranks", ",".join(ranks), "--partition", partition, "--per-rank",
           "--json", "/dev/stdout", "--seed", seed]
    print(" ".join(cmd), file=sys.stderr, flush=True)
    res = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    out = json.loads(res[res.index("{\n"):])
    for e in out["per_ranks"]:
        old = store[key][str(e["ranks"])]
        new = []
        for o, r in zip(old, e["per_rank"]):
            f = dict(o)
            for k in ("rows", "nnz", "ghosts", "sends", "neighbours", "x_lines", "halo_nnz", "max_row", "panel_sectors"):
                if o.get(k) != r[k]:
                    print(f"DIFF {key} {e['ranks']} {k}: {o.get(k)} -> {r[k]}", file=sys.stderr)
            if "trial" in r:
                t = dict(r["trial"])
                pr = t.pop("degree_panel_reuse", None)
                if o.get("trial") != t:
                    print(f"DIFF {key} {e['ranks']} trial", file=sys.stderr)
                f["trial"] = {**o["trial"], **({"degree_panel_reuse": pr} if pr is not None else {})}
            if "panel_reuse" in r:
                f["panel_reuse"] = r["panel_reuse"]
            new.append(f)
        store[key][str(e["ranks"])] = new
    path.write_text(json.dumps(store, indent=0, sort_keys=True) + "\n")
print("done", file=sys.stderr)
