"""``iolens-collect run`` (and ``sweep``, ``cmd``): put the probes together and write one bundle.

Order: check -o, load the workload, resolve and check its targets (nothing has run yet),
find fio, say what will be created, record host facts, turn lock_stat on (--lock-stat), set up
the perf probes and the workload's cgroup (--stacks, --sched, --block, --cgroup, --cpus:
probes.py), run the workload once per repeat of every parameter point (lock_stat cleared before
and kept after each, perf started before and stopped after each), set lock_stat back, stop perf
and remove the cgroup, remove what fio created, write the bundle. Exit status: 0 done; 1 the
workload failed (the bundle is still written if at least one run produced a result); 2 bad
input; 3 refused by the safety rule; 130 interrupted.

What runs is a *driver*: `FioDriver` here (fio, for `run` with one point and `sweep` with one
job file per point), `cmdrun.CmdDriver` for any command. A failing run stops the repeats of its
point; the other points of a sweep still run. Sweeps stage their runs beside the bundle
(resume.py) so that an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import __version__, bundle, fio, fiologs, host, kconfig, lockstat, probes, progress, safety
from .resume import Journal, ResumeError

__all__ = ["Options", "CaptureError", "run", "Point", "FioDriver", "EXIT_OK", "EXIT_FIO", "EXIT_USAGE",
           "EXIT_REFUSED", "EXIT_INTERRUPTED"]

EXIT_OK = 0
EXIT_FIO = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_INTERRUPTED = 130

JOBFILE_REL = "workload/job.fio"


class CaptureError(Exception):
    def __init__(self, message: str, exit_code: int = EXIT_USAGE):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Options:
    label: str
    output: str
    tags: Dict[str, str] = field(default_factory=dict)
    repeat: int = 1
    fio_jobfile: Optional[str] = None
    fio_args: Optional[str] = None
    allow_destructive: bool = False
    keep_files: bool = False
    force: bool = False
    argv: List[str] = field(default_factory=list)  # the collector's own arguments
    lock_stat: bool = False  # clear /proc/lock_stat before each repeat, keep it after
    lock_stat_snapshot: Optional[str] = None  # a lock_stat dump taken by hand, for the capture
    probes: probes.Settings = field(default_factory=probes.Settings)  # --stacks, --sched, --block, --cgroup, --cpus
    fio_logs: Optional[int] = None  # --fio-logs MSEC: fio's bw/iops/lat logs, averaged over MSEC (fiologs.py)
    driver: Any = None  # what runs (sweep.py, cmdrun.py); None: fio with --fio / --fio-args
    resume_key: Optional[Dict[str, Any]] = None  # sweeps: stage in BUNDLE.partial and resume (resume.py)
    restart: bool = False  # --restart: throw away the runs of an interrupted sweep
    kernel_config: Optional[str] = None  # --kernel-config FILE: kept as kernel/config (kconfig.py)
    lab_facts: Optional[str] = None  # --lab-facts FILE: the lab's VM facts, kept as host.lab


@dataclass
class Point:
    """One parameter point: `run` has one with no parameters; a sweep has one per combination."""

    index: int
    params: Dict[str, Any] = field(default_factory=dict)
    name: str = "all"  # 'rw=randread bs=4k' (progress, messages)
    workload: Optional[fio.Workload] = None  # FioDriver: the job that runs at this point
    jobfile_rel: str = JOBFILE_REL


def _listing(paths: List[str], limit: int = 8) -> str:
    shown = ", ".join(paths[:limit])
    if len(paths) > limit:
        shown += f" (+{len(paths) - limit} more)"
    return shown


def _tail(path: str, lines: int = 12) -> List[str]:
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    return [ln for ln in text.splitlines() if ln.strip()][-lines:]


def _snapshot_name(path: str) -> str:
    """lock_stat/<the file's name>, with characters other than [A-Za-z0-9._-] replaced."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(path)) or "lock_stat.txt"
    return "lock_stat/" + ("_" + name if name.startswith(".") else name)


def _read_snapshot(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise CaptureError(f"--lock-stat-snapshot {path}: {exc.strerror or exc}") from None
    problem = lockstat.check_dump(data.decode("utf-8", errors="replace"))
    if problem:
        raise CaptureError(f"--lock-stat-snapshot {path}: not a usable /proc/lock_stat dump: {problem}")
    return data


class FioDriver:
    """fio as the workload: one job per point (`run`: one point, the job of --fio/--fio-args).

    The interface every driver has (cmdrun.CmdDriver too): ``kind``, ``points``, ``tool`` and
    ``targets`` (for host facts), ``notes``, ``tool_name``; ``prepare``, ``announce``,
    ``on_host``, ``stage``, ``expected``, ``title``, ``run_one``, ``produced``, ``summary``,
    ``format``, ``failure``, ``artifacts``, ``cleanup``, ``workload``, ``nothing``.
    """

    kind = "fio"
    tool_name = "fio"
    nothing = "no fio run produced JSON output; no bundle written"

    def __init__(self, points: Optional[List[Point]] = None, extra_files: Optional[List[Tuple[str, bytes, str]]] = None,
                 workload_extra: Optional[Dict[str, Any]] = None, fio_logs: Optional[int] = None,
                 before_run: Optional[Callable[[Point, Callable[[str], None]], None]] = None,
                 on_host: Optional[Callable[[dict, Callable[[str], None]], List[str]]] = None,
                 after_all: Optional[Callable[[Callable[[str], None]], List[str]]] = None,
                 base: Optional[fio.Workload] = None):
        self.points: List[Point] = points or []
        self.extra_files = extra_files or []  # (rel, bytes, kind): the plan, each point's job file
        self.workload_extra = workload_extra or {}
        self.fio_logs = fio_logs
        self._before_run = before_run  # sweeps: the I/O scheduler of the point
        self._on_host = on_host
        self._after_all = after_all
        self.notes: List[str] = []
        self.targets: List[str] = []
        self.tool: Optional[str] = None
        self.base: Optional[fio.Workload] = base  # workload/job.fio (a sweep's base job; run: the job)
        self.plan: Optional[safety.Plan] = None
        self.resolution: Optional[fio.Resolution] = None
        self.cwd = os.getcwd()
        self.keep_files = False

    # -- before anything runs ----------------------------------------------------------------
    def prepare(self, opts: Options, out_path: str) -> None:
        self.keep_files = opts.keep_files
        try:
            if not self.points:
                if opts.fio_jobfile is not None:
                    workload = fio.load_jobfile(opts.fio_jobfile)
                else:
                    workload = fio.parse_fio_args(opts.fio_args or "")
                if self.fio_logs:
                    workload = fiologs.inject(workload, self.fio_logs)  # probes fio for the logs' clock
                self.points = [Point(0, {}, "all", workload, JOBFILE_REL)]
            self.base = self.base or self.points[0].workload
            targets: List[str] = []
            unknown: List[str] = []
            side: List[str] = []
            notes: List[str] = []
            for p in self.points:
                r = fio.resolve_targets(p.workload.jobs, self.cwd, aux_path=p.workload.aux_path)
                targets += [t for t in r.targets if t not in targets]
                side += [t for t in r.side_files if t not in side]
                unknown += [u for u in r.unknown if u not in unknown]
                notes += [n for n in list(p.workload.notes) + r.notes if n not in notes]
        except fio.FioError as exc:
            raise CaptureError(str(exc)) from None
        self.targets = targets
        self.resolution = fio.Resolution(targets=targets, by_job={}, unknown=unknown, notes=notes, side_files=side)
        if out_path in targets:
            raise CaptureError(f"-o {opts.output} is also a file the fio job writes; choose another name")
        try:
            self.plan = safety.check_targets(targets + side, opts.allow_destructive, unknown)
        except safety.Refused as exc:
            raise CaptureError(str(exc), EXIT_REFUSED) from None
        self.tool = shutil.which("fio")
        if self.tool is None:
            raise CaptureError("fio not found on PATH; install it (Debian: apt-get install fio)")
        self.notes = list(notes)
        for reason in unknown:
            self.notes.append(f"workload.targets incomplete: {reason}")
        for path in self.plan.existing:
            self.notes.append(f"fio wrote to {path}, which existed before the capture (--allow-destructive)")

    def announce(self, say: Callable[[str], None]) -> None:
        plan, resolution = self.plan, self.resolution
        assert plan is not None and resolution is not None
        if plan.create:
            verb = "will create (kept afterwards: --keep-files)" if self.keep_files else "will create and remove"
            say(f"fio {verb}: {_listing(plan.create)}")
        if plan.created_dirs and not self.keep_files:
            say(f"fio will create directories (removed if empty afterwards): {_listing(plan.created_dirs)}")
        if plan.existing:
            say(f"fio will write to existing (--allow-destructive, not removed): {_listing(plan.existing)}")
        if resolution.unknown:
            say("targets not checked (--allow-destructive): " + "; ".join(resolution.unknown))
        if not resolution.targets and not resolution.unknown:
            say("the fio job uses no local files")

    def on_host(self, host_facts: dict, say: Callable[[str], None]) -> None:
        if self.fio_logs:
            note = fiologs.clock_note([p.workload for p in self.points if p.workload is not None],
                                      (host_facts.get("tools") or {}).get("fio"))
            if note:
                self.notes.append(note)
                say(note)
        if self._on_host is not None:
            self.notes += self._on_host(host_facts, say)

    def stage(self, stage: str) -> List[dict]:
        """Write the capture-wide files; their manifest entries."""
        assert self.base is not None
        files = [(JOBFILE_REL, self.base.jobfile_bytes, "fio-jobfile")] + list(self.extra_files)
        out = []
        for rel, data, kind in files:
            os.makedirs(os.path.dirname(os.path.join(stage, rel)), exist_ok=True)
            with open(os.path.join(stage, rel), "wb") as f:
                f.write(data)
            out.append(bundle.artifact(stage, rel, kind))
        return out

    # -- each run ----------------------------------------------------------------------------
    def expected(self, point: Point) -> Tuple[Optional[float], str]:
        return progress.expected_duration(point.workload.jobs)

    def title(self, point: Point) -> str:
        names = [j.name for j in point.workload.jobs]
        more = len(names) - 1
        return names[0] + (f" (+{more} job{'s' if more > 1 else ''})" if more else "")

    def run_one(self, stage: str, run_id: str, index: int, repeat: int, point: Point,
                tick: Callable[[float], None], preexec_fn, on_start, say: Callable[[str], None]) -> fio.RunRecord:
        if self._before_run is not None:
            self._before_run(point, say)
        return fio.run_fio(self.tool or "fio", stage, run_id, index, repeat, point.workload, point.jobfile_rel,
                           cwd=self.cwd, tick=tick, preexec_fn=preexec_fn, on_start=on_start,
                           logs=fiologs.uses(point.workload))

    def produced(self, rec: fio.RunRecord) -> bool:
        return rec.json is not None

    def summary(self, rec: fio.RunRecord) -> Optional[dict]:
        return progress.summarize(rec.json)

    def format(self, summary: Optional[dict], rec: Optional[fio.RunRecord] = None) -> str:
        text = progress.format_summary(summary) if summary is not None or rec is None else ""
        if rec is not None:
            if rec.json is None:
                return ""
            errors = progress.job_errors(rec.json)
            if errors:
                text += "; " + "; ".join(errors)
        return text

    def mean(self, summaries: List[dict]) -> Optional[str]:
        good = [s for s in summaries if s]
        if len(good) < 2:
            return None
        mean = {}
        for ddir in good[0]:
            vals = [s[ddir] for s in good if ddir in s]
            mean[ddir] = {k: sum(v[k] for v in vals) / len(vals) for k in ("iops", "bw_bytes")}
        return f"mean  over {len(good)} runs  {progress.format_summary(mean)}"

    def failure(self, stage: str, rec: fio.RunRecord) -> Tuple[str, str, List[str]]:
        """(how it failed, where its messages are, its last messages)."""
        how = f"was killed by signal {rec.signal}" if rec.signal else f"exited {rec.exit_code}"
        lines = _tail(os.path.join(stage, rec.stderr_rel))
        if rec.json is None:  # fio also writes its errors into --output
            lines += [ln for ln in _tail(os.path.join(stage, rec.output_rel)) if ln not in lines]
        return how, f"{rec.stderr_rel}, {rec.output_rel}", lines or ["(fio printed nothing)"]

    def artifacts(self, stage: str, rec: fio.RunRecord, point: Point,
                  t0_ns: Optional[int] = None) -> Tuple[List[dict], List[str]]:
        """The run's artifacts; ``t0_ns`` is CLOCK_MONOTONIC just before fio started (the fio logs
        carry it as trace_clock_at_start_ns, like the perf probes' artifacts)."""
        notes = []
        if rec.json is None:
            notes.append(f"run {rec.run_id}: fio wrote no JSON; {rec.output_rel} is kept as kind fio-output")
        arts = [
            bundle.artifact(stage, rec.output_rel, "fio-json" if rec.json is not None else "fio-output"),
            bundle.artifact(stage, rec.stderr_rel, "fio-stderr"),
        ]
        if rec.stdout_rel:
            arts.append(bundle.artifact(stage, rec.stdout_rel, "stdout"))
        if self.fio_logs and point.workload is not None:
            for rel, extra in fiologs.collect(stage, f"runs/{rec.run_id}", self.fio_logs,
                                              fiologs.jobnames(point.workload), fiologs.clocks(point.workload),
                                              t0_ns):
                arts.append(dict(bundle.artifact(stage, rel, "fio-log"), **extra))
        return arts, notes

    # -- the end -----------------------------------------------------------------------------
    def cleanup(self, say: Callable[[str], None]) -> List[str]:
        notes: List[str] = []
        if self._after_all is not None:
            notes += self._after_all(say)
        plan = self.plan
        if plan is None:
            return notes
        if self.keep_files:
            if plan.create:
                say(f"kept fio's files (--keep-files): {_listing([p for p in plan.create if os.path.lexists(p)])}")
        else:
            for problem in safety.cleanup(plan):
                say(problem)
        return notes

    def workload(self, host_facts: dict) -> dict:
        base = self.base
        assert base is not None
        return {
            "kind": "fio",
            "fio_version": host_facts["tools"].get("fio"),
            "jobfile": JOBFILE_REL,
            "fio_args": base.fio_args,
            "targets": self.targets,
            "cwd": self.cwd,
            **({"fio_logs": {"avg_msec": self.fio_logs}} if self.fio_logs else {}),
            **self.workload_extra,
        }


def run(opts: Options, err=None, out=None, proc_root: str = "/") -> int:
    """Capture as `opts` say. `proc_root` is where /proc is read (tests point it at a fake tree)."""
    err = err if err is not None else sys.stderr
    out = out if out is not None else sys.stdout

    def say(text: str) -> None:
        err.write(f"iolens-collect: {text}\n")
        err.flush()

    if not 1 <= len(opts.label) <= 200 or not opts.label.strip():
        raise CaptureError(f"--label must be 1-200 characters, not only spaces (got {len(opts.label)})")
    if opts.repeat < 1:
        raise CaptureError(f"--repeat must be at least 1 (got {opts.repeat})")
    try:
        out_path = bundle.check_output_path(opts.output, opts.force)
    except bundle.BundleError as exc:
        raise CaptureError(str(exc)) from None
    driver = opts.driver if opts.driver is not None else FioDriver(fio_logs=opts.fio_logs)
    driver.prepare(opts, out_path)
    snapshot = _read_snapshot(opts.lock_stat_snapshot) if opts.lock_stat_snapshot else None
    kernel_config: Optional[Tuple[bytes, Dict[str, str]]] = None
    lab_facts: Optional[Dict[str, Any]] = None
    try:
        if opts.kernel_config:
            kernel_config = kconfig.read_config(opts.kernel_config)
        if opts.lab_facts:
            lab_facts = kconfig.read_lab_facts(opts.lab_facts)
    except kconfig.KconfigError as exc:
        raise CaptureError(str(exc)) from None
    try:
        extra = probes.Probes(opts.probes)  # checks the options; nothing runs yet
    except probes.ProbeError as exc:
        raise CaptureError(str(exc)) from None
    driver.announce(say)

    created_at = fio.utc_now()
    created_ts = int(time.time())
    host_facts, host_notes = host.collect(driver.targets, driver.tool)
    driver.on_host(host_facts, say)  # may refuse (a scheduler the device lacks): before any staging
    if kernel_config is not None:
        host_facts.setdefault("kernel", {})["config"] = kconfig.summarize(*kernel_config)
    if lab_facts is not None:
        host_facts["lab"] = lab_facts
    journal: Optional[Journal] = None
    if opts.resume_key is not None:
        journal = Journal(out_path, opts.resume_key, opts.restart)
        try:
            host_facts = journal.open(host_facts, created_at, created_ts, say)
        except ResumeError as exc:
            raise CaptureError(str(exc)) from None
        created_at, created_ts = journal.created_at or created_at, journal.created_ts or created_ts
    notes: List[str] = list(host_notes) + list(driver.notes)

    points: List[Point] = driver.points
    schedule: List[Tuple[int, int]] = [(p.index, r) for p in points for r in range(opts.repeat)]
    if getattr(driver, "order", "points") == "rounds":
        schedule = [(p.index, r) for r in range(opts.repeat) for p in points]
    by_index = {p.index: p for p in points}
    multi = len(points) > 1
    stage = journal.dir if journal is not None else tempfile.mkdtemp(prefix="iolens-collect-")
    entries: Dict[int, dict] = {}  # schedule position -> the run's manifest entry
    results: Dict[int, Tuple[str, Optional[dict], bool, List[str]]] = {}  # -> (run id, summary, ok, probe lines)
    failed_points: Dict[int, str] = {}  # point index -> run id that failed
    if journal is not None:
        for k, rec_info in journal.runs.items():
            entries[k] = rec_info["entry"]
            results[k] = (rec_info["entry"]["id"], rec_info.get("summary"), rec_info.get("ok", False),
                          rec_info.get("lines", []))
            if rec_info.get("failed"):
                failed_points[rec_info["point"]] = rec_info["entry"]["id"]
    failed_now: Optional[Tuple[str, Any]] = None
    lock: Optional[lockstat.Probe] = None
    finished = False
    try:
        capture_arts = driver.stage(stage)
        if kernel_config is not None:
            os.makedirs(os.path.join(stage, os.path.dirname(kconfig.CONFIG_REL)), exist_ok=True)
            with open(os.path.join(stage, kconfig.CONFIG_REL), "wb") as f:
                f.write(kernel_config[0])
            capture_arts.append(bundle.artifact(stage, kconfig.CONFIG_REL, "kernel-config"))
        snapshot_rel = _snapshot_name(opts.lock_stat_snapshot) if snapshot is not None else None
        if snapshot_rel is not None:
            os.makedirs(os.path.join(stage, "lock_stat"), exist_ok=True)
            with open(os.path.join(stage, snapshot_rel), "wb") as f:
                f.write(snapshot)
            capture_arts.append(bundle.artifact(stage, snapshot_rel, "lock-stat"))

        if multi:
            prog: progress.Progress = progress.SweepProgress(len(schedule), stream=err)
        else:
            prog = progress.Progress(opts.repeat, driver.title(points[0]), driver.expected(points[0]), stream=err)
        prog.tool = driver.tool_name
        try:
            if opts.lock_stat:
                lock = lockstat.Probe(proc_root)
                problem = lock.start()
                if problem:
                    lock = None
                    notes.append(problem)
                    say(f"{problem}; {lockstat.ALTERNATIVE}")
                else:
                    was = "" if lock.previous == "1" else f" (it was {lock.previous}; set back at the end)"
                    say(f"lock_stat: collecting{was}; {lockstat.PROC} is cleared before each repeat and "
                        "kept after it")
            try:
                extra.start(host_facts, say)
            except probes.ProbeError as exc:
                raise CaptureError(str(exc)) from None
            for k, (pi, i) in enumerate(schedule):
                point = by_index[pi]
                if k in entries:
                    continue  # made in an earlier session (resume.py)
                if pi in failed_points:
                    continue  # a run of this point failed: its other repeats are not run
                run_id = f"r{k:03d}"
                if journal is not None:
                    journal.discard(run_id)
                extra.before(run_id, say)  # perf started and enabled before lock_stat is cleared
                if lock is not None:
                    lock.clear()
                if isinstance(prog, progress.SweepProgress):
                    later = [driver.expected(by_index[q]) for kk, (q, _) in enumerate(schedule)
                             if kk > k and kk not in entries and q not in failed_points]
                    prog.begin(k + 1, point.name, i + 1, opts.repeat, driver.expected(point), later)
                else:
                    prog.start(i + 1)
                t0_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)  # perf records on this clock
                rec = driver.run_one(stage, run_id, k, i, point, tick=prog.tick, preexec_fn=extra.preexec,
                                     on_start=extra.on_start(run_id), say=say)
                extra.stop()
                lock_rel = None
                if lock is not None:
                    rel = f"runs/{run_id}/lock_stat.txt"
                    try:
                        lock.snapshot(os.path.join(stage, rel))
                        lock_rel = rel
                    except OSError as exc:
                        problem = f"lock_stat: run {run_id}: cannot read {lockstat.PROC} ({exc.strerror or exc})"
                        notes.append(problem)
                        say(problem)
                extra.after(run_id, stage, t0_ns, say)  # perf script etc., after lock_stat is read
                summary = driver.summary(rec)
                prog.end(rec.elapsed, rec.exit_code, driver.format(summary, rec))
                arts, run_notes = driver.artifacts(stage, rec, point, t0_ns=t0_ns)
                notes += run_notes
                if lock_rel is not None:
                    arts.append(bundle.artifact(stage, lock_rel, "lock-stat"))
                for a in extra.artifacts(rec.run_id):
                    arts.append(dict(bundle.artifact(stage, a.rel, a.kind), **a.extra))
                entry = {
                    "id": rec.run_id,
                    "index": k,
                    "repeat": i,
                    "params": dict(point.params),
                    "started_at": rec.started_at,
                    "ended_at": rec.ended_at,
                    "exit_code": rec.exit_code,
                    "cmdline": rec.cmdline,
                    "artifacts": arts,
                }
                if extra.info(rec.run_id):
                    entry["probes"] = extra.info(rec.run_id)
                entries[k] = entry
                failed = rec.exit_code != 0
                results[k] = (run_id, summary, driver.produced(rec), list(extra.summaries(rec.run_id)))
                if failed:
                    failed_points[pi] = run_id
                    failed_now = (run_id, rec)
                    how, where, lines = driver.failure(stage, rec)
                    tool = driver.tool_name
                    if multi:
                        say(f"{tool} {how} on run {k + 1}/{len(schedule)} ({point.name}, repeat {i + 1}/"
                            f"{opts.repeat}); the other repeats of this point are skipped. Its messages ({where}):")
                        notes.append(f"run {run_id}: {tool} {how}; the other repeats of point {point.name} "
                                     "were not run")
                    else:
                        say(f"{tool} {how} on repeat {i + 1}/{opts.repeat}; stopping. Its messages ({where}):")
                        notes.append(f"run {run_id}: {tool} {how}; later repeats were not run")
                    for ln in lines:
                        err.write(f"    {ln}\n")
                if journal is not None:
                    journal.record(k, entry, point=pi, summary=summary, ok=driver.produced(rec), failed=failed,
                                   lines=results[k][3])
                    journal.add_notes(run_notes + (notes[-1:] if failed else []))
        finally:
            extra.close(say)
            if lock is not None:
                problem = lock.restore()
                if problem:
                    notes.append(problem)
                    say(problem)
            notes += driver.cleanup(say)

        notes.extend(extra.notes)
        if journal is not None:
            journal.add_notes(notes)
            notes = list(journal.notes)
            if journal.resumed or len(journal.sessions) > 1:
                notes.append(f"made in {len(journal.sessions)} sessions (interrupted and resumed), started at "
                             + ", ".join(journal.sessions))
        notes = list(dict.fromkeys(notes))
        if not any(ok for _, _, ok, _ in results.values()):
            if journal is not None:
                journal.runs.clear()  # nothing worth resuming
            raise CaptureError(driver.nothing, EXIT_FIO)

        manifest = {
            "format": bundle.FORMAT,
            "format_version": bundle.FORMAT_VERSION,
            "collector": {"name": "iolens-collect", "version": __version__,
                          "argv": ["iolens-collect"] + list(opts.argv)},
            "label": opts.label,
            "tags": dict(opts.tags),
            "created_at": created_at,
            "host": host_facts,
            "workload": {
                **driver.workload(host_facts),
                **({"cpus": probes.cgroup_mod.format_cpus(extra.cpus)} if extra.cpus is not None else {}),
            },
            "runs": [dict(entries[k], index=n) for n, k in enumerate(sorted(entries))],
            "artifacts": capture_arts,
            "notes": notes,
        }
        try:
            written = bundle.write_bundle(stage, manifest, out_path, force=opts.force, mtime=created_ts)
        except bundle.BundleError as exc:
            raise CaptureError(str(exc)) from None
        finished = True
    except KeyboardInterrupt:
        if journal is not None and journal.runs:
            say(f"interrupted: the {len(journal.runs)} run(s) made so far are kept in {journal.dir}; run the "
                "same command again to resume (--restart starts over)")
        raise
    finally:
        if journal is None:
            shutil.rmtree(stage, ignore_errors=True)
        elif finished or not journal.runs:
            journal.finish()

    # The result goes to standard output; everything else went to standard error.
    by_point: Dict[int, List[dict]] = {}
    for k in sorted(results):
        run_id, summary, ok, lines = results[k]
        entry = entries[k]
        text = driver.format(summary)
        prefix = f"{run_id}  exit {entry['exit_code']}"
        if multi:
            prefix += f"  {by_index[schedule[k][0]].name}"
        out.write(f"{prefix}  {text}\n")
        for line in lines:
            out.write(line + "\n")
        if summary:
            by_point.setdefault(schedule[k][0], []).append(summary)
    for pi, sums in by_point.items():
        line = driver.mean(sums)
        if line:
            out.write(line.replace("mean  over", f"mean  {by_index[pi].name}  over", 1) + "\n" if multi else line + "\n")
    size = os.path.getsize(written)
    n_runs = len(entries)
    out.write(f"bundle: {written} ({n_runs} run{'s' if n_runs != 1 else ''}, {size} bytes)\n")
    out.flush()
    if failed_points:
        first = failed_now[0] if failed_now else sorted(failed_points.values())[0]
        if multi:
            say(f"{driver.tool_name} failed in {len(failed_points)} point(s); the bundle holds every run made, "
                f"the failed ones included (first: {first}). Exit status {EXIT_FIO}.")
        else:
            say(f"{driver.tool_name} failed; the bundle holds the {n_runs} run(s) made so far, including the "
                f"failed one ({first}). Exit status {EXIT_FIO}.")
        return EXIT_FIO
    return EXIT_OK
