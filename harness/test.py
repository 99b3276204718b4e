#!/usr/bin/env python3
"""Run the project's test manifest and print TAP.

Every test the manifest lists must run and pass; a test that is missing,
crashes, times out or skips fails unless its manifest line allows the skip
with a reason. Guest tests are grouped into one VM boot per node count; a
kernel report, a new taint flag or lockdep turning itself off fails the boot
(and the tests that ran when it happened). The last line is
``N passed, N failed``; the exit status is non-zero on any failure.

Manifest lines (a line starting with ``#`` is a comment):
    guest NAME [nodes=N] [kernel=debug|release] [boot="ARGS"] [timeout=S] [pass=N]
          [allow-skip="reason"] [tries=N flaky="reason"] -- COMMAND
    kunit SUITE
    host  NAME [timeout=S] -- COMMAND          (run on the host, in the project)
"""

import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("guest", "kunit", "host")
OPTIONS = {"nodes": int, "timeout": int, "pass": int, "allow-skip": str, "tries": int,
           "flaky": str, "kernel": str, "boot": str}
KERNELS = ("debug", "release")


class ManifestError(Exception):
    pass


def parse_manifest(text, source="manifest"):
    tests, seen = [], set()
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        head, sep, cmd = raw.partition(" -- ")
        try:
            words = shlex.split(head)
        except ValueError as e:
            raise ManifestError("%s:%d: %s" % (source, n, e))
        if len(words) < 2 or words[0] not in KINDS:
            raise ManifestError("%s:%d: want KIND NAME [options] [-- command], KIND one of %s"
                                % (source, n, ", ".join(KINDS)))
        kind, name = words[0], words[1]
        t = {"kind": kind, "name": name, "cmd": cmd.strip(), "nodes": 2, "kernel": "debug", "boot": "",
             "timeout": 600 if kind == "host" else 300, "pass": None,
             "allow-skip": None, "tries": 1, "flaky": None, "line": n}
        for opt in words[2:]:
            key, eq, val = opt.partition("=")
            if key not in OPTIONS or not eq:
                raise ManifestError("%s:%d: unknown option %r" % (source, n, opt))
            try:
                t[key] = OPTIONS[key](val)
            except ValueError:
                raise ManifestError("%s:%d: bad value in %r" % (source, n, opt))
        if kind in ("guest", "host") and not sep:
            raise ManifestError("%s:%d: %s test %s has no '-- command'" % (source, n, kind, name))
        if kind == "kunit" and sep:
            raise ManifestError("%s:%d: a kunit line names a suite, not a command" % (source, n))
        if t["kernel"] not in KERNELS:
            raise ManifestError("%s:%d: kernel=%s: want one of %s" % (source, n, t["kernel"],
                                                                     ", ".join(KERNELS)))
        if t["nodes"] < 1 or t["timeout"] < 1 or t["tries"] < 1:
            raise ManifestError("%s:%d: nodes, timeout and tries must be positive" % (source, n))
        if (t["tries"] > 1) != bool(t["flaky"]):
            raise ManifestError("%s:%d: tries=N (N > 1) goes with flaky=\"reason\"" % (source, n))
        if t["boot"] and kind != "guest":
            raise ManifestError("%s:%d: boot=\"ARGS\" is for guest tests" % (source, n))
        if (kind, name) in seen:
            raise ManifestError("%s:%d: %s %s listed twice" % (source, n, kind, name))
        seen.add((kind, name))
        tests.append(t)
    if not tests:
        raise ManifestError("%s: no tests" % source)
    return tests


TOTALS = re.compile(r"# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) xpass:(\d+) skip:(\d+) error:(\d+)")
KSFT_SKIP = 4


def judge_guest(t, g):
    """(ok, detail) for one guest test's result g (vm.GuestTest or None)."""
    if g is None:
        return False, "missing: never started in the guest"
    if g.rc is None:
        return False, "crashed or hung: no end marker"
    if g.rc == 137:
        return False, "timed out after %ds" % t["timeout"]
    if g.reports:
        first = next((l for l in g.reports[0].splitlines() if vm.REPORT.search(l)), "")
        return False, "kernel report while it ran: %s" % vm.KMSG.sub(r"\1", first).strip()
    totals = None
    for line in g.output:
        m = TOTALS.search(line)
        if m:
            totals = [int(x) for x in m.groups()]
    skipped = g.rc == KSFT_SKIP or (totals is not None and totals[4] > 0)
    if totals is not None and (totals[1] or totals[5] or totals[3]):
        return False, "rc=%d, subtests failed: %s" % (g.rc, " ".join(
            l.strip() for l in g.output if l.lstrip().startswith("not ok"))[:300])
    if skipped:
        if t["allow-skip"]:
            return True, "skip allowed: %s" % t["allow-skip"]
        why = [l.strip() for l in g.output if "SKIP" in l or "skip" in l.lower()][:3]
        return False, "skipped (not allowed by the manifest): %s" % " | ".join(why)
    if g.rc != 0:
        return False, "exit status %d" % g.rc
    if t["pass"] is not None and (totals is None or totals[0] != t["pass"]):
        return False, "expected %d passing subtests, got %s" % (
            t["pass"], "none" if totals is None else totals[0])
    if g.tries > 1:
        return True, "%.1fs, passed on try %d of %d (flaky: %s)" % (
            g.secs, g.tries, t["tries"], t["flaky"])
    return True, "%.1fs" % g.secs


class Reporter:
    def __init__(self, out=sys.stdout):
        self.out, self.n, self.passed, self.failed = out, 0, 0, 0

    def result(self, ok, name, detail="", lines=()):
        self.n += 1
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        self.out.write("%sok %d - %s%s\n" % ("" if ok else "not ", self.n, name,
                                             " # " + detail.splitlines()[0] if detail else ""))
        if not ok:
            rest = detail.splitlines()[1:] + list(lines)
            for l in rest[-40:]:
                self.out.write("#   %s\n" % l.rstrip())
        self.out.flush()

    def note(self, text):
        for l in text.splitlines():
            self.out.write("# %s\n" % l)
        self.out.flush()


def run_host(t, rep, logdir):
    log = os.path.join(logdir, "host-%s.log" % t["name"].replace("/", "_"))
    start = time.monotonic()
    try:
        p = subprocess.run(t["cmd"], shell=True, cwd=TOP, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=t["timeout"])
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), None
    with open(log, "w") as f:
        f.write(out)
    secs = time.monotonic() - start
    if rc is None:
        rep.result(False, t["name"], "timed out after %ds (log: %s)" % (t["timeout"], log),
                   out.splitlines()[-20:])
    else:
        rep.result(rc == 0, t["name"], "%.1fs" % secs if rc == 0 else
                   "exit status %d (log: %s)" % (rc, log), out.splitlines()[-30:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", default=os.path.join(TOP, "tests", "manifest"))
    ap.add_argument("--kernel", default=os.path.join(TOP, "build", "obj-debug", "arch", "x86", "boot", "bzImage"))
    ap.add_argument("--release-kernel", default=os.path.join(TOP, "build", "obj-release", "arch", "x86", "boot",
                                                             "bzImage"), help="for kernel=release lines")
    ap.add_argument("--initrd", default=os.path.join(TOP, "build", "initramfs.cpio.gz"))
    ap.add_argument("--logdir", default=None, help="default build/test/<stamp>")
    ap.add_argument("--mem", type=int, default=3072, help="guest memory in MiB")
    ap.add_argument("--smp", type=int, default=2, help="guest vCPUs (at least the node count)")
    ap.add_argument("--only", default=None, help="regex: run only the tests whose name matches")
    args = ap.parse_args(argv)

    try:
        with open(args.manifest) as f:
            tests = parse_manifest(f.read(), args.manifest)
    except (OSError, ManifestError) as e:
        print("manifest error: %s" % e)
        print("0 passed, 1 failed")
        return 1
    if args.only:
        tests = [t for t in tests if re.search(args.only, t["name"])]
        if not tests:
            print("no test in %s matches --only %r" % (args.manifest, args.only))
            print("0 passed, 1 failed")
            return 1
    logdir = args.logdir or os.path.join(TOP, "build", "test",
                                         datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(logdir, exist_ok=True)
    if not args.logdir:
        latest = os.path.join(TOP, "build", "test", "latest")
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(os.path.basename(logdir), latest)

    rep = Reporter()
    print("TAP version 13")
    rep.note("logs: %s" % logdir)

    for t in tests:
        if t["kind"] == "host":
            run_host(t, rep, logdir)

    guest = [t for t in tests if t["kind"] == "guest"]
    kunit = [t for t in tests if t["kind"] == "kunit"]
    # One boot per (kernel, node count, extra command line); KUnit runs in
    # the debug 2-node boot.
    boots = sorted({(t["kernel"], t["nodes"], t["boot"]) for t in guest} |
                   ({("debug", 2, "")} if kunit else set()))
    for kernel, nodes, append in boots:
        group = [t for t in guest
                 if (t["kernel"], t["nodes"], t["boot"]) == (kernel, nodes, append)]
        image = args.kernel if kernel == "debug" else args.release_kernel
        tag = "nodes%d" % nodes if kernel == "debug" else "%s-nodes%d" % (kernel, nodes)
        if append:
            tag += "-" + re.sub(r"[^A-Za-z0-9]+", "-", append).strip("-")
        if not (os.path.exists(image) and os.path.exists(args.initrd)):
            boot = None
            problems = ["kernel or initramfs missing: %s, %s" % (image, args.initrd)]
        else:
            log = os.path.join(logdir, "serial-%s.log" % tag)
            boot = vm.run(image, args.initrd,
                          [(t["name"], t["timeout"], t["cmd"], t["tries"]) for t in group],
                          log, mem_mb=args.mem, smp=args.smp, nodes=nodes, append=append)
            problems = boot.problems()
            rep.note("boot of the %s kernel with %d nodes%s: %.0fs, %s (serial log: %s)" % (
                kernel, nodes, " and %s" % append if append else "", boot.secs,
                boot.info or "no @@BOOT line", log))
        for t in group:
            g = boot.tests.get(t["name"]) if boot else None
            ok, detail = judge_guest(t, g) if boot else (False, problems[0])
            lines = g.output[-30:] if (g and not ok) else []
            if g and g.reports:
                lines = g.reports[0].splitlines()
            rep.result(ok, t["name"], detail, lines)
        if (kernel, nodes, append) == ("debug", 2, ""):
            for t in kunit:
                k = boot.kunit.get(t["name"]) if boot else None
                if k is None:
                    rep.result(False, "kunit/" + t["name"], "suite did not run (CONFIG off?)")
                else:
                    rep.result(k[0], "kunit/" + t["name"], "" if k[0] else k[1])
        # Boot-wide failures count once, as a test of their own.
        if boot is not None:
            rep.result(not problems, "boot/%s clean" % tag,
                       "; ".join(p.splitlines()[0] for p in problems) if problems else "",
                       [l for p in problems for l in p.splitlines()[1:]])
    print("1..%d" % rep.n)
    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
