"""What the perf-based probes share (stacks.py, sched.py, block.py): finding perf, making sure
tracefs is there, running one `perf record` or `perf stat` around each repeat, and turning
perf.data into gzip-compressed `perf script` text.

Start and stop are exact: every perf process starts with its events disabled (`-D -1`) and is
driven through `--control fd:CTL,ACK` (perf 5.10+): "enable" is sent before fio starts and
perf's "ack" awaited, so nothing of fio's start is missed however long perf takes to set
itself up (a `perf record -a -g` takes ~0.3 s here); "disable" is sent when fio has exited,
then SIGINT, and perf writes its file and exits. The time perf spent on the CPU (its rusage,
from wait4) is the overhead reported; the kernel's own cost of sampling and tracepoints is not
in it.

All event times use CLOCK_MONOTONIC (`perf record -k CLOCK_MONOTONIC`), so the collector can
record the clock's reading at the moment fio started (artifact field `trace_clock_at_start_ns`)
and the stacks, scheduler and block events of one run line up with each other and with fio.

perf stat's interval times (`-I`) count from perf stat's own start (its CLOCK_MONOTONIC reading
once its counters are open, taken right before it starts reading its control fd), not from the
trace's: perf stat starts before perf record, seconds before it on an emulated CPU. The collector
sends `ping` right after starting perf stat and waits for its ack: perf answers it at that moment,
so the ack's CLOCK_MONOTONIC reading is perf stat's time 0 on the trace's clock (artifact field
`stat_clock_at_start_ns`; measured within 0.1 ms of the enable that perf's counts show, perf
6.1). A perf without `ping` (older than 6.1) would never answer it: no field then, with a note.

Sizes are bounded by `perf record --max-size` (`--probe-max-mb`): perf stops writing there and
says so ("perf size limit reached"), which the probe reports.
"""

from __future__ import annotations

import gzip
import os
import re
import select
import shutil
import signal
import subprocess
import time
from typing import Callable, Dict, Iterable, List, Optional, Tuple

__all__ = ["PerfError", "Perf", "Session", "RunProbe", "Start", "Artifact", "overhead", "human_bytes", "find_perf", "ensure_tracefs", "missing_tracepoints",
           "script_to_gzip", "count_stat_csv", "answers_ping", "is_root", "TRACEFS", "permission_hint"]

TRACEFS = "/sys/kernel/tracing"
DEBUGFS_TRACING = "/sys/kernel/debug/tracing"
_CHUNK = 1 << 20


class PerfError(Exception):
    """A perf process could not be started or driven; the message is perf's own words."""


def is_root() -> bool:
    return os.geteuid() == 0


class Perf:
    """The perf binary and its version."""

    def __init__(self, path: str, version: str):
        self.path = path
        self.version = version


def find_perf(which: Callable[[str], Optional[str]] = shutil.which) -> Tuple[Optional[Perf], Optional[str]]:
    """(Perf, None) or (None, why perf cannot be used here)."""
    path = which("perf")
    if path is None:
        return None, "perf not found on PATH (Debian: apt-get install linux-perf)"
    try:
        cp = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"'{path} --version' failed ({exc})"
    out = cp.stdout.decode("utf-8", "replace").strip()
    if cp.returncode != 0 or not out:
        # Debian's wrapper without the matching package: "WARNING: perf not found for kernel 6.x"
        first = out.splitlines()[0] if out else ""
        return None, f"'{path} --version' exited {cp.returncode} ({first[:160]})"
    return Perf(path, out.splitlines()[0].strip()), None


def _mounted(root: str, fstype: str, mountpoint: str) -> bool:
    try:
        with open(os.path.join(root, "proc/self/mountinfo"), encoding="utf-8", errors="replace") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = left.split()
                if len(fields) >= 5 and fields[4] == mountpoint and right.split()[:1] == [fstype]:
                    return True
    except OSError:
        pass
    return False


def ensure_tracefs(root: str = "/", root_user: Optional[bool] = None,
                   mount: Optional[Callable[[str], Optional[str]]] = None) -> Tuple[Optional[str], Optional[str], bool]:
    """Where the tracepoint definitions are: (events directory, problem, mounted_by_us).

    perf reads the tracepoints' formats from tracefs (/sys/kernel/tracing, or the old
    /sys/kernel/debug/tracing). When neither is there and we are root, tracefs is mounted at
    /sys/kernel/tracing (`mount -t tracefs nodev ...`); the caller unmounts it at the end
    (`unmount_tracefs`). ``root`` and ``mount`` are for tests."""
    for d in (TRACEFS, DEBUGFS_TRACING):
        top = os.path.join(root, d.lstrip("/"))
        ev = os.path.join(top, "events")
        if os.path.isdir(ev):
            if os.access(ev, os.R_OK | os.X_OK):
                return ev, None, False
            return None, f"tracefs {d} is mounted but not readable by this user (it needs root)", False
        if os.path.isdir(top) and not os.access(top, os.R_OK | os.X_OK) and _mounted(root, "tracefs", d):
            return None, f"tracefs {d} is mounted but not readable by this user (it needs root)", False
    root_user = is_root() if root_user is None else root_user
    if not root_user:
        return None, "tracefs is not mounted at /sys/kernel/tracing and mounting it needs root", False
    mount = mount or _mount_tracefs
    target = os.path.join(root, TRACEFS.lstrip("/"))
    problem = mount(target)
    if problem:
        return None, f"tracefs is not mounted and mounting it at {TRACEFS} failed: {problem}", False
    ev = os.path.join(target, "events")
    if not os.path.isdir(ev):
        return None, f"tracefs mounted at {TRACEFS} but has no events/ (kernel without tracepoints?)", True
    return ev, None, True


def _mount_tracefs(target: str) -> Optional[str]:
    try:
        cp = subprocess.run(["mount", "-t", "tracefs", "nodev", target], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if cp.returncode != 0:
        return cp.stdout.decode("utf-8", "replace").strip() or f"mount exited {cp.returncode}"
    return None


def unmount_tracefs(target: str = TRACEFS) -> Optional[str]:
    try:
        cp = subprocess.run(["umount", target], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"tracefs: could not unmount {target} ({exc})"
    if cp.returncode != 0:
        return f"tracefs: could not unmount {target}: {cp.stdout.decode('utf-8', 'replace').strip()}"
    return None


def missing_tracepoints(events_dir: str, names: Iterable[str]) -> List[str]:
    """The `sys:name` tracepoints that this kernel does not have."""
    return [n for n in names if not os.path.isdir(os.path.join(events_dir, *n.split(":", 1)))]


def permission_hint(root: str = "/") -> str:
    """Why perf might be refused, for a note: the paranoid level when not root."""
    if is_root():
        return ""
    try:
        with open(os.path.join(root, "proc/sys/kernel/perf_event_paranoid")) as f:
            level = int(f.read().strip())
    except (OSError, ValueError):
        return " (not root)"
    if level > -1:
        return (f" (not root, and kernel.perf_event_paranoid is {level}: system-wide recording needs "
                "root, CAP_PERFMON, or a lower setting: 0 for --stacks, -1 for tracepoints)")
    return " (not root)"


def stderr_tail(path: str, n: int = 6) -> str:
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return ""
    # perf's own control chatter is not the reason
    lines = [ln for ln in lines if ln not in ("Events disabled", "Events enabled")]
    # perf's errors start with "Error:" and go on with advice: keep the start, where the reason is
    for i, ln in enumerate(lines):
        if ln.startswith("Error:") or ln.startswith("Fatal:"):
            head = lines[i:i + 3]
            if ln in ("Error:", "Fatal:") and len(head) > 1:
                head = [ln + " " + head[1]] + head[2:]
            return " / ".join(head)
    return " / ".join(lines[-n:])


def _start_timeout() -> float:
    """perf record -a needs seconds to start on a real host, minutes on an emulated CPU (the lab's
    TCG guests): IOLENS_PERF_START_TIMEOUT (seconds) raises the default of 60."""
    try:
        return float(os.environ.get("IOLENS_PERF_START_TIMEOUT", "") or 60.0)
    except ValueError:
        return 60.0


_CAPTURED = re.compile(r"Captured and wrote ([\d.]+) MB \S+ \((\d+) samples\)")


_VERSION = re.compile(r"(\d+)\.(\d+)")


def answers_ping(version: str) -> bool:
    """Whether this perf (`perf version 6.1.76`) knows the control command `ping` (perf 6.1+).
    A perf that does not know a command never acks it, so it is only sent to those that do."""
    m = _VERSION.search(version)
    return m is not None and (int(m.group(1)), int(m.group(2))) >= (6, 1)


class Session:
    """One perf process (`perf record ...` or `perf stat ...`) around one repeat.

    ``argv`` is the command without the control options, which are added here; ``shown`` is the
    same command as recorded in the manifest (file names relative to the run). With ``ping``
    (perf stat, perf 6.1+), `launch` waits for perf to answer a `ping` and keeps the time of the
    answer: perf stat's time 0 (``started_ns``, CLOCK_MONOTONIC)."""

    def __init__(self, argv: List[str], shown: List[str], stderr_path: str, counter: bool = False,
                 ping: bool = False):
        self.argv = list(argv)
        self.counter = counter  # perf stat: enabled before every recording, disabled after
        self.ping = ping
        self.started_ns: Optional[int] = None
        self.shown = list(shown)
        self.stderr_path = stderr_path
        self.proc: Optional[subprocess.Popen] = None
        self.ctl_w: Optional[int] = None
        self.ack_r: Optional[int] = None
        self.enabled_at: Optional[float] = None
        self.disabled_at: Optional[float] = None
        self.cpu_s: Optional[float] = None
        self.returncode: Optional[int] = None

    # -- start ---------------------------------------------------------------------------
    def launch(self) -> None:
        """Start perf with its events disabled; `enable()` turns them on."""
        ctl_r, self.ctl_w = os.pipe()
        self.ack_r, ack_w = os.pipe()
        argv = self.argv[:2] + ["-D", "-1", "--control", f"fd:{ctl_r},{ack_w}"] + self.argv[2:]
        err = open(self.stderr_path, "wb")
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err, pass_fds=(ctl_r, ack_w))
        except OSError as exc:
            self._close()
            raise PerfError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
        finally:
            err.close()
            os.close(ctl_r)
            os.close(ack_w)
        if self.ping:
            # perf stat takes CLOCK_MONOTONIC as its time 0 once its counters are open, then polls
            # the control fd: the ping waiting there is answered at once (well under a millisecond)
            self._command("ping", _start_timeout())
            self.started_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)

    def enable(self, timeout: float = 0.0) -> None:
        self._command("enable", timeout or _start_timeout())
        self.enabled_at = time.monotonic()

    def disable(self, timeout: float = 30.0) -> None:
        if self.disabled_at is not None:
            return
        if self.proc is None or self.proc.poll() is not None:
            self.disabled_at = self.disabled_at or time.monotonic()
            return
        try:
            self._command("disable", timeout)
        except PerfError:
            pass  # perf is stopped by SIGINT anyway
        self.disabled_at = time.monotonic()

    def _command(self, word: str, timeout: float) -> None:
        assert self.proc is not None and self.ctl_w is not None and self.ack_r is not None
        try:
            os.write(self.ctl_w, (word + "\n").encode())
        except OSError:
            pass  # perf exited: reported below
        deadline = time.monotonic() + timeout
        got = b""
        while b"ack" not in got:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PerfError(f"perf did not acknowledge '{word}' within {timeout:.0f} s")
            ready, _, _ = select.select([self.ack_r], [], [], min(left, 0.2))
            if ready:
                data = os.read(self.ack_r, 64)
                if not data:  # perf closed its end: it exited
                    break
                got += data
            elif self.proc.poll() is not None:
                break
        if b"ack" not in got:
            self.stop()
            raise PerfError(f"perf exited {self.returncode} before '{word}': {stderr_tail(self.stderr_path) or 'no message'}")

    # -- stop ----------------------------------------------------------------------------
    def stop(self, timeout: float = 120.0) -> Optional[int]:
        """SIGINT, wait (perf record writes its file now), SIGKILL after ``timeout``."""
        if self.proc is None:
            return self.returncode
        if self.proc.returncode is None:
            try:
                self.proc.send_signal(signal.SIGINT)
            except OSError:
                pass
            if not self._wait(timeout):
                try:
                    self.proc.kill()
                except OSError:
                    pass
                self._wait(None)
        self.returncode = self.proc.returncode
        self._close()
        return self.returncode

    def _wait(self, timeout: Optional[float]) -> bool:
        """Wait with wait4 to get perf's CPU time (Popen.wait does not give rusage)."""
        assert self.proc is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                pid, status, ru = os.wait4(self.proc.pid, 0 if deadline is None else os.WNOHANG)
            except ChildProcessError:  # already reaped
                self.proc.poll()
                return True
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.cpu_s = round(ru.ru_utime + ru.ru_stime, 3)
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def _close(self) -> None:
        for fd in (self.ctl_w, self.ack_r):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.ctl_w = self.ack_r = None

    def abort(self) -> None:
        """On an error or interrupt: stop perf, whatever state it is in."""
        if self.proc is not None and self.proc.returncode is None:
            self.stop(timeout=10)
        self._close()

    # -- results -------------------------------------------------------------------------
    @property
    def duration_s(self) -> Optional[float]:
        if self.enabled_at is None or self.disabled_at is None:
            return None
        return round(self.disabled_at - self.enabled_at, 3)

    def stderr_text(self) -> str:
        try:
            with open(self.stderr_path, "r", encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def record_summary(self) -> Dict[str, object]:
        """What perf record said on standard error: samples, size limit, warnings."""
        text = self.stderr_text()
        out: Dict[str, object] = {}
        m = _CAPTURED.search(text)
        if m:
            out["samples"] = int(m.group(2))
        out["size_cap_reached"] = "size limit reached" in text
        warnings = [ln.strip() for ln in text.splitlines()
                    if ln.strip() and not ln.startswith("[ perf record:")
                    and ln.strip() not in ("Events disabled", "Events enabled")]
        if warnings:
            out["warnings"] = warnings[:20]
        return out


_LOST = re.compile(r"Processed (\d+) events and lost (\d+) chunks")
_LOST_SAMPLES = re.compile(r"Processed (\d+) samples and lost ([\d.]+)%")


def script_to_gzip(argv: List[str], dest: str, count: Iterable[bytes] = (),
                   stderr_path: Optional[str] = None, timeout: float = 3600.0) -> Dict[str, object]:
    """Run `perf script ...`, compress its standard output into ``dest`` (gzip level 6, no name or
    time in the header, so equal text gives equal bytes) and count the lines holding each of
    ``count`` (for tracepoints: b" sched:sched_switch:"). Returns text_bytes, counts, seconds,
    exit code, and perf's warnings (lost chunks)."""
    t0 = time.monotonic()
    needles = list(count)
    counts = {n: 0 for n in needles}
    text_bytes = 0
    lines = 0
    err_path = stderr_path or dest + ".stderr"
    with open(err_path, "wb") as err, open(dest, "wb") as raw:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        carry = b""
        try:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz:
                assert proc.stdout is not None
                while True:
                    block = proc.stdout.read(_CHUNK)
                    if not block:
                        break
                    gz.write(block)
                    text_bytes += len(block)
                    lines += block.count(b"\n")
                    if needles:
                        # count over whole lines only, so a name split between reads is not missed
                        buf = carry + block
                        cut = buf.rfind(b"\n") + 1
                        whole, carry = buf[:cut], buf[cut:]
                        for n in needles:
                            counts[n] += whole.count(n)
                for n in needles:
                    counts[n] += carry.count(n)
            proc.wait(timeout=timeout)
        except BaseException:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            raise
    with open(err_path, "r", encoding="utf-8", errors="replace") as f:
        err_text = f.read()
    if stderr_path is None:
        os.unlink(err_path)
    out: Dict[str, object] = {
        "text_bytes": text_bytes,
        "lines": lines,
        "seconds": round(time.monotonic() - t0, 3),
        "exit_code": proc.returncode,
        "counts": {n.decode().strip(" :"): c for n, c in counts.items()},
    }
    m = _LOST.search(err_text)
    if m:
        out["lost_chunks"] = int(m.group(2))
    m = _LOST_SAMPLES.search(err_text)
    if m:
        out["lost_samples_pct"] = float(m.group(2))
    msgs = [ln.strip() for ln in err_text.splitlines()
            if ln.strip() and "not valid for" not in ln]  # -F chatter about other event types
    if msgs:
        out["messages"] = msgs[:20]
    return out


def count_stat_csv(path: str) -> Dict[str, Optional[int]]:
    """Total per event of a `perf stat -x,` file (summed over CPUs and intervals): what the
    summary and the manifest show next to the recorded counts. The server parses the file fully."""
    totals: Dict[str, Optional[int]] = {}
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return totals
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        # [time,] [CPUn,] value, unit, event, run, pct, ...
        i = 0
        if re.match(r"^\d+\.\d+$", parts[0]) and len(parts) > 4:
            i = 1
        if i < len(parts) and re.match(r"^CPU\d+$", parts[i]):
            i += 1
        if len(parts) < i + 3:
            continue
        value, unit, event = parts[i], parts[i + 1], parts[i + 2]
        if not event or unit == "msec":
            continue
        try:
            n = int(float(value))
        except ValueError:
            totals.setdefault(event, None)
            continue
        totals[event] = (totals.get(event) or 0) + n
    return totals


# ---------------------------------------------------------------------------------------------
# The shape every per-repeat probe has (stacks, sched, block): capture.py calls, per repeat,
# launch() for every probe, enable() for every probe, runs fio, disable() in reverse order, then
# finish() for every probe. abort() stops whatever runs (error, Ctrl-C); teardown() undoes setup.

class Artifact:
    """A file a probe wrote into the stage for one run: its path, kind, and extra manifest fields."""

    def __init__(self, rel: str, kind: str, **extra: object):
        self.rel = rel
        self.kind = kind
        self.extra = extra


class Start:
    """What a probe module's start() gets (probes.py builds it once for all probes): perf (None
    when unusable, perf_problem says why), the tracepoint directory (None when tracefs is not
    there, tracefs_problem says why), the cap of each recording, the fake root of tests, and
    note()/say() for what the capture lacks or does."""

    def __init__(self, perf: Optional["Perf"], perf_problem: Optional[str], events_dir: Optional[str],
                 tracefs_problem: Optional[str], max_mb: int, root: str,
                 note: Callable[[str], None], say: Callable[[str], None]):
        self.perf, self.perf_problem = perf, perf_problem
        self.events_dir, self.tracefs_problem = events_dir, tracefs_problem
        self.max_mb, self.root, self.note, self.say = max_mb, root, note, say

    def ready(self, name: str, lost: str, tracefs: bool = True) -> bool:
        """perf (and tracefs) usable; else a note "NAME: why; no LOST in this capture"."""
        if self.perf is None:
            self.note(f"{name}: {self.perf_problem}; no {lost} in this capture")
            return False
        if tracefs and self.events_dir is None:
            self.note(f"{name}: {self.tracefs_problem}; no {lost} in this capture")
            return False
        return True


class RunProbe:
    name = "probe"
    records = True  # writes a perf.data (counts toward the scratch space: probes.py)

    def __init__(self) -> None:
        self.sessions: List[Session] = []
        self.scratch: Optional[str] = None

    def setup(self) -> Optional[str]:
        """Before the first repeat: None when ready, else the note saying why not."""
        return None

    def launch(self, run_id: str, scratch: str) -> None:
        raise NotImplementedError

    def enable(self, counters: bool) -> None:
        """Enable this probe's counters (``counters``) or its recordings. The capture enables every
        probe's counters first and disables them last, so they cover everything recorded."""
        for s in self.sessions:
            if s.counter == counters:
                s.enable()

    def disable(self, counters: bool) -> None:
        for s in reversed(self.sessions):
            if s.counter == counters:
                s.disable()

    def finish(self, run_id: str, stage: str, t0_ns: int) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        """After fio and disable(): stop perf, post-process; (artifacts, manifest info, notes)."""
        raise NotImplementedError

    def abort(self) -> None:
        for s in self.sessions:
            s.abort()

    def teardown(self) -> List[str]:
        return []

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        return ""


# The lost-events rule (docs/lost-events.md), the same in ingest and the frontend, all three tested
# on testdata/vectors/lost-events.json: recorded below 90 % of perf stat's count, and more than 32
# short (fewer are perf record's own start and stop).
LOSS_THRESHOLD = 0.90
MIN_MISSING = 32


def recorded_short(recorded: Optional[int], counted: Optional[int]) -> bool:
    """Whether a recording of `recorded` events lost some of the `counted` that perf stat saw
    (10 x recorded < 9 x counted: exact in integers). Nothing is checked without a count."""
    if recorded is None or not counted:
        return False
    return counted - recorded > MIN_MISSING and 10 * recorded < 9 * counted


def compare(recorded: Dict[str, int], counted: Dict[str, Optional[int]],
            events: Iterable[str]) -> List[Tuple[str, int, int]]:
    """(event, recorded, counted) for the events recorded well below what perf stat counted."""
    lost = []
    for ev in events:
        n, c = recorded.get(ev), counted.get(ev)
        if n is not None and c and recorded_short(n, c):
            lost.append((ev, n, c))
    return lost


class TracepointProbe(RunProbe):
    """A probe that records tracepoints with `perf record` and counts them with `perf stat` over
    the same repeat (sched.py, block.py), so that a recording that lost events can be told.

    Subclasses set the class attributes and provide `_record_argv` / `_stat_argv`; `finish`
    stops both, moves the counts into the bundle, turns perf.data into gzip-compressed
    `perf script` text and compares recorded with counted per event of `compared`."""

    what = "events"                  # for notes: "no <what> for this run"
    stat_file = "perf-stat.csv"      # runs/rNNN/<stat_file>
    stat_kind = "perf-stat"
    stat_extra: Dict[str, object] = {}
    script_file = "events.script.gz"  # runs/rNNN/<script_file>
    script_kind = "perf-script"
    script_options: Tuple[str, ...] = ()  # perf script options before -i
    compared: Tuple[str, ...] = ()

    def __init__(self, perf: Optional[Perf], max_mb: int) -> None:
        super().__init__()
        self.perf = perf
        self.max_mb = max_mb
        self.data = ""
        self._stat_out = ""
        self.record_events: List[str] = []
        self.missing: List[str] = []

    def _record_argv(self, data: str) -> List[str]:
        raise NotImplementedError

    def _stat_argv(self, out: str) -> List[str]:
        raise NotImplementedError

    def launch(self, run_id: str, scratch: str) -> None:
        self.scratch = scratch
        self.data = os.path.join(scratch, f"{self.name}.data")
        self._stat_out = os.path.join(scratch, self.stat_file)
        assert self.perf is not None
        stat = Session(self._stat_argv(self._stat_out),
                       control_shown(["perf"] + self._stat_argv(self.stat_file)[1:]),
                       os.path.join(scratch, f"{self.name}.stat.stderr"), counter=True,
                       ping=answers_ping(self.perf.version))
        rec = Session(self._record_argv(self.data), control_shown(["perf"] + self._record_argv("perf.data")[1:]),
                      os.path.join(scratch, f"{self.name}.record.stderr"))
        self.sessions = [stat, rec]  # enable: stat first; disable: record first
        stat.launch()
        rec.launch()

    def _info(self) -> Dict[str, object]:
        """Facts of this probe for every run's manifest entry, before perf's own."""
        return {}

    def finish(self, run_id: str, stage: str, t0_ns: int) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        assert self.perf is not None
        stat, rec = self.sessions
        notes: List[str] = []
        arts: List[Artifact] = []
        rc = rec.stop()
        stat_rc = stat.stop()
        info = self._info()
        info.update({"tool": self.perf.version, "cmd": rec.shown, "stat_cmd": stat.shown, "size_cap_mb": self.max_mb,
                     "record_exit_code": rc, "stat_exit_code": stat_rc})
        if self.missing:
            info["missing_tracepoints"] = self.missing
        data_bytes = size_of(self.data)
        info.update(overhead(rec, data_bytes))
        info.update(rec.record_summary())
        info["stat_perf_cpu_s"] = stat.cpu_s
        if info.get("size_cap_reached"):
            notes.append(f"{self.name}: run {run_id}: the recording reached the --probe-max-mb cap ({self.max_mb} MB); "
                         "perf stopped recording there")
        counted: Dict[str, Optional[int]] = {}
        if os.path.exists(self._stat_out) and os.path.getsize(self._stat_out) > 0:
            rel_stat = f"runs/{run_id}/{self.stat_file}"
            shutil.move(self._stat_out, os.path.join(stage, rel_stat))
            extra = dict(self.stat_extra)
            if stat.started_ns is not None:
                extra["stat_clock_at_start_ns"] = stat.started_ns
            else:
                notes.append(f"{self.name}: run {run_id}: perf stat's start on the trace's clock is not recorded "
                             f"({self.perf.version} has no 'ping' control command, perf 6.1+): its interval "
                             "times count from its own start, which the views cannot place on the trace's")
            arts.append(Artifact(rel_stat, self.stat_kind, **extra))
            counted = count_stat_csv(os.path.join(stage, rel_stat))
            info["counted"] = counted
        else:
            notes.append(f"{self.name}: run {run_id}: perf stat wrote nothing (exit {stat_rc}: "
                         f"{stderr_tail(stat.stderr_path) or 'no message'}); no counters for this run")
        if data_bytes is None:
            notes.append(f"{self.name}: run {run_id}: perf record wrote no perf.data (exit {rc}: "
                         f"{stderr_tail(rec.stderr_path) or 'no message'}); no {self.what} for this run")
            return arts, info, notes
        rel = f"runs/{run_id}/{self.script_file}"
        script = [self.perf.path, "script", *self.script_options, "-i", self.data]
        info["script_cmd"] = ["perf", "script", *self.script_options, "-i", "perf.data"]
        res = script_to_gzip(script, os.path.join(stage, rel), count=[f" {e}:".encode() for e in self.record_events])
        recorded = dict(res["counts"])  # type: ignore[call-overload]
        info.update(recorded=recorded, events=sum(recorded.values()), text_bytes=res["text_bytes"],
                    script_s=res["seconds"], bytes=size_of(os.path.join(stage, rel)))
        d = info.get("duration_s")
        if d:
            info["events_per_s"] = int(sum(recorded.values()) / d)  # type: ignore[operator]
        if "lost_chunks" in res:
            info["lost_chunks"] = res["lost_chunks"]
            notes.append(f"{self.name}: run {run_id}: perf lost {res['lost_chunks']} chunks of events "
                         "(ring buffer overrun)")
        if res["exit_code"] != 0:
            notes.append(f"{self.name}: run {run_id}: perf script exited {res['exit_code']}: "
                         + " / ".join(res.get("messages", [])[-4:]))  # type: ignore[arg-type]
        lost = compare(recorded, counted, self.compared)
        if lost:
            info["lost"] = {ev: {"recorded": n, "counted": c} for ev, n, c in lost}
            notes.append(f"{self.name}: run {run_id}: perf record kept fewer events than perf stat counted: "
                         + ", ".join(f"{ev} {n} of {c} ({100.0 * n / c:.1f}%)" for ev, n, c in lost)
                         + ("; the recording stopped at the --probe-max-mb cap" if info.get("size_cap_reached")
                            else "; perf record lost events (interrupt context, idle CPUs?)"))
        notes += self._check(run_id, recorded)
        os.unlink(self.data)
        arts.insert(0, Artifact(rel, self.script_kind, trace_clock_at_start_ns=t0_ns))
        return arts, info, notes

    def _check(self, run_id: str, recorded: Dict[str, int]) -> List[str]:
        """Notes of the subclass on what was recorded."""
        return []


def overhead(session: Session, data_bytes: Optional[int]) -> Dict[str, object]:
    """Duration, perf's CPU time and data rate of one session, for the manifest."""
    d = session.duration_s
    out: Dict[str, object] = {"duration_s": d, "perf_cpu_s": session.cpu_s}
    if d and session.cpu_s is not None:
        out["perf_cpu_pct"] = round(100.0 * session.cpu_s / d, 2)
    if data_bytes is not None:
        out["perf_data_bytes"] = data_bytes
        if d:
            out["perf_data_bytes_per_s"] = int(data_bytes / d)
    return out


def or_q(v: object) -> str:
    """A value for the summary line, or '?' when unknown."""
    return "?" if v is None else str(v)


def human_bytes(n: Optional[float]) -> str:
    if n is None:
        return "?"
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000.0
    return f"{n:.1f} GB"


def size_of(path: str) -> Optional[int]:
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def control_shown(argv: List[str]) -> List[str]:
    """The command as recorded: perf's control options as they really were given."""
    return argv[:2] + ["-D", "-1", "--control", "fd:CTL,ACK"] + argv[2:]
