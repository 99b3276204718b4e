"""Boot a kernel in QEMU, run a test plan in the guest, parse the serial log.

The guest's /init (guest/rootfs/init) runs the plan appended to the initramfs
and frames each test between ``@@BEGIN name`` and ``@@END name rc=N secs=S``
lines; ``@@STATE`` lines carry the taint mask and lockdep's debug_locks.
Everything the kernel prints is kept in the log and scanned for reports.
"""

import dataclasses
import gzip
import io
import os
import re
import subprocess
import sys
import threading
import time

# A kernel message line: "[    1.234567] text" (CONFIG_PRINTK_TIME).
KMSG = re.compile(r"\[\s*\d+\.\d+\] (.*)$")
# Kernel reports that fail a run wherever they appear.
REPORT = re.compile(
    r"(WARNING:|BUG:|Oops|kernel BUG at|Kernel panic|general protection fault"
    r"|KASAN:|UBSAN:|INFO: possible .*locking|INFO: trying to register non-static key"
    r"|INFO: task .* blocked for more than|rcu: INFO: .* detected stalls"
    r"|possible circular locking dependency|inconsistent lock state"
    r"|Call Trace:)"
)
# A guest test that injects faults (failslab, fail_page_alloc) brackets
# them with these kernel messages (written to /dev/kmsg); in between, the
# stack dump of an allocation failure it caused is counted, not reported.
FAULTS_ON = "ksm-test: fault injection on"
FAULTS_OFF = "ksm-test: fault injection off"
ALLOC_FAILURE = re.compile(r"page allocation failure: order:")
MARKER = re.compile(r"@@(BOOT|BEGIN|END|RETRY|STATE|DONE|ERROR)\b.*$")
TAINT_TEST = 1 << 18  # 'N': set whenever a KUnit test has run
TAINT_NAMES = "PFSRMBUDAWCIOELKXTN"


def taint_letters(mask):
    return "".join(c for i, c in enumerate(TAINT_NAMES) if mask & (1 << i)) or "-"


@dataclasses.dataclass
class GuestTest:
    name: str
    rc: int = None
    secs: float = None
    tries: int = 1
    output: list = dataclasses.field(default_factory=list)
    taint: int = None
    debug_locks: str = None
    reports: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Boot:
    log_path: str
    tests: dict = dataclasses.field(default_factory=dict)
    kunit: dict = dataclasses.field(default_factory=dict)  # suite -> (ok, text)
    reports: list = dataclasses.field(default_factory=list)  # (where, excerpt)
    boot_taint: int = None
    final_taint: int = None
    final_debug_locks: str = None
    info: str = ""
    done: bool = False
    timed_out: bool = False
    secs: float = 0.0
    errors: list = dataclasses.field(default_factory=list)
    injected: int = 0  # allocation failure dumps while faults were injected
    want: dict = dataclasses.field(default_factory=dict)  # e.g. {"nodes": 2, "cpus": 2}

    def problems(self):
        """Everything wrong with the boot as a whole (not one test's rc)."""
        out = list(self.errors)
        seen = dict(kv.split("=", 1) for kv in self.info.split() if "=" in kv)
        for key, val in self.want.items():
            if key in seen and seen[key] != str(val):
                out.append("guest has %s=%s, the run asked for %s" % (key, seen[key], val))
        if self.timed_out:
            out.append("guest did not finish in time (log: %s)" % self.log_path)
        elif not self.done:
            out.append("guest stopped before the end of its plan (log: %s)" % self.log_path)
        for where, excerpt in self.reports:
            out.append("kernel report during %s:\n%s" % (where, excerpt))
        if self.boot_taint is not None and self.boot_taint & ~TAINT_TEST:
            out.append("kernel tainted at boot: %d (%s)" % (self.boot_taint, taint_letters(self.boot_taint)))
        if self.final_taint is not None and self.boot_taint is not None:
            new = self.final_taint & ~self.boot_taint
            if new:
                out.append("taint set during the run: %d (%s)" % (new, taint_letters(new)))
        if self.final_debug_locks == "0":
            out.append("lockdep turned debug_locks off")
        return out


def plan_text(tests):
    """tests: iterable of (name, timeout_s, command[, tries]) -> the guest's /plan."""
    lines = []
    for t in tests:
        name, tmo, cmd = t[:3]
        tries = t[3] if len(t) > 3 else 1
        if "\t" in name + cmd or "\n" in name + cmd:
            raise ValueError("tab or newline in test %r" % name)
        lines.append("%s\t%d\t%d\t%s\n" % (name, tmo, tries, cmd))
    return "".join(lines)


def cpio_newc(files):
    """A newc cpio archive of regular files: {path: (bytes, mode)}."""
    out = io.BytesIO()
    ino = 1000

    def entry(name, data, mode):
        nonlocal ino
        ino += 1
        name_b = name.encode() + b"\0"
        hdr = "070701" + "".join("%08X" % v for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
        out.write(hdr.encode() + name_b)
        out.write(b"\0" * (-(110 + len(name_b)) % 4))
        out.write(data)
        out.write(b"\0" * (-len(data) % 4))

    for path, (data, mode) in files.items():
        entry(path, data, mode)
    entry("TRAILER!!!", b"", 0)
    return out.getvalue()


def make_initrd(base_initrd, plan, dest):
    """Base initramfs followed by a second archive holding /plan."""
    with open(base_initrd, "rb") as f:
        base = f.read()
    extra = gzip.compress(cpio_newc({"plan": (plan.encode(), 0o100644)}), 1)
    with open(dest, "wb") as f:
        f.write(base + extra)


def qemu_cmd(kernel, initrd, mem_mb=3072, smp=2, nodes=2, append=""):
    smp = max(smp, nodes)
    cmdline = "console=ttyS0 panic=-1 ignore_loglevel numa=fake=%d %s" % (nodes, append)
    # TCG, not KVM: this machine's /dev/kvm is a nested PVM device on which
    # a normal guest kernel hangs right after "Booting from ROM".
    return ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "qemu64",
            "-m", str(mem_mb), "-smp", str(smp),
            "-kernel", kernel, "-initrd", initrd, "-append", cmdline.strip(),
            "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-no-reboot"]


def parse(lines, boot):
    """Fill boot from the serial log lines."""
    cur = None
    where = "boot"
    kunit_depth = []
    faults = False
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        m = KMSG.search(line)
        msg = m.group(1) if m else None
        if msg is not None and (FAULTS_ON in msg or FAULTS_OFF in msg):
            faults = FAULTS_ON in msg
        if (msg is not None and faults and msg.strip() == "Call Trace:" and
                any(ALLOC_FAILURE.search(l) for l in lines[max(0, i - 12):i])):
            boot.injected += 1
        elif msg is not None and REPORT.search(msg):
            excerpt = "\n".join(l.rstrip() for l in lines[max(0, i - 2):i + 25])
            # One report per kernel splat: skip lines of the one just seen.
            if not boot.reports or boot.reports[-1][2] < i - 25:
                boot.reports.append((where, excerpt, i))
                if cur is not None:
                    cur.reports.append(excerpt)
        if msg is not None:
            k = re.match(r"(not )?ok \d+ (\S+)", msg)
            if k and not msg.startswith(" "):
                boot.kunit[k.group(2)] = (k.group(1) is None, msg)
        mk = MARKER.search(line)
        # A marker may share its line with kernel output the console
        # interleaved: take it from wherever it starts.
        line = mk.group(0) if mk else line
        if line.startswith("@@BOOT "):
            boot.info = line[7:]
        elif line.startswith("@@BEGIN "):
            where = line[8:].strip()
            cur = boot.tests.setdefault(where, GuestTest(where))
        elif line.startswith("@@END "):
            m2 = re.match(r"@@END (\S+) rc=(-?\d+) secs=([\d.]+)(?: tries=(\d+))?", line)
            if m2 and cur is not None:
                cur.rc = int(m2.group(2))
                cur.secs = float(m2.group(3))
                cur.tries = int(m2.group(4) or 1)
            cur = None
        elif line.startswith("@@STATE "):
            m2 = re.match(r"@@STATE (\S+) taint=(\d+) debug_locks=(\S*)", line)
            if m2:
                name, taint, dl = m2.group(1), int(m2.group(2)), m2.group(3)
                if name == "boot":
                    boot.boot_taint = taint
                elif name == "done":
                    boot.final_taint, boot.final_debug_locks = taint, dl
                elif name in boot.tests:
                    boot.tests[name].taint, boot.tests[name].debug_locks = taint, dl
            where = "between tests"
        elif line.startswith("@@RETRY "):
            if cur is not None:
                cur.output.append(line)
        elif line.startswith("@@DONE"):
            boot.done = True
        elif line.startswith("@@ERROR"):
            boot.errors.append(line[8:])
        elif cur is not None:
            cur.output.append(line)
    boot.reports = [(w, e) for w, e, _ in boot.reports]
    return boot


def from_log(log_path, smp=2, nodes=2):
    """Parse the serial log a finished run() kept, without booting."""
    boot = Boot(log_path, want={"nodes": nodes, "cpus": max(smp, nodes)})
    with open(log_path, errors="replace") as f:
        return parse(f.readlines(), boot)


def run(kernel, base_initrd, tests, log_path, mem_mb=3072, smp=2, nodes=2,
        timeout=None, append="", on_line=None):
    """Boot once and run tests [(name, timeout_s, command[, tries])]; return a Boot.

    on_line, if given, is called with every serial line (without its line
    end) as it arrives, from the thread that reads the serial output; if it
    raises, it is not called again and the run goes on.
    """
    tests = list(tests)
    if timeout is None:
        timeout = 120 + sum((t[1] + 30) * (t[3] if len(t) > 3 else 1) for t in tests)
    os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
    initrd = log_path + ".initrd"
    make_initrd(base_initrd, plan_text(tests), initrd)
    cmd = qemu_cmd(kernel, initrd, mem_mb, smp, nodes, append)
    boot = Boot(log_path, want={"nodes": nodes, "cpus": max(smp, nodes)})
    lines = []
    callback = [on_line]
    start = time.monotonic()
    with open(log_path, "w", errors="replace") as log:
        log.write("# " + " ".join(cmd) + "\n")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)

        def reader():
            for raw in proc.stdout:
                text = raw.decode("utf-8", "replace")
                lines.append(text)
                log.write(text)
                log.flush()
                if callback[0] is not None:
                    try:
                        callback[0](text.rstrip("\r\n"))
                    except Exception as e:  # noqa: BLE001 - a display must not stop the run
                        callback[0] = None
                        sys.stderr.write("vm: on_line callback stopped: %r\n" % e)

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            boot.timed_out = True
            proc.kill()
            proc.wait()
        t.join(10)
        if not t.is_alive():
            proc.stdout.close()
    boot.secs = time.monotonic() - start
    os.unlink(initrd)
    return parse(lines, boot)
