"""The per-repeat probes of `iolens-collect run` put together: every module of PROBES that drives a
probe (stacks.py, sched.py, offcpu.py, block.py, trace.py, monitors.py: each owns its options, their
checks and its start), and the workload's placement, --cgroup/--cpu-weight (cgroup.py) and --cpus.
capture.py calls, in this order:

    Probes(settings)          checks the options; nothing runs (bad input -> ProbeError, exit 2)
    .start(host_facts, say)   finds perf, mounts tracefs if needed, chooses the block source,
                              creates the cgroup; what cannot be captured becomes a note
    per repeat: .before(run_id) / fio with .preexec and .on_start / .after(run_id, stage, t0_ns)
    .close()                  in a finally: stops perf, removes the cgroup, unmounts what we mounted
    .artifacts(run_id), .info(run_id), .summaries(run_id), .notes

A probe that fails to start (no perf, refused by the kernel, a missing tracepoint) is dropped
with a note naming perf's own message, and the capture goes on without it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import block, monitors, offcpu, perfrec, sched, stacks, trace
from . import cgroup as cgroup_mod
from .perfrec import PerfError, RunProbe, Start

__all__ = ["Settings", "Probes", "ProbeError", "DEFAULT_MAX_MB", "scratch_base", "ProbeSpec", "PROBES",
           "WORKLOAD_KINDS", "KINDS", "add_options"]

DEFAULT_MAX_MB = 512


class ProbeError(ValueError):
    """A probe option is wrong; nothing has run."""


@dataclass(frozen=True)
class ProbeSpec:
    """One probe of `iolens-collect run`: its name (the key of runs[].probes and of its notes), the
    options that turn it on or tune it (cli.py), the artifact kinds it writes (each one must be in
    the server's list, backend/iolens/bundle/kinds.py: a test checks it), its module, what a
    capture lacks when the probe cannot run, and, for a probe that Probes drives, the module
    itself: it has PERF and TRACEFS (what it needs), add_options(group, positive) (its argparse
    options), enabled(o) and check(o, root) (ValueError: bad input, exit 2; what it returns is
    handed to start) and start(o, ctx, checked) -> RunProbe or None (with a note saying why).
    `o` holds the parsed options of `run`."""

    name: str
    flags: Tuple[str, ...]
    kinds: Tuple[str, ...]
    module: str
    lost: str
    probe: Optional[ModuleType] = None


# Every probe, one line each (docs/architecture.md, "Adding a probe").
PROBES: Tuple[ProbeSpec, ...] = (
    ProbeSpec("stacks", ("--stacks", "--freq", "--call-graph"), ("perf-script",), "stacks.py", "stacks", stacks),
    ProbeSpec("sched", ("--sched",), ("perf-sched", "perf-stat"), "sched.py", "scheduler events", sched),
    ProbeSpec("offcpu", ("--offcpu", "--offcpu-stacks"), ("perf-offcpu", "perf-stat-offcpu"), "offcpu.py",
              "off-CPU stacks", offcpu),
    ProbeSpec("block", ("--block",), ("blkparse", "perf-block", "perf-stat-block"), "block.py", "block events",
              block),
    ProbeSpec("trace", ("--trace",), ("perf-trace", "perf-trace-fields", "tracepoint-formats", "perf-stat"),
              "trace.py", "traced events", trace),
    ProbeSpec("monitors", ("--monitors", "--monitor-interval"), ("monitor",), "monitors.py", "monitors", monitors),
    ProbeSpec("lock_stat", ("--lock-stat", "--lock-stat-snapshot"), ("lock-stat",), "lockstat.py", "lock statistics"),
    ProbeSpec("fio_logs", ("--fio-logs",), ("fio-log",), "fiologs.py", "fio logs"),
    ProbeSpec("kernel_config", ("--kernel-config",), ("kernel-config",), "kconfig.py", "kernel configuration"),
    ProbeSpec("workload", ("--cgroup", "--cpu-weight", "--cpus"), (), "cgroup.py", "workload placement"),
)
# What the workload itself leaves in a bundle (capture.py for fio, cmdrun.py for commands, sweep.py).
WORKLOAD_KINDS: Tuple[str, ...] = ("fio-json", "fio-output", "fio-stderr", "stdout", "fio-jobfile", "sweep-plan",
                                   "cmd-stdout", "stderr", "cmd-rusage", "diskstats")
# Every artifact kind this collector writes.
KINDS: Tuple[str, ...] = tuple(dict.fromkeys(WORKLOAD_KINDS + tuple(k for p in PROBES for k in p.kinds)))
_LOST = {p.name: p.lost for p in PROBES}
_DRIVEN: Tuple[ProbeSpec, ...] = tuple(p for p in PROBES if p.probe is not None)
# Started in PROBES order, block last (as before the modules owned their start: notes keep their order).
_STARTED: Tuple[ProbeSpec, ...] = tuple(sorted(_DRIVEN, key=lambda p: p.name == "block"))


def add_options(group, positive: Callable[[str], int]) -> None:
    """Every driven probe's options, in PROBES order, into the argparse group of perf probes (cli.py)."""
    for p in _DRIVEN:
        p.probe.add_options(group, positive)


class _Values:
    """The parsed options of `run` as attributes; one not given (Settings() in tests) reads as None."""

    def __init__(self, values: Dict[str, Any]):
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:
        return None


@dataclass
class Settings:
    values: Dict[str, Any] = field(default_factory=dict)  # the parsed options (cli.py: vars(args)), per probe module
    cgroup: Optional[str] = None
    cpu_weight: Optional[int] = None
    cpus: Optional[str] = None
    probe_max_mb: Optional[int] = None
    root: str = "/"  # tests: a fake tree for /proc and /sys

    @property
    def options(self) -> _Values:
        return _Values(self.values)

    @property
    def any_perf(self) -> bool:
        o = self.options
        return any(p.probe.PERF and p.probe.enabled(o) for p in _DRIVEN)


def scratch_base(need_bytes: int = 0) -> Optional[str]:
    """Where perf writes perf.data during a run: /dev/shm (memory) when usable and it has room for
    every recording at its cap, so that perf's own writes do not show up in a block trace of the
    disk under $TMPDIR; else $TMPDIR (None). IOLENS_SCRATCH overrides."""
    env = os.environ.get("IOLENS_SCRATCH")
    if env:
        return env
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
        try:
            st = os.statvfs("/dev/shm")
            if st.f_bavail * st.f_frsize >= need_bytes:
                return "/dev/shm"
        except OSError:
            pass
    return None


class Probes:
    def __init__(self, s: Settings):
        self.s = s
        self.o = s.options
        self._checked: Dict[str, Any] = {}
        for p in _DRIVEN:
            try:
                self._checked[p.name] = p.probe.check(self.o, s.root)
            except ValueError as exc:
                raise ProbeError(str(exc)) from None
        if s.cpu_weight is not None and s.cgroup is None:
            raise ProbeError("--cpu-weight needs --cgroup NAME (the cgroup the workload runs in)")
        if s.probe_max_mb is not None and not s.any_perf:
            perf = [p.flags[0] for p in _DRIVEN if p.probe.PERF]
            raise ProbeError(f"--probe-max-mb needs {', '.join(perf[:-1])} or {perf[-1]}")
        self.max_mb = s.probe_max_mb or DEFAULT_MAX_MB
        self.cpus: Optional[List[int]] = None
        if s.cpus is not None:
            try:
                self.cpus = cgroup_mod.parse_cpus(s.cpus)
            except ValueError as exc:
                raise ProbeError(f"--cpus: {exc}") from None
            allowed = os.sched_getaffinity(0)
            outside = [c for c in self.cpus if c not in allowed]
            if outside:
                raise ProbeError(f"--cpus {s.cpus}: CPU {cgroup_mod.format_cpus(outside)} is not available here "
                                 f"(this process may use {cgroup_mod.format_cpus(allowed)})")
        self.cg: Optional[cgroup_mod.WorkloadCgroup] = None
        if s.cgroup is not None:
            try:
                self.cg = cgroup_mod.WorkloadCgroup(s.cgroup, s.cpu_weight, root=s.root)
                self.cg.plan()
            except cgroup_mod.CgroupError as exc:
                raise ProbeError(str(exc)) from None
        self.active: List[RunProbe] = []
        self.notes: List[str] = []
        self.tracefs_mounted = False
        self._scratch: Optional[str] = None
        self._arts: Dict[str, list] = {}
        self._info: Dict[str, Dict[str, object]] = {}
        self._summaries: Dict[str, List[str]] = {}
        self._cgroup_fact: Optional[dict] = None

    # -- before the first repeat ---------------------------------------------------------
    def start(self, host_facts: dict, say: Callable[[str], None]) -> None:
        s, o = self.s, self.o
        wanted = [p for p in _STARTED if p.probe.enabled(o)]
        perf = events_dir = None
        perf_problem = tracefs_problem = None
        if s.any_perf:
            perf, perf_problem = perfrec.find_perf()
            if perf is None:
                perf_problem = (perf_problem or "perf unusable") + perfrec.permission_hint(s.root)
        if perf is not None and any(p.probe.TRACEFS for p in wanted):
            events_dir, tracefs_problem, self.tracefs_mounted = perfrec.ensure_tracefs(s.root)
            if self.tracefs_mounted:
                self._note(f"tracefs: was not mounted; mounted at {perfrec.TRACEFS} for this capture "
                           "and unmounted at the end", say)
        ctx = Start(perf, perf_problem, events_dir, tracefs_problem, self.max_mb, s.root,
                    note=lambda text: self._note(text, say), say=say)
        for p in wanted:
            started = p.probe.start(o, ctx, self._checked.get(p.name))
            if started is not None:
                self.active.append(started)
        if self.active:
            recordings = sum(1 for p in self.active if p.records)
            base = scratch_base(recordings * self.max_mb * 1024 * 1024)
            self._scratch = tempfile.mkdtemp(prefix="iolens-probes-", dir=base)
            say("probes: " + ", ".join(p.name for p in self.active) + f" (perf.data in {self._scratch}, "
                f"at most {self.max_mb} MB per recording: --probe-max-mb)")
        if self.cg is not None:
            try:
                self.cg.create()
            except cgroup_mod.CgroupError as exc:
                raise ProbeError(str(exc)) from None
            what = (f"cpu.weight={self.cg.weight}" if self.cg.version == 2 else
                    f"cpu.shares={self.cg.settings.get('cpu.shares')} (cpu.weight {self.cg.weight})") \
                if self.cg.weight is not None else "default weight"
            say(f"cgroup: fio runs in {self.cg.dir} (cgroup v{self.cg.version}, {what}); removed at the end")
            self._cgroup_fact = self.cg.facts(self.s.cpus and cgroup_mod.format_cpus(self.cpus or []))
            host_facts["cgroup"] = self._cgroup_fact
        if self.cpus is not None:
            cpu = host_facts.get("cpu") or {}
            cpu["collector_affinity"] = cpu.get("affinity")
            cpu["affinity"] = cgroup_mod.format_cpus(self.cpus)
            host_facts["cpu"] = cpu
            say(f"cpus: fio runs on CPU {cgroup_mod.format_cpus(self.cpus)} (like taskset -c)")

    def _note(self, text: str, say: Callable[[str], None]) -> None:
        self.notes.append(text)
        say(text)

    # -- the workload process ------------------------------------------------------------
    @property
    def preexec(self) -> Optional[Callable[[], None]]:
        if self.cg is None and self.cpus is None:
            return None
        cg, cpus = self.cg, self.cpus

        def enter() -> None:  # in the child, between fork and exec
            if cg is not None:
                cg.preexec()
            if cpus is not None:
                os.sched_setaffinity(0, cpus)
        return enter

    def on_start(self, run_id: str) -> Optional[Callable]:
        if self.cg is None and self.cpus is None:
            return None

        def seen(proc) -> None:
            obs: Dict[str, object] = {"pid": proc.pid}
            try:
                with open(f"/proc/{proc.pid}/cgroup") as f:
                    obs["proc_cgroup"] = [ln for ln in f.read().splitlines() if ln]
                with open(f"/proc/{proc.pid}/status") as f:
                    for ln in f:
                        if ln.startswith("Cpus_allowed_list:"):
                            obs["cpus_allowed_list"] = ln.split(":", 1)[1].strip()
            except OSError as exc:
                obs["error"] = f"cannot read /proc/{proc.pid}: {exc.strerror or exc}"
            if self.cg is not None:
                obs["path"] = self.cg.path
            self._info.setdefault(run_id, {})["workload"] = obs
        return seen

    # -- each repeat ---------------------------------------------------------------------
    def before(self, run_id: str, say: Callable[[str], None]) -> None:
        """Start every probe's perf, events disabled, then enable them (counters first)."""
        for p in list(self.active):
            scratch = os.path.join(self._scratch or tempfile.gettempdir(), f"{run_id}-{p.name}")
            os.makedirs(scratch, exist_ok=True)
            try:
                p.launch(run_id, scratch)
            except PerfError as exc:
                self._drop(p, run_id, str(exc), say)
        for counters in (True, False):
            for p in list(self.active):
                try:
                    p.enable(counters)
                except PerfError as exc:
                    self._drop(p, run_id, str(exc), say)

    def _drop(self, p: RunProbe, run_id: str, why: str, say: Callable[[str], None], phase: str = "start") -> None:
        p.abort()
        self.active.remove(p)
        hint = perfrec.permission_hint(self.s.root)
        what = _LOST.get(p.name, p.name)
        where = "this capture" if run_id == "r000" else f"run {run_id} and later runs"
        if phase == "start":
            self._note(f"{p.name}: could not start{hint}: {why}; no {what} in {where}", say)
        else:
            self._note(f"{p.name}: failed after run {run_id}: {why}; no {what} in that run or later ones", say)

    def stop(self) -> None:
        """Right after fio: disable every probe's events (recordings first, counters last)."""
        for counters in (False, True):
            for p in reversed(self.active):
                p.disable(counters)

    def after(self, run_id: str, stage: str, t0_ns: int, say: Callable[[str], None]) -> None:
        """Stop perf and post-process (perf script): outside the measured window."""
        self.stop()  # no-op when stop() was called already
        for p in list(self.active):
            try:
                arts, info, notes = p.finish(run_id, stage, t0_ns)
            except (PerfError, OSError) as exc:
                self._drop(p, run_id, str(exc), say, phase="after")
                continue
            finally:
                shutil.rmtree(p.scratch or "", ignore_errors=True)
            self._arts.setdefault(run_id, []).extend(arts)
            self._info.setdefault(run_id, {})[p.name] = info
            line = p.summary(run_id, info)
            if line:
                self._summaries.setdefault(run_id, []).append(line)
            for n in notes:
                self._note(n, say)

    # -- the end -------------------------------------------------------------------------
    def close(self, say: Callable[[str], None]) -> None:
        for p in self.active:
            p.abort()
            for problem in p.teardown():
                self._note(problem, say)
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        if self.cg is not None and self.cg.created:
            problems = self.cg.remove()
            for problem in problems:
                self._note(problem, say)
            if self._cgroup_fact is not None:
                self._cgroup_fact["created"]["removed"] = not problems
        if self.tracefs_mounted:
            self.tracefs_mounted = False
            problem = perfrec.unmount_tracefs()
            if problem:
                self._note(problem, say)

    def artifacts(self, run_id: str) -> list:
        return self._arts.get(run_id, [])

    def info(self, run_id: str) -> Dict[str, object]:
        return self._info.get(run_id, {})

    def summaries(self, run_id: str) -> List[str]:
        return self._summaries.get(run_id, [])
