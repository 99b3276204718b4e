#!/usr/bin/env python3
"""Side-by-side bench: every (workload, engine) pair REPEAT times in one boot.

    bench.py [--workloads "static-mix sparse"] [--engines "none ksm-1000"]
             [--size-mb N] [--repeat R] [--window S] [--kernel bzImage]

Writes a directory in build/bench named by its start time (series/*.csv,
summary.json, results.md, plots) and points the link latest there. Metric definitions: docs/bench.md.
Exits non-zero when a run fails its own consistency checks.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import time
import traceback

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "harness"))
import vm  # noqa: E402

PAGE = 4096
# Workload command lines; {size} is SIZE_MB, {window} the window in seconds.
WORKLOADS = {
    "static-mix": "static-mix --size-mb {size} --seconds {window}",
    "static-mix-randfirst": "env WL_FIRST=random static-mix --size-mb {size} --seconds {window}",
    "sparse": "sparse --size-mb {size} --seconds {window}",
    "sparse-near": "env WL_NEAR=1 sparse --size-mb {size} --seconds {window}",
    "churn": "churn --size-mb {size} --seconds {window}",
    "cow-broken": "cow-broken --size-mb {size} --seconds {window}",
    "short-lived": "short-lived --size-mb {size} --seconds {window}",
    "short-lived-1s": "short-lived --size-mb {size} --seconds {window} --param 1000",
    "short-lived-200ms": "short-lived --size-mb {size} --seconds {window} --param 200",
    "similar-images": "similar-images --size-mb {size} --seconds {window}",
    "numa-mirror": "numa-mirror --size-mb {size} --seconds {window}",
    "numa-mirror-differ": "env WL_HOT=differ numa-mirror --size-mb {size} --seconds {window}",
    "numa-mirror-c10": "env WL_NICE=-20,-11 numa-mirror --size-mb {size} --seconds {window}",
    "numa-mirror-u50": "env WL_UNIQUE=50 numa-mirror --size-mb {size} --seconds {window}",
    "thp-mixed": "thp-mixed --size-mb {size} --seconds {window}",
    "merge-floor": "merge-floor --size-mb {size} --seconds {window}",
    "mmap-latency": "mmap-latency --size-mb {size} --seconds {window}",
}
DEFAULT_SIZE = {"static-mix": 256, "static-mix-randfirst": 256,
                "sparse": 256, "sparse-near": 256, "churn": 16, "cow-broken": 64,
                "short-lived": 16, "short-lived-1s": 16, "short-lived-200ms": 16,
                "similar-images": 64,
                "numa-mirror": 64, "numa-mirror-differ": 64, "numa-mirror-c10": 64,
                "numa-mirror-u50": 64, "thp-mixed": 128,
                "merge-floor": 256, "mmap-latency": 128}


# How many processes map a workload's size each (1 if not listed): the
# memory it fills and verifies is its size times this.
PROCS = {"static-mix": 2, "static-mix-randfirst": 2, "sparse": 2, "sparse-near": 2,
         "churn": 3, "similar-images": 4, "numa-mirror": 2, "numa-mirror-differ": 2,
         "numa-mirror-c10": 2, "numa-mirror-u50": 2}

# `make demo`: these workloads at these sizes, once each, over the engines
# engines.conf marks `demo` (`demo=WL,...`: on those workloads only), each
# run DEMO_WINDOW seconds; the whole of it, with make's check of the
# kernel and guest builds, within DEMO_BUDGET_S (a bench-unit test holds it).
DEMO_WORKLOADS = ("static-mix", "similar-images", "numa-mirror")
DEMO_SIZE = {"static-mix": 128, "similar-images": 32, "numa-mirror": 32}
DEMO_WINDOW = 20
DEMO_BUDGET_S = 600

# The wall-time model behind --dry-run, the time left printed while a
# bench runs and the demo's budget, measured on a 2-core host under QEMU
# TCG: from QEMU's start to the guest's first line (5 s); a run's time
# beyond its window: the knob reset, which unmerges, and the workload
# filling, verifying and freeing its memory, RUN_FIXED_S plus RUN_PER_MIB_S
# a MiB it maps (1 to 2.5 s at 64 to 256 MiB, 6 to 10 s at 1 GiB, 12 to
# 18 s at 2 GiB: the first run of a boot is the slowest); from the guest's
# end to the printed tables and plots (a few seconds); make's check that
# the kernel and guest are built, when they are (6 s).
BOOT_S = 10
RUN_FIXED_S = 1.5
RUN_PER_MIB_S = 0.008
END_S = 10
PREREQ_S = 20


def read_engines(path=os.path.join(TOP, "bench", "engines.conf")):
    """name -> knobs, and the engines marked `demo`: name -> the demo
    workloads it runs on (None: all of them), in the file's order."""
    engines, demo = {}, {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            knobs = []
            for w in words[1:]:
                if w == "demo" or w.startswith("demo="):
                    wls = w[5:].split(",") if w != "demo" else None
                    for wl in wls or []:
                        if wl not in DEMO_WORKLOADS:
                            raise SystemExit("%s:%d: %r is not a demo workload (%s)" % (
                                path, n, wl, " ".join(DEMO_WORKLOADS)))
                    demo[words[0]] = wls
                    continue
                if not re.fullmatch(r"[a-z_]+(/[a-z_]+)?=[\w.-]+", w):
                    raise SystemExit("%s:%d: bad knob %r" % (path, n, w))
                knobs.append(w)
            if words[0] in engines:
                raise SystemExit("%s:%d: engine %r defined twice" % (path, n, words[0]))
            engines[words[0]] = knobs
    return engines, demo


def demo_pairs(demo):
    """The demo's (workload, [engines]) from read_engines()'s demo marks."""
    return [(wl, [e for e, wls in demo.items() if wls is None or wl in wls])
            for wl in DEMO_WORKLOADS]


def parse_pairs(text, known_workloads, known_engines):
    """'WL=E1,E2 WL2=E3' -> [(WL, [E1, E2]), (WL2, [E3])]; ValueError on bad input."""
    pairs, seen = [], set()
    for item in text.split():
        wl, sep, engs = item.partition("=")
        engines = [e for e in engs.split(",") if e]
        if not sep or not wl or not engines:
            raise ValueError("%r: want WORKLOAD=ENGINE[,ENGINE...]" % item)
        if wl not in known_workloads:
            raise ValueError("unknown workload %r (known: %s)" % (wl, " ".join(known_workloads)))
        for e in engines:
            if e not in known_engines:
                raise ValueError("unknown engine %r (known: %s)" % (e, " ".join(known_engines)))
        if wl in seen:
            raise ValueError("workload %r given twice" % wl)
        if len(set(engines)) != len(engines):
            raise ValueError("%r: an engine given twice" % item)
        seen.add(wl)
        pairs.append((wl, engines))
    if not pairs:
        raise ValueError("no WORKLOAD=ENGINE pair")
    return pairs


def plan_runs(pairs, repeat):
    """(workload, engine, rep) in the order they run: repetition 1 of every
    pair, then repetition 2, ..."""
    return [(wl, eng, rep) for rep in range(1, repeat + 1) for wl, engines in pairs
            for eng in engines]


def run_overhead_s(wl, size_mb):
    """A run's estimated wall time beyond its window (the model above BOOT_S)."""
    return RUN_FIXED_S + RUN_PER_MIB_S * size_mb * PROCS.get(wl, 1)


def run_estimate_s(wl, size_mb, window):
    return window + run_overhead_s(wl, size_mb)


def estimate_s(runs, sizes, window):
    """Estimated wall time of one boot running runs [(workload, engine, rep)]."""
    return BOOT_S + sum(run_estimate_s(wl, sizes[wl], window) for wl, _, _ in runs) + END_S


def demo_estimate_s(demo, window=DEMO_WINDOW):
    """Estimated wall time of `make demo` from a built tree (the bench and
    make's check of the builds)."""
    return PREREQ_S + estimate_s(plan_runs(demo_pairs(demo), 1), DEMO_SIZE, window)


def mmss(secs):
    secs = max(0, int(round(secs)))
    return "%d:%02d" % (secs // 60, secs % 60)


def time_left(ests, done, elapsed, end_s=END_S):
    """Seconds left: ests, every run's estimate in plan order; done, the
    seconds the runs finished so far took (a prefix of the plan); elapsed,
    seconds into the run under way. Estimates of the runs to come are
    scaled by how the finished ones compared with theirs."""
    k = len(done)
    scale = 1.0
    if k and sum(ests[:k]) > 0:
        scale = min(3.0, max(0.5, sum(done) / sum(ests[:k])))
    left = sum(ests[k + 1:]) * scale
    if k < len(ests):
        left += max(0.0, ests[k] * scale - elapsed)
    return left + end_s


def engine_cmd(knobs):
    """Shell that writes the knobs in order and fails loudly if one is refused."""
    return " && ".join("ksm-set %s %s" % tuple(kv.split("=", 1)) for kv in knobs)


# The sampler's interval, and how often it counts the saving from the
# workload's pagemaps (saved_pm). That count walks every page the workload
# maps, about 0.6 s of a vCPU for 2 GiB under TCG with no sample taken
# meanwhile, and only its last walk in the window is judged (saved_agree):
# it walks every PAGEMAP_EVERY_S seconds, and at least four times a window
# (docs/bench.md, "The sampler's pagemap walks").
SAMPLE_MS = 100
PAGEMAP_EVERY_S = 10


def pagemap_every(window):
    """Samples from one pagemap walk to the next in a window of @window s."""
    return max(1, min(PAGEMAP_EVERY_S * 1000, window * 1000 // 4) // SAMPLE_MS)


# Every sample line carries these; the sampler prints saved_pm last.
SAMPLE_KEYS = ("t", "sharing", "zero", "full_scans", "engine_ns", "saved_pm")
KMSG_TAIL = re.compile(r"\[\s*\d+\.\d+\].*$")


def parse_sample(text):
    """One '@@S k=v ...' body -> dict, or None when the console tore it.

    The serial console interleaves kernel messages with the guest's
    output, so a sample line can end in '[  279.46] random: ...' and a
    number before it may be cut short: such a sample is dropped
    (counted), never misread.
    """
    if KMSG_TAIL.search(text):
        return None
    s = {}
    for x in text.split():
        k, sep, v = x.partition("=")
        if not sep:
            return None
        try:
            s[k] = float(v) if k == "t" else int(v)
        except ValueError:
            return None
    if any(k not in s for k in SAMPLE_KEYS):
        return None
    return s


def parse_run(output):
    """The sampler's and workload's lines -> dict."""
    run = {"samples": [], "ready": None, "result": {}, "rc": None}
    for line in output:
        m = re.search(r"@@WL (ready|result) (.*)$", line)
        if m:
            kv = dict(x.split("=", 1) for x in m.group(2).split() if "=" in x)
            if m.group(1) == "ready":
                run["ready"] = kv
            elif "instance" in kv:
                run.setdefault("instances", []).append(kv)
            elif "proc" not in kv:
                run["result"] = kv
            continue
        m = re.search(r"@@S (.*)$", line)
        if m:
            s = parse_sample(m.group(1))
            if s is not None:
                run["samples"].append(s)
            else:
                run["torn_samples"] = run.get("torn_samples", 0) + 1
            continue
        m = re.search(r"@@X rc=(-?\d+)", line)
        if m:
            run["rc"] = int(m.group(1))
    return run


def first_time(samples, pred):
    for s in samples:
        if pred(s):
            return s["t"]
    return None


def at_time(samples, t):
    """The last sample at or before t."""
    best = samples[0]
    for s in samples:
        if s["t"] <= t + 1e-9:
            best = s
    return best


def scan_start(samples, upto):
    """The first sample of the full scan before the one `upto` is in."""
    now = upto["full_scans"]
    for s in samples:
        if s["full_scans"] >= now - 1:
            return s
    return samples[0]


IDLE_SETTLE_S = 10.0
IDLE_MIN_S = 10.0


def metrics(run, window):
    """Per-run metrics (docs/bench.md)."""
    S = run["samples"]
    out = {"content_ok": int(run["rc"] == 0 and run["result"].get("content_ok") == "1")}
    if not S or run["ready"] is None:
        out["error"] = "no samples (workload failed before ready?)"
        return out
    # A workload without an exact oracle (churn) reports none, and one whose
    # processes are not listed (pids=) is not counted from pagemaps.
    oracle = int(run["ready"]["oracle_pages"]) if "oracle_pages" in run["ready"] else None
    counted = "pids" in run["ready"]
    # The window: from ready until just before the workload starts its
    # final check and exit (memory torn down then is not the engine's doing).
    S = [s for s in S if s["t"] <= window - 0.25] or S[:1]
    first, last = S[0], S[-1]
    ksm_saved = lambda s: s["sharing"] + max(s["zero"], 0)
    out["oracle_pages"] = oracle
    pm = [s for s in S if s["saved_pm"] >= 0] if counted else []
    final_pm = pm[-1] if pm else None
    out["saved_pages"] = final_pm["saved_pm"] if final_pm else None
    out["ksm_saved_pages"] = ksm_saved(final_pm) if final_pm else None
    if final_pm:
        # KSM's count was read just before and just after the pagemap walk;
        # while merging goes on, the walk's count lies between the two.
        a = final_pm["saved_pm"]
        lo = min(final_pm.get("pre", ksm_saved(final_pm)), ksm_saved(final_pm))
        hi = max(final_pm.get("pre", ksm_saved(final_pm)), ksm_saved(final_pm))
        slack = max(1, 0.01 * max(a, hi))
        # pages_sharing drops for a COW-broken KSM page only when ksmd next
        # visits it: KSM may over-count by the COW breaks since the start of
        # the full scan before the one in progress.
        stale = final_pm["cow_ksm"] - scan_start(S, final_pm)["cow_ksm"]
        # Likewise for merged memory the workload unmapped: KSM's counts drop
        # only when ksmd next walks that mm, and a workload that tears its
        # memory down during the window (unmaps=1) may leave KSM counting up
        # to all it had merged. Only the upper bound is checked then.
        if run["ready"].get("unmaps") == "1":
            stale = max(stale, lo)
        out["saved_agree"] = int(lo - slack - stale <= a <= hi + slack and
                                 (not oracle or a <= oracle))
    out["saved_oracle_pct"] = (100.0 * ksm_saved(last) / oracle) if oracle else None
    out["peak_saved_oracle_pct"] = (100.0 * max(ksm_saved(s) for s in S) / oracle
                                    if oracle else None)
    for pct in (50, 90, 99):
        out["t%d_s" % pct] = (first_time(S, lambda s: ksm_saved(s) >= pct / 100 * oracle)
                              if oracle else None)
    end_t = out["t99_s"] if out["t99_s"] is not None else last["t"]
    end = at_time(S, end_t)
    out["engine_cpu_s"] = (end["engine_ns"] - first["engine_ns"]) / 1e9
    out["engine_cpu_window_s"] = (last["engine_ns"] - first["engine_ns"]) / 1e9
    saved_mb = ksm_saved(end) * PAGE / 2**20
    out["saved_mb_at_t99"] = saved_mb
    out["efficiency_mb_per_cpu_s"] = saved_mb / out["engine_cpu_s"] if out["engine_cpu_s"] > 0 else None
    out["us_per_saved_page"] = (1e6 * out["engine_cpu_s"] / ksm_saved(end)
                                if ksm_saved(end) > 0 else None)
    win_mb = ksm_saved(last) * PAGE / 2**20
    out["saved_mb"] = win_mb
    out["efficiency_window_mb_per_cpu_s"] = (win_mb / out["engine_cpu_window_s"]
                                             if out["engine_cpu_window_s"] > 0 else None)
    # Idle: the engine's share of a core once all is merged, from t99 +
    # IDLE_SETTLE_S to the window's end (none if less than IDLE_MIN_S left).
    out["idle_cpu_pct"] = None
    if out["t99_s"] is not None and last["t"] - out["t99_s"] - IDLE_SETTLE_S >= IDLE_MIN_S:
        idle = at_time(S, out["t99_s"] + IDLE_SETTLE_S)
        out["idle_cpu_pct"] = (100.0 * (last["engine_ns"] - idle["engine_ns"]) / 1e9 /
                               (last["t"] - idle["t"]))
    out["examined_pages"] = last["scanned"] - first["scanned"]
    out["skipped_pages"] = max(last["skipped"], 0) - max(first["skipped"], 0)
    out["examined_pages_per_cpu_s"] = (out["examined_pages"] / out["engine_cpu_window_s"]
                                       if out["engine_cpu_window_s"] > 0 else None)
    out["cow_breaks"] = last["cow_ksm"] - first["cow_ksm"]
    # Page compares per tree lookup over the window (the engine's counters).
    for tree, n, c in (("stable", "sl", "slc"), ("unstable", "ul", "ulc")):
        if first.get(n, -1) >= 0 and last.get(n, -1) > first[n]:
            out["%s_compares_per_lookup" % tree] = ((last[c] - first[c]) /
                                                   (last[n] - first[n]))
        # The same once all is merged (from t99 + IDLE_SETTLE_S): lookups
        # in trees that hold every candidate.
        if out["t99_s"] is not None and first.get(n, -1) >= 0:
            settled = at_time(S, out["t99_s"] + IDLE_SETTLE_S)
            if last["t"] > settled["t"] and last[n] > settled[n]:
                out["%s_compares_per_lookup_settled" % tree] = (
                    (last[c] - settled[c]) / (last[n] - settled[n]))
    # The adaptive page hash's strength (words a page) over the window's
    # second half, and at its end (absent under the checksum).
    hs = [s["hs"] for s in S if s.get("hs", -1) > 0 and s["t"] >= last["t"] / 2]
    if hs:
        out["hash_strength_median"] = sorted(hs)[len(hs) // 2]
        out["hash_strength_end"] = hs[-1]
    # KSM pages at the end: the stable tree's nodes over all shards.
    out["stable_nodes"] = last.get("shared")
    out["window_s"] = last["t"]
    if run.get("instances"):
        out["instances"] = [{k: (v if k in ("instance",) else float(v))
                             for k, v in i.items() if k != "name"} for i in run["instances"]]
        out.update(instance_metrics(out["instances"]))
    for k, v in run["result"].items():
        if k not in ("content_ok", "name"):
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def instance_metrics(insts):
    """Placement figures over a NUMA workload's instances (docs/bench.md)."""
    out = {}
    hot = [i["hot_remote_pct"] for i in insts if "hot_remote_pct" in i]
    if hot:
        out["hot_remote_max_pct"] = max(hot)
        out["hot_remote_spread_pct"] = max(hot) - min(hot)
    first = [i for i in insts if str(i.get("instance")) == "0"]
    if first and "merged_local_pct" in first[0]:
        out["instance0_merged_local_pct"] = first[0]["merged_local_pct"]
    return out


def consistency(m):
    """Problems with one run's own checks."""
    probs = []
    if not m.get("content_ok"):
        probs.append("contents not verified")
    if m.get("error"):
        probs.append(m["error"])
    if m.get("saved_agree") == 0:
        probs.append("pagemap saving %s vs KSM %s (oracle %s)" % (
            m["saved_pages"], m["ksm_saved_pages"], m["oracle_pages"]))
    return probs


def aggregate(values):
    vals = [v for v in values if isinstance(v, (int, float))]
    if not vals:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def fmt(v, nd=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return ("%%.%df" % nd) % v
    return str(v)


def whole(v):
    """Counts the workload printed as integers come back as floats."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def pair_engines(summary, wl):
    """The engines a workload ran under (all of the bench's, unless it
    chose engines per workload)."""
    return summary.get("pairs", {}).get(wl, summary["engines"])


# The headline: (column, metric, decimals). MiB saved at the window's end,
# as a share of the oracle, t99, engine CPU from ready to t99 and the MiB
# saved at t99 a CPU-second of it (efficiency_mb_per_cpu_s), and engine
# CPU over the whole window, idle scanning included.
HEADLINE = [("MiB saved", "saved_mb", 1), ("% of oracle", "saved_oracle_pct", 1),
            ("t99 s", "t99_s", 1), ("CPU s", "engine_cpu_s", 2),
            ("MiB/CPU-s", "efficiency_mb_per_cpu_s", 1),
            ("CPU s window", "engine_cpu_window_s", 2)]
# Beside them, for a workload of NUMA instances: the largest share of an
# instance's hot reads that are remote, and the largest minus the smallest.
HEADLINE_NUMA = [("hot remote % max", "hot_remote_max_pct", 0),
                 ("hot remote % spread", "hot_remote_spread_pct", 0)]
# The verdict's bar: engines that save at least this share of the best saving.
VERDICT_SHARE = 0.99


def is_stock(engine):
    """The stock engines: KSM's own scanner at a fixed rate or the advisor."""
    return engine.startswith("ksm-")


def pair_failed(summary, wl, eng):
    """Whether a workload and engine pair failed its own checks: a median
    content_ok or saved_agree (where defined) below 1, or a problem listed
    for one of its runs."""
    agg = summary["aggregate"].get("%s/%s" % (wl, eng), {})
    for k in ("content_ok", "saved_agree"):
        med = agg.get(k, {}).get("median")
        if med is not None and med < 1:
            return True
    prefix = "bench/%s/%s/" % (wl, eng)
    if any(str(f).startswith(prefix) for f in summary.get("failures", ())):
        return True
    return any(r.get("problems") for r in summary.get("runs", ())
               if r.get("workload") == wl and r.get("engine") == eng)


def headline(summary, wl):
    """One row a workload's engine: its engine, HEADLINE's medians (and
    HEADLINE_NUMA's, where the workload reports them) and whether the pair
    failed its own checks (`failed`, pair_failed())."""
    rows = []
    for eng in pair_engines(summary, wl):
        agg = summary["aggregate"].get("%s/%s" % (wl, eng), {})
        row = {"engine": eng, "failed": pair_failed(summary, wl, eng)}
        row.update((k, agg.get(k, {}).get("median")) for _, k, _ in HEADLINE + HEADLINE_NUMA)
        rows.append(row)
    return rows


def headline_cols(rows):
    """HEADLINE, and HEADLINE_NUMA when a row has its figures."""
    numa = any(r.get(k) is not None for r in rows for _, k, _ in HEADLINE_NUMA)
    return HEADLINE + (HEADLINE_NUMA if numa else [])


def verdict(rows):
    """The verdict of a workload's headline rows. Rows that failed their
    own checks (`failed`) are left out of it (`failed`: their engines).
    Among the other engines but `none`: the most any saved
    (`best_saved_mb`); of those that save at least VERDICT_SHARE of it with
    a MiB a CPU-second above 0, the one with the most MiB a CPU-second
    (`engine`), the stock engine chosen the same way (`stock`, None if none
    qualifies) and the ratio of their MiB a CPU-second (`ratio`);
    `stock_measured`: whether a stock engine left in has a saving and a MiB a
    CPU-second at all."""
    eff = "efficiency_mb_per_cpu_s"
    failed = [r["engine"] for r in rows if r.get("failed")]
    rows = [r for r in rows if r["engine"] != "none" and not r.get("failed")]
    saved = [r["saved_mb"] for r in rows if r.get("saved_mb") is not None]
    best = max(saved) if saved else None
    out = {"best_saved_mb": best, "engine": None, "stock": None, "ratio": None,
           "failed": failed,
           "stock_measured": any(is_stock(r["engine"]) and r.get("saved_mb") is not None and
                                 r.get(eff) is not None for r in rows)}
    if not best or best <= 0:
        return out
    ok = [r for r in rows if r.get("saved_mb") is not None and
          r["saved_mb"] >= VERDICT_SHARE * best and r.get(eff) is not None and r[eff] > 0]
    top = max(ok, key=lambda r: r[eff]) if ok else None
    stock = [r for r in ok if is_stock(r["engine"])]
    stock = max(stock, key=lambda r: r[eff]) if stock else None
    out["engine"], out["stock"] = top, stock
    if top and stock:
        out["ratio"] = top[eff] / stock[eff]
    return out


def stock_note(v):
    """Why a verdict has no stock engine."""
    if not v["stock_measured"]:
        return "stock engine not measured"
    return "no stock engine saved %d%% of the best saving" % (VERDICT_SHARE * 100)


def verdict_body(v):
    """verdict_text() without the workload's name."""
    tail = ("; left out, failed its own checks: %s" % ", ".join(v["failed"])
            if v.get("failed") else "")
    if v["best_saved_mb"] is None:
        if v.get("failed"):
            return "no engine to judge; failed their own checks: %s" % ", ".join(v["failed"])
        return "no engine's saving measured"
    if v["best_saved_mb"] <= 0:
        return "no engine saved memory" + tail
    top, stock = v["engine"], v["stock"]
    if top is None:
        return "no engine reached %d%% of the best saving (%.1f MiB) with a MiB/CPU-s to " \
               "count%s" % (VERDICT_SHARE * 100, v["best_saved_mb"], tail)
    text = "%s saves %.1f MiB (%s%% of the oracle) at %.1f MiB/CPU-s" % (
        top["engine"], top["saved_mb"], fmt(top.get("saved_oracle_pct"), 0),
        top["efficiency_mb_per_cpu_s"])
    if stock is None:
        text += "; " + stock_note(v)
    elif stock is top:
        text += ", the best stock engine itself"
    else:
        text += ", %.1fx the best stock engine (%s, %.1f MiB/CPU-s)" % (
            v["ratio"], stock["engine"], stock["efficiency_mb_per_cpu_s"])
    return text + tail


def verdict_text(wl, v):
    """One line: the verdict() of a workload."""
    return "%s: %s" % (wl, verdict_body(v))


def text_table(header, rows):
    """Aligned plain-text table: the first column left, the others right."""
    cells = [list(header)] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = []
    for r in cells:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    return out


def engine_cell(r):
    """A headline row's engine, marked when the pair failed its own checks."""
    return r["engine"] + (" (failed)" if r.get("failed") else "")


def headline_rows(rows):
    return [[engine_cell(r)] + [fmt(r.get(k), nd) for _, k, nd in headline_cols(rows)]
            for r in rows]


HEADLINE_NOTE = ("MiB saved and %% of oracle at the window's end; t99: seconds to 99%% of "
                 "the oracle; CPU s: engine CPU to t99 (or the window's end); MiB/CPU-s: "
                 "MiB saved at t99 a CPU-second of it; CPU s window: engine CPU over the "
                 "whole window; hot remote %% max and spread (NUMA workloads): the largest "
                 "share of an instance's hot reads that are remote, and the largest minus the "
                 "smallest (docs/bench.md)").replace("%%", "%")


def headline_text(summary, wl):
    """The terminal's headline of one workload: title, table, verdict."""
    rows = headline(summary, wl)
    return (["%s (SIZE_MB=%d):" % (wl, summary["sizes"][wl])] +
            ["  " + l for l in text_table(["engine"] + [c for c, _, _ in headline_cols(rows)],
                                          headline_rows(rows))] +
            ["  verdict: " + verdict_text(wl, verdict(rows))])


def workload_md(summary, wl, level="##", plots=()):
    """A workload's section: headline, verdict, plot, the detailed tables."""
    cols = ["t50_s", "t90_s", "t99_s", "saved_oracle_pct", "engine_cpu_s",
            "engine_cpu_window_s", "efficiency_mb_per_cpu_s", "examined_pages_per_cpu_s",
            "cow_breaks", "content_ok"]
    rows = headline(summary, wl)
    lines = ["%s %s (SIZE_MB=%d)" % (level, wl, summary["sizes"][wl]), "",
             "| engine | " + " | ".join(c for c, _, _ in headline_cols(rows)) + " |",
             "|---" * (len(headline_cols(rows)) + 1) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in headline_rows(rows)]
    lines += ["", "Verdict: " + verdict_text(wl, verdict(rows)), ""]
    for p in plots:
        if os.path.basename(p) == "%s.png" % wl:
            lines += ["![%s](%s)" % (wl, os.path.basename(p)), ""]
    lines += ["| engine | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for eng in pair_engines(summary, wl):
        agg = summary["aggregate"].get("%s/%s" % (wl, eng), {})
        lines.append("| %s | " % eng + " | ".join(fmt(agg.get(c, {}).get("median")) for c in cols) + " |")
    lines.append("")
    lines += figures_md(summary, wl, cols)
    return lines


def results_md(summary, plots=()):
    lines = ["# Bench results", "",
             "Run: %s, kernel %s, %s" % (summary["stamp"], summary["kernel_base"], summary["vm"]), "",
             "Command: `%s`" % summary["command"], "",
             "Medians of %d repetition(s); min..max in the JSON. Headline columns: %s." % (
                 summary["repeat"], HEADLINE_NOTE), ""]
    for wl in summary["workloads"]:
        lines += workload_md(summary, wl, plots=plots)
    return "\n".join(lines) + "\n"


# Columns of the second table: the counts behind the ratios, then
# whatever the workload itself reports (thp_kept_pct, writes, ...).
FIGURES = ["saved_pages", "oracle_pages", "ksm_saved_pages", "efficiency_window_mb_per_cpu_s",
           "us_per_saved_page", "examined_pages", "skipped_pages"]
NOT_FIGURES = {"window_s", "saved_agree", "saved_mb_at_t99", "saved_mb", "instances"}
INSTANCE_COLS = ["node", "nice", "merged_pages", "merged_local_pct", "hot_remote_pct",
                 "hot_reads_per_s"]


def figures_md(summary, wl, main_cols):
    engines = pair_engines(summary, wl)
    aggs = [summary["aggregate"].get("%s/%s" % (wl, e), {}) for e in engines]
    own = sorted({k for a in aggs for k in a} - set(FIGURES) - set(main_cols) - NOT_FIGURES)
    cols = FIGURES + own
    lines = ["| engine | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for eng, agg in zip(engines, aggs):
        lines.append("| %s | " % eng + " | ".join(fmt(agg.get(c, {}).get("median")) for c in cols) + " |")
    lines.append("")
    inst = [(r["engine"], r["rep"], i) for r in summary["runs"] if r["workload"] == wl
            for i in r["metrics"].get("instances") or []]
    if inst:
        lines += ["Instances (every repetition):", "",
                  "| engine | rep | instance | " + " | ".join(INSTANCE_COLS) + " |",
                  "|---" * (len(INSTANCE_COLS) + 3) + "|"]
        for eng, rep, i in sorted(inst, key=lambda x: (summary["engines"].index(x[0]), x[1],
                                                       str(x[2].get("instance")))):
            lines.append("| %s | %d | %s | " % (eng, rep, i.get("instance", "?")) +
                         " | ".join(fmt(whole(i.get(c))) for c in INSTANCE_COLS) + " |")
        lines.append("")
    return lines


def plot(summary, runs, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["matplotlib missing: no plots (harness/deps.sh installs python3-matplotlib)"]
    files = []
    for wl in summary["workloads"]:
        # A third panel, the adaptive hash's strength, when a run has one.
        hashed = any(s.get("hs", -1) > 0 for r in runs if r["workload"] == wl
                     for s in r["samples"])
        fig, axes = plt.subplots(1, 3 if hashed else 2, figsize=(18 if hashed else 12, 4.5))
        ax1, ax2 = axes[0], axes[1]
        for eng in pair_engines(summary, wl):
            for r in runs:
                S = [s for s in r["samples"] if s["t"] <= summary["window_s"] - 0.25]
                if r["workload"] != wl or r["engine"] != eng or not S:
                    continue
                t = [s["t"] for s in S]
                mb = [(s["sharing"] + max(s["zero"], 0)) * PAGE / 2**20 for s in S]
                cpu = [(s["engine_ns"] - S[0]["engine_ns"]) / 1e9 for s in S]
                label = eng if r["rep"] == 1 else None
                ax1.plot(t, mb, label=label, alpha=0.9 if r["rep"] == 1 else 0.35,
                         color="C%d" % summary["engines"].index(eng))
                ax2.plot(t, cpu, label=label, alpha=0.9 if r["rep"] == 1 else 0.35,
                         color="C%d" % summary["engines"].index(eng))
                if hashed and any(s.get("hs", -1) > 0 for s in S):
                    axes[2].plot(t, [max(s.get("hs", 0), 0) for s in S], label=label,
                                 alpha=0.9 if r["rep"] == 1 else 0.35,
                                 color="C%d" % summary["engines"].index(eng))
        oracle = summary["aggregate"].get("%s/%s" % (wl, pair_engines(summary, wl)[0]), {}).get(
            "oracle_pages", {}).get("median")
        if oracle:
            ax1.axhline(oracle * PAGE / 2**20, color="grey", ls="--", lw=1, label="oracle")
        ax1.set(title="%s: memory saved" % wl, xlabel="seconds since workload ready", ylabel="MiB saved")
        ax2.set(title="%s: engine CPU" % wl, xlabel="seconds since workload ready",
                ylabel="CPU seconds (schedstat)")
        ax1.legend()
        ax2.legend()
        if hashed:
            axes[2].set(title="%s: page hash strength" % wl, xlabel="seconds since workload ready",
                        ylabel="words hashed a page (of 1024)")
            axes[2].legend()
        fig.tight_layout()
        path = os.path.join(outdir, "%s.png" % wl)
        fig.savefig(path, dpi=90)
        plt.close(fig)
        files.append(path)
    return files


class Progress:
    """The serial log's story as it arrives (vm.run's on_line): the boot,
    a line as each run starts and one as it ends with its saving, each
    with the time left (time_left(), from the runs' estimates scaled by
    how long the finished runs took)."""

    def __init__(self, runs, window, ests, out=None, clock=None, boot_s=BOOT_S, end_s=END_S):
        self.names = ["bench/%s/%s/%d" % r for r in runs]
        self.runs, self.window, self.ests = runs, window, list(ests)
        self.out = out or sys.stdout
        self.clock = clock or time.monotonic
        self.boot_s, self.end_s = boot_s, end_s
        self.start = self.last_note = self.clock()
        self.booted = None
        self.cur, self.cur_start, self.cur_lines = None, None, []
        self.done = []
        self.reps = max(r[2] for r in runs) if runs else 1
        self.errors = 0

    def say(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def left(self, now):
        if self.booted is None:
            return max(0.0, self.boot_s - (now - self.start)) + sum(self.ests) + self.end_s
        elapsed = now - self.cur_start if self.cur is not None else 0.0
        return time_left(self.ests, self.done, elapsed, self.end_s)

    def label(self, i):
        wl, eng, rep = self.runs[i]
        return "[%*d/%d] %s, %s%s" % (len(str(len(self.runs))), i + 1, len(self.runs), wl, eng,
                                      " (repetition %d)" % rep if self.reps > 1 else "")

    def started(self):
        self.say("boot: QEMU started; %d runs to go, about %s in all" % (
            len(self.runs), mmss(self.left(self.clock()))))

    def __call__(self, line):
        """One serial line. A line the display cannot handle is skipped: the
        first such error's traceback is printed, and every later line is
        still handled (vm.run stops calling a callback that raises)."""
        try:
            self.line(line)
        except Exception:  # noqa: BLE001 - the display must not stop the bench's
            self.errors += 1
            if self.errors == 1:
                self.say("progress: a serial line broke the progress display (%r); "
                         "going on:\n%s" % (line, traceback.format_exc().rstrip()))

    def line(self, line):
        now = self.clock()
        mk = vm.MARKER.search(line)
        marker = mk.group(0) if mk else ""
        if self.booted is None:
            if marker.startswith("@@BOOT"):
                self.booted = now
                self.say("boot: guest up after %ds; about %s left" % (now - self.start,
                                                                       mmss(self.left(now))))
            elif now - self.last_note >= 5:
                self.last_note = now
                self.say("boot: booting (%ds)" % (now - self.start))
            return
        if marker.startswith("@@BEGIN "):
            name = marker[8:].strip()
            self.cur = self.names.index(name) if name in self.names else len(self.done)
            self.cur_start, self.cur_lines = now, []
            if self.cur < len(self.runs):
                self.say("%s: running (%d s window); about %s left" % (
                    self.label(self.cur), self.window, mmss(self.left(now))))
        elif marker.startswith("@@END ") and self.cur is not None:
            took = now - self.cur_start
            self.done.append(took)
            i, self.cur = self.cur, None
            if i < len(self.runs):
                self.say("%s: done in %ds: %s; about %s left" % (
                    self.label(i), took, self.run_result(marker), mmss(self.left(now))))
        elif marker.startswith("@@DONE"):
            self.say("guest: done after %s; writing the tables and plots" % mmss(now - self.start))
        elif marker.startswith("@@ERROR"):
            self.say("guest: %s" % marker)
        elif self.cur is not None:
            self.cur_lines.append(line)

    def run_result(self, end_marker):
        m = re.search(r"rc=(-?\d+)", end_marker)
        if m and m.group(1) != "0":
            return "FAILED (exit status %s)" % m.group(1)
        try:
            r = metrics(parse_run(self.cur_lines), self.window)
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as e:
            return "finished (no figures: %r)" % e
        if "error" in r:
            return r["error"]
        pct = r.get("saved_oracle_pct")
        return "%.1f MiB saved%s, t99 %s, engine CPU %.2f s" % (
            r["saved_mb"], " (%.0f%% of the oracle)" % pct if pct is not None else "",
            "%.1f s" % r["t99_s"] if r.get("t99_s") is not None else "not reached",
            r["engine_cpu_window_s"])


BASELINE_BEGIN = "<!-- baseline:begin -->"
BASELINE_END = "<!-- baseline:end -->"


def replace_block(text, begin, end, body):
    """text with the lines between the lines `begin` and `end` replaced by
    body (text ending in a newline); None when a marker is missing, given
    twice or out of order."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.strip() == begin]
    ends = [i for i, l in enumerate(lines) if l.strip() == end]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        return None
    return "".join(lines[:starts[0] + 1]) + body + "".join(lines[ends[0]:])


def block(text, begin, end):
    """What lies between the lines `begin` and `end`, or None."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.strip() == begin]
    ends = [i for i, l in enumerate(lines) if l.strip() == end]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        return None
    return "".join(lines[starts[0] + 1:ends[0]])


def baseline_md(summary):
    """`make baseline`'s section of docs/results.md."""
    lines = ["## The stock KSM baseline", "",
             "Generated by `%s` (`bench.py --publish`): kernel %s, %s. Medians of %d "
             "repetition(s). Headline columns: %s." % (
                 summary["command"], summary["kernel_base"], summary["vm"], summary["repeat"],
                 HEADLINE_NOTE), ""]
    for wl in summary["workloads"]:
        lines += workload_md(summary, wl, level="###")
    if summary["failures"]:
        lines += ["Consistency failures in this run:", ""]
        lines += ["- %s" % x for x in summary["failures"]] + [""]
    return "\n".join(lines)


def publish(path, summary):
    """Write the baseline into path between BASELINE_BEGIN and BASELINE_END
    (the rest of the file kept), or as the whole file if it has no such block."""
    body = baseline_md(summary)
    try:
        with open(path) as f:
            new = replace_block(f.read(), BASELINE_BEGIN, BASELINE_END, body)
    except FileNotFoundError:
        new = None
    if new is None:
        new = ("<!-- generated by bench/bench.py --publish; do not edit -->\n# Results\n\n"
               "%s\n%s%s\n" % (BASELINE_BEGIN, body, BASELINE_END))
    with open(path, "w") as f:
        f.write(new)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workloads", default=None, help='default "static-mix sparse"')
    ap.add_argument("--engines", default=None,
                    help='default "none ksm-100 ksm-1000 ksm-2000 ksm-advisor"')
    ap.add_argument("--workload-engines", default=None, metavar="WL=E1,E2 ...",
                    help="engines chosen per workload, instead of --workloads and --engines")
    ap.add_argument("--demo", action="store_true",
                    help="make demo: %s at small sizes over the engines engines.conf marks "
                    "demo, once each, %d s a run" % (", ".join(DEMO_WORKLOADS), DEMO_WINDOW))
    ap.add_argument("--size-mb", type=int, default=0, help="0: each workload's default")
    ap.add_argument("--repeat", type=int, default=None, help="default 3 (1 with --demo)")
    ap.add_argument("--window", type=int, default=None,
                    help="seconds each run lasts (default 60, %d with --demo)" % DEMO_WINDOW)
    ap.add_argument("--dry-run", action="store_true",
                    help="print the plan and its estimated wall time, and boot nothing")
    ap.add_argument("--kernel", default=os.path.join(TOP, "build", "obj-release", "arch", "x86", "boot", "bzImage"))
    ap.add_argument("--initrd", default=os.path.join(TOP, "build", "initramfs.cpio.gz"))
    ap.add_argument("--mem", type=int, default=3072)
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--append", default="", metavar="ARGS",
                    help="more kernel command line for the boot, e.g. cgroup_disable=memory")
    ap.add_argument("--outdir", default=None)
    ap.add_argument("--publish", default=None, metavar="MD",
                    help="also write the tables, as the stock baseline, to this file "
                    "(docs/results.md: between its baseline markers if it has them)")
    ap.add_argument("--from-log", default=None, metavar="DIR",
                    help="re-analyse DIR/serial.log of a finished bench run given the same "
                    "workload, engine, size, repeat, window and node options, without booting")
    args = ap.parse_args(argv)

    engines_conf, demo = read_engines()
    chosen = [o for o, v in (("--workloads", args.workloads), ("--engines", args.engines),
                             ("--workload-engines", args.workload_engines)) if v is not None]
    if args.demo and chosen:
        ap.error("--demo runs its own workloads and engines: drop %s" % " ".join(chosen))
    if args.workload_engines is not None and len(chosen) > 1:
        ap.error("--workload-engines replaces --workloads and --engines: give one or the other")
    if args.demo:
        pairs = demo_pairs(demo)
        if not any(engs for _, engs in pairs):
            ap.error("no engine in bench/engines.conf is marked demo")
        pairs = [(wl, engs) for wl, engs in pairs if engs]
    elif args.workload_engines is not None:
        try:
            pairs = parse_pairs(args.workload_engines, WORKLOADS, engines_conf)
        except ValueError as e:
            ap.error("--workload-engines: %s" % e)
    else:
        workloads = (args.workloads or "static-mix sparse").split()
        engines = (args.engines or "none ksm-100 ksm-1000 ksm-2000 ksm-advisor").split()
        for w in workloads:
            if w not in WORKLOADS:
                ap.error("unknown workload %r (known: %s)" % (w, " ".join(WORKLOADS)))
        for e in engines:
            if e not in engines_conf:
                ap.error("unknown engine %r (known: %s)" % (e, " ".join(engines_conf)))
        if not workloads or not engines:
            ap.error("no workload or no engine given")
        pairs = [(w, list(engines)) for w in dict.fromkeys(workloads)]
    if args.repeat is None:
        args.repeat = 1 if args.demo else 3
    if args.window is None:
        args.window = DEMO_WINDOW if args.demo else 60
    if args.repeat < 1 or args.window < 5 or args.size_mb < 0:
        ap.error("--repeat >= 1, --window >= 5, --size-mb >= 0")
    if args.nodes < 1 or args.mem < 256:
        ap.error("--nodes >= 1, --mem >= 256")
    workloads = [wl for wl, _ in pairs]
    engines = list(dict.fromkeys(e for _, engs in pairs for e in engs))
    sizes = {w: args.size_mb or (DEMO_SIZE if args.demo else DEFAULT_SIZE)[w] for w in workloads}
    runs_planned = plan_runs(pairs, args.repeat)
    ests = [run_estimate_s(wl, sizes[wl], args.window) for wl, _, _ in runs_planned]
    est = estimate_s(runs_planned, sizes, args.window)

    if args.demo:
        command = "make demo"
    elif args.workload_engines is not None:
        command = "python3 bench/bench.py --workload-engines \"%s\" --size-mb %d --repeat %d " \
                  "--window %d" % (" ".join("%s=%s" % (w, ",".join(e)) for w, e in pairs),
                                   args.size_mb, args.repeat, args.window)
    else:
        command = "make bench WORKLOADS=\"%s\" ENGINES=\"%s\" SIZE_MB=%d REPEAT=%d WINDOW=%d" % (
            " ".join(workloads), " ".join(engines), args.size_mb, args.repeat, args.window)
    what = "demo" if args.demo else "bench"
    if args.dry_run:
        print("%s: %d runs of %d s in one boot; estimated %s (boot %d s, %d s beyond its window "
              "a run on average, %d s for the tables and plots)" % (
                  what, len(runs_planned), args.window, mmss(est), BOOT_S,
                  round((est - BOOT_S - END_S) / len(runs_planned) - args.window), END_S))
        for wl, engs in pairs:
            print("  %s (SIZE_MB=%d): %s" % (wl, sizes[wl], " ".join(engs)))
        if args.demo:
            total = demo_estimate_s(demo, args.window)
            print("make demo from a built tree: about %s (budget %s)" % (
                mmss(total), mmss(DEMO_BUDGET_S)))
        return 0

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = args.outdir or os.path.join(TOP, "build", "bench", stamp)
    if args.from_log:
        outdir = args.outdir = os.path.abspath(args.from_log)
        stamp = os.path.basename(outdir)
        if not os.path.isfile(os.path.join(outdir, "serial.log")):
            ap.error("--from-log: no serial.log in %s" % outdir)
    elif not os.path.isfile(args.kernel) or not os.path.isfile(args.initrd):
        ap.error("no kernel %s or initramfs %s: make kernel-release guest" % (args.kernel, args.initrd))
    os.makedirs(os.path.join(outdir, "series"), exist_ok=True)

    plan = []
    for wl, eng, rep in runs_planned:
        cmd = "%s && ksm-sample -i %d -m %d -- %s" % (
            engine_cmd(engines_conf[eng]), SAMPLE_MS, pagemap_every(args.window),
            WORKLOADS[wl].format(size=sizes[wl], window=args.window))
        plan.append(("bench/%s/%s/%d" % (wl, eng, rep), args.window + 300, cmd))
    log = os.path.join(outdir, "serial.log")
    start = time.monotonic()
    if args.from_log:
        print("%s: re-analysing %d runs from %s" % (what, len(plan), log), flush=True)
        boot = vm.from_log(log, nodes=args.nodes)
        missing = [n for n, _, _ in plan if n not in boot.tests]
        if len(missing) == len(plan):
            ap.error("--from-log: none of the planned runs is in %s (other options?)" % log)
    else:
        print("%s: %d runs of %d s in one boot of the release kernel (QEMU TCG, %d vCPUs, "
              "%d MiB, %d nodes), estimated %s; logs in %s" % (
                  what, len(plan), args.window, max(2, args.nodes), args.mem, args.nodes,
                  mmss(est), outdir), flush=True)
        progress = Progress(runs_planned, args.window, ests)
        progress.started()
        boot = vm.run(args.kernel, args.initrd, plan, log, mem_mb=args.mem, nodes=args.nodes,
                      append=args.append, on_line=progress)

    runs, failures = [], list(boot.problems())
    for name, _, _ in plan:
        _, wl, eng, rep = name.split("/")
        g = boot.tests.get(name)
        run = parse_run(g.output if g else [])
        m = metrics(run, args.window)
        if g is None or g.rc is None:
            m["error"] = "run did not finish"
        probs = consistency(m)
        failures += ["%s: %s" % (name, p) for p in probs]
        runs.append({"workload": wl, "engine": eng, "rep": int(rep), "metrics": m,
                     "samples": run["samples"], "problems": probs,
                     "torn_samples": run.get("torn_samples", 0),
                     "secs": g.secs if g else None})
        with open(os.path.join(outdir, "series", "%s_%s_%s.csv" % (wl, eng, rep)), "w") as f:
            keys = ["t", "pre", "sharing", "shared", "zero", "full_scans", "scanned", "skipped",
                    "engine_ns", "cow_ksm", "hs", "up", "dn", "rbot", "rtop", "stall",
                    "saved_pm"]
            f.write(",".join(keys) + "\n")
            for s in run["samples"]:
                f.write(",".join(str(s.get(k, "")) for k in keys) + "\n")

    base = open(os.path.join(TOP, "kernel", "BASE_VERSION")).read().strip()
    summary = {
        "stamp": stamp, "kernel_base": "linux-source-6.12 %s" % base,
        "vm": "QEMU TCG, %d vCPUs, %d MiB, %d fake NUMA nodes, release kernel" % (
            max(2, args.nodes), args.mem, args.nodes),
        "command": command,
        "workloads": workloads, "engines": engines, "pairs": dict(pairs), "sizes": sizes,
        "repeat": args.repeat, "window_s": args.window,
        "runs": [{k: v for k, v in r.items() if k != "samples"} for r in runs],
        "aggregate": {},
        "failures": failures,
        "boot_wall_s": None if args.from_log else round(boot.secs, 1),
        "estimate_s": round(est),
    }
    for wl, engs in pairs:
        for eng in engs:
            ms = [r["metrics"] for r in runs if r["workload"] == wl and r["engine"] == eng]
            keys = sorted({k for m in ms for k in m})
            summary["aggregate"]["%s/%s" % (wl, eng)] = {k: aggregate([m.get(k) for m in ms]) for k in keys}
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    plots = plot(summary, runs, outdir)
    md = results_md(summary, plots)
    report = os.path.join(outdir, "results.md")
    with open(report, "w") as f:
        f.write(md)
    if args.publish:
        publish(args.publish, summary)
    if not args.outdir:
        latest = os.path.join(TOP, "build", "bench", "latest")
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(stamp, latest)
    print()
    for wl in workloads:
        print("\n".join(headline_text(summary, wl)))
        print()
    print("Columns: %s." % HEADLINE_NOTE)
    print()
    print("plots: %s" % " ".join(plots))
    print("report (every table): %s" % report)
    print("summary: %s" % os.path.join(outdir, "summary.json"))
    if args.publish:
        print("published: %s" % args.publish)
    if not args.from_log:
        print("wall time %s (estimated %s)" % (mmss(time.monotonic() - start), mmss(est)))
    for f in failures:
        print("FAIL: %s" % f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
