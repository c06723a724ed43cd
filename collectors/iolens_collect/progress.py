"""Progress on standard error while fio runs, and the per-repeat summary at the end.

On a terminal one line is rewritten in place about every 0.5 s::

    [repeat 2/3] randwrite-4k  4.0s / ~10s

Elsewhere (a pipe, a CI log) there is one line when a repeat starts and one when it ends.
"""

from __future__ import annotations

import os
import re
import sys
from typing import List, Optional, Tuple

__all__ = [
    "parse_fio_time",
    "expected_duration",
    "Progress",
    "summarize",
    "format_summary",
    "job_errors",
    "human_rate",
]

# fio parse.c get_mult_time(): the suffix after the digits picks the unit; "us"/"usec",
# "ms"/"msec" match by prefix, "s", "m", "h", "d" only exactly ("m" is minutes, not ms).
# Any other suffix ("10sec", "2min") leaves the multiplier at 1 microsecond, which is what
# fio really does with it.
_TIME_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)\s*$")


def parse_fio_time(value: Optional[str], default_unit_seconds: bool = True) -> Optional[float]:
    """Seconds for a fio time value (``runtime=``, ``ramp_time=``, ``startdelay=``).

    Without a suffix the unit is seconds for these options. Returns None when the value is
    not a plain number with a unit (``${VAR}``, a range, an expression).
    """
    if value is None:
        return None
    m = _TIME_RE.match(value)
    if not m:
        return None
    number = float(m.group(1))
    suffix = m.group(2).lower()
    if not suffix:
        return number if default_unit_seconds else number / 1e6
    if suffix.startswith("us"):  # also "usec"
        mult = 1e-6
    elif suffix.startswith("ms"):  # also "msec"
        mult = 1e-3
    elif suffix == "s":
        mult = 1.0
    elif suffix == "m":
        mult = 60.0
    elif suffix == "h":
        mult = 3600.0
    elif suffix == "d":
        mult = 86400.0
    else:
        mult = 1e-6
    return number * mult


def expected_duration(jobs) -> Tuple[Optional[float], str]:
    """(seconds, kind) for one fio run: kind "~" when every job is time_based with a
    runtime, "<=" when some only have a runtime cap, "" (unknown) otherwise.

    Jobs run in parallel within a group; ``stonewall`` starts a new group after the previous
    ones finish, so the total is the sum over groups of the longest job. ``startdelay`` and
    ``ramp_time`` are added to a job's runtime.
    """
    groups: List[List[Tuple[Optional[float], bool]]] = []
    for i, job in enumerate(jobs):
        if i == 0 or job.flag("stonewall"):
            groups.append([])
        runtime = parse_fio_time(job.get("runtime"))
        if not runtime:  # absent or 0 (= no limit)
            groups[-1].append((None, False))
            continue
        extra = (parse_fio_time(job.get("ramp_time")) or 0.0) + (
            parse_fio_time(job.get("startdelay")) or 0.0
        )
        groups[-1].append((runtime + extra, job.flag("time_based")))
    total = 0.0
    exact = True
    for group in groups:
        if any(d is None for d, _ in group):
            return None, ""
        total += max(d for d, _ in group)
        exact = exact and all(tb for _, tb in group)
    return total, ("~" if exact else "<=")


def _fmt_secs(s: float) -> str:
    if s < 60:
        return f"{s:.1f}s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m}m{sec:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def _fmt_expected(s: float) -> str:
    return f"{s:g}s" if s < 60 else _fmt_secs(s)


class Progress:
    """Writes progress lines to ``stream`` (standard error by default)."""

    def __init__(self, total: int, name: str, expected: Tuple[Optional[float], str],
                 stream=None, tty: Optional[bool] = None):
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            try:
                tty = self.stream.isatty()
            except (AttributeError, ValueError):
                tty = False
        self.tty = tty
        self.total = total
        self.name = name
        self.expected = expected
        self.repeat = 0
        self._width = 0
        self.tool = "fio"  # what "exited N" refers to (cmd: "the command")

    def _prefix(self) -> str:
        return f"[repeat {self.repeat}/{self.total}] {self.name}"

    def _timing(self, elapsed: float) -> str:
        seconds, kind = self.expected
        if seconds is None:
            return _fmt_secs(elapsed)
        return f"{_fmt_secs(elapsed)} / {kind}{_fmt_expected(seconds)}"

    def start(self, repeat: int) -> None:
        """``repeat`` counts from 1."""
        self.repeat = repeat
        if self.tty:
            self._write_inplace(f"{self._prefix()}  {self._timing(0.0)}")
        else:
            seconds, kind = self.expected
            exp = f" (expected {kind}{_fmt_expected(seconds)})" if seconds is not None else ""
            self._line(f"{self._prefix()}  started{exp}")

    def tick(self, elapsed: float) -> None:
        if self.tty:
            self._write_inplace(f"{self._prefix()}  {self._timing(elapsed)}")

    def end(self, elapsed: float, exit_code: Optional[int], result: str = "") -> None:
        status = "done" if exit_code == 0 else f"{self.tool} exited {exit_code}"
        text = f"{self._prefix()}  {status} in {_fmt_secs(elapsed)}"
        if result:
            text += f": {result}"
        if self.tty:
            self._write_inplace(text)
            self.stream.write("\n")
            self._width = 0
            self.stream.flush()
        else:
            self._line(text)

    def _write_inplace(self, text: str) -> None:
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self._width = len(text)
        self.stream.flush()

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()


def summarize(fio_json: Optional[dict]) -> Optional[dict]:
    """Total IOPS and bandwidth (bytes/s) per direction over all jobs of one run, from
    fio's JSON: {"read": {"iops": .., "bw_bytes": ..}, "write": {...}, ...}; directions
    without I/O are left out."""
    if not fio_json or not isinstance(fio_json.get("jobs"), list):
        return None
    total = {}
    for job in fio_json["jobs"]:
        for ddir in ("read", "write", "trim"):
            d = job.get(ddir)
            if not isinstance(d, dict):
                continue
            iops = float(d.get("iops") or 0)
            bw = d.get("bw_bytes")
            if bw is None:  # older fio: "bw" in KiB/s only
                bw = float(d.get("bw") or 0) * 1024
            if iops or bw:
                t = total.setdefault(ddir, {"iops": 0.0, "bw_bytes": 0.0})
                t["iops"] += iops
                t["bw_bytes"] += float(bw)
    return total


def job_errors(fio_json: Optional[dict]) -> List[str]:
    """"job NAME: error 22 (Invalid argument)" for each job whose JSON ``error`` is set."""
    out = []
    if not fio_json or not isinstance(fio_json.get("jobs"), list):
        return out
    for job in fio_json["jobs"]:
        code = job.get("error")
        if isinstance(code, int) and code:
            try:
                why = os.strerror(code)
            except (ValueError, OverflowError):
                why = "unknown"
            out.append(f"job {job.get('jobname', '?')}: error {code} ({why})")
    return out


def human_rate(bytes_per_s: float) -> str:
    for unit, div in (("GiB/s", 1 << 30), ("MiB/s", 1 << 20), ("KiB/s", 1 << 10)):
        if bytes_per_s >= div:
            return f"{bytes_per_s / div:.1f} {unit}"
    return f"{bytes_per_s:.0f} B/s"


def human_iops(iops: float) -> str:
    if iops >= 1e6:
        return f"{iops / 1e6:.2f}M"
    if iops >= 1e4:
        return f"{iops / 1e3:.1f}k"
    return f"{iops:.0f}"


def format_summary(summary: Optional[dict]) -> str:
    if summary is None:
        return "no JSON result"
    if not summary:
        return "no I/O"
    return ", ".join(
        f"{ddir} {human_iops(v['iops'])} IOPS {human_rate(v['bw_bytes'])}"
        for ddir, v in summary.items()
    )


class SweepProgress(Progress):
    """Progress of a capture with several parameter points (``sweep``, ``cmd --sweep``): the run
    among all runs, its point and repeat, and the time left::

        [run 7/36] rw=randread bs=4k iodepth=8 (repeat 1/3)  0.5s / ~1s, ~41s left

    Time left: the expected duration of the runs still to go (fio's runtime when every job is
    time_based), else the mean duration of the runs done so far in this session times the runs
    left; both corrected by what the finished runs really took beyond their expected time.
    """

    def __init__(self, total: int, stream=None, tty: Optional[bool] = None):
        super().__init__(total, "", (None, ""), stream=stream, tty=tty)
        self.point_repeat = (0, 0)
        self.left_runs: List[Tuple[Optional[float], str]] = []  # expected durations after this run
        self.took: List[float] = []
        self.overhead: List[float] = []

    def begin(self, number: int, name: str, repeat: int, repeats: int,
              expected: Tuple[Optional[float], str], later: List[Tuple[Optional[float], str]]) -> None:
        """Run ``number`` (from 1) of ``total`` starts; ``later`` are the expected durations of the
        runs after it."""
        self.name = name
        self.expected = expected
        self.point_repeat = (repeat, repeats)
        self.left_runs = later
        self.start(number)

    def end(self, elapsed: float, exit_code: Optional[int], result: str = "") -> None:
        self.took.append(elapsed)
        if self.expected[0] is not None:
            self.overhead.append(max(0.0, elapsed - self.expected[0]))
        super().end(elapsed, exit_code, result)

    def _prefix(self) -> str:
        r, n = self.point_repeat
        return f"[run {self.repeat}/{self.total}] {self.name}" + (f" (repeat {r}/{n})" if n > 1 else "")

    def time_left(self, elapsed: float) -> Optional[float]:
        this = max(0.0, self.expected[0] - elapsed) if self.expected[0] is not None else 0.0
        if self.left_runs and all(d is not None for d, _ in self.left_runs):
            extra = sum(self.overhead) / len(self.overhead) if self.overhead else 0.0
            return this + sum(d + extra for d, _ in self.left_runs)  # type: ignore[operator]
        if self.took:
            return this + len(self.left_runs) * sum(self.took) / len(self.took)
        return None if self.left_runs else this

    def _timing(self, elapsed: float) -> str:
        text = super()._timing(elapsed)
        left = self.time_left(elapsed)
        return text + (f", ~{_fmt_secs(left)} left" if left is not None else "")

    def start(self, repeat: int) -> None:
        if self.tty:
            super().start(repeat)
            return
        self.repeat = repeat
        seconds, kind = self.expected
        exp = f" (expected {kind}{_fmt_expected(seconds)})" if seconds is not None else ""
        left = self.time_left(0.0)
        more = f", ~{_fmt_secs(left)} left in all" if left is not None else ""
        self._line(f"{self._prefix()}  started{exp}{more}")
