#!/usr/bin/env python3
"""make results: the benches bench/targets.conf names, into docs/results.md.

    results.py [--dry-run] [--repeat 3] [--targets bench/targets.conf]
               [--out docs/results.md] [--readme README.md]
               [--workdir build/results] [--budget-min 120] [--no-run]

Every `make bench ...` command in targets.conf's comments is a section: one
boot of the release kernel that runs each workload of the command with the
engines its targets name (as ENGINE or ENGINE2) and RESULTS_STOCK as the
stock reference, REPEAT times. A workload at a size an earlier command
already runs is run there, with the engines of both. The window is the
command's WINDOW, else the longest RESULTS_WINDOW of its workloads.

Writes docs/results.md (generated: every section's command and configuration,
its headline tables, verdicts, detailed tables, and every target's PASS, FAIL
or MISSING over these runs; the stock baseline `make baseline` publishes
there is kept) and rewrites the block between README.md's results markers
(README is left alone, with a note, when it has none). --dry-run prints the
plan and its estimated wall time; a plan over the budget is refused.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    from bench import bench, check  # imported from the checkout's top (the tests)
except ImportError:
    import bench  # run as bench/results.py: its directory comes first on the path
    import check

# The stock engine every workload also runs under, so that each has a
# stock engine to be weighed against.
RESULTS_STOCK = "ksm-1000"
# The window of a command that names none: RESULTS_WINDOW_DEFAULT, or longer
# for a workload whose targets need it: static-mix's idle share is taken
# from t99 + 10 s and needs 10 s more, and its window efficiency is set
# against stock KSM idling through a 60 s window.
RESULTS_WINDOW_DEFAULT = 30
RESULTS_WINDOW = {"static-mix": 60}
RESULTS_BUDGET_MIN = 120
BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"


def read_commands(path):
    """The `make bench ...` commands in path's comments: [{line, text, title,
    vars: {WORKLOADS, ENGINES, SIZE_MB, WINDOW, ...}}]. The title is the
    start of the comment paragraph the command is in (up to its first
    comma, colon or parenthesis)."""
    with open(path) as f:
        lines = f.read().splitlines()
    cmds, title, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("#"):
            title = None
            i += 1
            continue
        text = line.lstrip("#").strip()
        if title is None and text:
            title = re.split(r"[,:(]", text, 1)[0].strip()
        start = i
        if text.startswith("make bench"):
            while text.endswith("\\") and i + 1 < len(lines) and lines[i + 1].startswith("#"):
                i += 1
                text = text[:-1].rstrip() + " " + lines[i].lstrip("#").strip()
            try:
                words = shlex.split(text)[2:]
            except ValueError as e:
                raise SystemExit("%s:%d: %s" % (path, start + 1, e))
            kv = {}
            for w in words:
                k, sep, v = w.partition("=")
                if not sep or not re.fullmatch(r"[A-Z_]+", k):
                    raise SystemExit("%s:%d: want make bench VAR=VALUE ..., got %r" % (
                        path, start + 1, w))
                kv[k] = v
            if not kv.get("WORKLOADS") or not kv.get("ENGINES"):
                raise SystemExit("%s:%d: a bench command needs WORKLOADS and ENGINES" % (
                    path, start + 1))
            cmds.append({"line": start + 1, "text": text, "title": title or "Bench", "vars": kv})
        i += 1
    return cmds


def named_engines(targets, wl):
    """Engines the targets of one workload name, as ENGINE or in ENGINE2."""
    out = set()
    for t in targets:
        if t["wl"] == wl:
            out.add(t["eng"])
            out.update((t["ref"] or "").split(",") if t["ref"] else ())
    return out


def int_var(cmd, key, default):
    v = cmd["vars"].get(key)
    if v is None:
        return default
    if not re.fullmatch(r"\d+", v):
        raise SystemExit("targets.conf:%d: %s=%r is not a number" % (cmd["line"], key, v))
    return int(v)


def plan(cmds, targets, engines_conf, repeat):
    """Sections to run: [{title, source, pairs [(wl, [engines])], size_mb,
    window, repeat, estimate_s}] (see the module's docstring)."""
    sections, where = [], {}
    for cmd in cmds:
        wls, engs = cmd["vars"]["WORKLOADS"].split(), cmd["vars"]["ENGINES"].split()
        for x in wls:
            if x not in bench.WORKLOADS:
                raise SystemExit("targets.conf:%d: unknown workload %r" % (cmd["line"], x))
        for x in engs:
            if x not in engines_conf:
                raise SystemExit("targets.conf:%d: unknown engine %r" % (cmd["line"], x))
        size = int_var(cmd, "SIZE_MB", 0)
        window = int_var(cmd, "WINDOW", 0) or max(
            RESULTS_WINDOW.get(w, RESULTS_WINDOW_DEFAULT) for w in wls)
        sec = {"title": cmd["title"], "source": [cmd["text"]], "line": cmd["line"],
               "pairs": [], "size_mb": size, "window": window, "repeat": repeat}
        for wl in wls:
            named = named_engines(targets, wl)
            chosen = [e for e in engs if e in named or e == RESULTS_STOCK] if named else list(engs)
            key = (wl, size or bench.DEFAULT_SIZE[wl])
            if key in where:
                # Run with the earlier command's, in its boot.
                prev, i = where[key]
                old = prev["pairs"][i][1]
                old += [e for e in chosen if e not in old]
                prev["window"] = max(prev["window"], window)
                if cmd["text"] not in prev["source"]:
                    prev["source"].append(cmd["text"])
                continue
            where[key] = (sec, len(sec["pairs"]))
            sec["pairs"].append((wl, chosen))
        if sec["pairs"]:
            sections.append(sec)
    for sec in sections:
        sizes = {wl: sec["size_mb"] or bench.DEFAULT_SIZE[wl] for wl, _ in sec["pairs"]}
        sec["sizes"] = sizes
        sec["runs"] = len(bench.plan_runs(sec["pairs"], repeat))
        sec["estimate_s"] = bench.estimate_s(bench.plan_runs(sec["pairs"], repeat), sizes,
                                             sec["window"])
    return sections


def bench_args(sec):
    """bench.py's arguments for one section (without --outdir)."""
    return ["--workload-engines", " ".join("%s=%s" % (wl, ",".join(e)) for wl, e in sec["pairs"]),
            "--size-mb", str(sec["size_mb"]), "--repeat", str(sec["repeat"]),
            "--window", str(sec["window"])]


def command_text(sec):
    return "python3 bench/bench.py " + " ".join(shlex.quote(a) for a in bench_args(sec))


def heading(sec):
    return "%s: %s" % (sec["title"], ", ".join(wl for wl, _ in sec["pairs"]))


def print_plan(sections, budget_s, out=sys.stdout):
    total = sum(s["estimate_s"] for s in sections)
    for k, sec in enumerate(sections, 1):
        out.write("section %d: %s\n  targets.conf: %s\n  runs %d x %d s, estimated %s\n" % (
            k, heading(sec), " | ".join(sec["source"]), sec["runs"], sec["window"],
            bench.mmss(sec["estimate_s"])))
        for wl, engs in sec["pairs"]:
            out.write("    %s (SIZE_MB=%d): %s\n" % (wl, sec["sizes"][wl], " ".join(engs)))
    out.write("results: %d sections, %d runs, estimated %s of a budget of %s: %s\n" % (
        len(sections), sum(s["runs"] for s in sections), bench.mmss(total), bench.mmss(budget_s),
        "fits" if total <= budget_s else "does NOT fit"))
    return total


def merged_summary(summaries):
    """One summary for check.check(): every section's aggregates (a
    workload and engine pair from its first section)."""
    agg = {}
    for s in summaries:
        for k, v in s["aggregate"].items():
            agg.setdefault(k, v)
    return {"aggregate": agg}


def results_doc(sections, summaries, targets, repeat, baseline=None):
    """docs/results.md from the sections run and their summary.json."""
    first = next(s for s in summaries if s)
    lines = ["<!-- generated by bench/results.py (make results); do not edit -->",
             "# Results", "",
             "Generated by `make results` (`bench/results.py`, REPEAT=%d): every bench "
             "`bench/targets.conf` names, each workload with the engines its targets name "
             "and `%s` as the stock reference, one boot a section; kernel %s; %s. Medians "
             "of %d repetition(s); metrics as defined in `docs/bench.md`. Headline columns: %s. "
             "Verdict: among the engines other than `none` that save at least %d%% of the "
             "best saving, the one with the most MiB a CPU-second, against the stock "
             "engine (`ksm-*`) chosen the same way." % (
                 repeat, RESULTS_STOCK, first["kernel_base"], first["vm"], repeat,
                 bench.HEADLINE_NOTE, bench.VERDICT_SHARE * 100), ""]
    lines += ["## Headline", ""] + headline_table(sections, summaries) + [""]
    results = check.check(merged_summary([s for s in summaries if s]), targets)
    counts = {v: sum(r[0] == v for r in results) for v in ("PASS", "FAIL", "MISSING")}
    lines += ["## Targets", "",
              "Every target of `bench/targets.conf` over these runs (`make bench-check`'s "
              "rule, medians decide): %d PASS, %d FAIL, %d MISSING." % (
                  counts["PASS"], counts["FAIL"], counts["MISSING"]), "",
              "| verdict | target | got |", "|---|---|---|"]
    lines += ["| %s | `%s` | %s |" % (v, name, "-" if got is None else "%.4g" % got)
              for v, name, got in results]
    lines.append("")
    for k, (sec, summ) in enumerate(zip(sections, summaries), 1):
        lines += ["## %d. %s" % (k, heading(sec)), ""]
        lines += ["Command: `%s` (window %d s, SIZE_MB=%d, REPEAT=%d), from `bench/targets.conf`'s "
                  "%s." % (command_text(sec), sec["window"], sec["size_mb"], sec["repeat"],
                           " and ".join("`%s`" % t for t in sec["source"])), ""]
        if not summ:
            lines += ["Not run: the bench wrote no summary.", ""]
            continue
        for wl in summ["workloads"]:
            lines += bench.workload_md(summ, wl, level="###")
        if summ["failures"]:
            lines += ["Consistency failures:", ""] + ["- %s" % x for x in summ["failures"]] + [""]
    if baseline:
        lines += [bench.BASELINE_BEGIN, baseline.rstrip("\n"), bench.BASELINE_END, ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def verdict_rows(sections, summaries):
    """Per workload with a verdict: (workload, size, verdict)."""
    rows = []
    for sec, summ in zip(sections, summaries):
        if not summ:
            continue
        for wl in summ["workloads"]:
            v = bench.verdict(bench.headline(summ, wl))
            if v["engine"] is not None:
                rows.append((wl, summ["sizes"][wl], v))
    return rows


def headline_table(sections, summaries):
    lines = ["| workload (SIZE_MB) | best stock engine, MiB/CPU-s | best engine, MiB/CPU-s | "
             "its saving, % of oracle | ratio |", "|---|---|---|---|---|"]
    for wl, size, v in verdict_rows(sections, summaries):
        top, stock = v["engine"], v["stock"]
        lines.append("| %s (%d) | %s | %s, %s | %s | %s |" % (
            wl, size,
            "%s, %s" % (stock["engine"], bench.fmt(stock["efficiency_mb_per_cpu_s"], 1))
            if stock else "none saved %d%% of the best" % (bench.VERDICT_SHARE * 100),
            top["engine"], bench.fmt(top["efficiency_mb_per_cpu_s"], 1),
            bench.fmt(top.get("saved_oracle_pct"), 0),
            "%.1fx" % v["ratio"] if v["ratio"] is not None else "-"))
    return lines


def readme_block(sections, summaries, repeat):
    first = next(s for s in summaries if s)
    lines = ["", "Generated by `make results` (REPEAT=%d; %s; the window and size of each "
             "section in `docs/results.md`, which holds every table and target): per "
             "workload, the stock engine and the engine with the most MiB saved per engine "
             "CPU-second among those saving %d%% of the best saving." % (
                 repeat, first["vm"], bench.VERDICT_SHARE * 100), ""]
    return "\n".join(lines + headline_table(sections, summaries) + ["", ""])


def old_baseline(path):
    """The stock baseline block of an existing results file: between its
    markers, or the whole of a file `bench.py --publish` wrote without them."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    got = bench.block(text, bench.BASELINE_BEGIN, bench.BASELINE_END)
    if got is not None:
        return got
    if text.startswith("<!-- generated by bench/bench.py --publish"):
        body = text.split("\n", 1)[1]
        # One heading level down, under this file's title.
        return re.sub(r"(?m)^(#+) ", r"#\1 ", body)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="print the plan and its estimate")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--targets", default=os.path.join(TOP, "bench", "targets.conf"))
    ap.add_argument("--out", default=os.path.join(TOP, "docs", "results.md"))
    ap.add_argument("--readme", default=os.path.join(TOP, "README.md"))
    ap.add_argument("--workdir", default=os.path.join(TOP, "build", "results"),
                    help="where each section's bench writes (WORKDIR/N)")
    ap.add_argument("--budget-min", type=float, default=RESULTS_BUDGET_MIN)
    ap.add_argument("--no-run", action="store_true",
                    help="write the documents from the sections' summaries already in WORKDIR")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.budget_min <= 0:
        ap.error("--repeat >= 1 and --budget-min > 0")
    if not os.path.isfile(args.targets):
        ap.error("no targets file %s" % args.targets)

    engines_conf, _ = bench.read_engines()
    targets = check.read_targets(args.targets)
    cmds = read_commands(args.targets)
    if not cmds:
        ap.error("%s names no `make bench` command in its comments" % args.targets)
    sections = plan(cmds, targets, engines_conf, args.repeat)
    budget = args.budget_min * 60
    total = print_plan(sections, budget)
    if args.dry_run:
        return 0 if total <= budget else 1
    if total > budget and not args.no_run:
        print("results: the plan does not fit its budget; shorten the windows or raise "
              "--budget-min")
        return 1

    failed = []
    if not args.no_run:
        left = total
        for k, sec in enumerate(sections, 1):
            outdir = os.path.join(args.workdir, str(k))
            shutil.rmtree(outdir, ignore_errors=True)
            print("\nresults: section %d of %d, %s: estimated %s, about %s left in all" % (
                k, len(sections), heading(sec), bench.mmss(sec["estimate_s"]), bench.mmss(left)),
                flush=True)
            rc = subprocess.call([sys.executable, os.path.join(TOP, "bench", "bench.py")] +
                                 bench_args(sec) + ["--outdir", outdir])
            if rc:
                failed.append("section %d (%s): bench.py exit status %d" % (k, heading(sec), rc))
            left -= sec["estimate_s"]
    summaries = []
    for k, sec in enumerate(sections, 1):
        try:
            with open(os.path.join(args.workdir, str(k), "summary.json")) as f:
                summ = json.load(f)
        except (OSError, ValueError):
            summ = None
        if summ and summ.get("pairs") != {wl: e for wl, e in sec["pairs"]}:
            print("results: %s/%d/summary.json is of another plan: left out" % (args.workdir, k))
            summ = None
        if summ is None:
            failed.append("section %d (%s): no summary" % (k, heading(sec)))
        summaries.append(summ)
    if not any(summaries):
        print("results: no section has a summary; nothing written")
        return 1

    doc = results_doc(sections, summaries, targets, args.repeat, old_baseline(args.out))
    with open(args.out, "w") as f:
        f.write(doc)
    print("\nresults: wrote %s" % args.out)
    print("\n".join(headline_table(sections, summaries)))
    try:
        with open(args.readme) as f:
            readme = f.read()
    except FileNotFoundError:
        readme = None
    new = readme and bench.replace_block(readme, BEGIN, END,
                                         readme_block(sections, summaries, args.repeat))
    if new is None:
        print("results: %s has no %s ... %s block: left alone" % (args.readme, BEGIN, END))
    else:
        with open(args.readme, "w") as f:
            f.write(new)
        print("results: rewrote the block between the results markers of %s" % args.readme)
    for x in failed:
        print("FAIL: %s" % x)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
