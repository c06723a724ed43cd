"""Monitors (`--monitors`, `--monitor-interval MSEC`): the kernel's own counters sampled during
each repeat, as mmtests keeps them, so a change in IOPS can be set beside what the VM, the CPUs,
the file system and the slab did meanwhile.

Sources (each only where this kernel has it; a missing one is noted once):

| source     | read from                          | what it shows (ingest takes deltas / levels)          |
|------------|------------------------------------|-------------------------------------------------------|
| vmstat     | /proc/vmstat                       | VM event counters: pgfault, pgscan_*, nr_dirty...      |
| meminfo    | /proc/meminfo                      | memory levels: MemFree, Dirty, Writeback, Slab...      |
| stat       | /proc/stat                         | per-CPU time (user, nice, system, idle, iowait, irq, softirq, steal) in USER_HZ: mpstat's input |
| xfs        | /proc/fs/xfs/stat                  | XFS's global counters (log writes and blocks, xstrat, push_ail...) |
| ext4       | /sys/fs/ext4/DEV/*                 | each ext4 file system's counters (lifetime_write_kbytes, session_write_kbytes, delayed_allocation_blocks, errors...) as `DEV NAME VALUE` lines |
| slabinfo   | /proc/slabinfo (root)              | every slab cache's objects and sizes (the top caches at ingest) |

Per repeat the sampler thread starts with the counters (before the workload) and stops after it;
it reads every source at the start, every MSEC ms (1000 by default) and at the end. Each source
gives one file, `runs/rNNN/monitors/SOURCE.txt.gz` (kind `monitor`, fields `source`,
`interval_ms`, `trace_clock_at_start_ns`), the snapshots byte for byte, each after a line

    #@iolens-monitor t_ns=CLOCK_MONOTONIC_NS

(the same clock as the perf probes' artifacts, so the samples line up with them). Reading the
files costs ~0.2 ms per sample for all sources here (slabinfo dominates); the manifest's
`probes.monitors` gives the samples taken and the time spent reading.
"""

from __future__ import annotations

import gzip
import os
import shutil
import threading
import time
from typing import Dict, List, Optional, Tuple

from .perfrec import Artifact, RunProbe, Start

__all__ = ["MonitorProbe", "SOURCES", "MARK", "add_options", "enabled", "check", "start"]

MARK = "#@iolens-monitor"
SOURCES: Tuple[Tuple[str, str], ...] = (
    ("vmstat", "proc/vmstat"),
    ("meminfo", "proc/meminfo"),
    ("stat", "proc/stat"),
    ("xfs", "proc/fs/xfs/stat"),
    ("ext4", "sys/fs/ext4"),
    ("slabinfo", "proc/slabinfo"),
)
_EXT4_SKIP = {"trigger_fs_error", "simulate_fail"}  # write-only or with side effects


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def read_ext4(top: str) -> Optional[bytes]:
    """Every ext4 file system's counters as 'DEV NAME VALUE' lines (None without /sys/fs/ext4)."""
    try:
        devs = sorted(d for d in os.listdir(top) if d != "features" and os.path.isdir(os.path.join(top, d)))
    except OSError:
        return None
    out: List[str] = []
    for dev in devs:
        d = os.path.join(top, dev)
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            p = os.path.join(d, name)
            if name in _EXT4_SKIP or not os.path.isfile(p):
                continue
            raw = _read(p)
            if raw is None:
                continue
            value = raw.decode("utf-8", "replace").strip()
            if value and "\n" not in value and len(value) <= 64:
                out.append(f"{dev} {name} {value}")
    return ("\n".join(out) + "\n").encode() if out else b""


class MonitorProbe(RunProbe):
    name = "monitors"
    records = False  # reads /proc itself: no perf.data

    def __init__(self, interval_ms: int = 1000, root: str = "/"):
        super().__init__()
        self.interval_ms = interval_ms
        self.root = root
        self.sources: List[Tuple[str, str]] = []
        self.missing: List[str] = []
        self._files: Dict[str, gzip.GzipFile] = {}
        self._raw: Dict[str, object] = {}
        self._thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self._samples = 0
        self._read_s = 0.0
        self._errors: List[str] = []

    def setup(self) -> Optional[str]:
        for name, rel in SOURCES:
            p = os.path.join(self.root, rel)
            ok = os.path.isdir(p) if name == "ext4" else os.access(p, os.R_OK)
            (self.sources if ok else self.missing).append((name, rel) if ok else name)  # type: ignore[arg-type]
        if not self.sources:
            return "monitors: none of /proc/vmstat, /proc/meminfo, /proc/stat is readable; no monitors"
        return None

    def launch(self, run_id: str, scratch: str) -> None:
        self.scratch = scratch
        self._samples, self._read_s, self._errors = 0, 0.0, []
        self._stop.clear()
        for name, _ in self.sources:
            raw = open(os.path.join(scratch, f"{name}.txt.gz"), "wb")
            self._raw[name] = raw
            self._files[name] = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0)

    def _sample(self) -> None:
        t0 = time.monotonic()
        t_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        for name, rel in self.sources:
            p = os.path.join(self.root, rel)
            data = read_ext4(p) if name == "ext4" else _read(p)
            if data is None:
                if len(self._errors) < 5:
                    self._errors.append(f"{name}: could not read {p}")
                continue
            f = self._files[name]
            f.write(f"{MARK} t_ns={t_ns}\n".encode())
            f.write(data if data.endswith(b"\n") or not data else data + b"\n")
        self._samples += 1
        self._read_s += time.monotonic() - t0

    def _loop(self) -> None:
        self._sample()
        while not self._stop.wait(self.interval_ms / 1000.0):
            self._sample()

    def enable(self, counters: bool) -> None:
        if counters and self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="iolens-monitors", daemon=True)
            self._thread.start()

    def disable(self, counters: bool) -> None:
        if counters and self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            self._sample()  # the state at the end of the run

    def _close_files(self) -> None:
        for f in self._files.values():
            f.close()
        for raw in self._raw.values():
            raw.close()  # type: ignore[attr-defined]
        self._files, self._raw = {}, {}

    def finish(self, run_id: str, stage: str, t0_ns: int) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        self.disable(True)
        self._close_files()
        arts: List[Artifact] = []
        os.makedirs(os.path.join(stage, "runs", run_id, "monitors"), exist_ok=True)
        for name, _ in self.sources:
            rel = f"runs/{run_id}/monitors/{name}.txt.gz"
            shutil.move(os.path.join(self.scratch or "", f"{name}.txt.gz"), os.path.join(stage, rel))
            arts.append(Artifact(rel, "monitor", source=name, interval_ms=self.interval_ms,
                                 trace_clock_at_start_ns=t0_ns))
        info: Dict[str, object] = {"sources": [n for n, _ in self.sources], "interval_ms": self.interval_ms,
                                   "samples": self._samples, "read_s": round(self._read_s, 4)}
        notes = [f"monitors: run {run_id}: {e}" for e in self._errors]
        return arts, info, notes

    def abort(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_files()

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        return (f"{run_id}  monitors  {info.get('samples')} samples every {info.get('interval_ms')} ms of "
                f"{', '.join(info.get('sources') or [])} ({info.get('read_s')} s reading)")  # type: ignore[arg-type]


# -- the probe's options, checks and start (probes.py calls these for every module of PROBES) --
PERF, TRACEFS = False, False


def add_options(g, positive) -> None:
    g.add_argument("--monitors", action="store_true",
                   help="sample /proc/vmstat, /proc/meminfo, /proc/stat (per-CPU), /proc/fs/xfs/stat, "
                        "/sys/fs/ext4/DEV/* and /proc/slabinfo during each repeat into runs/rNNN/monitors/ "
                        "(kind monitor) (default: off)")
    g.add_argument("--monitor-interval", type=positive, metavar="MSEC",
                   help="--monitors sampling interval in ms (default: 1000)")


def enabled(o) -> bool:
    return bool(o.monitors)


def check(o, root: str) -> None:
    if o.monitor_interval is not None and not o.monitors:
        raise ValueError("--monitor-interval needs --monitors")
    if o.monitor_interval is not None and not 10 <= o.monitor_interval <= 60000:
        raise ValueError(f"--monitor-interval {o.monitor_interval}: expected 10-60000 ms")


def start(o, ctx: Start, checked: None) -> Optional[RunProbe]:
    p = MonitorProbe(o.monitor_interval or 1000, root=ctx.root)
    problem = p.setup()
    if problem:
        ctx.note(problem)
        return None
    if p.missing:
        ctx.note(f"monitors: this host has no {', '.join(p.missing)} (or it is not readable); sampled the others")
    return p
