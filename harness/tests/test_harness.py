"""Host-side tests of the harness: manifest, log parsing, verdicts, initrd."""

import gzip
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import test as harness  # noqa: E402
import vm  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def boot_log(*body, done=True, boot_taint=262144, final_taint=262144):
    lines = ["[    0.000000] Linux version 6.12.117+\n",
             "[    9.000000] ok 1 ksm_adaptive\n",
             "[   10.000000] not ok 2 other_suite\n",
             "@@BOOT nodes=2 cpus=2 mem_kb=1 kernel=x\n",
             "@@STATE boot taint=%d debug_locks=1\n" % boot_taint]
    lines += [l + "\n" for l in body]
    lines.append("@@STATE done taint=%d debug_locks=1\n" % final_taint)
    if done:
        lines.append("@@DONE\n")
    return vm.parse(lines, vm.Boot("log"))


class ManifestTest(unittest.TestCase):
    def test_project_manifest_parses(self):
        with open(os.path.join(TOP, "tests", "manifest")) as f:
            tests = harness.parse_manifest(f.read())
        names = {t["name"] for t in tests}
        self.assertIn("ksm_functional_tests", names)
        self.assertIn("ksm_adaptive", names)

    def test_options(self):
        t, = harness.parse_manifest(
            'guest a/b nodes=4 timeout=9 pass=3 allow-skip="no THP here" -- prog -x "y z"\n')
        self.assertEqual((t["kind"], t["name"], t["nodes"], t["timeout"], t["pass"]),
                         ("guest", "a/b", 4, 9, 3))
        self.assertEqual(t["allow-skip"], "no THP here")
        self.assertEqual(t["cmd"], 'prog -x "y z"')
        self.assertEqual(t["kernel"], "debug")
        t, = harness.parse_manifest("guest a kernel=release -- prog\n")
        self.assertEqual(t["kernel"], "release")
        self.assertEqual(t["boot"], "")
        t, = harness.parse_manifest('guest a boot="kmemleak=on x=1" -- prog\n')
        self.assertEqual(t["boot"], "kmemleak=on x=1")

    def test_errors(self):
        for bad in ("guest x\n", "kunit s -- cmd\n", "robot x -- y\n", "guest x nodes=0 -- y\n",
                    "guest x speed=3 -- y\n", "guest x nodes=two -- y\n",
                    "guest x -- a\nguest x -- b\n", "guest x tries=2 -- y\n",
                    'guest x flaky="z" -- y\n', "guest x tries=0 -- y\n", "guest x kernel=fast -- y\n",
                    'kunit s boot="a=1"\n', "# only a comment\n", 'guest "x -- y\n'):
            with self.subTest(bad=bad):
                with self.assertRaises(harness.ManifestError):
                    harness.parse_manifest(bad)


class ParseTest(unittest.TestCase):
    def test_clean_boot(self):
        b = boot_log("@@BEGIN t1", "hello", "@@END t1 rc=0 secs=1.5",
                     "@@STATE t1 taint=262144 debug_locks=1")
        self.assertEqual(b.problems(), [])
        self.assertEqual(b.tests["t1"].rc, 0)
        self.assertEqual(b.tests["t1"].output, ["hello"])
        self.assertEqual(b.kunit["ksm_adaptive"][0], True)
        self.assertEqual(b.kunit["other_suite"][0], False)

    def test_warning_is_attributed(self):
        b = boot_log("@@BEGIN t1", "[   12.000000] WARNING: CPU: 1 PID: 7 at mm/ksm.c:1 x+0x1/0x2",
                     "[   12.000001] Call Trace:", "@@END t1 rc=0 secs=1",
                     final_taint=262144 | 512)
        probs = b.problems()
        self.assertTrue(any("kernel report during t1" in p and "WARNING: CPU" in p for p in probs))
        self.assertTrue(any("taint set during the run: 512 (W)" in p for p in probs))
        self.assertEqual(len(b.reports), 1, "one splat, one report")
        ok, detail = harness.judge_guest({"timeout": 9, "allow-skip": None, "pass": None},
                                         b.tests["t1"])
        self.assertFalse(ok)

    def test_injected_allocation_failure_is_counted(self):
        dump = ["[   12.000000] ksmd: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL)",
                "[   12.000001] CPU: 1 PID: 7 Comm: ksmd",
                "[   12.000002] Call Trace:"]
        b = boot_log("@@BEGIN t1", "[   11.000000] ksm-test: fault injection on", *dump,
                     "[   13.000000] ksm-test: fault injection off", "@@END t1 rc=0 secs=1")
        self.assertEqual(b.problems(), [])
        self.assertEqual(b.injected, 1)
        b = boot_log("@@BEGIN t1", *dump, "@@END t1 rc=0 secs=1")
        self.assertEqual(len(b.reports), 1, "no fault injected: a report")
        b = boot_log("@@BEGIN t1", "[   11.000000] ksm-test: fault injection on",
                     "[   12.000000] BUG: KASAN: slab-use-after-free in ksm_do_scan",
                     "[   12.000002] Call Trace:", "@@END t1 rc=0 secs=1")
        self.assertEqual(len(b.reports), 1, "any other report still counts")

    def test_user_text_is_not_a_report(self):
        b = boot_log("@@BEGIN t1", "WARNING: this line came from a program", "@@END t1 rc=0 secs=1")
        self.assertEqual(b.problems(), [])

    def test_topology_checked(self):
        b = boot_log()
        b.want = {"nodes": 2, "cpus": 4}
        self.assertEqual(b.problems(), ["guest has cpus=2, the run asked for 4"])

    def test_lockdep_off_and_no_done(self):
        lines = ["@@STATE boot taint=0 debug_locks=1\n", "@@STATE done taint=0 debug_locks=0\n"]
        b = vm.parse(lines, vm.Boot("log"))
        probs = b.problems()
        self.assertTrue(any("debug_locks off" in p for p in probs))
        self.assertTrue(any("stopped before the end" in p for p in probs))

    def test_retries_are_recorded(self):
        b = boot_log("@@BEGIN t1", "not ok 1 x", "@@RETRY t1 try=2 rc=1", "ok 1 x",
                     "@@END t1 rc=0 secs=1 tries=2")
        self.assertEqual(b.tests["t1"].tries, 2)
        self.assertIn("@@RETRY t1 try=2 rc=1", b.tests["t1"].output)

    def test_marker_interleaved_with_kernel_output(self):
        b = boot_log("@@BEGIN t1", "[ 1.0] random: crng init done@@END t1 rc=0 secs=1")
        self.assertEqual(b.tests["t1"].rc, 0)


class JudgeTest(unittest.TestCase):
    T = {"timeout": 9, "allow-skip": None, "pass": None, "tries": 3, "flaky": "race"}

    def g(self, rc, *out):
        t = vm.GuestTest("x", rc=rc, secs=1.0)
        t.output = list(out)
        return t

    def test_verdicts(self):
        totals = "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0"
        cases = [
            (None, self.T, False, "missing"),
            (vm.GuestTest("x"), self.T, False, "crashed"),
            (self.g(137), self.T, False, "timed out"),
            (self.g(1), self.T, False, "exit status 1"),
            (self.g(0, totals % (2, 1, 0)), self.T, False, "subtests failed"),
            (self.g(4), self.T, False, "skipped"),
            (self.g(0, totals % (1, 0, 1)), self.T, False, "skipped"),
            (self.g(4), dict(self.T, **{"allow-skip": "why"}), True, "skip allowed: why"),
            (self.g(0, totals % (8, 0, 0)), dict(self.T, **{"pass": 9}), False, "expected 9"),
            (self.g(0, totals % (9, 0, 0)), dict(self.T, **{"pass": 9}), True, "1.0s"),
            (self.g(0), self.T, True, "1.0s"),
            (vm.GuestTest("x", rc=0, secs=1.0, tries=2), self.T, True, "try 2 of 3 (flaky: race)"),
        ]
        for g, t, want_ok, want_text in cases:
            with self.subTest(want=want_text):
                ok, detail = harness.judge_guest(t, g)
                self.assertEqual(ok, want_ok, detail)
                self.assertIn(want_text, detail)


class InitrdTest(unittest.TestCase):
    def test_plan_archive_lists_with_cpio(self):
        data = vm.cpio_newc({"plan": (b"a\t5\techo hi\n", 0o100644)})
        p = subprocess.run(["cpio", "-t", "--quiet"], input=data, stdout=subprocess.PIPE)
        self.assertEqual(p.stdout.decode().split(), ["plan"])

    def test_make_initrd_appends(self):
        with tempfile.TemporaryDirectory() as d:
            base = os.path.join(d, "base")
            # One compression: gzip stamps the second it runs in.
            base_gz = gzip.compress(b"base")
            with open(base, "wb") as f:
                f.write(base_gz)
            out = os.path.join(d, "out")
            vm.make_initrd(base, vm.plan_text([("t", 5, "true")]), out)
            with open(out, "rb") as f:
                data = f.read()
            self.assertTrue(data.startswith(base_gz))
            self.assertIn(b"t\t5\t1\ttrue\n", gzip.decompress(data[len(base_gz):]))

    def test_plan_rejects_tabs(self):
        with self.assertRaises(ValueError):
            vm.plan_text([("a\tb", 1, "true")])

    def test_qemu_smp_covers_nodes(self):
        cmd = vm.qemu_cmd("k", "i", nodes=4, smp=2)
        self.assertEqual(cmd[cmd.index("-smp") + 1], "4")
        self.assertIn("numa=fake=4", cmd[cmd.index("-append") + 1])


if __name__ == "__main__":
    unittest.main()
