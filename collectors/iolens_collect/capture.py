"""``iolens-collect run``: put the probes together and write one bundle.

Order: check -o, load the workload, resolve and check its targets (nothing has run yet),
find fio, say what will be created, record host facts, turn lock_stat on (--lock-stat), set up
the perf probes and the workload's cgroup (--stacks, --sched, --block, --cgroup, --cpus:
probes.py), run fio once per repeat (lock_stat cleared before and kept after each, perf started
before and stopped after each), set lock_stat back, stop perf and remove the cgroup, remove what
fio created, write the bundle. Exit status: 0 done; 1 fio failed (the bundle is still written
if at least one run produced JSON); 2 bad input; 3 refused by the safety rule; 130
interrupted.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import __version__, bundle, fio, host, lockstat, probes, progress, safety

__all__ = ["Options", "CaptureError", "run", "EXIT_OK", "EXIT_FIO", "EXIT_USAGE",
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
    try:
        if opts.fio_jobfile is not None:
            workload = fio.load_jobfile(opts.fio_jobfile)
        else:
            workload = fio.parse_fio_args(opts.fio_args or "")
        cwd = os.getcwd()
        resolution = fio.resolve_targets(workload.jobs, cwd, aux_path=workload.aux_path)
    except fio.FioError as exc:
        raise CaptureError(str(exc)) from None
    if out_path in resolution.targets:
        raise CaptureError(f"-o {opts.output} is also a file the fio job writes; choose another name")
    try:
        plan = safety.check_targets(resolution.targets + resolution.side_files,
                                    opts.allow_destructive, resolution.unknown)
    except safety.Refused as exc:
        raise CaptureError(str(exc), EXIT_REFUSED) from None
    fio_bin = shutil.which("fio")
    if fio_bin is None:
        raise CaptureError("fio not found on PATH; install it (Debian: apt-get install fio)")
    snapshot = _read_snapshot(opts.lock_stat_snapshot) if opts.lock_stat_snapshot else None
    try:
        extra = probes.Probes(opts.probes)  # checks the options; nothing runs yet
    except probes.ProbeError as exc:
        raise CaptureError(str(exc)) from None

    if plan.create:
        verb = "will create (kept afterwards: --keep-files)" if opts.keep_files else "will create and remove"
        say(f"fio {verb}: {_listing(plan.create)}")
    if plan.created_dirs and not opts.keep_files:
        say(f"fio will create directories (removed if empty afterwards): {_listing(plan.created_dirs)}")
    if plan.existing:
        say(f"fio will write to existing (--allow-destructive, not removed): {_listing(plan.existing)}")
    if resolution.unknown:
        say("targets not checked (--allow-destructive): " + "; ".join(resolution.unknown))
    if not resolution.targets and not resolution.unknown:
        say("the fio job uses no local files")

    created_at = fio.utc_now()
    created_ts = int(time.time())
    host_facts, host_notes = host.collect(resolution.targets, fio_bin)
    fio_version = host_facts["tools"].get("fio")
    notes: List[str] = list(host_notes) + list(workload.notes) + list(resolution.notes)
    for reason in resolution.unknown:
        notes.append(f"workload.targets incomplete: {reason}")
    for path in plan.existing:
        notes.append(f"fio wrote to {path}, which existed before the capture (--allow-destructive)")

    stage = tempfile.mkdtemp(prefix="iolens-collect-")
    records: List[fio.RunRecord] = []
    failed: Optional[fio.RunRecord] = None
    lock_dumps: Dict[str, str] = {}  # run id -> its lock_stat dump in the stage
    lock: Optional[lockstat.Probe] = None
    try:
        os.makedirs(os.path.join(stage, "workload"))
        with open(os.path.join(stage, JOBFILE_REL), "wb") as f:
            f.write(workload.jobfile_bytes)
        snapshot_rel = _snapshot_name(opts.lock_stat_snapshot) if snapshot is not None else None
        if snapshot_rel is not None:
            os.makedirs(os.path.join(stage, "lock_stat"))
            with open(os.path.join(stage, snapshot_rel), "wb") as f:
                f.write(snapshot)

        names = [j.name for j in workload.jobs]
        more = len(names) - 1
        shown = names[0] + (f" (+{more} job{'s' if more > 1 else ''})" if more else "")
        prog = progress.Progress(opts.repeat, shown, progress.expected_duration(workload.jobs), stream=err)
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
            for i in range(opts.repeat):
                run_id = f"r{i:03d}"
                extra.before(run_id, say)  # perf started and enabled before lock_stat is cleared
                if lock is not None:
                    lock.clear()
                prog.start(i + 1)
                t0_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)  # perf records on this clock
                rec = fio.run_fio(fio_bin, stage, run_id, i, i, workload, JOBFILE_REL,
                                  cwd=cwd, tick=prog.tick, preexec_fn=extra.preexec,
                                  on_start=extra.on_start(run_id))
                records.append(rec)
                extra.stop()
                if lock is not None:
                    rel = f"runs/{run_id}/lock_stat.txt"
                    try:
                        lock.snapshot(os.path.join(stage, rel))
                        lock_dumps[run_id] = rel
                    except OSError as exc:
                        problem = f"lock_stat: run {run_id}: cannot read {lockstat.PROC} ({exc.strerror or exc})"
                        notes.append(problem)
                        say(problem)
                extra.after(run_id, stage, t0_ns, say)  # perf script etc., after lock_stat is read
                summary = progress.summarize(rec.json)
                result = progress.format_summary(summary) if rec.json else ""
                errors = progress.job_errors(rec.json)
                if errors:
                    result += "; " + "; ".join(errors)
                prog.end(rec.elapsed, rec.exit_code, result)
                if rec.exit_code != 0:
                    failed = rec
                    how = f"was killed by signal {rec.signal}" if rec.signal else f"exited {rec.exit_code}"
                    say(f"fio {how} on repeat {i + 1}/{opts.repeat}; stopping. "
                        f"Its messages ({rec.stderr_rel}, {rec.output_rel}):")
                    lines = _tail(os.path.join(stage, rec.stderr_rel))
                    if rec.json is None:  # fio also writes its errors into --output
                        lines += [ln for ln in _tail(os.path.join(stage, rec.output_rel))
                                  if ln not in lines]
                    for ln in lines or ["(fio printed nothing)"]:
                        err.write(f"    {ln}\n")
                    notes.append(f"run {rec.run_id}: fio {how}; later repeats were not run")
                    break
        finally:
            extra.close(say)
            if lock is not None:
                problem = lock.restore()
                if problem:
                    notes.append(problem)
                    say(problem)
            if opts.keep_files:
                if plan.create:
                    say(f"kept fio's files (--keep-files): {_listing([p for p in plan.create if os.path.lexists(p)])}")
            else:
                for problem in safety.cleanup(plan):
                    say(problem)

        notes.extend(extra.notes)
        with_json = [r for r in records if r.json is not None]
        if not with_json:
            raise CaptureError("no fio run produced JSON output; no bundle written", EXIT_FIO)

        runs = []
        for rec in records:
            if rec.json is None:
                notes.append(f"run {rec.run_id}: fio wrote no JSON; {rec.output_rel} is kept as kind fio-output")
            arts = [
                bundle.artifact(stage, rec.output_rel, "fio-json" if rec.json is not None else "fio-output"),
                bundle.artifact(stage, rec.stderr_rel, "fio-stderr"),
            ]
            if rec.stdout_rel:
                arts.append(bundle.artifact(stage, rec.stdout_rel, "stdout"))
            if rec.run_id in lock_dumps:
                arts.append(bundle.artifact(stage, lock_dumps[rec.run_id], "lock-stat"))
            for a in extra.artifacts(rec.run_id):
                arts.append(dict(bundle.artifact(stage, a.rel, a.kind), **a.extra))
            entry = {
                "id": rec.run_id,
                "index": rec.index,
                "repeat": rec.repeat,
                "params": {},
                "started_at": rec.started_at,
                "ended_at": rec.ended_at,
                "exit_code": rec.exit_code,
                "cmdline": rec.cmdline,
                "artifacts": arts,
            }
            if extra.info(rec.run_id):
                entry["probes"] = extra.info(rec.run_id)
            runs.append(entry)
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
                "kind": "fio",
                "fio_version": fio_version,
                "jobfile": JOBFILE_REL,
                "fio_args": workload.fio_args,
                "targets": resolution.targets,
                "cwd": cwd,
                **({"cpus": probes.cgroup_mod.format_cpus(extra.cpus)} if extra.cpus is not None else {}),
            },
            "runs": runs,
            "artifacts": [bundle.artifact(stage, JOBFILE_REL, "fio-jobfile")]
            + ([bundle.artifact(stage, snapshot_rel, "lock-stat")] if snapshot_rel else []),
            "notes": notes,
        }
        try:
            written = bundle.write_bundle(stage, manifest, out_path, force=opts.force, mtime=created_ts)
        except bundle.BundleError as exc:
            raise CaptureError(str(exc)) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)

    # The result goes to standard output; everything else went to standard error.
    summaries = []
    for rec in records:
        s = progress.summarize(rec.json)
        summaries.append(s)
        out.write(f"{rec.run_id}  exit {rec.exit_code}  {progress.format_summary(s)}\n")
        for line in extra.summaries(rec.run_id):
            out.write(line + "\n")
    good = [s for s in summaries if s]
    if len(good) > 1:
        mean = {}
        for ddir in good[0]:
            vals = [s[ddir] for s in good if ddir in s]
            mean[ddir] = {k: sum(v[k] for v in vals) / len(vals) for k in ("iops", "bw_bytes")}
        out.write(f"mean  over {len(good)} runs  {progress.format_summary(mean)}\n")
    size = os.path.getsize(written)
    out.write(f"bundle: {written} ({len(records)} run{'s' if len(records) != 1 else ''}, {size} bytes)\n")
    out.flush()
    if failed is not None:
        say(f"fio failed; the bundle holds the {len(records)} run(s) made so far, including the "
            f"failed one ({failed.run_id}). Exit status {EXIT_FIO}.")
        return EXIT_FIO
    return EXIT_OK
