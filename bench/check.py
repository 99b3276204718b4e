#!/usr/bin/env python3
"""Recompute every target of bench/targets.conf from a bench's summary.json.

    check.py [SUMMARY_JSON]      (default: the newest bench's, link latest in build/bench)

Prints PASS, FAIL or MISSING per target (medians decide); exits 1 unless all
pass. A target whose workload or engine the bench did not run is MISSING.
"""

import json
import operator
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


def read_targets(path):
    targets = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split("#", 1)[0].split()
            if not w:
                continue
            if len(w) == 5 and w[3] in OPS:
                targets.append({"wl": w[0], "eng": w[1], "metric": w[2], "op": w[3],
                                "value": float(w[4]), "ref": None, "line": n})
            elif len(w) == 7 and w[3] in OPS and w[5] in ("x", "+"):
                targets.append({"wl": w[0], "eng": w[1], "metric": w[2], "op": w[3],
                                "value": float(w[4]), "ref": w[6], "line": n,
                                "offset": w[5] == "+"})
            else:
                raise SystemExit("%s:%d: want WORKLOAD ENGINE METRIC OP VALUE [x|+ ENGINE2]" % (path, n))
    return targets


def median(summary, wl, eng, metric):
    return summary["aggregate"].get("%s/%s" % (wl, eng), {}).get(metric, {}).get("median")


def best_ref(summary, t):
    """The reference value: ENGINE2, or the best of a comma list of engines
    (the largest for >= and >, the smallest for <= and <), skipping engines
    without a value; (value, engine) or (None, None)."""
    vals = [(median(summary, t["wl"], e, t["metric"]), e) for e in t["ref"].split(",")]
    vals = [v for v in vals if v[0] is not None]
    if not vals:
        return None, None
    return (max if t["op"] in (">=", ">") else min)(vals)


def check(summary, targets):
    results = []
    for t in targets:
        got = median(summary, t["wl"], t["eng"], t["metric"])
        bound, what = t["value"], "%g" % t["value"]
        if t["ref"]:
            ref, eng = best_ref(summary, t)
            if t.get("offset"):
                bound = None if ref is None else t["value"] + ref
            else:
                bound = None if ref is None else t["value"] * ref
            what = "%g %s %s (%s)" % (t["value"], "+" if t.get("offset") else "x", t["ref"],
                                      "-" if ref is None else "%.4g, %s" % (ref, eng))
        name = "%s %s %s %s %s" % (t["wl"], t["eng"], t["metric"], t["op"], what)
        if got is None or bound is None:
            results.append(("MISSING", name, got))
        else:
            results.append(("PASS" if OPS[t["op"]](got, bound) else "FAIL", name, got))
    return results


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(TOP, "build", "bench", "latest", "summary.json")
    try:
        with open(path) as f:
            summary = json.load(f)
    except OSError as e:
        print("bench-check: %s (run make bench first)" % e)
        return 1
    results = check(summary, read_targets(os.path.join(TOP, "bench", "targets.conf")))
    for verdict, name, got in results:
        print("%-7s %s: got %s" % (verdict, name, "-" if got is None else "%.4g" % got))
    bad = sum(v != "PASS" for v, _, _ in results)
    print("%d targets, %d not passed" % (len(results), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
