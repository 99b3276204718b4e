#!/usr/bin/env python3
"""make results: the benches bench/targets.conf names, into docs/results.md.

    results.py [--dry-run] [--repeat 3] [--targets bench/targets.conf]
               [--out docs/results.md] [--readme README.md]
               [--workdir build/results] [--budget-min 120] [--no-run]

Every `make bench ...` command in targets.conf's comments is a section: one
boot of the release kernel that runs each workload of the command with the
engines of the command its targets name (as ENGINE or in ENGINE2; all of the
command's when no target names the workload) and RESULTS_STOCK, always, as
the stock reference, REPEAT (--repeat) times. The window is the command's
WINDOW, else make bench's (BENCH_WINDOW); the size its SIZE_MB, else each
workload's default. A workload at a size and window an earlier command
already runs is run there, with the engines of both. A command may set
WORKLOADS, ENGINES, SIZE_MB and WINDOW only; a plan in which a target's
engine, or an engine of its ENGINE2 list, does not run on its workload is
refused.

Only when every section ran and is clean (a summary of this plan, no
consistency failure) does it write docs/results.md (generated: every
section's command and configuration, its headline tables, verdicts,
detailed tables, and every target's PASS, FAIL or MISSING over these runs;
the stock baseline `make baseline` publishes there is kept) and rewrite the
block between README.md's results markers (README is left alone, with a
note, when it has none); otherwise it writes the partial document to
WORKDIR/results.md, leaves both alone and exits non-zero. --dry-run prints
the plan and its estimated wall time; a plan over the budget is refused.
"""

import argparse
import json
import math
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    from bench import bench, check  # imported from the checkout's top (the tests)
except ImportError:
    import bench  # run as bench/results.py: its directory comes first on the path
    import check

# The stock engine every workload also runs under, so that each has a
# stock engine to be weighed against.
RESULTS_STOCK = "ksm-1000"
# The window of a command that names none: make bench's (the Makefile's
# WINDOW), so that a command runs as it is written.
BENCH_WINDOW = 60
# The variables a command may set; REPEAT is make results' own (--repeat).
COMMAND_VARS = ("WORKLOADS", "ENGINES", "SIZE_MB", "WINDOW")
COMMAND = re.compile(r"make bench(\s|$)")
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
        if COMMAND.match(text):
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
                if k not in COMMAND_VARS:
                    raise SystemExit("%s:%d: %s: make results runs a command with %s only%s" % (
                        path, start + 1, k, ", ".join(COMMAND_VARS),
                        " (REPEAT is make results' own)" if k == "REPEAT" else ""))
                kv[k] = v
            if not kv.get("WORKLOADS", "").split() or not kv.get("ENGINES", "").split():
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
    window, repeat, sizes, runs, estimate_s}] (see the module's docstring)."""
    if RESULTS_STOCK not in engines_conf:
        raise SystemExit("results: the stock reference %s is not in engines.conf" % RESULTS_STOCK)
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
        window = int_var(cmd, "WINDOW", BENCH_WINDOW)
        if window < 5:
            raise SystemExit("targets.conf:%d: WINDOW=%d: at least 5 s" % (cmd["line"], window))
        sec = {"title": cmd["title"], "source": [cmd["text"]], "line": cmd["line"],
               "pairs": [], "size_mb": size, "window": window, "repeat": repeat}
        for wl in wls:
            named = named_engines(targets, wl)
            chosen = [e for e in engs if not named or e in named or e == RESULTS_STOCK]
            if RESULTS_STOCK not in chosen:
                chosen.insert(0, RESULTS_STOCK)
            key = (wl, size or bench.DEFAULT_SIZE[wl], window)
            if key in where:
                # Run with the earlier command's, in its boot (same size
                # and window).
                prev, i = where[key]
                old = prev["pairs"][i][1]
                old += [e for e in chosen if e not in old]
                if cmd["text"] not in prev["source"]:
                    prev["source"].append(cmd["text"])
                continue
            where[key] = (sec, len(sec["pairs"]))
            sec["pairs"].append((wl, chosen))
        if sec["pairs"]:
            sections.append(sec)
    ran = {(wl, e) for sec in sections for wl, engs in sec["pairs"] for e in engs}
    for sec in sections:
        for wl, engs in sec["pairs"]:
            if not engs:
                raise SystemExit("targets.conf:%d: %s runs under no engine" % (sec["line"], wl))
    for t in targets:
        need = [t["eng"]] + (t["ref"].split(",") if t["ref"] else [])
        missing = [e for e in need if (t["wl"], e) not in ran]
        if missing:
            raise SystemExit(
                "targets.conf:%d: no command runs %s under %s: add %s to the ENGINES of a "
                "command that runs it, or a command" % (
                    t["line"], t["wl"], " ".join(missing),
                    "it" if len(missing) == 1 else "them"))
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


def print_plan(sections, budget_s, out=None):
    out = out or sys.stdout
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
             "Verdict: among the engines other than `none` that passed their own checks "
             "and save at least %d%% of the best saving, the one with the most MiB a "
             "CPU-second, against the stock engine (`ksm-*`) chosen the same way." % (
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
    """Per planned workload, in the plan's order: (workload, size, verdict),
    the verdict None when its section wrote no summary."""
    rows = []
    for sec, summ in zip(sections, summaries):
        for wl, _ in sec["pairs"]:
            v = None
            if summ and wl in summ.get("workloads", ()):
                v = bench.verdict(bench.headline(summ, wl))
            rows.append((wl, sec["sizes"][wl], v))
    return rows


def headline_table(sections, summaries):
    """One row a planned workload: its verdict, or why it has none."""
    lines = ["| workload (SIZE_MB) | best stock engine, MiB/CPU-s | best engine, MiB/CPU-s | "
             "its saving, % of oracle | ratio |", "|---|---|---|---|---|"]
    for wl, size, v in verdict_rows(sections, summaries):
        if v is None:
            lines.append("| %s (%d) | - | not run | - | - |" % (wl, size))
            continue
        top, stock = v["engine"], v["stock"]
        if top is None:
            lines.append("| %s (%d) | - | %s | - | - |" % (wl, size, bench.verdict_body(v)))
            continue
        lines.append("| %s (%d) | %s | %s, %s | %s | %s |" % (
            wl, size,
            "%s, %s" % (stock["engine"], bench.fmt(stock["efficiency_mb_per_cpu_s"], 1))
            if stock else bench.stock_note(v),
            top["engine"], bench.fmt(top["efficiency_mb_per_cpu_s"], 1),
            bench.fmt(top.get("saved_oracle_pct"), 0),
            "%.1fx" % v["ratio"] if v["ratio"] is not None else "-"))
    return lines


def readme_block(sections, summaries, repeat):
    first = next(s for s in summaries if s)
    lines = ["", "Generated by `make results` (REPEAT=%d; %s; the window and size of each "
             "section in `docs/results.md`, which holds every table and target): per "
             "workload, the stock engine and the engine with the most MiB saved per engine "
             "CPU-second among those that passed their own checks and save %d%% of the "
             "best saving." % (
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


def atomic_write(path, text):
    """Write text to path through a temporary file in its directory and a
    rename: a reader sees the old file or the new, never a part; the
    file's mode is kept (a new file gets the umask's)."""
    path = os.path.realpath(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unwritable(path, what):
    """Why path cannot be written through atomic_write(), or None."""
    path = os.path.realpath(path)
    d = os.path.dirname(path)
    if os.path.isdir(path):
        return "%s %s is a directory" % (what, path)
    if not os.path.isdir(d):
        return "%s: no directory %s" % (what, d)
    if not os.access(d, os.W_OK | os.X_OK):
        return "%s: directory %s is not writable" % (what, d)
    return None


def unwritable_dir(path, what):
    """Why directory path cannot be made or written in, or None."""
    path = os.path.realpath(path)
    d = path
    while not os.path.exists(d):
        d = os.path.dirname(d)
    if not os.path.isdir(d):
        return "%s: %s is not a directory" % (what, d)
    if not os.access(d, os.W_OK | os.X_OK):
        return "%s: directory %s is not writable" % (what, d)
    return None


def stale(summ, sec):
    """How a section's summary.json differs from the section's plan, or None."""
    want = {"pairs": {wl: e for wl, e in sec["pairs"]}, "sizes": sec["sizes"],
            "window_s": sec["window"], "repeat": sec["repeat"]}
    diff = [k for k, v in want.items() if summ.get(k) != v]
    return ", ".join(diff) if diff else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="print the plan and its estimate")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--targets", default=os.path.join(TOP, "bench", "targets.conf"))
    ap.add_argument("--out", default=os.path.join(TOP, "docs", "results.md"))
    ap.add_argument("--readme", default=os.path.join(TOP, "README.md"))
    ap.add_argument("--workdir", default=os.path.join(TOP, "build", "results"),
                    help="where each section's bench writes (WORKDIR/N), and a partial "
                    "document (WORKDIR/results.md) when a section failed")
    ap.add_argument("--budget-min", type=float, default=RESULTS_BUDGET_MIN)
    ap.add_argument("--no-run", action="store_true",
                    help="write the documents from the sections' summaries already in WORKDIR")
    args = ap.parse_args(argv)
    if args.repeat < 1 or not math.isfinite(args.budget_min) or args.budget_min <= 0:
        ap.error("--repeat >= 1 and --budget-min a finite number > 0")
    if not os.path.isfile(args.targets):
        ap.error("no targets file %s" % args.targets)
    if not args.dry_run:
        why = (unwritable(args.out, "--out") or unwritable(args.readme, "--readme") or
               unwritable_dir(args.workdir, "--workdir"))
        if why:
            ap.error(why)

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

    failed, bad_rc = [], set()
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
                bad_rc.add(k)
                failed.append("section %d (%s): bench.py exit status %d" % (k, heading(sec), rc))
            left -= sec["estimate_s"]
    summaries = []
    for k, sec in enumerate(sections, 1):
        where = os.path.join(args.workdir, str(k), "summary.json")
        try:
            with open(where) as f:
                summ = json.load(f)
        except (OSError, ValueError):
            summ = None
        if summ is not None and not isinstance(summ, dict):
            summ = None
        diff = summ and stale(summ, sec)
        if diff:
            print("results: %s is of another plan (%s differ): left out" % (where, diff))
            summ = None
        if summ is None:
            failed.append("section %d (%s): no summary of this plan" % (k, heading(sec)))
        elif summ.get("failures") and k not in bad_rc:
            failed.append("section %d (%s): %d consistency failure(s) in its summary" % (
                k, heading(sec), len(summ["failures"])))
        summaries.append(summ)
    if not any(summaries):
        print("results: no section has a summary; nothing written")
        for x in failed:
            print("FAIL: %s" % x)
        return 1

    doc = results_doc(sections, summaries, targets, args.repeat, old_baseline(args.out))
    if failed:
        partial = os.path.join(args.workdir, "results.md")
        os.makedirs(args.workdir, exist_ok=True)
        atomic_write(partial, doc)
        print("\n".join(headline_table(sections, summaries)))
        print("\nresults: not every section ran clean: %s and %s left alone; the partial "
              "document is %s" % (args.out, args.readme, partial))
        for x in failed:
            print("FAIL: %s" % x)
        return 1
    atomic_write(args.out, doc)
    print("\nresults: wrote %s" % args.out)
    print("\n".join(headline_table(sections, summaries)))
    try:
        with open(args.readme) as f:
            readme = f.read()
    except FileNotFoundError:
        readme = None
    new = None
    if readme:
        new = bench.replace_block(readme, BEGIN, END,
                                  readme_block(sections, summaries, args.repeat))
    if new is None:
        print("results: %s %s: left alone" % (
            args.readme, "does not exist" if readme is None else "is empty" if not readme
            else "has no %s ... %s block" % (BEGIN, END)))
    else:
        atomic_write(args.readme, new)
        print("results: rewrote the block between the results markers of %s" % args.readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
