"""jobs/model_check.py's predict_rank against a `distspmv model --per-rank --json` report
(model_check_test.sh): every P's slowest rank, each rank predicted in the report's format class,
must come within 1e-6 us of the C++ apply. A case's own checks follow on what agree() returns."""
import json
import sys


def agree(src, report, label, mode):
    """(report, machine, [(per-P entry, its ranks, predict_rank's output per rank)]) of `report`;
    mode(rank) is predict_rank's order mode. Exits naming P where Python and C++ differ."""
    sys.path.insert(0, src + "/jobs")
    import model_check

    j = json.load(open(report))
    m = json.load(open(j["machine"]["file"]))
    per_p = []
    for e in j["per_ranks"]:
        p, ranks = e["ranks"], [{**r, "format": j["format_class"]} for r in e["per_rank"]]
        out = [model_check.predict_rank(m, r, p, None, mode(r)) for r in ranks]
        apply = max(o[0] for o in out)
        if abs(apply - e["predicted"]["apply_us"]) > 1e-6:
            sys.exit(f"{label}, P={p}: Python {apply} us, distspmv model {e['predicted']['apply_us']} us")
        per_p.append((e, ranks, out))
    return j, m, per_p
