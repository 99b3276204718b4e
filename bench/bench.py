#!/usr/bin/env python3
"""Side-by-side bench: every (workload, engine) pair REPEAT times in one boot.

    bench.py [--workloads "static-mix sparse"] [--engines "none ksm-1000"]
             [--size-mb N] [--repeat R] [--window S] [--kernel bzImage]

Writes build/bench/<stamp>/ (series/*.csv, summary.json, results.md, plots)
and points build/bench/latest at it. Metric definitions: docs/bench.md.
Exits non-zero when a run fails its own consistency checks.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys

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


DEMO_WORKLOADS = "static-mix similar-images numa-mirror"
DEMO_SIZE = {"static-mix": 128, "similar-images": 32, "numa-mirror": 32}


def read_engines(path=os.path.join(TOP, "bench", "engines.conf")):
    """name -> knobs, and the names marked `demo` (in the default demo)."""
    engines, demo = {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            knobs = [w for w in words[1:] if w != "demo"]
            for kv in knobs:
                if not re.fullmatch(r"[a-z_]+(/[a-z_]+)?=[\w.-]+", kv):
                    raise SystemExit("%s:%d: bad knob %r" % (path, n, kv))
            engines[words[0]] = knobs
            if "demo" in words[1:]:
                demo.append(words[0])
    return engines, demo


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


def results_md(summary):
    cols = ["t50_s", "t90_s", "t99_s", "saved_oracle_pct", "engine_cpu_s",
            "engine_cpu_window_s", "efficiency_mb_per_cpu_s", "examined_pages_per_cpu_s",
            "cow_breaks", "content_ok"]
    lines = ["# Bench results", "",
             "Run: %s, kernel %s, %s" % (summary["stamp"], summary["kernel_base"], summary["vm"]), "",
             "Command: `%s`" % summary["command"], "",
             "Medians of %d repetition(s); min..max in the JSON." % summary["repeat"], ""]
    for wl in summary["workloads"]:
        lines += ["## %s (SIZE_MB=%d)" % (wl, summary["sizes"][wl]), "",
                  "| engine | " + " | ".join(cols) + " |",
                  "|---" * (len(cols) + 1) + "|"]
        for eng in summary["engines"]:
            agg = summary["aggregate"].get("%s/%s" % (wl, eng), {})
            lines.append("| %s | " % eng + " | ".join(fmt(agg.get(c, {}).get("median")) for c in cols) + " |")
        lines.append("")
        lines += figures_md(summary, wl, cols)
    return "\n".join(lines) + "\n"


# Columns of the second table: the counts behind the ratios, then
# whatever the workload itself reports (thp_kept_pct, writes, ...).
FIGURES = ["saved_pages", "oracle_pages", "ksm_saved_pages", "efficiency_window_mb_per_cpu_s",
           "us_per_saved_page", "examined_pages", "skipped_pages"]
NOT_FIGURES = {"window_s", "saved_agree", "saved_mb_at_t99", "instances"}
INSTANCE_COLS = ["node", "nice", "merged_pages", "merged_local_pct", "hot_remote_pct",
                 "hot_reads_per_s"]


def figures_md(summary, wl, main_cols):
    aggs = [summary["aggregate"].get("%s/%s" % (wl, e), {}) for e in summary["engines"]]
    own = sorted({k for a in aggs for k in a} - set(FIGURES) - set(main_cols) - NOT_FIGURES)
    cols = FIGURES + own
    lines = ["| engine | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for eng, agg in zip(summary["engines"], aggs):
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
        for eng in summary["engines"]:
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
        oracle = summary["aggregate"].get("%s/%s" % (wl, summary["engines"][0]), {}).get(
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workloads", default="static-mix sparse")
    ap.add_argument("--engines", default="none ksm-100 ksm-1000 ksm-2000 ksm-advisor")
    ap.add_argument("--demo", action="store_true",
                    help="the default scenario: %s at small sizes over the engines marked "
                    "demo, once each" % DEMO_WORKLOADS)
    ap.add_argument("--size-mb", type=int, default=0, help="0: each workload's default")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--window", type=int, default=60, help="seconds each run lasts")
    ap.add_argument("--kernel", default=os.path.join(TOP, "build", "obj-release", "arch", "x86", "boot", "bzImage"))
    ap.add_argument("--initrd", default=os.path.join(TOP, "build", "initramfs.cpio.gz"))
    ap.add_argument("--mem", type=int, default=3072)
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--append", default="", metavar="ARGS",
                    help="more kernel command line for the boot, e.g. cgroup_disable=memory")
    ap.add_argument("--outdir", default=None)
    ap.add_argument("--publish", default=None, metavar="MD",
                    help="also write the results table to this file (docs/results.md)")
    ap.add_argument("--from-log", default=None, metavar="DIR",
                    help="re-analyse DIR/serial.log of a finished bench run given the same "
                    "workload, engine, size, repeat, window and node options, without booting")
    args = ap.parse_args(argv)

    engines_conf, demo_engines = read_engines()
    workloads, engines = args.workloads.split(), args.engines.split()
    if args.demo:
        workloads, engines, args.repeat = DEMO_WORKLOADS.split(), demo_engines, 1
    for w in workloads:
        if w not in WORKLOADS:
            ap.error("unknown workload %r (known: %s)" % (w, " ".join(WORKLOADS)))
    for e in engines:
        if e not in engines_conf:
            ap.error("unknown engine %r (known: %s)" % (e, " ".join(engines_conf)))
    if args.repeat < 1 or args.window < 5 or args.size_mb < 0:
        ap.error("--repeat >= 1, --window >= 5, --size-mb >= 0")
    sizes = {w: args.size_mb or (DEMO_SIZE if args.demo else DEFAULT_SIZE)[w] for w in workloads}

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = args.outdir or os.path.join(TOP, "build", "bench", stamp)
    if args.from_log:
        outdir = args.outdir = os.path.abspath(args.from_log)
        stamp = os.path.basename(outdir)
        if not os.path.isfile(os.path.join(outdir, "serial.log")):
            ap.error("--from-log: no serial.log in %s" % outdir)
    os.makedirs(os.path.join(outdir, "series"), exist_ok=True)

    plan = []
    for rep in range(1, args.repeat + 1):
        for wl in workloads:
            for eng in engines:
                cmd = "%s && ksm-sample -i %d -m %d -- %s" % (
                    engine_cmd(engines_conf[eng]), SAMPLE_MS,
                    pagemap_every(args.window),
                    WORKLOADS[wl].format(size=sizes[wl], window=args.window))
                plan.append(("bench/%s/%s/%d" % (wl, eng, rep), args.window + 300, cmd))
    log = os.path.join(outdir, "serial.log")
    if args.from_log:
        print("bench: re-analysing %d runs from %s" % (len(plan), log), flush=True)
        boot = vm.from_log(log, nodes=args.nodes)
        missing = [n for n, _, _ in plan if n not in boot.tests]
        if len(missing) == len(plan):
            ap.error("--from-log: none of the planned runs is in %s (other options?)" % log)
    else:
        print("bench: %d runs of %ds in one boot (%d MiB, %d nodes); logs in %s" % (
            len(plan), args.window, args.mem, args.nodes, outdir), flush=True)
        boot = vm.run(args.kernel, args.initrd, plan, log, mem_mb=args.mem, nodes=args.nodes,
                      append=args.append)

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
                     "torn_samples": run.get("torn_samples", 0)})
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
        "command": "make bench WORKLOADS=\"%s\" ENGINES=\"%s\" SIZE_MB=%d REPEAT=%d WINDOW=%d" % (
            " ".join(workloads), " ".join(engines), args.size_mb, args.repeat, args.window),
        "workloads": workloads, "engines": engines, "sizes": sizes, "repeat": args.repeat,
        "window_s": args.window,
        "runs": [{k: v for k, v in r.items() if k != "samples"} for r in runs],
        "aggregate": {},
        "failures": failures,
    }
    for wl in workloads:
        for eng in engines:
            ms = [r["metrics"] for r in runs if r["workload"] == wl and r["engine"] == eng]
            keys = sorted({k for m in ms for k in m})
            summary["aggregate"]["%s/%s" % (wl, eng)] = {k: aggregate([m.get(k) for m in ms]) for k in keys}
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    md = results_md(summary)
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(md)
    plots = plot(summary, runs, outdir)
    if args.publish:
        with open(args.publish, "w") as f:
            f.write("<!-- generated by bench/bench.py --publish; do not edit -->\n")
            f.write(md.replace("# Bench results", "# Results: the stock KSM baseline", 1))
            if failures:
                f.write("\nConsistency failures in this run:\n\n")
                f.write("".join("- %s\n" % x for x in failures))
    if not args.outdir:
        latest = os.path.join(TOP, "build", "bench", "latest")
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(stamp, latest)
    print(md)
    print("plots: %s" % " ".join(plots))
    print("summary: %s" % os.path.join(outdir, "summary.json"))
    for f in failures:
        print("FAIL: %s" % f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
