"""Off-CPU artifacts at ingest: perf-offcpu (sched_switch and sched_waking with call chains) and
perf-stat-offcpu (perf stat's counts of the same two tracepoints in the same run).

Weighting (docs/offcpu.md): each switch-out of a thread (prev_pid of a sched_switch, never the
idle task 0) is paired with the same thread's next switch-in (next_pid of a later sched_switch,
on any CPU). The time between is how long it was off the CPU, and weighs the stack it switched
out with: `comm;[state X];frames...` in perf_stacks, one perf_samples row of event 'offcpu' with
that weight in ns at the switch-out's time, CPU and thread. So a thread's weights sum to the time
it spent off the CPU between the recording's first and last event, less the ends:

- a switch-out with no switch-in before the recording's last event is not weighted (how long it
  lasted is not known): counted in offcpu_runs.open_at_end, with the time to the last event as a
  lower bound;
- a switch-in of a thread never seen before (off the CPU since before the recording) has no
  stack: counted in in_at_start;
- a second switch-out before a switch-in, or a switch-in without a switch-out after the thread
  was seen, means an event was lost: the interval is dropped and counted in `unpaired` (and the
  `pairing` check applies the lost-events rule to it).

Each sched_waking gives one row of offcpu_wakings and one perf_samples row of event 'wakeup'
(weight 1) with the stack `waker comm;frames...;[wakes WAKEE]`; an interval's waker is the first
sched_waking of the thread after its switch-out (as sched_delays takes it).

Lost events: the one rule (store/rules/lost_events.py) on recorded vs perf stat's count of each
tracepoint, and on paired vs all switch-ins of threads already seen (offcpu_checks).

Two implementations of the same pass, which gives four CSV files (offcpu_intervals,
offcpu_wakings, perf_stacks, perf_samples: `OffcpuFiles`, loaded with Writer.insert_csv) and the
counters (`OffcpuPass`): the native one, `iolens_native.offcpu_csv` (Rust, backend/native/
iolens_native/src/offcpu.rs: read with gzip on a second thread, parse, pair, write), used at
ingest; and the Python reference, `read_offcpu` + `write_offcpu_csv`, used when the native module
is missing, when IOLENS_OFFCPU_NATIVE=0, and when the native pass answers "fallback" (an event line
with non-ASCII text, where Python's regex classes are Unicode; times beyond 64 bits; read or gzip
errors). backend/tests/test_offcpu_native.py checks that both write the same bytes and counts.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats.perf_offcpu import OffcpuReader, OffcpuSwitch, line_error
from ..formats.perf_stat import parse_perf_stat_csv
from ..store.derived import OFFCPU_EVENT, OFFCPU_STACK_BASE, WAKEUP_EVENT
from ..store.rules.lost_events import LOSS_THRESHOLD, recorded_short
from .parsed import BulkCsv, Parsed
from .sched import open_member, task_group_sql, workload_comm

try:
    import iolens_native as _native
except ImportError:  # pragma: no cover - the package is built by `uv sync`
    _native = None

if TYPE_CHECKING:
    from ..store.db import Writer

KIND = "perf-offcpu"
STAT_KIND = "perf-stat-offcpu"
EVENTS = ("sched:sched_switch", "sched:sched_waking")

RUN_COLUMNS = ("capture_id", "run_id", "path", "first_ts_ns", "last_ts_ns", "switches", "wakings", "intervals",
               "blocked_ns", "open_at_end", "open_at_end_ns", "in_at_start", "unpaired", "chainless",
               "workload_comm", "events_lost", "warnings")
CHECK_COLUMNS = ("capture_id", "run_id", "name", "event", "recorded", "expected", "ratio", "threshold", "ok",
                 "detail")
INTERVAL_COLUMNS = ("capture_id", "run_id", "tid", "pid", "comm", "grp", "state", "cpu_out", "t_out_ns", "cpu_in",
                    "t_in_ns", "blocked_ns", "stack_id", "waker_tid", "waker_comm", "waker_grp")
WAKING_COLUMNS = ("capture_id", "run_id", "ts_ns", "cpu", "waker_tid", "waker_pid", "waker_comm", "waker_grp",
                  "wakee_tid", "wakee_comm", "wakee_grp", "target_cpu", "stack_id")
TABLE_COLUMNS = {"offcpu_runs": RUN_COLUMNS, "offcpu_checks": CHECK_COLUMNS, "offcpu_intervals": INTERVAL_COLUMNS,
                 "offcpu_wakings": WAKING_COLUMNS}

# The CSV files of the pass (headerless; strings always quoted, '"' doubled; NULL an empty field),
# as (column, DuckDB type) in file order; the other columns are constants of the load.
INTERVAL_CSV = (("tid", "INTEGER"), ("pid", "INTEGER"), ("comm", "VARCHAR"), ("state", "VARCHAR"),
                ("cpu_out", "INTEGER"), ("t_out_ns", "BIGINT"), ("cpu_in", "INTEGER"), ("t_in_ns", "BIGINT"),
                ("blocked_ns", "BIGINT"), ("stack_id", "INTEGER"), ("waker_tid", "INTEGER"), ("waker_comm", "VARCHAR"))
WAKING_CSV = (("ts_ns", "BIGINT"), ("cpu", "INTEGER"), ("waker_tid", "INTEGER"), ("waker_pid", "INTEGER"),
              ("waker_comm", "VARCHAR"), ("wakee_tid", "INTEGER"), ("wakee_comm", "VARCHAR"), ("target_cpu", "INTEGER"),
              ("stack_id", "INTEGER"))
STACK_CSV = (("stack_id", "INTEGER"), ("folded_stack", "VARCHAR"))
SAMPLE_CSV = (("ts_ns", "BIGINT"), ("cpu", "INTEGER"), ("pid", "INTEGER"), ("tid", "INTEGER"), ("comm", "VARCHAR"),
              ("stack_id", "INTEGER"), ("weight", "BIGINT"), ("event", "VARCHAR"))
NATIVE_ENV = "IOLENS_OFFCPU_NATIVE"


class OffcpuFiles(NamedTuple):
    """Where one pass writes its rows: INTERVAL_CSV, WAKING_CSV, STACK_CSV, SAMPLE_CSV."""

    intervals: Path
    wakings: Path
    stacks: Path
    samples: Path

    @classmethod
    def in_dir(cls, d: Path) -> OffcpuFiles:
        return cls(d / "offcpu_intervals.csv", d / "offcpu_wakings.csv", d / "perf_stacks.csv", d / "perf_samples.csv")


@dataclass(frozen=True)
class OffcpuPass:
    """The counters of one pass (both implementations), as offcpu_runs and offcpu_checks use them."""

    lines: int
    switches: int
    n_wakings: int
    blocked_ns: int
    open_at_end: int
    open_at_end_ns: int
    in_at_start: int
    unpaired_out: int
    unpaired_in: int
    paired: int
    chainless: int
    stacks: int                 # distinct stacks (ids OFFCPU_STACK_BASE ... + stacks - 1)
    first_ts_ns: int | None
    last_ts_ns: int | None
    skipped: dict[str, int]     # other events, in order of first sight


def state_frame(state: str) -> str:
    """The frame under the task name that says how it left the CPU: '[state D]'. R and R+ (the
    task was preempted, still runnable) are both '[state R]'."""
    return f"[state {'R' if state in ('R', 'R+') else state}]"


def _comm_frame(comm: str) -> str:
    # as folded stacks name a task (inferno): spaces become '_', ';' would split the frame
    return comm.replace(" ", "_").replace(";", ":") or "[unnamed]"


@dataclass
class OffcpuRun:
    """What one run's recording makes: rows per table and the counts of offcpu_runs."""

    stacks: dict[str, int] = field(default_factory=dict)   # folded stack -> stack id
    intervals: list[tuple[Any, ...]] = field(default_factory=list)
    wakings: list[tuple[Any, ...]] = field(default_factory=list)
    samples: list[tuple[Any, ...]] = field(default_factory=list)
    switches: int = 0
    n_wakings: int = 0
    blocked_ns: int = 0
    open_at_end: int = 0
    open_at_end_ns: int = 0
    in_at_start: int = 0
    unpaired_out: int = 0   # a switch-out replaced by the thread's next switch-out
    unpaired_in: int = 0    # a switch-in of a seen thread with no switch-out pending
    paired: int = 0
    chainless: int = 0
    first_ts_ns: int | None = None
    last_ts_ns: int | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    lines: int = 0

    def stack_id(self, folded: str) -> int:
        sid = self.stacks.get(folded)
        if sid is None:
            sid = self.stacks[folded] = OFFCPU_STACK_BASE + len(self.stacks)
        return sid

    def counts(self) -> OffcpuPass:
        return OffcpuPass(self.lines, self.switches, self.n_wakings, self.blocked_ns, self.open_at_end,
                          self.open_at_end_ns, self.in_at_start, self.unpaired_out, self.unpaired_in, self.paired,
                          self.chainless, len(self.stacks), self.first_ts_ns, self.last_ts_ns, dict(self.skipped))


def read_offcpu(lines, source: str, cid: str, run_id: str) -> OffcpuRun:
    """Pair switch-outs with switch-ins and name every stack (see the module docstring)."""
    reader = OffcpuReader(source)
    out = OffcpuRun()
    pending: dict[int, tuple] = {}   # tid -> (t_out, cpu_out, pid, comm, state, stack_id)
    woken: dict[int, tuple] = {}     # tid -> (waker_tid, waker_comm) of the first waking since its switch-out
    seen: set[int] = set()
    for ev in reader.events(lines):
        if type(ev) is OffcpuSwitch:
            out.switches += 1
            t = ev.ts_ns
            prev, nxt = ev.prev_pid, ev.next_pid
            if prev != 0:
                if prev in pending:
                    out.unpaired_out += 1
                seen.add(prev)
                root = f"{_comm_frame(ev.prev_comm)};{state_frame(ev.prev_state)}"
                sid = out.stack_id(f"{root};{ev.frames}" if ev.frames else root)
                pending[prev] = (t, ev.cpu, ev.pid, ev.prev_comm, ev.prev_state, sid)
                woken.pop(prev, None)
            if nxt != 0:
                p = pending.pop(nxt, None)
                if p is not None:
                    t_out, cpu_out, pid, comm, state, sid = p
                    w = woken.pop(nxt, None)
                    blocked = t - t_out
                    out.intervals.append((cid, run_id, nxt, pid, comm, "", state, cpu_out, t_out, ev.cpu, t,
                                          blocked, sid, None if w is None else w[0], None if w is None else w[1],
                                          None))
                    out.samples.append((cid, run_id, t_out, cpu_out, pid, nxt, comm, sid, blocked, OFFCPU_EVENT))
                    out.blocked_ns += blocked
                    out.paired += 1
                elif nxt in seen:
                    out.unpaired_in += 1
                else:
                    out.in_at_start += 1
                seen.add(nxt)
        else:
            out.n_wakings += 1
            wakee = ev.pid
            if wakee in pending and wakee not in woken:
                woken[wakee] = (ev.waker_tid, ev.waker_comm)
            folded = ";".join(x for x in (_comm_frame(ev.waker_comm), ev.frames, f"[wakes {_comm_frame(ev.comm)}]") if x)
            sid = out.stack_id(folded)
            out.wakings.append((cid, run_id, ev.ts_ns, ev.cpu, ev.waker_tid, ev.waker_pid, ev.waker_comm, "",
                                wakee, ev.comm, "", ev.target_cpu, sid))
            out.samples.append((cid, run_id, ev.ts_ns, ev.cpu, ev.waker_pid, ev.waker_tid, ev.waker_comm, sid, 1,
                                WAKEUP_EVENT))
    out.first_ts_ns, out.last_ts_ns = reader.first_ts_ns, reader.last_ts_ns
    out.chainless = reader.chainless
    out.skipped = dict(reader.skipped)
    out.lines = reader.lines
    end = out.last_ts_ns or 0
    out.open_at_end = len(pending)
    out.open_at_end_ns = sum(end - p[0] for p in pending.values())
    return out


def _q(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def _n(v: int | None) -> str:
    return "" if v is None else str(v)


def write_offcpu_csv(run: OffcpuRun, files: OffcpuFiles) -> None:
    """The reference's rows as the four CSV files (the layout the native pass writes)."""
    with files.intervals.open("w", encoding="utf-8", newline="") as f:
        f.writelines(f"{r[2]},{_n(r[3])},{_q(r[4])},{_q(r[6])},{r[7]},{r[8]},{r[9]},{r[10]},{r[11]},{r[12]},"
                     f"{_n(r[13])},{'' if r[14] is None else _q(r[14])}\n" for r in run.intervals)
    with files.wakings.open("w", encoding="utf-8", newline="") as f:
        f.writelines(f"{r[2]},{r[3]},{r[4]},{_n(r[5])},{_q(r[6])},{r[8]},{_q(r[9])},{_n(r[11])},{r[12]}\n"
                     for r in run.wakings)
    with files.stacks.open("w", encoding="utf-8", newline="") as f:
        f.writelines(f"{sid},{_q(folded)}\n" for folded, sid in run.stacks.items())
    with files.samples.open("w", encoding="utf-8", newline="") as f:
        f.writelines(f"{r[2]},{r[3]},{_n(r[4])},{r[5]},{_q(r[6])},{r[7]},{r[8]},{_q(r[9])}\n" for r in run.samples)


class Fallback(Exception):
    """The native pass cannot read this input as the reference does (the reason is the message)."""


def native_available() -> bool:
    return _native is not None and hasattr(_native, "offcpu_csv")


def native_enabled() -> bool:
    """Ingest uses the native pass: available, and not turned off with IOLENS_OFFCPU_NATIVE=0."""
    return native_available() and os.environ.get(NATIVE_ENV, "1").strip() not in ("0", "false", "no", "off")


def native_pass(member: Path | bytes, source: str, files: OffcpuFiles, *, chunk_bytes: int = 0) -> OffcpuPass:
    """`iolens_native.offcpu_csv` on `member` (a path, gzip detected, or the text as bytes). Raises
    FormatError as the reference does (`source` names the file), Fallback, OSError."""
    if not native_available():
        raise Fallback("iolens_native.offcpu_csv is not available")
    src = member if isinstance(member, bytes) else os.fspath(member)
    d = _native.offcpu_csv(src, *(os.fspath(p) for p in files), stack_base=OFFCPU_STACK_BASE,
                           chunk_bytes=chunk_bytes)
    if "fallback" in d:
        raise Fallback(d["fallback"])
    if "error" in d:
        raise line_error(source, *d["error"])
    return OffcpuPass(d["lines"], d["switches"], d["wakings"], d["blocked_ns"], d["open_at_end"], d["open_at_end_ns"],
                      d["in_at_start"], d["unpaired_out"], d["unpaired_in"], d["paired"], d["chainless"], d["stacks"],
                      d["first_ts_ns"], d["last_ts_ns"], dict(d["skipped"]))


def offcpu_pass(member: Path, source: str, files: OffcpuFiles, *, native: bool | None = None) -> OffcpuPass:
    """One perf-offcpu file -> the four CSV files and the counters: native unless turned off or
    answered with Fallback, else the reference."""
    if native is None:
        native = native_enabled()
    if native:
        try:
            return native_pass(member, source, files)
        except Fallback:
            pass
    with open_member(member, source) as f:  # a damaged gzip stream: FormatError (formats/gz.py)
        run = read_offcpu(f, source, "", "")
    write_offcpu_csv(run, files)
    return run.counts()


def checks(run: OffcpuRun | OffcpuPass, counted: dict[str, int | None] | None, stat_path: str | None) -> list[tuple]:
    """(name, event, recorded, expected, ratio, ok, detail) by the one lost-events rule."""
    rows: list[tuple] = []
    recorded = {"sched:sched_switch": run.switches, "sched:sched_waking": run.n_wakings}
    for event in EVENTS:
        n = recorded[event]
        c = None if counted is None else counted.get(event)
        if c is None:
            why = "no perf-stat-offcpu artifact in this run" if counted is None else f"perf stat did not count {event}"
            rows.append(("recorded_vs_counted", event, n, None, None, None, f"{event}: recorded {n}; not checked ({why})"))
            continue
        ratio = n / c if c else None
        ok = not recorded_short(n, c)
        detail = f"{event}: recorded {n} of {c} counted by perf stat" + (f" ({ratio:.1%})" if ratio is not None else "") \
            + f" in {stat_path}"
        if not ok:
            detail += f"; below {LOSS_THRESHOLD:.0%}: perf record lost events, the off-CPU times of this run are not all there"
        rows.append(("recorded_vs_counted", event, n, c, ratio, ok, detail))
    expected = run.paired + run.unpaired_in + run.unpaired_out
    if expected:
        ratio = run.paired / expected
        ok = not recorded_short(run.paired, expected)
        detail = (f"{run.paired} of {expected} switch-ins of threads already seen follow their own switch-out "
                  f"({ratio:.1%}; {run.unpaired_out} switch-outs without a switch-in, {run.unpaired_in} switch-ins "
                  "without a switch-out)")
        if not ok:
            detail += "; sched_switch events were lost"
        rows.append(("pairing", "sched:sched_switch", run.paired, expected, ratio, ok, detail))
    return rows


def _counted(bundle: OpenBundle, run_id: str) -> tuple[dict[str, int | None] | None, str | None]:
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    arts = [a for a in run.artifacts if a.kind == STAT_KIND]
    if not arts:
        return None, None
    art = arts[0]
    with open_member(bundle.path(art.path), art.path) as f:
        counts = parse_perf_stat_csv(f.read(), art.path).counts
    return counts, art.path


def offcpu_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """perf-offcpu -> offcpu_* tables and the 'offcpu' / 'wakeup' events of perf_stacks / perf_samples."""
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError(f"{KIND} artifact must belong to a run", where, 422)
    if any(r[1] == run_id for r in out.rows.get("offcpu_runs", [])):
        raise BundleError(f"run {run_id} has more than one {KIND} artifact", where, 422)
    cid = bundle.capture_id
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-offcpu-", dir=bundle.root))
    files = OffcpuFiles.in_dir(tmp)
    run = offcpu_pass(bundle.path(art.path), art.path, files)
    counted, stat_path = _counted(bundle, run_id)
    check_rows = checks(run, counted, stat_path)
    warnings = [c[6] for c in check_rows if c[5] is False]
    if run.switches == 0:
        out.warnings.append(f"{art.path}: no sched_switch events (is it perf script of `perf record -g -e "
                            "sched:sched_switch -e sched:sched_waking`?)")
    elif run.chainless == run.switches + run.n_wakings:
        out.warnings.append(f"{art.path}: events without call chains (recorded without -g?): only tasks and states")
    if run.skipped:
        out.warnings.append(f"{art.path}: other events skipped: "
                            + ", ".join(f"{k} ({v})" for k, v in sorted(run.skipped.items())))
    for w in warnings:
        out.warnings.append(f"{art.path}: {w}")
    out.add("offcpu_runs", [(cid, run_id, art.path, run.first_ts_ns, run.last_ts_ns, run.switches, run.n_wakings,
                             run.paired, run.blocked_ns, run.open_at_end, run.open_at_end_ns, run.in_at_start,
                             run.unpaired_in + run.unpaired_out, run.chainless,
                             workload_comm(bundle.manifest, next(r for r in bundle.manifest.runs if r.id == run_id)),
                             bool(warnings),
                             json.dumps(warnings))])
    out.add("offcpu_checks", [(cid, run_id, *c[:4], c[4], LOSS_THRESHOLD, c[5], c[6]) for c in check_rows])
    const = (("capture_id", cid), ("run_id", run_id))
    out.bulk.append(BulkCsv("offcpu_intervals", files.intervals, INTERVAL_CSV,
                            (*const, ("grp", ""), ("waker_grp", None))))
    out.bulk.append(BulkCsv("offcpu_wakings", files.wakings, WAKING_CSV,
                            (*const, ("waker_grp", ""), ("wakee_grp", ""))))
    # perf_stacks / perf_samples are loaded in the transaction's derive steps, not as bulk files
    # of `out`, so that the perf-script and folded-stacks handlers' one-artifact-per-run checks
    # on those tables see only their own kinds.
    out.derive.append(partial(_load_stacks, files, const))
    if not any(step is _derive_groups for step in out.derive):
        out.derive.append(_derive_groups)


def _load_stacks(files: OffcpuFiles, const: tuple[tuple[str, Any], ...], w: Writer) -> None:
    w.insert_csv("perf_stacks", files.stacks, STACK_CSV, const)
    w.insert_csv("perf_samples", files.samples, SAMPLE_CSV, const)


def _derive_groups(w: Writer) -> None:
    """Task groups by the sched views' one rule (ingest/sched.py task_group_sql)."""
    w.execute(f"UPDATE offcpu_intervals SET grp = {task_group_sql('comm', 'tid')}, "
              f"waker_grp = CASE WHEN waker_tid IS NULL THEN NULL ELSE {task_group_sql('waker_comm', 'waker_tid')} END "
              "WHERE grp = ''")
    w.execute(f"UPDATE offcpu_wakings SET waker_grp = {task_group_sql('waker_comm', 'waker_tid')}, "
              f"wakee_grp = {task_group_sql('wakee_comm', 'wakee_tid')} WHERE wakee_grp = ''")


def perf_stat_offcpu_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """perf-stat-offcpu: checked here (it must parse); compared by offcpu_artifact."""
    if run_id is None:
        raise BundleError(f"{STAT_KIND} artifact must belong to a run", {"file": art.path, "field": "kind"}, 422)
    with open_member(bundle.path(art.path), art.path) as f:
        parse_perf_stat_csv(f.read(), art.path)
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    if not any(a.kind == KIND for a in run.artifacts):
        out.warnings.append(f"{art.path}: off-CPU events were counted but not recorded in run {run_id}")
