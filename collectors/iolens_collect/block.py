"""The block probe (`--block DEV`): the block-layer events of one device during each repeat.

Two sources, chosen once before the first repeat:

1. blktrace + blkparse, where the kernel allows it. The collector first tries
   `blktrace -d /dev/DEV -w 1` (debugfs is mounted at /sys/kernel/debug for it when root and
   not mounted, and unmounted at the end). If that works, each repeat runs
   `blktrace -d /dev/DEV -D DIR -o trace` around fio and `blkparse -i trace -D DIR` after it,
   gzip-compressed into `runs/rNNN/blkparse.txt.gz`, artifact kind `blkparse`.
2. Otherwise (blktrace missing, or refused: on our VMs the ioctl or the relay files give
   "Operation not permitted"), perf's block tracepoints: `perf record -a -k CLOCK_MONOTONIC
   --max-size NM -e block:block_rq_insert --filter 'dev == D' -e block:block_rq_issue ...
   -e block:block_rq_complete ...` plus block_rq_requeue, block_rq_merge, block_bio_backmerge and
   block_bio_frontmerge where the kernel has them, every event filtered in the kernel to the
   device (dev_t as the tracepoints hold it: MAJOR << 20 | MINOR). `perf script --ns
   --show-lost-events -F trace:comm,pid,tid,cpu,time,event,trace` is gzip-compressed into
   `runs/rNNN/block.script.gz`, kind `perf-block`, and `perf stat -x, -I 1000 -A -a` of the same
   filtered tracepoints goes to `runs/rNNN/perf-stat-block.csv`, kind `perf-stat-block`, so that
   ingest can tell a recording that lost events (DESIGN: perf record kept 430k of 3.99M
   completions once).

The request tracepoints carry the whole disk, not a partition: `--block vda1` traces vda (all
of its I/O, with a note). A device-mapper or md device is traced together with the devices under
it (`slaves/`), since request events happen on those.

Which source was used, and why blktrace was not, goes into every run's `probes.block` and into
the notes.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Tuple

from . import perfrec
from .perfrec import Artifact, Perf, PerfError, RunProbe, Session, Start, TracepointProbe

__all__ = ["BlockProbe", "BlockError", "resolve_device", "RECORD_EVENTS", "OPTIONAL_EVENTS", "dev_filter", "add_options", "enabled", "check", "start"]

RECORD_EVENTS = ("block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete")
OPTIONAL_EVENTS = ("block:block_rq_requeue", "block:block_rq_merge", "block:block_bio_backmerge",
                   "block:block_bio_frontmerge")
SCRIPT_FIELDS = "trace:comm,pid,tid,cpu,time,event,trace"
DEBUGFS = "/sys/kernel/debug"


_INPUT_FILE = re.compile(rb"^Input file \S+ added\n?$")


def _drop_input_file_lines(path: str) -> int:
    """Remove blkparse's "Input file trace.blktrace.N added" lines from its gzipped text: blkparse
    prints them on standard output, where its buffering puts them after the summary; they name the
    per-CPU files it read, not trace data. Returns how many were removed (the file is rewritten
    only when there were some)."""
    with gzip.open(path, "rb") as f:
        lines = f.readlines()
    kept = [ln for ln in lines if not _INPUT_FILE.match(ln)]
    if len(kept) == len(lines):
        return 0
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz:
            gz.writelines(kept)
    os.replace(tmp, path)
    return len(lines) - len(kept)


class BlockError(ValueError):
    """--block names no block device here."""


def _read(path: str) -> Optional[str]:
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def _majmin(text: Optional[str]) -> Optional[Tuple[int, int]]:
    if not text or not re.match(r"^\d+:\d+$", text):
        return None
    a, b = text.split(":")
    return int(a), int(b)


def resolve_device(spec: str, root: str = "/") -> Dict[str, object]:
    """`loop0`, `/dev/loop0` or `7:0` -> {name, dev, path, traced: [{name, dev}], note}."""
    sysblock = os.path.join(root, "sys/class/block")
    name: Optional[str] = None
    if re.match(r"^\d+:\d+$", spec):
        link = os.path.join(root, "sys/dev/block", spec)
        if os.path.exists(link):
            name = os.path.basename(os.path.realpath(link))
    elif spec.startswith("/"):
        try:
            st = os.stat(spec)
        except OSError as exc:
            raise BlockError(f"--block {spec}: {exc.strerror}") from None
        import stat as _stat
        if not _stat.S_ISBLK(st.st_mode):
            raise BlockError(f"--block {spec}: not a block device")
        mm = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
        link = os.path.join(root, "sys/dev/block", mm)
        name = os.path.basename(os.path.realpath(link)) if os.path.exists(link) else os.path.basename(spec)
    else:
        name = spec
    if not name or not os.path.isdir(os.path.join(sysblock, name)):
        raise BlockError(f"--block {spec}: no such block device (see lsblk)")
    base = os.path.join(sysblock, name)
    mm = _majmin(_read(os.path.join(base, "dev")))
    if mm is None:
        raise BlockError(f"--block {spec}: cannot read {base}/dev")
    out: Dict[str, object] = {"name": name, "dev": f"{mm[0]}:{mm[1]}", "path": f"/dev/{name}"}
    traced: List[Dict[str, object]] = []
    note = None
    if os.path.exists(os.path.join(base, "partition")):
        disk = os.path.basename(os.path.dirname(os.path.realpath(base)))
        dmm = _majmin(_read(os.path.join(sysblock, disk, "dev")))
        if dmm is not None:
            traced.append({"name": disk, "dev": f"{dmm[0]}:{dmm[1]}"})
            note = (f"{name} is a partition of {disk}: the request tracepoints carry the disk, so all of "
                    f"{disk}'s I/O is recorded")
    else:
        traced.append({"name": name, "dev": out["dev"]})
        slaves_dir = os.path.join(base, "slaves")
        slaves = sorted(os.listdir(slaves_dir)) if os.path.isdir(slaves_dir) else []
        for s in slaves:
            r = resolve_device(s, root)
            for t in r["traced"]:  # type: ignore[union-attr]
                if t not in traced:
                    traced.append(t)
        if slaves:
            note = (f"{name} is stacked on {', '.join(slaves)}: their request events are recorded too")
    out["traced"] = traced
    out["note"] = note
    return out


def dev_filter(traced: List[Dict[str, object]]) -> str:
    """The tracepoint filter for these devices: dev_t in the kernel's form (MAJOR << 20 | MINOR)."""
    parts = []
    for t in traced:
        ma, mi = (int(x) for x in str(t["dev"]).split(":"))
        parts.append(f"dev == {(ma << 20) | mi}")
    return " || ".join(parts)


def _debugfs_mounted(root: str = "/") -> bool:
    return perfrec._mounted(root, "debugfs", DEBUGFS)


def _run(argv: List[str], timeout: float) -> Tuple[Optional[int], str]:
    try:
        cp = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = exc.output.decode("utf-8", "replace") if exc.output else ""
        return None, out + f" (no exit after {timeout:.0f} s)"
    except OSError as exc:
        return None, str(exc)
    return cp.returncode, cp.stdout.decode("utf-8", "replace")


class Blktrace(Session):
    """blktrace as a Session: no control fifo; ready when its first output file appears."""

    def __init__(self, argv: List[str], shown: List[str], stderr_path: str, ready_glob_dir: str, prefix: str):
        super().__init__(argv, shown, stderr_path)
        self.dir = ready_glob_dir
        self.prefix = prefix

    def launch(self) -> None:
        err = open(self.stderr_path, "wb")
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        except OSError as exc:
            raise PerfError(f"cannot run blktrace: {exc.strerror or exc}") from None
        finally:
            err.close()

    def enable(self, timeout: float = 10.0) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                rc = self.stop()
                raise PerfError(f"blktrace exited {rc}: {perfrec.stderr_tail(self.stderr_path) or 'no message'}")
            if any(n.startswith(self.prefix + ".blktrace.") for n in os.listdir(self.dir)):
                break
            time.sleep(0.02)
        time.sleep(0.1)  # its per-CPU threads start right after opening their files
        self.enabled_at = time.monotonic()

    def disable(self, timeout: float = 30.0) -> None:
        if self.disabled_at is not None:
            return
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGINT)
            except OSError:
                pass
        self.disabled_at = time.monotonic()


class BlockProbe(TracepointProbe):
    name = "block"

    @property
    def records(self) -> bool:  # a perf.data only when perf records (blktrace writes its own files)
        return self.source == "perf"
    what = "block events"
    stat_file = "perf-stat-block.csv"
    stat_kind = "perf-stat-block"
    script_file = "block.script.gz"
    script_kind = "perf-block"
    script_options = ("--ns", "--show-lost-events", "-F", SCRIPT_FIELDS)
    compared = ("block:block_rq_issue", "block:block_rq_complete", "block:block_rq_insert")

    def __init__(self, perf: Optional[Perf], device: Dict[str, object], events_dir: Optional[str],
                 max_mb: int = 512, perf_problem: Optional[str] = None, tracefs_problem: Optional[str] = None,
                 root: str = "/", which=shutil.which, root_user: Optional[bool] = None):
        super().__init__(perf, max_mb)
        self.device = device
        self.events_dir = events_dir
        self.perf_problem = perf_problem
        self.tracefs_problem = tracefs_problem
        self.root = root
        self.which = which
        self.root_user = perfrec.is_root() if root_user is None else root_user
        self.source: Optional[str] = None
        self.blktrace_refused: Optional[str] = None
        self.mounted_debugfs = False
        self.filter = dev_filter(device["traced"])  # type: ignore[arg-type]

    # -- choosing the source -------------------------------------------------------------
    def _try_blktrace(self) -> Optional[str]:
        """None when blktrace works here; else why not (its own words)."""
        blktrace, blkparse = self.which("blktrace"), self.which("blkparse")
        if not blktrace or not blkparse:
            return "blktrace/blkparse not found on PATH (Debian: apt-get install blktrace)"
        self.blktrace_bin, self.blkparse_bin = blktrace, blkparse
        why: List[str] = []
        if not _debugfs_mounted(self.root):
            if not self.root_user:
                return f"debugfs is not mounted at {DEBUGFS} (blktrace needs it) and mounting it needs root"
            rc, out = _run(["mount", "-t", "debugfs", "none", DEBUGFS], 30)
            if rc != 0:
                return f"debugfs is not mounted at {DEBUGFS} and mounting it failed: {out.strip()}"
            self.mounted_debugfs = True
            why.append(f"debugfs mounted at {DEBUGFS} for blktrace")
        tmp = tempfile.mkdtemp(prefix="iolens-blktrace-")
        try:
            rc, out = _run([blktrace, "-d", str(self.device["path"]), "-D", tmp, "-o", "probe", "-w", "1"], 20)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        text = " / ".join(ln.strip() for ln in out.splitlines() if ln.strip())
        bad = rc != 0 or re.search(r"failed|not permitted|invalid|error|cannot", out, re.I)
        if not bad:
            return None
        if self.mounted_debugfs:
            why.append("unmounted again")
        self._unmount_debugfs()
        extra = f" ({', '.join(why)})" if why else ""
        return f"`blktrace -d {self.device['path']}` failed (exit {rc}): {text[:400] or 'no message'}{extra}"

    def _unmount_debugfs(self) -> Optional[str]:
        if not self.mounted_debugfs:
            return None
        self.mounted_debugfs = False
        rc, out = _run(["umount", DEBUGFS], 30)
        if rc != 0:
            return f"block: could not unmount debugfs at {DEBUGFS}: {out.strip()}"
        return None

    def setup(self) -> Optional[str]:
        why = self._try_blktrace()
        if why is None:
            self.source = "blktrace"
            return None
        self.blktrace_refused = why
        if self.perf is None:
            return f"block: {why}; and perf cannot be used ({self.perf_problem}); no block events in this capture"
        if self.events_dir is None:
            return f"block: {why}; and perf's tracepoints are unavailable ({self.tracefs_problem}); no block events"
        self.missing = perfrec.missing_tracepoints(self.events_dir, RECORD_EVENTS + OPTIONAL_EVENTS)
        if any(e in self.missing for e in ("block:block_rq_issue", "block:block_rq_complete")):
            return f"block: {why}; and this kernel lacks block:block_rq_issue/complete; no block events"
        self.record_events = [e for e in RECORD_EVENTS + OPTIONAL_EVENTS if e not in self.missing]
        self.source = "perf"
        return None

    def setup_note(self) -> Optional[str]:
        """The capture-wide note on the source, when blktrace was not used."""
        if self.source == "perf":
            return (f"block: blktrace not used: {self.blktrace_refused}; recorded perf's block tracepoints "
                    f"instead (kind perf-block)")
        return None

    # -- each repeat ---------------------------------------------------------------------
    def _record_argv(self, data: str) -> List[str]:
        argv = [self.perf.path, "record", "-a", "-k", "CLOCK_MONOTONIC", "--max-size", f"{self.max_mb}M"]  # type: ignore[union-attr]
        for e in self.record_events:
            argv += ["-e", e, "--filter", self.filter]
        return argv + ["-o", data]

    def _stat_argv(self, out: str) -> List[str]:
        argv = [self.perf.path, "stat", "-x,", "-I", "1000", "-A", "-a"]  # type: ignore[union-attr]
        for e in self.record_events:
            argv += ["-e", e, "--filter", self.filter]
        return argv + ["-o", out]

    def launch(self, run_id: str, scratch: str) -> None:
        self.scratch = scratch
        if self.source == "blktrace":
            d = os.path.join(scratch, "blktrace")
            os.makedirs(d, exist_ok=True)
            argv = [self.blktrace_bin, "-d", str(self.device["path"]), "-D", d, "-o", "trace"]
            shown = ["blktrace", "-d", str(self.device["path"]), "-D", "DIR", "-o", "trace"]
            bt = Blktrace(argv, shown, os.path.join(scratch, "blktrace.stderr"), d, "trace")
            self.sessions = [bt]
            bt.launch()
            return
        super().launch(run_id, scratch)

    def _info(self) -> Dict[str, object]:
        info: Dict[str, object] = {"source": self.source, "device": {k: self.device[k] for k in ("name", "dev", "path")},
                                   "traced": self.device["traced"]}
        if self.blktrace_refused:
            info["blktrace_refused"] = self.blktrace_refused
        if self.device.get("note"):
            info["device_note"] = self.device["note"]
        if self.source == "perf":
            info.update(filter=self.filter, events_recorded=self.record_events)
        return info

    def finish(self, run_id: str, stage: str, t0_ns: int) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        if self.source == "blktrace":
            return self._finish_blktrace(run_id, stage)
        return super().finish(run_id, stage, t0_ns)

    def _check(self, run_id: str, recorded: Dict[str, int]) -> List[str]:
        if recorded.get("block:block_rq_issue", 0) == 0:
            return [f"block: run {run_id}: no block_rq_issue for {self.device['name']} "
                    f"({self.device['dev']}): does the workload do I/O on that device?"]
        return []

    def _finish_blktrace(self, run_id: str, stage: str) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        (bt,) = self.sessions
        notes: List[str] = []
        rc = bt.stop()
        d = os.path.join(self.scratch or "", "blktrace")
        files = [os.path.join(d, n) for n in os.listdir(d)] if os.path.isdir(d) else []
        raw = sum(os.path.getsize(f) for f in files)
        info = self._info()
        info.update({"cmd": bt.shown, "exit_code": rc, "trace_bytes": raw})
        info.update(perfrec.overhead(bt, None))
        if raw:
            info["trace_bytes_per_s"] = int(raw / bt.duration_s) if bt.duration_s else None
        rel = f"runs/{run_id}/blkparse.txt.gz"
        info["script_cmd"] = ["blkparse", "-i", "trace", "-D", "DIR"]
        res = perfrec.script_to_gzip([self.blkparse_bin, "-i", "trace", "-D", d], os.path.join(stage, rel))
        dropped = _drop_input_file_lines(os.path.join(stage, rel))
        info.update(text_bytes=res["text_bytes"], script_s=res["seconds"], lines=res["lines"] - dropped,
                    bytes=perfrec.size_of(os.path.join(stage, rel)))
        if res["exit_code"] != 0:
            notes.append(f"block: run {run_id}: blkparse exited {res['exit_code']}: "
                         + " / ".join(res.get("messages", [])[-4:]))  # type: ignore[arg-type]
        shutil.rmtree(d, ignore_errors=True)
        return [Artifact(rel, "blkparse")], info, notes

    def teardown(self) -> List[str]:
        problem = self._unmount_debugfs()
        return [problem] if problem else []

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        if info.get("source") == "blktrace":
            return (f"{run_id}  block  blktrace of {info['device']['name']}: "  # type: ignore[index]
                    f"{perfrec.human_bytes(info.get('trace_bytes'))} trace, blkparse.txt.gz "
                    f"{perfrec.human_bytes(info.get('bytes'))}")
        rec = info.get("recorded") or {}
        cnt = info.get("counted") or {}
        iss, cpl = "block:block_rq_issue", "block:block_rq_complete"
        return (f"{run_id}  block  {info['device']['name']} via perf: {info.get('events', '?')} events in "  # type: ignore[index]
                f"{info.get('duration_s')} s (issue {rec.get(iss, '?')}/{cnt.get(iss, '?')} counted, "  # type: ignore[union-attr]
                f"complete {rec.get(cpl, '?')}/{cnt.get(cpl, '?')}), perf.data "  # type: ignore[union-attr]
                f"{perfrec.human_bytes(info.get('perf_data_bytes'))} "
                f"({perfrec.human_bytes(info.get('perf_data_bytes_per_s'))}/s), block.script.gz "
                f"{perfrec.human_bytes(info.get('bytes'))}, perf {perfrec.or_q(info.get('perf_cpu_s'))} CPU-s "
                f"({info.get('perf_cpu_pct', '?')}%)")


# -- the probe's options, checks and start (probes.py calls these for every module of PROBES) --
PERF, TRACEFS = True, True


def add_options(g, positive) -> None:
    g.add_argument("--block", metavar="DEV",
                   help="block-layer events of device DEV (loop0, /dev/vda, 7:0): blktrace + "
                        "blkparse where the kernel allows it (kind blkparse), else perf record of the "
                        "block:block_rq_* tracepoints filtered to DEV (kind perf-block) plus perf stat "
                        "of the same (kind perf-stat-block) (default: off)")


def enabled(o) -> bool:
    return o.block is not None


def check(o, root: str) -> Optional[Dict[str, object]]:
    """The device of --block (BlockError, a ValueError, when there is none such)."""
    return resolve_device(o.block, root) if o.block is not None else None


def start(o, ctx: Start, device: Dict[str, object]) -> Optional[RunProbe]:
    """blktrace needs neither perf nor tracefs: BlockProbe chooses its source and says why."""
    p = BlockProbe(ctx.perf, device, ctx.events_dir, ctx.max_mb, perf_problem=ctx.perf_problem,
                   tracefs_problem=ctx.tracefs_problem, root=ctx.root)
    problem = p.setup()
    if problem:
        ctx.note(problem)
        for extra in p.teardown():
            ctx.note(extra)
        return None
    note = p.setup_note()
    if note:
        ctx.note(note)
    if device.get("note"):
        ctx.note(f"block: {device['note']}")
    ctx.say(f"block: recording {device['name']} ({device['dev']}) with {p.source}")
    return p
