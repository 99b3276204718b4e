#!/usr/bin/env python3
"""Self-tests: show that the harness fails, loudly, when it should.

    selftest.py bad-patch       a patch that does not apply stops the build
                                with an error naming the patch
    selftest.py guest-failure   a failing guest test fails the run
    selftest.py lkdtm-warning   a kernel WARNING provoked through LKDTM fails
                                the run and shows the report

Each runs the real harness code (harness/prepare-tree.sh, harness/test.py)
on a deliberately broken input and exits 0 only if that failed as it should.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(TOP, "build", "linux")

BAD_PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: harness self-test <selftest@example.invalid>
Subject: [PATCH] mm/ksm: a change whose context is not in the tree

---
 mm/ksm.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/ksm.c b/mm/ksm.c
--- a/mm/ksm.c
+++ b/mm/ksm.c
@@ -1,3 +1,3 @@
 this line is not in mm/ksm.c
-nor is this one
+so the patch cannot apply
 the end
--
2.39.5
"""


def check(cond, msg):
    if not cond:
        print("SELFTEST FAILED: " + msg)
        sys.exit(1)
    print("ok: " + msg)


def bad_patch():
    tmp = tempfile.mkdtemp(prefix="selftest-", dir=os.path.join(TOP, "build"))
    tree, patches = os.path.join(tmp, "linux"), os.path.join(tmp, "patches")
    try:
        subprocess.run(["git", "-C", SRC, "worktree", "add", "-q", "--detach", tree, "base"],
                       check=True)
        os.makedirs(patches)
        good = sorted(p for p in os.listdir(os.path.join(TOP, "kernel", "patches"))
                      if p.endswith(".patch"))
        for p in good:
            shutil.copy(os.path.join(TOP, "kernel", "patches", p), patches)
        name = "9999-harness-selftest-bad.patch"
        with open(os.path.join(patches, name), "w") as f:
            f.write(BAD_PATCH)
        env = dict(os.environ, SRC=tree, PATCHES=patches, BUILD=tmp)
        p = subprocess.run(["bash", os.path.join(TOP, "harness", "prepare-tree.sh")],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(p.stdout)
        check(p.returncode != 0, "prepare-tree.sh fails on a patch that does not apply")
        check("patch %s does not apply" % name in p.stdout, "the error names the patch")
        applied = subprocess.run(["git", "-C", tree, "rev-list", "--count", "base..HEAD"],
                                 stdout=subprocess.PIPE, text=True).stdout.strip()
        check(applied == "0", "the failed series leaves no half-applied tree "
              "(%s commits since base)" % applied)
        check("applied" not in p.stdout, "no success is claimed")
    finally:
        subprocess.run(["git", "-C", SRC, "worktree", "remove", "--force", tree],
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["git", "-C", SRC, "worktree", "prune"])


def run_manifest(text):
    tmp = tempfile.mkdtemp(prefix="selftest-", dir=os.path.join(TOP, "build"))
    man = os.path.join(tmp, "manifest")
    with open(man, "w") as f:
        f.write(text)
    p = subprocess.run([sys.executable, os.path.join(TOP, "harness", "test.py"),
                        "--manifest", man, "--logdir", tmp],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout)
    lines = p.stdout.strip().splitlines()
    return p.returncode, p.stdout, lines[-1] if lines else ""


def guest_failure():
    rc, out, last = run_manifest("guest harness_selftest_fail -- harness_selftest_fail\n")
    check(rc != 0, "test.py exits non-zero when a guest test fails")
    check(re.search(r"^not ok \d+ - harness_selftest_fail", out, re.M), "the failing test is named")
    check("deliberate failure" in out, "its output is shown")
    check(re.fullmatch(r"\d+ passed, [1-9]\d* failed", last), "the last line counts the failure")


def lkdtm_warning():
    rc, out, last = run_manifest(
        "guest lkdtm-warning -- echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT\n")
    check(rc != 0, "test.py exits non-zero on a kernel WARNING")
    check(re.search(r"^not ok \d+ - lkdtm-warning # kernel report while it ran: WARNING: CPU", out, re.M),
          "the test that ran when it happened fails")
    check(re.search(r"^not ok \d+ - boot/nodes2 clean # kernel report during lkdtm-warning", out, re.M),
          "the boot fails, naming where the report came from")
    check(re.search(r"^#   .*WARNING: CPU: \d+ PID: \d+ at .*lkdtm", out, re.M), "the report's excerpt is shown")
    check("taint set during the run" in out, "the new taint flag is reported")
    check(re.fullmatch(r"\d+ passed, [1-9]\d* failed", last), "the last line counts the failures")


if __name__ == "__main__":
    modes = {"bad-patch": bad_patch, "guest-failure": guest_failure, "lkdtm-warning": lkdtm_warning}
    if len(sys.argv) != 2 or sys.argv[1] not in modes:
        print("usage: selftest.py %s" % "|".join(modes))
        sys.exit(2)
    modes[sys.argv[1]]()
