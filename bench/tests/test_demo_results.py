"""Host-side tests of make demo's plan, budget, progress and verdicts, and of
make results' plan and documents."""

import io
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bench import bench, check, results  # noqa: E402


def conf(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    f.write(text)
    f.close()
    return f.name


def row(engine, saved, eff, pct=100.0):
    return {"engine": engine, "saved_mb": saved, "efficiency_mb_per_cpu_s": eff,
            "saved_oracle_pct": pct}


class DemoTest(unittest.TestCase):
    def test_demo_fits_its_budget(self):
        # The engines engines.conf marks `demo` over the demo's workloads,
        # with make's check of the builds, within DEMO_BUDGET_S.
        _, demo = bench.read_engines()
        est = bench.demo_estimate_s(demo)
        runs = bench.plan_runs(bench.demo_pairs(demo), 1)
        self.assertLessEqual(est, bench.DEMO_BUDGET_S,
                             "make demo: %d runs of %d s, estimated %s, over its budget of %s: "
                             "mark fewer engines `demo` in bench/engines.conf (or `demo=WL` for "
                             "one workload) or shorten DEMO_WINDOW" % (
                                 len(runs), bench.DEMO_WINDOW, bench.mmss(est),
                                 bench.mmss(bench.DEMO_BUDGET_S)))

    def test_budget_catches_too_many_engines(self):
        engines, _ = bench.read_engines()
        self.assertGreater(bench.demo_estimate_s({e: None for e in engines}), bench.DEMO_BUDGET_S)

    def test_demo_marks(self):
        path = conf("a demo run=0\nb run=1\nc demo=numa-mirror run=1\n"
                    "d demo=static-mix,numa-mirror run=1\n")
        try:
            engines, demo = bench.read_engines(path)
        finally:
            os.unlink(path)
        self.assertEqual(engines["c"], ["run=1"])
        self.assertEqual(demo, {"a": None, "c": ["numa-mirror"], "d": ["static-mix", "numa-mirror"]})
        self.assertEqual(bench.demo_pairs(demo), [("static-mix", ["a", "d"]),
                                                  ("similar-images", ["a"]),
                                                  ("numa-mirror", ["a", "c", "d"])])
        for bad in ("a demo=sparse run=0\n", "a run=0\na run=1\n", "a run\n"):
            path = conf(bad)
            try:
                with self.assertRaises(SystemExit):
                    bench.read_engines(path)
            finally:
                os.unlink(path)

    def test_estimate(self):
        runs = bench.plan_runs([("static-mix", ["a", "b"]), ("numa-mirror", ["a"])], 2)
        self.assertEqual(runs[:3], [("static-mix", "a", 1), ("static-mix", "b", 1),
                                    ("numa-mirror", "a", 1)])
        self.assertEqual(len(runs), 6)
        sizes = {"static-mix": 100, "numa-mirror": 50}
        per = {"static-mix": bench.RUN_FIXED_S + 200 * bench.RUN_PER_MIB_S,
               "numa-mirror": bench.RUN_FIXED_S + 100 * bench.RUN_PER_MIB_S}
        want = bench.BOOT_S + bench.END_S + 6 * 20 + 4 * per["static-mix"] + 2 * per["numa-mirror"]
        self.assertAlmostEqual(bench.estimate_s(runs, sizes, 20), want)

    def test_time_left(self):
        ests = [10.0, 10.0, 10.0]
        self.assertEqual(bench.time_left(ests, [], 0, end_s=5), 35)
        self.assertEqual(bench.time_left(ests, [], 4, end_s=5), 31)
        # The first run took twice its estimate: the rest are scaled.
        self.assertEqual(bench.time_left(ests, [20.0], 0, end_s=0), 40)
        self.assertEqual(bench.time_left(ests, [20.0], 25, end_s=0), 20)
        # Scaling is bounded, and nothing is left after the last run.
        self.assertEqual(bench.time_left(ests, [100.0], 0, end_s=0), 60)
        self.assertEqual(bench.time_left(ests, [10.0] * 3, 0, end_s=5), 5)
        self.assertEqual(bench.mmss(125.4), "2:05")
        self.assertEqual(bench.mmss(-3), "0:00")

    def test_progress(self):
        now = [0.0]
        out = io.StringIO()
        runs = [("static-mix", "ksm-1000", 1), ("static-mix", "none", 1)]
        p = bench.Progress(runs, 20, [25.0, 25.0], out=out, clock=lambda: now[0],
                           boot_s=10, end_s=5)
        p.started()
        for t, line in ((3, "[    0.5] Linux version"), (6, "[    1.0] more"),
                        (8, "@@BOOT nodes=2 cpus=2"),
                        (9, "@@BEGIN bench/static-mix/ksm-1000/1"),
                        (10, "@@WL ready name=static-mix oracle_pages=256 pids=1,2"),
                        (10, "@@S t=0.0 sharing=0 zero=0 full_scans=0 scanned=0 skipped=0 "
                             "engine_ns=0 cow_ksm=0 saved_pm=-1"),
                        (20, "@@S t=5.0 sharing=256 zero=0 full_scans=2 scanned=9 skipped=0 "
                             "engine_ns=2000000000 cow_ksm=0 saved_pm=-1"),
                        (31, "@@WL result name=static-mix content_ok=1"),
                        (34, "@@END bench/static-mix/ksm-1000/1 rc=0 secs=24.0 tries=1"),
                        (34, "@@BEGIN bench/static-mix/none/1"),
                        (58, "@@END bench/static-mix/none/1 rc=1 secs=24.0 tries=1"),
                        (59, "@@DONE")):
            now[0] = t
            p(line)
        text = out.getvalue().splitlines()
        self.assertIn("2 runs to go, about 1:05 in all", text[0])
        self.assertIn("boot: booting (6s)", text[1])
        self.assertIn("guest up after 8s; about 0:55 left", text[2])
        self.assertIn("[1/2] static-mix, ksm-1000: running (20 s window); about 0:55 left", text[3])
        self.assertIn("[1/2] static-mix, ksm-1000: done in 25s: 1.0 MiB saved (100% of the "
                      "oracle), t99 5.0 s, engine CPU 2.00 s; about 0:30 left", text[4])
        self.assertIn("[2/2] static-mix, none: done in 24s: FAILED (exit status 1)", text[6])
        self.assertIn("guest: done after 0:59", text[7])

    def test_progress_survives_a_bad_line(self):
        # A line the display fails on is reported once, with its traceback,
        # and the lines after it are still handled.
        out = io.StringIO()
        runs = [("static-mix", "ksm-1000", 1), ("static-mix", "none", 1)]
        p = bench.Progress(runs, 20, [25.0, 25.0], out=out, clock=lambda: 0.0)
        calls = []

        def broken(marker):
            calls.append(marker)
            raise ValueError("display bug")
        p.run_result = broken
        for line in ("@@BOOT nodes=2 cpus=2", "@@BEGIN bench/static-mix/ksm-1000/1",
                     "@@END bench/static-mix/ksm-1000/1 rc=0", "@@BEGIN bench/static-mix/none/1",
                     "@@END bench/static-mix/none/1 rc=0", "@@DONE"):
            p(line)
        text = out.getvalue()
        self.assertEqual(len(calls), 2)                  # called for both runs
        self.assertEqual(text.count("Traceback"), 1)     # reported once
        self.assertIn("ValueError: display bug", text)
        self.assertIn("[2/2] static-mix, none: running", text)
        self.assertIn("guest: done after", text)
        self.assertEqual(p.errors, 2)


class LiveLinesTest(unittest.TestCase):
    def test_vm_run_calls_on_line(self):
        # vm.run hands every serial line to on_line as it arrives, and a
        # callback that raises is dropped without stopping the run.
        with tempfile.TemporaryDirectory() as d:
            qemu = os.path.join(d, "qemu-system-x86_64")
            with open(qemu, "w") as f:
                f.write("#!/bin/sh\nprintf '@@BOOT nodes=2 cpus=2\\r\\n@@BEGIN t\\nhi\\n"
                        "@@END t rc=0 secs=1\\n@@DONE\\n'\n")
            os.chmod(qemu, 0o755)
            base = os.path.join(d, "base.cpio.gz")
            with open(base, "wb") as f:
                f.write(b"")
            path = os.environ["PATH"]
            os.environ["PATH"] = d + os.pathsep + path
            try:
                seen, calls = [], []
                boot = bench.vm.run("k", base, [("t", 5, "true")], os.path.join(d, "log"),
                                    on_line=seen.append)
                self.assertEqual(seen, ["@@BOOT nodes=2 cpus=2", "@@BEGIN t", "hi",
                                        "@@END t rc=0 secs=1", "@@DONE"])
                self.assertEqual(boot.tests["t"].rc, 0)

                def bad(line):
                    calls.append(line)
                    raise RuntimeError("display")
                err = io.StringIO()
                stderr, sys.stderr = sys.stderr, err
                try:
                    boot = bench.vm.run("k", base, [("t", 5, "true")], os.path.join(d, "log"),
                                        on_line=bad)
                finally:
                    sys.stderr = stderr
                self.assertEqual(len(calls), 1)
                self.assertIn("on_line callback stopped", err.getvalue())
                self.assertTrue(boot.done)
                self.assertEqual(boot.tests["t"].output, ["hi"])
            finally:
                os.environ["PATH"] = path


class VerdictTest(unittest.TestCase):
    def test_best_efficiency_among_full_savers(self):
        rows = [row("none", 0, None, 0), row("ksm-1000", 100, 50), row("ksm-2000", 100, 40),
                row("distill", 99.5, 400), row("distill-quiet", 60, 900)]
        v = bench.verdict(rows)
        self.assertEqual(v["engine"]["engine"], "distill")     # quiet saves too little
        self.assertEqual(v["stock"]["engine"], "ksm-1000")
        self.assertAlmostEqual(v["ratio"], 8.0)
        self.assertIn("distill saves 99.5 MiB (100% of the oracle) at 400.0 MiB/CPU-s, "
                      "8.0x the best stock engine (ksm-1000, 50.0 MiB/CPU-s)",
                      bench.verdict_text("w", v))

    def test_stock_wins_or_none_reaches(self):
        v = bench.verdict([row("ksm-1000", 100, 50), row("distill", 100, 30)])
        self.assertIs(v["engine"], v["stock"])
        self.assertIn("the best stock engine itself", bench.verdict_text("w", v))
        v = bench.verdict([row("ksm-100", 10, 500), row("distill", 100, 30)])
        self.assertEqual(v["engine"]["engine"], "distill")
        self.assertIsNone(v["stock"])
        self.assertIn("no stock engine saved 99% of the best saving", bench.verdict_text("w", v))

    def test_none_excluded_and_nothing_saved(self):
        v = bench.verdict([row("none", 5, None), row("ksm-1000", 5, 10)])
        self.assertEqual(v["engine"]["engine"], "ksm-1000")
        v = bench.verdict([row("none", 0, None), row("ksm-1000", 0, 0.0)])
        self.assertIsNone(v["engine"])
        self.assertEqual(bench.verdict_text("w", v), "w: no engine saved memory")
        v = bench.verdict([row("ksm-1000", None, None)])
        self.assertIsNone(v["engine"])

    def test_best_saving_over_engines_but_none(self):
        # `none` saving more (a workload's own sharing) does not raise the bar.
        v = bench.verdict([row("none", 200, None), row("ksm-1000", 100, 10),
                           row("distill", 100, 50)])
        self.assertEqual(v["best_saved_mb"], 100)
        self.assertEqual(v["engine"]["engine"], "distill")
        self.assertAlmostEqual(v["ratio"], 5.0)

    def test_stock_not_measured(self):
        # A stock engine without figures is "not measured", not "did not save".
        v = bench.verdict([row("ksm-1000", None, None), row("distill", 100, 30)])
        self.assertEqual(v["engine"]["engine"], "distill")
        self.assertIsNone(v["stock"])
        self.assertIn("; stock engine not measured", bench.verdict_text("w", v))
        self.assertNotIn("no stock engine saved", bench.verdict_text("w", v))
        v = bench.verdict([row("distill", 100, 30)])
        self.assertIn("stock engine not measured", bench.verdict_text("w", v))
        v = bench.verdict([row("ksm-1000", 50, 90), row("distill", 100, 30)])
        self.assertIn("no stock engine saved 99% of the best saving", bench.verdict_text("w", v))

    def test_failed_pairs_left_out(self):
        agg = lambda eff, **kw: dict({"saved_mb": {"median": 8.0}, "content_ok": {"median": 1},
                                      "efficiency_mb_per_cpu_s": {"median": eff}},
                                     **{k: {"median": v} for k, v in kw.items()})
        summary = {"engines": ["ksm-1000", "a", "b", "c", "d"],
                   "pairs": {"w": ["ksm-1000", "a", "b", "c", "d"]}, "sizes": {"w": 8},
                   "aggregate": {"w/ksm-1000": agg(4.0, saved_agree=1),
                                 "w/a": agg(400.0, content_ok=0),     # bytes not verified
                                 "w/b": agg(300.0, saved_agree=0),    # pagemap disagrees
                                 "w/c": agg(200.0),                   # a run's failure
                                 "w/d": agg(100.0)},                  # a run's problem
                   "failures": ["bench/w/c/2: run did not finish",
                                "guest stopped before the end of its plan (log: x)"],
                   "runs": [{"workload": "w", "engine": "d", "rep": 1,
                             "problems": ["contents not verified"], "metrics": {}},
                            {"workload": "w", "engine": "ksm-1000", "rep": 1, "problems": [],
                             "metrics": {}}]}
        rows = bench.headline(summary, "w")
        self.assertEqual([r["failed"] for r in rows], [False, True, True, True, True])
        v = bench.verdict(rows)
        self.assertIs(v["engine"], v["stock"])
        self.assertEqual(v["engine"]["engine"], "ksm-1000")
        self.assertEqual(v["failed"], ["a", "b", "c", "d"])
        self.assertIn("the best stock engine itself; left out, failed its own checks: "
                      "a, b, c, d", bench.verdict_text("w", v))
        text = "\n".join(bench.headline_text(summary, "w"))
        self.assertIn("  a (failed)", text)
        self.assertIn("  ksm-1000 ", text)
        md = "\n".join(bench.workload_md(summary, "w"))
        self.assertIn("| b (failed) |", md)
        # Every engine failed: no verdict at all.
        v = bench.verdict([dict(row("ksm-1000", 8, 4), failed=True)])
        self.assertIsNone(v["engine"])
        self.assertEqual(bench.verdict_text("w", v),
                         "w: no engine to judge; failed their own checks: ksm-1000")

    def test_headline_of_summary(self):
        agg = lambda saved, eff: {"saved_mb": {"median": saved}, "t99_s": {"median": 2.0},
                                  "efficiency_mb_per_cpu_s": {"median": eff}}
        summary = {"engines": ["ksm-1000", "distill"], "pairs": {"w": ["ksm-1000", "distill"]},
                   "sizes": {"w": 8}, "aggregate": {"w/ksm-1000": agg(8.0, 4.0),
                                                    "w/distill": agg(8.0, 40.0)}}
        rows = bench.headline(summary, "w")
        self.assertEqual([r["engine"] for r in rows], ["ksm-1000", "distill"])
        text = bench.headline_text(summary, "w")
        self.assertTrue(text[1].split() == ["engine", "MiB", "saved", "%", "of", "oracle", "t99",
                                            "s", "CPU", "s", "MiB/CPU-s", "CPU", "s", "window"])
        self.assertIn("10.0x the best stock engine", text[-1])

    def test_parse_pairs(self):
        engines = {"a": [], "b": []}
        self.assertEqual(bench.parse_pairs("static-mix=a,b sparse=b", bench.WORKLOADS, engines),
                         [("static-mix", ["a", "b"]), ("sparse", ["b"])])
        for bad in ("", "static-mix", "static-mix=", "nope=a", "static-mix=c",
                    "static-mix=a static-mix=b", "static-mix=a,a"):
            with self.assertRaises(ValueError):
                bench.parse_pairs(bad, bench.WORKLOADS, engines)

    def test_blocks(self):
        text = "a\n<!-- b -->\nold\n<!-- e -->\nz\n"
        self.assertEqual(bench.replace_block(text, "<!-- b -->", "<!-- e -->", "new\n"),
                         "a\n<!-- b -->\nnew\n<!-- e -->\nz\n")
        self.assertEqual(bench.block(text, "<!-- b -->", "<!-- e -->"), "old\n")
        for bad in ("a\n", "<!-- e -->\n<!-- b -->\n", "<!-- b -->\n<!-- b -->\n<!-- e -->\n"):
            self.assertIsNone(bench.replace_block(bad, "<!-- b -->", "<!-- e -->", "x\n"))


TARGETS = """\
# Scanner, from one bench:
#   make bench WORKLOADS="static-mix" ENGINES="ksm-100 ksm-1000 distill" SIZE_MB=1024
#   make bench WORKLOADS="cow-broken thp-mixed" \\
#        ENGINES="none ksm-2000 distill" WINDOW=30
static-mix  distill  saved_oracle_pct  >= 0.99 x ksm-100,ksm-1000
cow-broken  distill  cow_breaks        <= 0.2 x ksm-2000

# Hash (words): more
#   make bench WORKLOADS="static-mix sparse" ENGINES="ksm-1000 page_hash" SIZE_MB=1024
#   make bench WORKLOADS="sparse" ENGINES="ksm-1000 page_hash" SIZE_MB=1024 WINDOW=45
#   make bench-check
static-mix  page_hash  efficiency_mb_per_cpu_s >= 1.5 x ksm-1000
sparse      page_hash  examined_pages_per_cpu_s >= 6 x ksm-1000
"""


class ResultsTest(unittest.TestCase):
    def setUp(self):
        self.path = conf(TARGETS)
        self.engines, _ = bench.read_engines()

    def tearDown(self):
        os.unlink(self.path)

    def sections(self, repeat=3):
        return results.plan(results.read_commands(self.path), check.read_targets(self.path),
                            self.engines, repeat)

    def test_commands(self):
        cmds = results.read_commands(self.path)
        # `make bench-check` is not a bench command.
        self.assertEqual([c["title"] for c in cmds], ["Scanner", "Scanner", "Hash", "Hash"])
        self.assertEqual(cmds[1]["vars"], {"WORKLOADS": "cow-broken thp-mixed",
                                           "ENGINES": "none ksm-2000 distill", "WINDOW": "30"})
        self.assertEqual(cmds[3]["vars"]["WINDOW"], "45")

    def test_plan(self):
        secs = self.sections()
        self.assertEqual(len(secs), 4)
        # static-mix at 1024 and 60 s runs once, in the first section, with
        # the engines of both commands its targets name; a command without
        # WINDOW runs at make bench's.
        self.assertEqual(secs[0]["pairs"], [("static-mix", ["ksm-100", "ksm-1000", "distill",
                                                            "page_hash"])])
        self.assertEqual(secs[0]["window"], results.BENCH_WINDOW)
        self.assertEqual(len(secs[0]["source"]), 2)
        # Named engines and the stock reference, added where the command
        # does not list it; a workload no target names keeps every engine of
        # its command.
        self.assertEqual(secs[1]["pairs"], [("cow-broken", ["ksm-1000", "ksm-2000", "distill"]),
                                            ("thp-mixed", ["ksm-1000", "none", "ksm-2000",
                                                           "distill"])])
        self.assertEqual(secs[1]["window"], 30)
        self.assertEqual(secs[2]["pairs"], [("sparse", ["ksm-1000", "page_hash"])])
        self.assertEqual((secs[2]["window"], secs[2]["size_mb"]), (60, 1024))
        # The same workload and size at another window is a section of its
        # own: no section's window is changed by a later command.
        self.assertEqual(secs[3]["pairs"], [("sparse", ["ksm-1000", "page_hash"])])
        self.assertEqual((secs[3]["window"], secs[3]["size_mb"]), (45, 1024))
        self.assertEqual(secs[1]["runs"], 21)
        self.assertAlmostEqual(secs[1]["estimate_s"], bench.estimate_s(
            bench.plan_runs(secs[1]["pairs"], 3), secs[1]["sizes"], 30))
        self.assertIn("--workload-engines sparse=ksm-1000,page_hash --size-mb 1024 "
                      "--repeat 3 --window 45", results.command_text(secs[3]))

    def test_bench_window_is_makes(self):
        # A command without WINDOW runs at make bench's WINDOW.
        with open(os.path.join(bench.TOP, "Makefile")) as f:
            m = re.search(r"(?m)^WINDOW \?= (\d+)$", f.read())
        self.assertEqual(int(m.group(1)), results.BENCH_WINDOW)

    def plan_of(self, text):
        path = conf(text)
        try:
            return results.plan(results.read_commands(path), check.read_targets(path),
                                self.engines, 3)
        finally:
            os.unlink(path)

    def test_refused_plans(self):
        cmd = '#   make bench WORKLOADS="static-mix" ENGINES="ksm-1000 distill"\n'
        for text in (
                # A target's engine no command runs on its workload.
                cmd + "static-mix page_hash saved_oracle_pct >= 99\n",
                # An engine of an ENGINE2 list no command runs.
                cmd + "static-mix distill saved_oracle_pct >= 0.99 x ksm-1000,ksm-2000\n",
                cmd + "static-mix distill t99_s <= -1 + ksm-2000\n",
                # A target of a workload no command names.
                cmd + "sparse ksm-1000 content_ok >= 1\n",
                # Unknown variables, REPEAT, an empty engine list, a bad window.
                '#   make bench WORKLOADS="static-mix" ENGINES="ksm-1000" WINDWO=30\n',
                '#   make bench WORKLOADS="static-mix" ENGINES="ksm-1000" REPEAT=1\n',
                '#   make bench WORKLOADS="static-mix" ENGINES=" "\n',
                '#   make bench WORKLOADS="static-mix" ENGINES="ksm-1000" WINDOW=2\n'):
            with self.subTest(text=text):
                with self.assertRaises(SystemExit):
                    self.plan_of(text)
        # The same with the engines run is a plan.
        secs = self.plan_of(cmd + "static-mix distill saved_oracle_pct >= 0.99 x ksm-1000\n")
        self.assertEqual(secs[0]["pairs"], [("static-mix", ["ksm-1000", "distill"])])

    def test_bad_commands(self):
        for bad in ('#   make bench WORKLOADS="static-mix" ENGINES="nope"\n',
                    '#   make bench WORKLOADS="nope" ENGINES="ksm-1000"\n',
                    '#   make bench WORKLOADS="static-mix"\n',
                    '#   make bench WORKLOADS="static-mix" ENGINES="ksm-1000" SIZE_MB=x\n',
                    '#   make bench WORKLOADS="static-mix ENGINES=ksm-1000\n'):
            path = conf(bad)
            try:
                with self.assertRaises(SystemExit):
                    results.plan(results.read_commands(path), [], self.engines, 3)
            finally:
                os.unlink(path)

    def test_project_plan_fits(self):
        # make results on bench/targets.conf fits its budget.
        path = os.path.join(bench.TOP, "bench", "targets.conf")
        secs = results.plan(results.read_commands(path), check.read_targets(path), self.engines, 3)
        total = results.print_plan(secs, results.RESULTS_BUDGET_MIN * 60, out=io.StringIO())
        self.assertLessEqual(total, results.RESULTS_BUDGET_MIN * 60)
        # Every target's workload and engines, ENGINE2 lists included, are run.
        ran = {(wl, e) for s in secs for wl, engs in s["pairs"] for e in engs}
        for t in check.read_targets(path):
            self.assertIn((t["wl"], t["eng"]), ran)
            for e in (t["ref"] or "").split(",") if t["ref"] else ():
                self.assertIn((t["wl"], e), ran)
        # Every workload runs under the stock reference, and every section
        # at the window its commands write (make bench's when they write none).
        for s in secs:
            for wl, engs in s["pairs"]:
                self.assertIn(results.RESULTS_STOCK, engs)
        by_line = {c["text"]: c for c in results.read_commands(path)}
        for s in secs:
            for text in s["source"]:
                self.assertEqual(s["window"], int(by_line[text]["vars"].get(
                    "WINDOW", results.BENCH_WINDOW)))

    def summary(self, sec):
        agg = {}
        for wl, engs in sec["pairs"]:
            for i, e in enumerate(engs):
                agg["%s/%s" % (wl, e)] = {
                    "saved_mb": {"median": 100.0}, "saved_oracle_pct": {"median": 100.0},
                    "efficiency_mb_per_cpu_s": {"median": 10.0 * (i + 1)},
                    "cow_breaks": {"median": 1.0}, "examined_pages_per_cpu_s": {"median": 9.0}}
        return {"workloads": [wl for wl, _ in sec["pairs"]], "pairs": dict(sec["pairs"]),
                "engines": sorted({e for _, es in sec["pairs"] for e in es}), "sizes": sec["sizes"],
                "aggregate": agg, "failures": [], "runs": [], "repeat": 3,
                "kernel_base": "k", "vm": "QEMU TCG"}

    def test_documents(self):
        secs = self.sections()
        summs = [self.summary(s) for s in secs[:2]] + [None, None]
        doc = results.results_doc(secs, summs, check.read_targets(self.path), 3,
                                  baseline="## The stock KSM baseline\n\nold\n")
        self.assertTrue(doc.startswith("<!-- generated by bench/results.py"))
        self.assertIn("## 1. Scanner: static-mix", doc)
        self.assertIn("### cow-broken (SIZE_MB=64)", doc)
        self.assertIn("Not run: the bench wrote no summary.", doc)
        self.assertIn("2 PASS, 1 FAIL, 1 MISSING", doc)
        self.assertIn("| static-mix (1024) | ksm-1000, 20.0 | page_hash, 40.0 | 100 | 2.0x |", doc)
        # One headline row a planned workload, run or not.
        self.assertEqual(doc.count("| sparse (1024) | - | not run | - | - |"), 2)
        self.assertIn("%s\n## The stock KSM baseline\n\nold\n%s\n" % (
            bench.BASELINE_BEGIN, bench.BASELINE_END), doc)
        readme = "# R\n\n%s\nold\n%s\ntail\n" % (results.BEGIN, results.END)
        new = bench.replace_block(readme, results.BEGIN, results.END,
                                  results.readme_block(secs, summs, 3))
        self.assertIn("Generated by `make results` (REPEAT=3; QEMU TCG;", new)
        self.assertIn("| cow-broken (64) |", new)
        self.assertTrue(new.endswith("%s\ntail\n" % results.END))

    def test_headline_rows_without_verdict(self):
        secs = self.sections()
        summs = [self.summary(s) for s in secs]
        agg = summs[1]["aggregate"]
        for e in ("ksm-1000", "ksm-2000", "distill"):
            agg["cow-broken/%s" % e]["efficiency_mb_per_cpu_s"] = {"median": None}
        for e in ("ksm-1000", "ksm-2000"):     # stock engines not measured on thp-mixed
            agg["thp-mixed/%s" % e] = {}
        table = "\n".join(results.headline_table(secs, summs))
        self.assertIn("| cow-broken (64) | - | no engine reached 99% of the best saving "
                      "(100.0 MiB) with a MiB/CPU-s to count | - | - |", table)
        self.assertIn("| thp-mixed (128) | stock engine not measured | distill, 40.0 | 100 | - |",
                      table)
        self.assertEqual(len(results.headline_table(secs, summs)), 2 + 5)

    def test_stale(self):
        sec = self.sections()[1]
        summ = self.summary(sec)
        summ.update(window_s=30, repeat=3)
        self.assertIsNone(results.stale(summ, sec))
        for k, v in (("window_s", 60), ("repeat", 1), ("sizes", {"cow-broken": 128,
                                                                 "thp-mixed": 128}),
                     ("pairs", {"cow-broken": ["ksm-1000"]})):
            with self.subTest(k=k):
                self.assertEqual(results.stale(dict(summ, **{k: v}), sec), k)

    def test_old_baseline(self):
        path = conf("<!-- generated by bench/bench.py --publish; do not edit -->\n"
                    "# Results: the stock KSM baseline\n\n## static-mix\nrow\n")
        try:
            self.assertEqual(results.old_baseline(path),
                             "## Results: the stock KSM baseline\n\n### static-mix\nrow\n")
            with open(path, "w") as f:
                f.write("x\n%s\nkept\n%s\n" % (bench.BASELINE_BEGIN, bench.BASELINE_END))
            self.assertEqual(results.old_baseline(path), "kept\n")
            with open(path, "w") as f:
                f.write("hand-written\n")
            self.assertIsNone(results.old_baseline(path))
        finally:
            os.unlink(path)


if __name__ == "__main__":
    unittest.main()
