"""Any command as the workload (``iolens-collect cmd ... -- COMMAND``, or a sweep plan's [cmd]).

For every run the collector records, as artifacts of the run:

- ``runs/rNNN/cmd.stdout`` (kind ``cmd-stdout``) and ``cmd.stderr`` (kind ``stderr``): the
  command's output, byte for byte. Lines of standard output of the form
  ``iolens-metric NAME VALUE [UNIT]`` are the command's own measurements (``iolens-metric rate
  51234 inodes/s``); the server reads them from this file.
- ``runs/rNNN/rusage.json`` (kind ``cmd-rusage``): wall time (CLOCK_MONOTONIC around the child),
  and the child's resource usage from wait4(2), which covers the child and every descendant it
  waited for: user and system CPU time, maximum resident set, page faults, block I/O operations,
  voluntary and involuntary context switches; the exit status.
- ``runs/rNNN/diskstats.before`` and ``.after`` (kind ``diskstats``, field ``phase``, and
  ``clock_ns``, CLOCK_MONOTONIC when read): /proc/diskstats byte for byte just before the
  command starts and just after it ends. The server computes each device's read and write IOPS
  and bandwidth over the run from the pair; ``workload.devices`` names the devices that matter
  (``--device``, default the device of the file system the command runs in).

``{NAME}`` in the command's words is replaced by the value of the swept parameter NAME at each
point (``--sweep NAME=v1,v2``); other braces are left alone (``awk '{print $1}'`` is safe).
The command runs in its own session (process group) so that Ctrl-C or SIGTERM stops all of it:
SIGINT to the group, SIGKILL after 10 s.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import bundle, diskstats
from .capture import CaptureError, Options, Point, _tail
from .fio import utc_now

__all__ = ["CmdDriver", "CmdRecord", "substitute", "parse_metrics", "METRIC_RE"]

METRIC_RE = re.compile(r"^\s*iolens-metric\s+(?P<name>[A-Za-z0-9_.:/%-]{1,64})\s+(?P<value>\S+)(?:\s+(?P<unit>.{1,32}?))?\s*$")


def substitute(words: List[str], params: Dict[str, Any]) -> List[str]:
    out = []
    for w in words:
        for name, value in params.items():
            w = w.replace("{" + name + "}", _text(value))
        out.append(w)
    return out


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def parse_metrics(text: str) -> List[Tuple[str, float, str]]:
    """(name, value, unit) of every `iolens-metric NAME VALUE [UNIT]` line."""
    out = []
    for line in text.splitlines():
        m = METRIC_RE.match(line)
        if not m:
            continue
        try:
            value = float(m.group("value"))
        except ValueError:
            continue
        out.append((m.group("name"), value, (m.group("unit") or "").strip()))
    return out


@dataclass
class CmdRecord:
    run_id: str
    index: int
    repeat: int
    started_at: str
    ended_at: str
    exit_code: Optional[int]
    cmdline: List[str]
    elapsed: float
    signal: Optional[int] = None
    rusage: Dict[str, Any] = field(default_factory=dict)
    disk: Dict[str, Dict[str, int]] = field(default_factory=dict)
    metrics: List[Tuple[str, float, str]] = field(default_factory=list)
    files: List[Tuple[str, str, Dict[str, Any]]] = field(default_factory=list)  # (rel, kind, extra)


class CmdDriver:
    """See the module's doc; the interface is capture.FioDriver's."""

    kind = "cmd"
    tool_name = "the command"
    nothing = "the command did not run once; no bundle written"

    def __init__(self, argv: List[str], points: List[Point], devices: List[str], order: str = "points",
                 extra_files: Optional[List[Tuple[str, bytes, str]]] = None,
                 workload_extra: Optional[Dict[str, Any]] = None, root: str = "/"):
        self.argv = list(argv)
        self.points = points
        self.device_specs = list(devices)
        self.devices: List[str] = []
        self.order = order
        self.extra_files = extra_files or []
        self.workload_extra = workload_extra or {}
        self.root = root
        self.cwd = os.getcwd()
        self.notes: List[str] = []
        self.targets: List[str] = [self.cwd]
        self.tool: Optional[str] = shutil.which("fio")  # host facts still say which fio is installed

    # -- before anything runs ----------------------------------------------------------------
    def prepare(self, opts: Options, out_path: str) -> None:
        if not self.argv:
            raise CaptureError("no command given: iolens-collect cmd [options] -- COMMAND [ARG...]")
        for p in self.points:
            exe = substitute(self.argv[:1], p.params)[0]
            if os.sep in exe:
                if not os.access(exe, os.X_OK):
                    raise CaptureError(f"command {exe}: not an executable file")
            elif shutil.which(exe) is None:
                raise CaptureError(f"command not found on PATH: {exe}")
        for spec in self.device_specs:
            try:
                name = diskstats.resolve(spec, self.root)
            except ValueError as exc:
                raise CaptureError(f"--device {spec}: {exc}") from None
            if name not in self.devices:
                self.devices.append(name)
        self.targets = [self.cwd] + [f"/dev/{d}" for d in self.devices if os.path.exists(f"/dev/{d}")]

    def announce(self, say: Callable[[str], None]) -> None:
        say(f"command: {shlex.join(self.argv)}" + (f" ({len(self.points)} points)" if len(self.points) > 1 else ""))
        if self.devices:
            say(f"diskstats of {', '.join(self.devices)} before and after each run")

    def on_host(self, host_facts: dict, say: Callable[[str], None]) -> None:
        if self.devices:
            return
        target = (host_facts.get("targets") or [{}])[0] or {}
        dev = target.get("device") or {}
        name = dev.get("name")
        if name:
            self.devices = [name]
            say(f"diskstats: device {name} (the file system of {self.cwd}; --device to choose)")
        else:
            note = (f"diskstats: no block device under {self.cwd}; /proc/diskstats is kept for every run but "
                    "no device is picked (--device DEV)")
            self.notes.append(note)
            say(note)

    def stage(self, stage: str) -> List[dict]:
        out = []
        for rel, data, kind in self.extra_files:
            os.makedirs(os.path.dirname(os.path.join(stage, rel)), exist_ok=True)
            with open(os.path.join(stage, rel), "wb") as f:
                f.write(data)
            out.append(bundle.artifact(stage, rel, kind))
        return out

    def expected(self, point: Point) -> Tuple[Optional[float], str]:
        return None, ""

    def title(self, point: Point) -> str:
        return os.path.basename(self.argv[0]) if self.argv else "command"

    # -- each run ----------------------------------------------------------------------------
    def run_one(self, stage: str, run_id: str, index: int, repeat: int, point: Point,
                tick: Callable[[float], None], preexec_fn, on_start, say: Callable[[str], None]) -> CmdRecord:
        argv = substitute(self.argv, point.params)
        run_rel = f"runs/{run_id}"
        os.makedirs(os.path.join(stage, run_rel), exist_ok=True)
        files: List[Tuple[str, str, Dict[str, Any]]] = []

        def keep(rel: str, data: bytes, kind: str, **extra: Any) -> None:
            with open(os.path.join(stage, rel), "wb") as f:
                f.write(data)
            files.append((rel, kind, extra))

        before, clock_before = diskstats.read(self.root)
        keep(f"{run_rel}/diskstats.before", before, "diskstats", phase="before", clock_ns=clock_before)
        out_rel, err_rel = f"{run_rel}/cmd.stdout", f"{run_rel}/cmd.stderr"
        waited: Dict[str, Any] = {}

        def reap(pid: int) -> None:
            _, status, ru = os.wait4(pid, 0)
            waited["t"] = time.monotonic()
            waited["status"], waited["ru"] = status, ru

        started = utc_now()
        with open(os.path.join(stage, out_rel), "wb") as out, open(os.path.join(stage, err_rel), "wb") as err:
            t0 = time.monotonic()
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=self.cwd,
                                    preexec_fn=preexec_fn, start_new_session=True)
            reaper = threading.Thread(target=reap, args=(proc.pid,), daemon=True)
            reaper.start()
            try:
                if on_start is not None:
                    on_start(proc)
                while reaper.is_alive():
                    reaper.join(timeout=0.5)
                    if reaper.is_alive() and tick:
                        tick(time.monotonic() - t0)
            except BaseException:
                _stop_group(proc.pid, reaper)
                proc.returncode = -1  # reaped by our thread; keep Popen from waiting again
                raise
        elapsed = waited["t"] - t0
        ended = utc_now()
        after, clock_after = diskstats.read(self.root)
        keep(f"{run_rel}/diskstats.after", after, "diskstats", phase="after", clock_ns=clock_after)
        status, ru = waited["status"], waited["ru"]
        rc = os.waitstatus_to_exitcode(status)
        proc.returncode = rc
        sig = None
        if rc < 0:
            sig = -rc
            rc = 128 + sig
        rusage = {
            "wall_ns": int(elapsed * 1e9),
            "utime_s": ru.ru_utime, "stime_s": ru.ru_stime, "maxrss_kb": ru.ru_maxrss,
            "minflt": ru.ru_minflt, "majflt": ru.ru_majflt, "inblock": ru.ru_inblock, "oublock": ru.ru_oublock,
            "nvcsw": ru.ru_nvcsw, "nivcsw": ru.ru_nivcsw, "exit_code": rc, "signal": sig,
            "source": "wait4(2) of the command: the command and the descendants it waited for",
        }
        keep(f"{run_rel}/rusage.json", (json.dumps(rusage, indent=1, sort_keys=True) + "\n").encode(), "cmd-rusage")
        files.insert(1, (out_rel, "cmd-stdout", {}))
        files.insert(2, (err_rel, "stderr", {}))
        with open(os.path.join(stage, out_rel), "rb") as f:
            metrics = parse_metrics(f.read().decode("utf-8", errors="replace"))
        disk = diskstats.delta(diskstats.parse(before.decode("ascii", "replace")),
                               diskstats.parse(after.decode("ascii", "replace")), self.devices)
        return CmdRecord(run_id=run_id, index=index, repeat=repeat, started_at=started, ended_at=ended,
                         exit_code=rc, cmdline=argv, elapsed=elapsed, signal=sig, rusage=rusage, disk=disk,
                         metrics=metrics, files=files)

    def produced(self, rec: CmdRecord) -> bool:
        return True  # a command that ran has a wall time, whatever its exit status

    def summary(self, rec: CmdRecord) -> dict:
        return {"wall_s": rec.elapsed, "user_s": rec.rusage.get("utime_s"), "sys_s": rec.rusage.get("stime_s"),
                "disk": diskstats.summary(rec.disk, rec.elapsed),
                "metrics": [[n, v, u] for n, v, u in rec.metrics]}

    def format(self, summary: Optional[dict], rec: Optional[CmdRecord] = None) -> str:
        if not summary:
            return "no result"
        text = f"wall {summary['wall_s']:.3f}s user {summary['user_s']:.3f}s sys {summary['sys_s']:.3f}s"
        if summary.get("disk"):
            text += f"; {summary['disk']}"
        for n, v, u in summary.get("metrics", []):
            text += f"; {n} {v:g}{' ' + u if u else ''}"
        return text

    def mean(self, summaries: List[dict]) -> Optional[str]:
        good = [s for s in summaries if s]
        if len(good) < 2:
            return None
        avg = {k: sum(s[k] for s in good) / len(good) for k in ("wall_s", "user_s", "sys_s")}
        text = f"mean  over {len(good)} runs  wall {avg['wall_s']:.3f}s user {avg['user_s']:.3f}s sys {avg['sys_s']:.3f}s"
        names: Dict[str, List[float]] = {}
        units: Dict[str, str] = {}
        for s in good:
            for n, v, u in s.get("metrics", []):
                names.setdefault(n, []).append(v)
                units[n] = u
        for n, vs in names.items():
            text += f"; {n} {sum(vs) / len(vs):g}{' ' + units[n] if units[n] else ''}"
        return text

    def failure(self, stage: str, rec: CmdRecord) -> Tuple[str, str, List[str]]:
        how = f"was killed by signal {rec.signal}" if rec.signal else f"exited {rec.exit_code}"
        err_rel = f"runs/{rec.run_id}/cmd.stderr"
        return how, err_rel, _tail(os.path.join(stage, err_rel)) or ["(the command printed nothing on stderr)"]

    def artifacts(self, stage: str, rec: CmdRecord, point: Point,
                  t0_ns: Optional[int] = None) -> Tuple[List[dict], List[str]]:
        return [dict(bundle.artifact(stage, rel, kind), **extra) for rel, kind, extra in rec.files], []

    def cleanup(self, say: Callable[[str], None]) -> List[str]:
        return []

    def workload(self, host_facts: dict) -> dict:
        return {"kind": "cmd", "fio_version": None, "jobfile": None, "fio_args": None, "targets": [],
                "command": self.argv, "devices": self.devices, "cwd": self.cwd, **self.workload_extra}


def _stop_group(pid: int, reaper: threading.Thread) -> None:
    """Stop the command and everything it started: SIGINT to its process group, SIGKILL after 10 s."""
    for sig, wait in ((signal.SIGINT, 10.0), (signal.SIGKILL, 5.0)):
        if not reaper.is_alive():
            return
        try:
            os.killpg(pid, sig)
        except OSError:
            return
        reaper.join(timeout=wait)
