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
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats.perf_offcpu import OffcpuReader, OffcpuSwitch
from ..formats.perf_stat import parse_perf_stat_csv
from ..store.derived import OFFCPU_EVENT, OFFCPU_STACK_BASE, WAKEUP_EVENT
from ..store.rules.lost_events import LOSS_THRESHOLD, recorded_short
from .parsed import Parsed
from .sched import open_member, task_group_sql, workload_comm

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
STACK_COLUMNS = ("capture_id", "run_id", "stack_id", "folded_stack")
SAMPLE_COLUMNS = ("capture_id", "run_id", "ts_ns", "cpu", "pid", "tid", "comm", "stack_id", "weight", "event")
TABLE_COLUMNS = {"offcpu_runs": RUN_COLUMNS, "offcpu_checks": CHECK_COLUMNS, "offcpu_intervals": INTERVAL_COLUMNS,
                 "offcpu_wakings": WAKING_COLUMNS}


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

    def stack_id(self, folded: str) -> int:
        sid = self.stacks.get(folded)
        if sid is None:
            sid = self.stacks[folded] = OFFCPU_STACK_BASE + len(self.stacks)
        return sid


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
    end = out.last_ts_ns or 0
    out.open_at_end = len(pending)
    out.open_at_end_ns = sum(end - p[0] for p in pending.values())
    return out


def checks(run: OffcpuRun, counted: dict[str, int | None] | None, stat_path: str | None) -> list[tuple]:
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
    with open_member(bundle.path(art.path)) as f:
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
    with open_member(bundle.path(art.path)) as f:
        run = read_offcpu(f, art.path, cid, run_id)
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
    out.add("offcpu_intervals", run.intervals)
    out.add("offcpu_wakings", run.wakings)
    # perf_stacks / perf_samples are written in the transaction's derive steps, not as rows of
    # `out`, so that the perf-script and folded-stacks handlers' one-artifact-per-run checks on
    # those tables see only their own kinds.
    out.derive.append(partial(_write_stacks, [(cid, run_id, sid, folded) for folded, sid in run.stacks.items()],
                              run.samples))
    if not any(step is _derive_groups for step in out.derive):
        out.derive.append(_derive_groups)


def _write_stacks(stacks: list[tuple[Any, ...]], samples: list[tuple[Any, ...]], w: Writer) -> None:
    w.insert("perf_stacks", STACK_COLUMNS, stacks)
    w.insert("perf_samples", SAMPLE_COLUMNS, samples)


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
    with open_member(bundle.path(art.path)) as f:
        parse_perf_stat_csv(f.read(), art.path)
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    if not any(a.kind == KIND for a in run.artifacts):
        out.warnings.append(f"{art.path}: off-CPU events were counted but not recorded in run {run_id}")
