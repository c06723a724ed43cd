"""The lock_stat probe: the kernel's lock contention statistics around each repeat.

Kernels built with CONFIG_LOCK_STAT have two files (kernel/locking/lockdep_proc.c,
Documentation/locking/lockstat.rst):

- ``/proc/sys/kernel/lock_stat``: ``1`` collects statistics, ``0`` does not;
- ``/proc/lock_stat``: the table (root only); writing ``0`` to it clears every class's counters.

``Probe.start()`` remembers the setting and turns collection on; ``clear()`` runs before each
repeat and ``snapshot()`` after it, so each run's dump covers that run alone; ``restore()`` puts
the setting back (the capture calls it in a ``finally``, so also after an error or Ctrl-C). Both
files are system-wide: another user's measurement is cleared too. Where the files are missing
(CONFIG_LOCK_STAT off: most distribution kernels) or cannot be written (not root), ``start()``
returns the reason, which goes into the manifest's notes, and the capture goes on without it.

Every path is read through ``root`` so that tests can point the probe at a fake /proc.
"""

from __future__ import annotations

import os
import re
from typing import Optional

__all__ = ["Probe", "SYSCTL", "PROC", "check_dump", "ALTERNATIVE"]

SYSCTL = "/proc/sys/kernel/lock_stat"
PROC = "/proc/lock_stat"
ALTERNATIVE = "`perf lock contention -a -b -- COMMAND` (perf 6.x, BPF) measures lock contention without it"

_CHUNK = 1 << 20


class Probe:
    def __init__(self, root: str = "/"):
        self.root = root
        self.previous: Optional[str] = None  # the setting found, restored at the end
        self.started = False

    def path(self, p: str) -> str:
        return os.path.join(self.root, p.lstrip("/")) if self.root != "/" else p

    def _write(self, p: str, text: str) -> None:
        # Like `echo 0 > FILE`: one write of the whole text. These kernel files take the first
        # character (lock_stat) or parse the number (the sysctl).
        with open(self.path(p), "w", encoding="ascii") as f:
            f.write(text)

    def start(self) -> Optional[str]:
        """Turn collection on. None when ready; else why lock_stat cannot be captured here."""
        if not os.path.exists(self.path(PROC)):
            release = os.uname().release
            return (f"lock_stat: {PROC} does not exist: this kernel ({release}) was built without "
                    "CONFIG_LOCK_STAT, so no lock_stat in this capture")
        try:
            with open(self.path(SYSCTL), "r", encoding="ascii", errors="replace") as f:
                previous = f.read().strip()
        except OSError as exc:
            return f"lock_stat: cannot read {SYSCTL} ({exc.strerror or exc}); no lock_stat in this capture"
        try:
            if previous != "1":
                self._write(SYSCTL, "1\n")
            self.previous = previous
            self.started = True
            self.clear()  # also checks that the table can be cleared before anything runs
            with open(self.path(PROC), "rb"):
                pass
        except OSError as exc:
            problem = (f"lock_stat: cannot use {SYSCTL} and {PROC} ({exc.strerror or exc}; they need root); "
                       "no lock_stat in this capture")
            self.restore()
            return problem
        return None

    def clear(self) -> None:
        """Zero every lock class's counters (`echo 0 > /proc/lock_stat`)."""
        self._write(PROC, "0\n")

    def snapshot(self, dest: str) -> int:
        """Copy the table into ``dest``, byte for byte; returns its size. /proc files report a
        size of 0, so this reads to the end instead of trusting it."""
        size = 0
        with open(self.path(PROC), "rb") as src, open(dest, "wb") as out:
            while True:
                block = src.read(_CHUNK)
                if not block:
                    break
                out.write(block)
                size += len(block)
        return size

    def restore(self) -> Optional[str]:
        """Put the setting back as found. Returns a problem to report, or None. Safe to call twice."""
        if not self.started:
            return None
        self.started = False
        if self.previous is None or self.previous == "1":
            return None
        try:
            self._write(SYSCTL, self.previous + "\n")
        except OSError as exc:
            return f"lock_stat: could not set {SYSCTL} back to {self.previous} ({exc.strerror or exc}); do it by hand"
        return None


_VERSION = re.compile(r"^lock_stat version (\S+)\s*$")


def check_dump(text: str) -> Optional[str]:
    """A quick look at a dump given with --lock-stat-snapshot, so that a wrong file is refused
    before the capture runs rather than at ingest: None if it looks like /proc/lock_stat (version
    0.4, or an excerpt of one), else what is wrong. The server's parser checks it fully."""
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    body = [ln.strip() for ln in lines if ln.strip()]
    if not body:
        return "the file is empty"
    if len(body) >= 3 and all(re.match(r"^\d+\b", ln) for ln in body[:3]):
        return ("its lines start with line numbers (a listing such as Documentation/locking/lockstat.rst's): "
                "remove them")
    m = _VERSION.match(body[0])
    if m and m.group(1) != "0.4":
        return f"lock_stat version {m.group(1)}: iolens reads version 0.4"
    header = next((ln for ln in body if ln.startswith("class name")), None)
    if header is not None and not header.split()[-1] == "holdtime-avg":
        return ("its header line is broken after '" + header.split()[-1] + "': wrapped by an email client? "
                "Use the file as the kernel wrote it")
    rows = [ln for ln in body if re.match(r"^\S.*?:\s+\d", ln)]
    if not m and not rows:
        return "it does not look like /proc/lock_stat (no 'lock_stat version' line, no class rows)"
    for ln in rows:
        if len(ln.rsplit(":", 1)[1].split()) != 12:
            return ("a class row does not have its 12 numbers: wrapped by an email client? "
                    "Use the file as the kernel wrote it")
    return None
