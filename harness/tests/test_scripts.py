"""Host-side tests of the harness's shell scripts: deps.sh and the build
progress printer of lib.sh."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
H = os.path.join(TOP, "harness")


def procs_of_sid(sid):
    """The processes still running (zombies left out) whose setsid() id is
    sid, each as "pid command"."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            left.append("%s %s" % (pid, cmd))
    return left


class ProgressTest(unittest.TestCase):
    LINE = re.compile(r"^\[bash\] building x: 0m0(\d)s elapsed, (\d+) objects compiled$")

    def run_progress(self, body, *, sig=None, to_group=True, after=1.5, pre="", env_extra=None):
        """Run with_progress over body (bash) under a setsid() of its own, the
        printer ticking every second, after the shell code pre; return (rc,
        stdout, stderr lines, sid). self.traps: the shell's EXIT trap once
        with_progress returned."""
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.build = os.path.join(self.dir, "build")
        # jobs.txt: the shell's background jobs once with_progress returned.
        script = ('source %s/lib.sh\nrc=0\n%s\n'
                  'with_progress "building x" %s "*.o" "objects compiled" bash -c %s || rc=$?\n'
                  'jobs -p >jobs.txt\ntrap -p EXIT >traps.txt\necho after\nexit $rc\n'
                  % (H, pre, self.dir, _sh_quote(body)))
        self.tmpdir = os.path.join(self.dir, "tmp")
        os.mkdir(self.tmpdir)
        env = dict(os.environ, PROGRESS_SECS="1", PROGRESS_TICK="1", BUILD=self.build,
                   TMPDIR=self.tmpdir)
        env.update(env_extra or {})
        p = subprocess.Popen(["bash", "-c", script], cwd=self.dir, env=env, start_new_session=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if sig is not None:
            time.sleep(after)
            if to_group:
                os.killpg(p.pid, sig)
            else:
                os.kill(p.pid, sig)
        out, err = p.communicate(timeout=60)
        jobs = os.path.join(self.dir, "jobs.txt")
        if os.path.exists(jobs):
            with open(jobs) as f:
                self.assertEqual(f.read(), "", "no job left once with_progress returned")
        self.traps = None
        traps = os.path.join(self.dir, "traps.txt")
        if os.path.exists(traps):
            with open(traps) as f:
                self.traps = f.read()
        return p.returncode, out, err.splitlines(), p.pid

    def marks(self):
        """The printer's mark files left in $BUILD, and any file in $TMPDIR."""
        left = os.listdir(self.tmpdir)
        if os.path.isdir(self.build):
            left += [n for n in os.listdir(self.build) if n.startswith(".progress")]
        return left

    def wait_gone(self, sid, keep=()):
        """The processes under sid other than those named in keep, once
        every one of them is gone or after 3 s."""
        for _ in range(30):
            left = [l for l in procs_of_sid(sid) if not any(k in l for k in keep)]
            if not left:
                return left
            time.sleep(0.1)
        return left

    def test_output_status_and_lines(self):
        rc, out, err, sid = self.run_progress(
            'for i in 1 2 3; do sleep 1; : >"$i.o"; done; echo out; echo oops >&2; exit 3')
        self.assertEqual(rc, 3, "the command's exit status")
        self.assertEqual(out, "out\nafter\n", "the command's output as it is")
        self.assertIn("oops", err, "the command's error output shown")
        lines = [self.LINE.match(l) for l in err if "elapsed" in l]
        self.assertTrue(lines and all(lines), err)
        self.assertGreaterEqual(len(lines), 2, err)
        counts = [int(m.group(2)) for m in lines]
        self.assertEqual(counts, sorted(counts), "objects counted as they are written")
        self.assertGreater(counts[-1], 0)
        self.assertEqual(self.wait_gone(sid), [])
        self.assertEqual(self.marks(), [], "the mark file removed")

    def test_success_goes_on(self):
        rc, out, err, sid = self.run_progress("sleep 1.5")
        self.assertEqual((rc, out), (0, "after\n"))
        self.assertEqual(self.wait_gone(sid), [], "the printer ends with the command")

    def test_quick_command_prints_nothing(self):
        rc, out, err, sid = self.run_progress("true")
        self.assertEqual((rc, out, err), (0, "after\n", []))
        self.assertEqual(self.wait_gone(sid), [])

    def test_signals_end_the_printer(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(sig=sig):
                rc, out, err, sid = self.run_progress("sleep 30", sig=sig)
                self.assertEqual(rc, -sig)
                self.assertEqual(self.wait_gone(sid), [])
                self.assertEqual(self.marks(), [])

    def test_printer_ends_when_the_shell_is_killed_alone(self):
        # The command itself (sleep) is left, as it would be without the printer.
        rc, out, err, sid = self.run_progress("exec >/dev/null 2>&1; sleep 30",
                                              sig=signal.SIGKILL, to_group=False)
        left = self.wait_gone(sid, keep=("sleep 30",))
        for line in procs_of_sid(sid):
            os.kill(int(line.split()[0]), signal.SIGKILL)
        self.assertEqual(left, [])
        self.assertEqual(self.marks(), [], "the printer removes the mark file as it ends")

    TRAP = "trap 'echo \"caller trap, status $?\" >>caller.txt' EXIT"

    def caller_trap_runs(self):
        path = os.path.join(self.dir, "caller.txt")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().splitlines()

    def test_caller_exit_trap_is_kept(self):
        rc, out, err, sid = self.run_progress("sleep 1.5; exit 3", pre=self.TRAP)
        self.assertEqual((rc, out), (3, "after\n"), err)
        self.assertEqual(self.traps, "trap -- 'echo \"caller trap, status $?\" >>caller.txt' EXIT\n",
                         "the caller's EXIT trap back once with_progress returned")
        self.assertEqual(self.caller_trap_runs(), ["caller trap, status 3"],
                         "it runs once, at the shell's exit, with its status")
        self.assertEqual(self.wait_gone(sid), [])

    def test_no_exit_trap_stays_none(self):
        rc, out, err, sid = self.run_progress("true")
        self.assertEqual(self.traps, "")

    def test_caller_exit_trap_runs_on_a_signal_during_the_command(self):
        rc, out, err, sid = self.run_progress("sleep 30", pre=self.TRAP, sig=signal.SIGTERM)
        self.assertEqual(rc, -signal.SIGTERM)
        self.assertEqual(len(self.caller_trap_runs()), 1, "the caller's trap chained")
        self.assertEqual(self.wait_gone(sid), [], "the printer ended too")
        self.assertEqual(self.marks(), [])

    def test_bad_progress_secs_use_the_default(self):
        for secs in ("0", "-1", "1.5", ""):
            with self.subTest(secs=secs):
                start = time.monotonic()
                rc, out, err, sid = self.run_progress("sleep 1.2", env_extra={"PROGRESS_SECS": secs})
                self.assertEqual((rc, out), (0, "after\n"), err)
                self.assertLess(time.monotonic() - start, 10)
                self.assertFalse([l for l in err if "elapsed" in l], "no line before 60 s")
                said = [l for l in err if "PROGRESS_SECS" in l]
                if secs:
                    self.assertEqual(said, ["[bash] PROGRESS_SECS='%s' is not a whole number of "
                                            "seconds >= 1: using 60" % secs])
                else:
                    self.assertEqual(err, [])
                self.assertEqual(self.wait_gone(sid), [])


def _sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


FAKE_DPKG_QUERY = r"""#!/usr/bin/env bash
# dpkg-query -W -f=FORMAT PKG...: every package installed but those in $FAKE_MISSING.
fmt=$2; shift 2
for p in "$@"; do
	case " $FAKE_MISSING " in *" $p "*) continue ;; esac
	case $fmt in
	*Status-Abbrev*) echo "$p ii  $FAKE_KVER" ;;
	*) printf '%s' "$FAKE_KVER" ;;
	esac
done
"""

FAKE_APT_GET = r"""#!/usr/bin/env bash
echo "apt-get $*" >>"$FAKE_APT_LOG"
echo "DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-} stdin=$(readlink /proc/$$/fd/0) sudo=${SUDO_USER:+yes}" >>"$FAKE_APT_ENV"
[ "$1" = install ] || exit 0
[ -z "$FAKE_APT_SLEEP" ] || sleep "$FAKE_APT_SLEEP"
[ -z "$FAKE_APT_FAIL" ] || { echo "E: Unable to locate package"; exit 100; }
for a in "$@"; do case $a in -*|install) ;; *) echo "Setting up $a (1.0) ..."; echo "Setting up lib$a (1.0) ...";; esac; done
"""

# sudo's env_reset: the command does not get the caller's DEBIAN_FRONTEND.
FAKE_SUDO = r"""#!/bin/sh
echo "sudo $*" >>"$FAKE_APT_LOG"
exec env -u DEBIAN_FRONTEND SUDO_USER=someone "$@"
"""

FAKE_ID = r"""#!/bin/sh
[ "$1" = -u ] && echo "$FAKE_UID"
"""


class DepsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.bin = os.path.join(d, "bin")
        os.mkdir(self.bin)
        for name, text in (("dpkg-query", FAKE_DPKG_QUERY), ("apt-get", FAKE_APT_GET),
                           ("sudo", FAKE_SUDO), ("id", FAKE_ID)):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.apt_log = os.path.join(d, "apt.log")
        self.apt_env = os.path.join(d, "apt.env")
        with open(os.path.join(TOP, "kernel", "BASE_VERSION")) as f:
            self.kver = f.read().strip()

    def tearDown(self):
        self.tmp.cleanup()

    def deps(self, *args, missing="", kver=None, fail="", uid=1000, sleep="", env_extra=None):
        """Run deps.sh, as user uid; return (rc, output, apt-get's command
        lines, sudo's excluded). self.env: apt-get's environment, one line a run."""
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"],
                   BUILD=os.path.join(self.tmp.name, "build"), FAKE_MISSING=missing,
                   FAKE_KVER=kver or self.kver, FAKE_APT_LOG=self.apt_log, FAKE_APT_FAIL=fail,
                   FAKE_APT_ENV=self.apt_env, FAKE_UID=str(uid), FAKE_APT_SLEEP=sleep,
                   DEBIAN_FRONTEND="readline")
        env.pop("SUDO_USER", None)
        env.update(env_extra or {})
        # stdin a pipe left open: apt-get must not read it.
        p = subprocess.run(["bash", os.path.join(H, "deps.sh"), *args], env=env,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        lines = []
        if os.path.exists(self.apt_log):
            with open(self.apt_log) as f:
                lines = f.read().splitlines()
        self.sudo = [l for l in lines if l.startswith("sudo ")]
        self.env = []
        if os.path.exists(self.apt_env):
            with open(self.apt_env) as f:
                self.env = f.read().splitlines()
        return p.returncode, p.stdout + p.stderr, [l for l in lines if not l.startswith("sudo ")]

    def test_nothing_to_do(self):
        rc, out, apt = self.deps()
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^\[deps\.sh\] nothing to do: the \d+ packages are installed\n$")
        self.assertEqual(apt, [])

    def test_installs_what_is_missing_and_says_why(self):
        rc, out, apt = self.deps(missing="qemu-system-x86 flex")
        self.assertEqual(rc, 0, out)
        self.assertIn("  qemu-system-x86: boots the test guest", out)
        self.assertIn("  flex: the kernel's Kconfig parser", out)
        self.assertNotIn("bison", out, "only the missing packages of a group")
        self.assertEqual(apt[-1], "apt-get install -y -q --no-install-recommends flex qemu-system-x86")
        self.assertIn("installed 2 package(s), 4 with their dependencies", out)

    def test_noninteractive_past_sudo(self):
        rc, out, apt = self.deps(missing="cpio")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.sudo, ["sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q",
                                     "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
                                     "--no-install-recommends cpio"])
        self.assertEqual(self.env, ["DEBIAN_FRONTEND=noninteractive stdin=/dev/null sudo=yes"] * 2)

    def test_as_root_no_sudo(self):
        rc, out, apt = self.deps(missing="cpio", uid=0)
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.sudo, [])
        self.assertEqual(self.env, ["DEBIAN_FRONTEND=noninteractive stdin=/dev/null sudo="] * 2)

    def test_progress_while_apt_runs(self):
        rc, out, apt = self.deps(missing="cpio flex", sleep="1.5",
                                 env_extra={"PROGRESS_SECS": "1", "PROGRESS_TICK": "1"})
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"\[deps\.sh\] installing 2 package\(s\): 0m0\ds elapsed, "
                              r"\d+ packages unpacked\n")
        with open(os.path.join(self.tmp.name, "build", "deps-apt.log")) as f:
            log = f.read()
        self.assertIn("Setting up cpio", log)
        self.assertNotIn("elapsed", log, "progress lines to the user, not into apt-get's log")
        self.assertNotIn("Setting up", out, "apt-get's output in its log only")
        self.assertEqual([n for n in os.listdir(os.path.join(self.tmp.name, "build"))
                          if n.startswith(".progress")], [])

    def test_apt_failure_is_shown(self):
        rc, out, apt = self.deps(missing="cpio", fail="1")
        self.assertNotEqual(rc, 0)
        self.assertIn("E: Unable to locate package", out)
        self.assertIn("apt-get failed", out)

    def test_docs_are_optional(self):
        rc, out, apt = self.deps(missing="python3-sphinx")
        self.assertEqual((rc, apt), (0, []), out)
        rc, out, apt = self.deps("--docs", missing="python3-sphinx")
        self.assertEqual(rc, 0, out)
        self.assertIn("python3-sphinx: make htmldocs", out)
        self.assertEqual(apt[-1], "apt-get install -y -q --no-install-recommends python3-sphinx")

    def test_every_package_has_a_use(self):
        rc, out, apt = self.deps("--list", "--docs")
        self.assertEqual(rc, 0)
        names = []
        for line in out.splitlines():
            pkgs, _, why = line.partition(": ")
            self.assertTrue(why.strip(), line)
            names += pkgs.split()
        self.assertEqual(len(names), len(set(names)), "no package listed twice")
        for p in ("linux-source-6.12", "qemu-system-x86", "rsync", "python3-sphinx"):
            self.assertIn(p, names)

    def test_kernel_source_version_warning(self):
        rc, out, apt = self.deps(kver="6.12.1-1")
        self.assertEqual(rc, 0)
        self.assertIn("WARNING: linux-source-6.12 is 6.12.1-1", out)

    def test_unknown_option(self):
        rc, out, apt = self.deps("--doc")
        self.assertNotEqual(rc, 0)
        self.assertIn("unknown option", out)


if __name__ == "__main__":
    unittest.main()
