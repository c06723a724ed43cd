"""Scheduler views (issue 4): context switches per CPU over time, per task and task pair,
ping-pong pairs, wakeup-to-run delays, run time per task, and two captures side by side.

Rows come from the tables ingest fills from `perf-sched` and `perf-stat` artifacts
(iolens/ingest/sched.py, store/schema/sched.sql): raw events (sched_switch, sched_wakeup,
sched_migrate, perf_stat) and what was derived from them once at ingest (sched_slices,
sched_delays, sched_cpu_rate, sched_traces, sched_checks). No view runs a window function over the
event tables: each is a filtered scan and a group-by (DESIGN "Facts measured").

Every answer names its capture and runs and carries each run's checks: a run whose trace lost
events (recorded vs counted by perf stat, and the trace's own consistency) has events_lost set and
a warning, in every view.

Conventions: times in ns except `t_s` (seconds since the run's first sched event; perf stat's
counted series are moved there from their own start, see stat_alignment); rates per second of the run's trace duration. Task groups
(`group`): '<idle>', 'kworker/*', per-CPU kernel threads as 'name/*', else the comm. CPUs
(`cpus`): 'all', 'workload' (the CPUs the workload was pinned to; all CPUs when unknown, with a
warning), or a list '1,3-4'.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from .. import models
from ..formats.cpulist import parse_cpu_list
from ..store.db import Store
from ..store.derived import BUCKET_NS, MAX_WINDOW_US
from ..store.rules.bin_percentile import nearest_rank_sql
from ..store.rules.lost_events import LOSS_THRESHOLD
from ..store.rules.run_span import run_span
from . import sched_range
from . import timeline as timeline_view
from .sched_range import Clock, Span

GroupBy = Literal["task", "group"]
DelayReason = Literal["all", "woken", "preempted"]
DEFAULT_LIMIT = 50
MAX_LIMIT = 5000
DEFAULT_WINDOW_US = 1000


class UnknownCapture(LookupError):
    def __init__(self, missing: list[str]) -> None:
        super().__init__(f"no capture with id {', '.join(missing)}")
        self.missing = missing


class NoSchedData(LookupError):
    """The capture exists but has no perf-sched artifact (or not for the run asked)."""


class BadQuery(ValueError):
    """A parameter that cannot be used (an unknown run, a bad CPU list...): HTTP 422."""


# --------------------------------------------------------------------------------------------
# Context: the runs an answer covers, their checks and CPU selections


@dataclass
class RunCtx:
    info: models.SchedRun
    duration_s: float   # the trace's, or under a range the part of it the range covers: rates divide by it
    first_ts_ns: int
    cpus: list[int]
    workload_cpus: list[int] | None
    duration_ns: int = 0  # the whole trace's
    span: Span | None = None  # the range counted in this run, ns since its trace's first event


@dataclass
class Ctx:
    capture_id: str
    label: str
    runs: list[RunCtx]
    warnings: list[str]
    # the time range asked for (views/sched_range.py) on `clock`, and its bounds per run on the perf
    # clock (None: whole runs, the summaries answer); each run's own part is RunCtx.span
    span: Span | None = None
    bounds: list[sched_range.RunBounds] | None = None
    clock: Clock = "trace"

    def base(self) -> dict[str, Any]:
        return {
            "capture_id": self.capture_id,
            "label": self.label,
            "runs": [r.info for r in self.runs],
            "events_lost": any(r.info.events_lost for r in self.runs),
            "warnings": self.warnings,
            "from_ns": self.span[0] if self.span else None,
            "to_ns": self.span[1] if self.span else None,
            "clock": self.clock,
        }

    def sql(self, text: str) -> str:
        """A view's SQL over this context's range (the summary tables computed for it), if any."""
        return sched_range.spanned(text, self.bounds)

    def run_ids(self) -> list[str]:
        return [r.info.id for r in self.runs]


# One row per run with a scheduler trace. Columns: sched_traces' own (see store/schema/sched.sql), and the
# run's repeat index and sweep parameters from runs.
_RUNS_SQL = """
SELECT t.run_id, r.repeat, r.run_index, r.params, t.path, t.n_switch, t.n_wakeup, t.n_waking, t.n_wakeup_new,
       t.n_migrate, t.first_ts_ns, t.duration_ns, t.cpus, t.workload_cpus, t.workload_cpus_source,
       t.workload_comm, t.events_lost, t.warnings
FROM sched_traces t JOIN runs r USING (capture_id, run_id)
WHERE t.capture_id = $cid
ORDER BY r.run_index
"""
# The checks of those runs (store/schema/sched.sql: sched_checks).
_CHECKS_SQL = """
SELECT run_id, name, event, recorded, expected, ratio, threshold, ok, detail
FROM sched_checks WHERE capture_id = $cid ORDER BY run_id, name, event
"""


def context(store: Store, capture_id: str, run: str | None = None, span: Span | None = None,
            clock: Clock = "trace") -> Ctx:
    """The runs of a capture with a trace (`run`: some of them), and the time range `span` they are
    counted over (None: whole runs): on clock 'trace' ns since each run's first event; on clock 'run'
    ns since each run's start (the timeline's selection), each run's part moved to its trace's time 0
    by its own offset (store/rules/run_span.py)."""
    if (why := sched_range.check(span, clock)) is not None:
        raise BadQuery(why)
    label = store.query("SELECT label FROM captures WHERE capture_id = ?", [capture_id]).scalar()
    if label is None:
        raise UnknownCapture([capture_id])
    rows = store.query(_RUNS_SQL, {"cid": capture_id}).dicts()
    if not rows:
        raise NoSchedData(f"capture {capture_id} ({label}) has no scheduler trace (no perf-sched artifact)")
    if run is not None:
        wanted = [x for x in (p.strip() for p in run.split(",")) if x]
        known = {r["run_id"] for r in rows}
        unknown = [x for x in wanted if x not in known]
        if unknown:
            raise BadQuery(f"run {', '.join(unknown)}: no scheduler trace in capture {capture_id} "
                           f"(runs with one: {', '.join(sorted(known))})")
        rows = [r for r in rows if r["run_id"] in wanted]
    checks: dict[str, list[models.SchedCheck]] = {}
    for c in store.query(_CHECKS_SQL, {"cid": capture_id}).dicts():
        checks.setdefault(c.pop("run_id"), []).append(models.SchedCheck(**c))
    # each run's trace starts sched_offset_ns after the run's start (its clock reading; the timeline's
    # rule). Every answer carries it (SchedRun.offset_ns: the cell moves the notebook's selection onto
    # each run's trace by it), so it is read on every call: the timeline caches the runs' axes per
    # capture until the capture is ingested again (views/timeline.py _axes), a call costs one lookup.
    offsets = {r.id: r.sched_offset_ns for r in timeline_view.overview(store, capture_id).runs}
    runs: list[RunCtx] = []
    warnings: list[str] = []
    for r in rows:
        own: Span | None = span
        if span is not None and clock == "run":
            # the selection is on the run's clock: this run's part of it, on its trace's clock
            own = run_span(span[0], span[1], offsets.get(r["run_id"]) or 0)
        run_warnings = json.loads(r["warnings"])
        warnings.extend(run_warnings)
        duration_s = (r["duration_ns"] or 0) / 1e9
        info = models.SchedRun(
            id=r["run_id"], repeat=r["repeat"], params=json.loads(r["params"]), artifact=r["path"],
            duration_s=duration_s, first_ts_ns=r["first_ts_ns"],
            offset_ns=offsets.get(r["run_id"]), from_ns=own[0] if own else None, to_ns=own[1] if own else None,
            events={"switch": r["n_switch"], "wakeup": r["n_wakeup"], "waking": r["n_waking"],
                    "wakeup_new": r["n_wakeup_new"], "migrate": r["n_migrate"]},
            cpus=list(r["cpus"]), workload_cpus=list(r["workload_cpus"]) if r["workload_cpus"] else [],
            workload_cpus_source=r["workload_cpus_source"], workload_comm=r["workload_comm"],
            events_lost=r["events_lost"], checks=checks.get(r["run_id"], []), warnings=run_warnings,
        )
        runs.append(RunCtx(info, sched_range.covered_ns(r["duration_ns"] or 0, own) / 1e9, r["first_ts_ns"],
                           list(r["cpus"]), list(r["workload_cpus"]) if r["workload_cpus"] else None,
                           r["duration_ns"] or 0, own))
    b = sched_range.bounds([(r.info.id, r.first_ts_ns, r.duration_ns, r.span) for r in runs])
    return Ctx(capture_id, label, runs, warnings, span, b, clock)


def select_cpus(ctx: Ctx, cpus: str) -> tuple[list[str], list[int]]:
    """The (run_id, cpu) pairs a `cpus` parameter selects, as two parallel lists for SQL
    (`sel` below); adds a warning to ctx when 'workload' falls back to all CPUs."""
    runs: list[str] = []
    out: list[int] = []
    explicit: list[int] | None = None
    if cpus not in ("all", "workload"):
        try:
            explicit = parse_cpu_list(cpus)
        except ValueError as exc:
            raise BadQuery(f"cpus: expected 'all', 'workload' or a list like '1,3-4', not {cpus!r}") from exc
        if not explicit:
            raise BadQuery("cpus: the list is empty")
    for r in ctx.runs:
        if explicit is not None:
            chosen = [c for c in explicit if c in r.cpus]
        elif cpus == "workload" and r.workload_cpus:
            chosen = r.workload_cpus
        else:
            chosen = r.cpus
            if cpus == "workload":
                ctx.warnings.append(f"run {r.info.id}: the workload's CPUs are not known (no runs[].params.cpus "
                                    "or workload.cpus in the manifest): all CPUs are shown")
        runs.extend([r.info.id] * len(chosen))
        out.extend(chosen)
    return runs, out


# --------------------------------------------------------------------------------------------
# The pieces every view's SQL is built from, and the query and row helpers they share

# The selected (run_id, cpu) pairs, from two parallel list parameters.
_SEL = "sel AS (SELECT unnest($sel_runs::VARCHAR[]) AS run_id, unnest($sel_cpus::INTEGER[]) AS cpu)"


def _on_sel(table: str, where: str | None = None) -> str:
    """SELECT text: the rows of `table` (a derived table with run_id and cpu) in capture $cid on the
    selected (run_id, cpu) pairs of `sel`, and matching `where` when given."""
    return (f"SELECT s.* FROM {table} s SEMI JOIN sel ON s.run_id = sel.run_id AND s.cpu = sel.cpu "
            f"WHERE s.capture_id = $cid{f' AND {where}' if where else ''}")


# The derived tables carry each task's pid, comm and group. `group_by='group'` keys rows on the
# group alone; its pid is -1 in SQL (so that keys join without NULLs) and null in the answer.
def _keys(group_by: GroupBy, pid: str, comm: str, grp: str) -> tuple[str, str]:
    """SQL for the (pid, name) key of a task, or of its group."""
    if group_by == "group":
        return "-1", grp
    return pid, comm


def _task_cols(group_by: GroupBy, side: Literal["", "prev_", "next_"], out: str = "") -> str:
    """SELECT items: the key of the task on `side` of a row ('': the row's own task), named
    {out}pid, {out}name, {out}grp."""
    pid, name = _keys(group_by, f"{side}pid", f"{side}comm", f"{side}grp")
    return f"{pid} AS {out}pid, {name} AS {out}name, {side}grp AS {out}grp"


# Of the switches in sched_pair_counts rows: those where the task leaving was preempted (R/R+;
# idle, pid 0, never is).
_INVOLUNTARY = "sum(switches) FILTER (WHERE prev_pid <> 0 AND prev_state LIKE 'R%')"


def _limit(limit: int) -> int:
    if limit < 1 or limit > MAX_LIMIT:
        raise BadQuery(f"limit: between 1 and {MAX_LIMIT}")
    return limit


def _query_sel(store: Store, ctx: Ctx, cpus: str, sql: str, limit: int,
               **params: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of a view's `sql` over the CPUs that `cpus` selects in ctx's runs (parameters cid,
    sel_runs, sel_cpus, limit and `params`), and the run of each selected CPU."""
    sel_runs, sel_cpus = select_cpus(ctx, cpus)
    rows = store.query(ctx.sql(sql), {"cid": ctx.capture_id, "sel_runs": sel_runs, "sel_cpus": sel_cpus, **params,
                                      "limit": _limit(limit)}).dicts()
    return rows, sel_runs


def _task(r: dict[str, Any], workload_comms: dict[str, str | None], prefix: str = "") -> models.SchedTask:
    """The task (or group: pid -1 in SQL, null here) of a row's {prefix}pid, {prefix}name and
    {prefix}grp columns; a workload task when its name or group is the run's workload comm."""
    pid, comm, group = r[f"{prefix}pid"], r[f"{prefix}name"], r[f"{prefix}grp"]
    workload_comm = workload_comms[r["run_id"]]
    return models.SchedTask(pid=None if pid == -1 else pid, comm=comm, group=group,
                            workload=workload_comm is not None and (comm == workload_comm or group == workload_comm))


def _workload_comms(ctx: Ctx) -> dict[str, str | None]:
    return {r.info.id: r.info.workload_comm for r in ctx.runs}


def _duration(ctx: Ctx) -> dict[str, float]:
    return {r.info.id: r.duration_s for r in ctx.runs}


def _per_s(n: float | None, seconds: float) -> float | None:
    return None if n is None or seconds <= 0 else n / seconds


# --------------------------------------------------------------------------------------------
# Context switches per second over time, per CPU

# Per run, CPU and interval of $k buckets of 100 ms (from sched_cpu_rate). Output columns:
#   run_id, cpu
#   b            interval index: t = b x step from the run's first event
#   switches     sched_switch events in the interval
#   involuntary  of which the task leaving was preempted (R/R+)
#   voluntary    of which it blocked or exited
#   from_idle    of which the CPU left idle
#   wakeups      wakeups targeted at the CPU
#   migrations   tasks migrated to the CPU
_RATE_SQL = f"""
WITH {_SEL}, c AS ({_on_sel("sched_cpu_rate")})
SELECT c.run_id, c.cpu, c.bucket // $k AS b, sum(c.switches) AS switches, sum(c.involuntary) AS involuntary,
       sum(c.voluntary) AS voluntary, sum(c.from_idle) AS from_idle, sum(c.wakeups) AS wakeups,
       sum(c.migrations) AS migrations
FROM c
GROUP BY ALL ORDER BY c.run_id, c.cpu, b
"""
# perf stat's intervals of the same runs (perf_stat rows with -I), one row per series. Output columns:
#   run_id, path, scope, cpu (NULL when not per CPU), aggr, event
#   cpu_time   the unit is msec (task-clock): values are CPUs, else counts per second
#   t_s        interval ends, s since perf stat started
#   vals       per interval: value / length (/ 1000 for msec); NULL when not counted
_COUNTED_SQL = """
SELECT run_id, path, scope, cpu, aggr, event, any_value(unit) = 'msec' AS cpu_time,
       list(end_s ORDER BY end_s) AS t_s,
       list(CASE WHEN end_s > start_s THEN value / (end_s - start_s) / (CASE WHEN unit = 'msec' THEN 1000 ELSE 1 END)
            END ORDER BY end_s) AS vals
FROM perf_stat
WHERE capture_id = $cid AND list_contains($runs, run_id) AND end_s IS NOT NULL AND NOT summary
  AND list_contains($events, event)
GROUP BY ALL ORDER BY run_id, path, event, cpu, aggr
"""
COUNTED_EVENTS = ("context-switches", "cpu-migrations", "task-clock", "sched:sched_switch", "sched:sched_waking")
# Where each perf-stat artifact's time 0 is (store/schema/sched.sql: perf_stat_files), with its run's start.
# utc_offset: the host's local time minus UTC (s), which the collector records (host.clock.utc_offset_s),
# NULL when the bundle has none
_STAT_FILES_SQL = """
SELECT f.run_id, f.path, f.clock_at_start_ns, f.started_on, r.started_at,
       (SELECT TRY_CAST(value AS INTEGER) FROM host_facts h
        WHERE h.capture_id = f.capture_id AND h.key = 'clock.utc_offset_s') AS utc_offset
FROM perf_stat_files f LEFT JOIN runs r USING (capture_id, run_id)
WHERE f.capture_id = $cid
"""
# perf stat's "# started on" is ctime(3): "Wed Nov 25 17:07:27 2026" (day padded with a space)
_CTIME = "%a %b %d %H:%M:%S %Y"
# a perf stat started this long before its run (the lab's emulated CPUs: ~12 s) is still believed
_WALL_MAX_LEAD_S = 600.0


@dataclass(frozen=True)
class StatAlignment:
    offset_s: float  # perf stat's time 0 on the trace's axis (s since the run's first sched event)
    alignment: Literal["clock", "wall", "unknown"]
    note: str
    wall_zone: Literal["host", "utc"] | None = None  # how '# started on' was read (None: not used)


def _zone(offset_s: int) -> str:
    """3600 -> 'UTC+01:00', -16200 -> 'UTC-04:30'."""
    m = abs(offset_s) // 60
    return f"UTC{'-' if offset_s < 0 else '+'}{m // 60:02d}:{m % 60:02d}"


def stat_alignment(first_ts_ns: int, run_t0_ns: int | None, clock_at_start_ns: int | None,
                   started_on: str | None, run_started_at: datetime | None,
                   utc_offset_s: int | None = None) -> StatAlignment:
    """Where perf stat's time 0 falls on the trace's time axis. perf stat counts its interval times
    from its own start, which is not the trace's (it starts first; seconds earlier on a slow host):
    - 'clock': the collector recorded that start on the trace's clock (stat_clock_at_start_ns);
    - 'wall': bundles without it, from wall-clock times: perf's "# started on" header (whole seconds,
      written before its counters were open; the host's local time, put on UTC by the host's
      utc_offset_s when the collector recorded it, else read as UTC) against the run's started_at, whose
      reading on the trace's clock is the run's start (run_t0_ns: its trace_clock_at_start_ns). Believed only
      when it puts perf stat's start 0-600 s before the run;
    - 'unknown': neither: drawn from the trace's first event, as if both had started together."""
    if clock_at_start_ns is not None:
        return StatAlignment((clock_at_start_ns - first_ts_ns) / 1e9, "clock",
                             "perf stat's intervals placed by its start on the trace's clock (recorded by the collector)")
    if started_on and run_started_at is not None and run_t0_ns is not None:
        try:
            wall = datetime.strptime(started_on, _CTIME) - timedelta(seconds=utc_offset_s or 0)
        except ValueError:
            wall = None
        zone_kind: Literal["host", "utc"] = "host" if utc_offset_s is not None else "utc"
        zone = (f"the host's local time, {_zone(utc_offset_s)} as the collector recorded" if utc_offset_s is not None
                else "read as UTC: the bundle does not record the host's UTC offset")
        if wall is not None:
            started = run_started_at.replace(tzinfo=None) if run_started_at.tzinfo is None else \
                run_started_at.astimezone(UTC).replace(tzinfo=None)
            lead = (started - wall).total_seconds()  # the run started lead - 1 to lead s after perf stat
            if -1.0 < lead <= _WALL_MAX_LEAD_S:
                zero_ns = run_t0_ns - (lead - 0.5) * 1e9
                return StatAlignment(
                    (zero_ns - first_ts_ns) / 1e9, "wall", wall_zone=zone_kind,
                    note=f"perf stat's start on the trace's clock was not recorded: its intervals are placed by wall-clock "
                    f"times, perf's own '# started on {started_on}' (whole seconds, {zone}) {max(lead, 0.0):.1f} s "
                    f"before the run's start: to a second at best, and perf counts from after it opened its counters "
                    f"(seconds later on a slow host), so they may stand too early")
    # the header was there and compared with the run's start (and did not fit)
    compared = bool(started_on) and run_t0_ns is not None and run_started_at is not None
    why = ("no '# started on' header" if not started_on
           else "the run has no start time on the trace's clock" if not compared
           else f"its '# started on {started_on}' does not fit the run's start"
           + ("" if utc_offset_s is not None else " (read as UTC: the bundle does not record the host's UTC offset)"))
    return StatAlignment(0.0, "unknown",
                         f"perf stat's start on the trace's clock is unknown (not recorded, {why}): its intervals are "
                         "drawn as if it started with the trace's first event; they may be shifted by seconds",
                         wall_zone=("host" if utc_offset_s is not None else "utc") if compared else None)


def switch_rate(store: Store, capture_id: str, run: str | None = None, cpus: str = "all",
                step_ms: int = 1000) -> models.SchedSwitchRate:
    if step_ms < 100 or step_ms % (BUCKET_NS // 1_000_000):
        raise BadQuery(f"step_ms: a multiple of {BUCKET_NS // 1_000_000} (at least that)")
    ctx = context(store, capture_id, run)
    sel_runs, sel_cpus = select_cpus(ctx, cpus)
    k = step_ms * 1_000_000 // BUCKET_NS
    step_s = step_ms / 1000
    rows = store.query(_RATE_SQL, {"cid": capture_id, "sel_runs": sel_runs, "sel_cpus": sel_cpus, "k": k}).rows
    by_key: dict[tuple[str, int], dict[int, tuple[Any, ...]]] = {}
    for run_id, cpu, b, *vals in rows:
        by_key.setdefault((run_id, cpu), {})[b] = tuple(vals)
    series: list[models.SchedSwitchSeries] = []
    for r in ctx.runs:
        n = max(1, math.ceil(r.duration_s / step_s)) if r.duration_s > 0 else 1
        workload = set(r.workload_cpus or [])
        for cpu in [c for rid, c in zip(sel_runs, sel_cpus) if rid == r.info.id]:
            got = by_key.get((r.info.id, cpu), {})
            cols: list[list[float]] = [[] for _ in range(6)]
            t_s = []
            for b in range(max(n, max(got) + 1 if got else 0)):
                covered = min(step_s, r.duration_s - b * step_s) if r.duration_s > 0 else step_s
                covered = covered if covered > 0 else step_s
                t_s.append(b * step_s)
                vals = got.get(b, (0,) * 6)
                for col, v in zip(cols, vals):
                    col.append(v / covered)
            series.append(models.SchedSwitchSeries(
                run_id=r.info.id, cpu=cpu, workload=cpu in workload, t_s=t_s, switches=cols[0], involuntary=cols[1],
                voluntary=cols[2], from_idle=cols[3], wakeups=cols[4], migrations=cols[5]))
    workload_by_run = {r.info.id: set(r.workload_cpus or []) for r in ctx.runs}
    chosen = set(zip(sel_runs, sel_cpus))
    by_run = {r.info.id: r for r in ctx.runs}
    stat_files = store.query(_STAT_FILES_SQL, {"cid": capture_id}).dicts()
    # the runs' start on the trace's clock: only for files placed by wall clock (no clock reading)
    t0s = {} if all(f["clock_at_start_ns"] is not None for f in stat_files) else {
        r.id: r.t0_ns if r.aligned else None for r in timeline_view.overview(store, capture_id).runs}
    aligned: dict[tuple[str, str], StatAlignment] = {}
    for f in stat_files:
        if (rc := by_run.get(f["run_id"])) is not None:
            aligned[(f["run_id"], f["path"])] = stat_alignment(rc.first_ts_ns, t0s.get(f["run_id"]),
                                                               f["clock_at_start_ns"], f["started_on"], f["started_at"],
                                                               f["utc_offset"])
    counted = []
    for row in store.query(_COUNTED_SQL, {"cid": capture_id, "runs": ctx.run_ids(),
                                          "events": list(COUNTED_EVENTS)}).dicts():
        if not (row["cpu"] is None or (row["run_id"], row["cpu"]) in chosen):
            continue
        al = aligned.get((row["run_id"], row["path"])) or stat_alignment(
            by_run[row["run_id"]].first_ts_ns, None, None, None, None)
        counted.append(models.SchedCountedSeries(
            run_id=row["run_id"], path=row["path"], scope=row["scope"], cpu=row["cpu"], aggr=row["aggr"],
            workload=row["cpu"] is not None and row["cpu"] in workload_by_run[row["run_id"]], event=row["event"],
            unit="CPUs" if row["cpu_time"] else "/s", start_s=al.offset_s,
            t_s=[t + al.offset_s for t in row["t_s"]], perf_t_s=row["t_s"], values=row["vals"],
            alignment=al.alignment, alignment_note=al.note, wall_zone=al.wall_zone))
    return models.SchedSwitchRate(**ctx.base(), cpus=cpus, step_ms=step_ms, series=series, counted=counted)


# --------------------------------------------------------------------------------------------
# Totals per task and per task pair, per CPU


def _tasks_sql(group_by: GroupBy) -> str:
    # Per run, CPU and task (or group) on the selected CPUs, from sched_pair_counts and
    # sched_task_runtime. Output columns:
    #   run_id, cpu, pid (-1 per group), name (comm, or the group), grp
    #   switched_in    times it was switched in
    #   switched_out   times it was switched out
    #   involuntary    of which preempted (R/R+; never for idle)
    #   states         [{state, n}] of the switch-outs
    #   run_ns         time it ran (sum of its slices)
    #   slices         number of slices
    return f"""
    WITH {_SEL},
    pc AS ({_on_sel("sched_pair_counts")}),
    st AS (SELECT run_id, cpu, {_task_cols(group_by, "prev_")}, prev_state,
                  sum(switches) AS n, {_INVOLUNTARY} AS inv
           FROM pc GROUP BY ALL),
    outs AS (SELECT run_id, cpu, pid, name, grp, sum(n) AS switched_out, sum(inv) AS involuntary,
                    list({{'state': prev_state, 'n': n}} ORDER BY n DESC, prev_state) AS states
             FROM st GROUP BY ALL),
    ins AS (SELECT run_id, cpu, {_task_cols(group_by, "next_")}, sum(switches) AS switched_in FROM pc GROUP BY ALL),
    rt AS (SELECT run_id, cpu, {_task_cols(group_by, "")}, sum(run_ns) AS run_ns, sum(slices) AS slices
           FROM ({_on_sel("sched_task_runtime")}) GROUP BY ALL)
    SELECT run_id, cpu, pid, name, grp, coalesce(switched_in, 0) AS switched_in,
           coalesce(switched_out, 0) AS switched_out, coalesce(involuntary, 0) AS involuntary, states,
           coalesce(run_ns, 0) AS run_ns, coalesce(slices, 0) AS slices
    FROM ins FULL JOIN outs USING (run_id, cpu, pid, name, grp) FULL JOIN rt USING (run_id, cpu, pid, name, grp)
    ORDER BY coalesce(switched_in, 0) + coalesce(switched_out, 0) DESC, run_id, cpu, name, pid
    LIMIT $limit
    """


def tasks(store: Store, capture_id: str, run: str | None = None, cpus: str = "all", group_by: GroupBy = "task",
          limit: int = DEFAULT_LIMIT, span: Span | None = None,
          clock: Clock = "trace") -> models.SchedTasks:
    ctx = context(store, capture_id, run, span, clock)
    rows, _ = _query_sel(store, ctx, cpus, _tasks_sql(group_by), limit)
    wc, dur = _workload_comms(ctx), _duration(ctx)
    out = []
    for r in rows:
        idle = r["grp"] == "<idle>"
        out.append(models.SchedTaskRow(
            run_id=r["run_id"], cpu=r["cpu"], task=_task(r, wc),
            switched_in=r["switched_in"], switched_out=r["switched_out"], involuntary=r["involuntary"],
            voluntary=0 if idle else r["switched_out"] - r["involuntary"],
            states={e["state"]: int(e["n"]) for e in (r["states"] or [])}, run_ns=r["run_ns"], slices=r["slices"],
            mean_slice_ns=r["run_ns"] / r["slices"] if r["slices"] else None,
            cpu_share=r["run_ns"] / 1e9 / dur[r["run_id"]] if dur[r["run_id"]] > 0 else None,
        ))
    return models.SchedTasks(**ctx.base(), cpus=cpus, group_by=group_by, rows=out)


def _pairs_sql(group_by: GroupBy) -> str:
    # Per run, CPU and (task leaving -> task arriving), from sched_pair_counts. Output columns:
    #   run_id, cpu; prev_pid, prev_name, prev_grp; next_pid, next_name, next_grp (pid -1 per group)
    #   switches      switches from prev to next
    #   involuntary   of which prev was preempted (R/R+, not idle)
    #   cpu_switches  all switches of that CPU in the run (the share's denominator)
    return f"""
    WITH {_SEL},
    pc AS ({_on_sel("sched_pair_counts")}),
    p AS (SELECT run_id, cpu, {_task_cols(group_by, "prev_", "prev_")}, {_task_cols(group_by, "next_", "next_")},
                 sum(switches) AS switches, {_INVOLUNTARY} AS involuntary
          FROM pc GROUP BY ALL)
    SELECT *, sum(switches) OVER (PARTITION BY run_id, cpu) AS cpu_switches
    FROM p ORDER BY switches DESC, run_id, cpu, prev_name, next_name, prev_pid, next_pid LIMIT $limit
    """


def pairs(store: Store, capture_id: str, run: str | None = None, cpus: str = "all", group_by: GroupBy = "task",
          limit: int = DEFAULT_LIMIT, span: Span | None = None,
          clock: Clock = "trace") -> models.SchedPairs:
    ctx = context(store, capture_id, run, span, clock)
    rows, _ = _query_sel(store, ctx, cpus, _pairs_sql(group_by), limit)
    wc, dur = _workload_comms(ctx), _duration(ctx)
    out = [models.SchedPairRow(
        run_id=r["run_id"], cpu=r["cpu"], prev=_task(r, wc, "prev_"), next=_task(r, wc, "next_"),
        switches=r["switches"], involuntary=r["involuntary"] or 0,
        voluntary=0 if r["prev_grp"] == "<idle>" else r["switches"] - (r["involuntary"] or 0),
        per_s=_per_s(r["switches"], dur[r["run_id"]]),
        share=r["switches"] / r["cpu_switches"] if r["cpu_switches"] else None,
    ) for r in rows]
    return models.SchedPairs(**ctx.base(), cpus=cpus, group_by=group_by, rows=out)


# --------------------------------------------------------------------------------------------
# Ping-pong: two tasks switching to each other back and forth on one CPU
#
# A round trip: task X runs on a CPU between two runs of task Y (Y -> X -> Y), X for at most
# window_us (sched_roundtrips, derived at ingest). Idle is never part of a pair. The pair {A, B} is
# unordered, A the smaller key (pid, or group name).

_PAIR_KEYS = "run_id, cpu, a_pid, a_name, a_grp, b_pid, b_name, b_grp"


def _pingpong_sql(group_by: GroupBy) -> str:
    ipid, iname = _keys(group_by, "pid", "comm", "grp")
    opid, oname = _keys(group_by, "prev_pid", "prev_comm", "prev_grp")
    key_i, key_o = ("grp", "prev_grp") if group_by == "group" else ("pid", "prev_pid")
    # Output columns:
    #   run_id, cpu; a_pid, a_name, a_grp; b_pid, b_name, b_grp (pid -1 per group)
    #   round_trips   Y -> X -> Y within the window, {X, Y} = {A, B} either way
    #   a_inside_b    of which A was the brief one (X)
    #   b_inside_a    of which B was
    #   preempting    of which X preempted Y (Y was switched out runnable, R/R+)
    #   p50, p90      X's run time per round trip, us (nearest rank)
    #   first_ns, last_ns   perf clock of the first and last round trip
    return f"""
    WITH {_SEL},
    r AS ({_on_sel("sched_roundtrips", "dur_us <= $window_us")}),
    o AS (SELECT *, ({key_i} < {key_o}) AS inner_is_a FROM r),
    k AS (SELECT run_id, cpu,
                 CASE WHEN inner_is_a THEN {ipid} ELSE {opid} END AS a_pid,
                 CASE WHEN inner_is_a THEN {iname} ELSE {oname} END AS a_name,
                 CASE WHEN inner_is_a THEN grp ELSE prev_grp END AS a_grp,
                 CASE WHEN inner_is_a THEN {opid} ELSE {ipid} END AS b_pid,
                 CASE WHEN inner_is_a THEN {oname} ELSE {iname} END AS b_name,
                 CASE WHEN inner_is_a THEN prev_grp ELSE grp END AS b_grp,
                 inner_is_a, preempting, dur_us, n, first_ns, last_ns
          FROM o),
    agg AS (SELECT {_PAIR_KEYS}, sum(n) AS round_trips, coalesce(sum(n) FILTER (WHERE inner_is_a), 0) AS a_inside_b,
                   coalesce(sum(n) FILTER (WHERE NOT inner_is_a), 0) AS b_inside_a,
                   coalesce(sum(n) FILTER (WHERE preempting), 0) AS preempting,
                   min(first_ns) AS first_ns, max(last_ns) AS last_ns
            FROM k GROUP BY ALL ORDER BY round_trips DESC, run_id, cpu, a_name, b_name, a_pid, b_pid LIMIT $limit),
    dist AS (SELECT {_PAIR_KEYS}, dur_us AS v, sum(n) AS n FROM k SEMI JOIN agg USING ({_PAIR_KEYS}) GROUP BY ALL),
    {nearest_rank_sql(_PAIR_KEYS, "dist", {"p50": 0.5, "p90": 0.9})}
    SELECT agg.*, pct.p50, pct.p90 FROM agg JOIN pct USING ({_PAIR_KEYS})
    ORDER BY round_trips DESC, run_id, cpu, a_name, b_name, a_pid, b_pid
    """


# Switches per run and CPU (the share's denominator): sum of sched_cpu_rate.
_CPU_SWITCHES_SQL = """
SELECT run_id, cpu, sum(switches) AS switches FROM sched_cpu_rate WHERE capture_id = $cid GROUP BY ALL
"""


def pingpong(store: Store, capture_id: str, run: str | None = None, cpus: str = "all", group_by: GroupBy = "task",
             window_us: int = DEFAULT_WINDOW_US, limit: int = 20, span: Span | None = None,
          clock: Clock = "trace") -> models.SchedPingPong:
    if window_us < 1 or window_us > MAX_WINDOW_US:
        raise BadQuery(f"window_us: between 1 and {MAX_WINDOW_US}")
    ctx = context(store, capture_id, run, span, clock)
    rows = _pingpong_rows(store, ctx, cpus, group_by, window_us, limit)
    return models.SchedPingPong(**ctx.base(), cpus=cpus, group_by=group_by, window_us=window_us, rows=rows)


def _pingpong_rows(store: Store, ctx: Ctx, cpus: str, group_by: GroupBy, window_us: int,
                   limit: int) -> list[models.SchedPingPongRow]:
    rows, _ = _query_sel(store, ctx, cpus, _pingpong_sql(group_by), limit, window_us=window_us)
    totals = {(r, c): n for r, c, n in store.query(ctx.sql(_CPU_SWITCHES_SQL), {"cid": ctx.capture_id}).rows}
    wc, dur = _workload_comms(ctx), _duration(ctx)
    first = {r.info.id: r.first_ts_ns for r in ctx.runs}
    out = []
    for r in rows:
        rid = r["run_id"]
        total = totals.get((rid, r["cpu"]))
        out.append(models.SchedPingPongRow(
            run_id=rid, cpu=r["cpu"], a=_task(r, wc, "a_"), b=_task(r, wc, "b_"), round_trips=r["round_trips"],
            a_inside_b=r["a_inside_b"], b_inside_a=r["b_inside_a"], preempting=r["preempting"],
            per_s=_per_s(r["round_trips"], dur[rid]),
            share=r["round_trips"] / total if total else None,
            median_inside_ns=None if r["p50"] is None else r["p50"] * 1000,
            p90_inside_ns=None if r["p90"] is None else r["p90"] * 1000,
            first_s=(r["first_ns"] - first[rid]) / 1e9, last_s=(r["last_ns"] - first[rid]) / 1e9,
        ))
    return out


# --------------------------------------------------------------------------------------------
# Wakeup-to-run delays

_TASK_KEYS = "run_id, pid, name, grp"


def _delays_sql(group_by: GroupBy, reason: DelayReason) -> str:
    where = {"all": None, "woken": "reason <> 'preempted'", "preempted": "reason = 'preempted'"}[reason]
    # Per run and task (or group), switch-ins on the selected CPUs (sched_delay_hist). Output columns:
    #   run_id, pid (-1 per group), name, grp
    #   total      switch-ins with a known delay
    #   unknown    switch-ins after a sleep whose wakeup was not recorded (no delay)
    #   reasons    [{reason, n}]: waking / wakeup / wakeup_new (woken), preempted
    #   sum_ns     sum of the known delays, ns (mean = sum_ns / total)
    #   p50, p90, p99, vmax   delay, us, nearest rank over the per-us counts
    #   bins       [{bin, n}]: bin -1 = [0, 1 us], bin k = (2^k, 2^(k+1)] us
    return f"""
    WITH {_SEL},
    d AS (SELECT run_id, {_task_cols(group_by, "")}, reason, delay_us, n, sum_ns
          FROM ({_on_sel("sched_delay_hist", where)})),
    known AS (SELECT {_TASK_KEYS}, delay_us AS v, sum(n) AS n FROM d WHERE delay_us IS NOT NULL GROUP BY ALL),
    {nearest_rank_sql(_TASK_KEYS, "known", {"p50": 0.5, "p90": 0.9, "p99": 0.99})},
    bins AS (SELECT {_TASK_KEYS}, list({{'bin': b, 'n': n}} ORDER BY b) AS bins
             FROM (SELECT {_TASK_KEYS}, CASE WHEN v <= 1 THEN -1 ELSE ceil(log2(v))::INTEGER - 1 END AS b,
                          sum(n) AS n FROM known GROUP BY ALL) GROUP BY ALL),
    why AS (SELECT {_TASK_KEYS}, list({{'reason': reason, 'n': n}} ORDER BY reason) AS reasons
            FROM (SELECT {_TASK_KEYS}, reason, sum(n) AS n FROM d WHERE delay_us IS NOT NULL GROUP BY ALL)
            GROUP BY ALL),
    other AS (SELECT {_TASK_KEYS}, coalesce(sum(n) FILTER (WHERE delay_us IS NULL), 0) AS unknown,
                     sum(sum_ns) AS sum_ns FROM d GROUP BY ALL)
    SELECT other.*, coalesce(pct.total, 0) AS total, pct.p50, pct.p90, pct.p99, pct.vmax, bins.bins, why.reasons
    FROM other LEFT JOIN pct USING ({_TASK_KEYS}) LEFT JOIN bins USING ({_TASK_KEYS})
    LEFT JOIN why USING ({_TASK_KEYS})
    ORDER BY total DESC, unknown DESC, run_id, name, pid LIMIT $limit
    """


def delays(store: Store, capture_id: str, run: str | None = None, cpus: str = "all", group_by: GroupBy = "group",
           reason: DelayReason = "all", limit: int = DEFAULT_LIMIT, span: Span | None = None,
          clock: Clock = "trace") -> models.SchedDelays:
    ctx = context(store, capture_id, run, span, clock)
    rows, _ = _query_sel(store, ctx, cpus, _delays_sql(group_by, reason), limit)
    wc = _workload_comms(ctx)

    def ns(us: int | None) -> int | None:
        return None if us is None else int(us) * 1000

    out = []
    for r in rows:
        out.append(models.SchedDelayRow(
            run_id=r["run_id"], task=_task(r, wc), count=r["total"],
            unknown=r["unknown"], reasons={e["reason"]: int(e["n"]) for e in (r["reasons"] or [])},
            mean_ns=r["sum_ns"] / r["total"] if r["total"] and r["sum_ns"] is not None else None,
            p50_ns=ns(r["p50"]), p90_ns=ns(r["p90"]), p99_ns=ns(r["p99"]), max_ns=ns(r["vmax"]),
            histogram=[models.DelayBin(lo_ns=0 if e["bin"] < 0 else 1000 * 2 ** e["bin"],
                                       hi_ns=1000 if e["bin"] < 0 else 1000 * 2 ** (e["bin"] + 1), count=int(e["n"]))
                       for e in (r["bins"] or [])],
        ))
    return models.SchedDelays(**ctx.base(), cpus=cpus, group_by=group_by, reason=reason, rows=out)


# --------------------------------------------------------------------------------------------
# Run time per task on the selected CPUs (default: the workload's)

def _runtime_sql(group_by: GroupBy) -> str:
    # Per run and task (or group), from sched_task_runtime on the selected CPUs. Output columns:
    #   run_id, pid (-1 per group), name, grp
    #   run_ns       time it ran there
    #   slices       how many times it ran
    #   cpus         the selected CPUs it ran on
    #   preempted    slices that ended with it preempted (end_state R/R+)
    return f"""
    WITH {_SEL}, t AS ({_on_sel("sched_task_runtime")})
    SELECT t.run_id, {_task_cols(group_by, "")}, sum(run_ns) AS run_ns, sum(slices) AS slices,
           list(DISTINCT t.cpu ORDER BY t.cpu) AS cpus, sum(preempted) AS preempted
    FROM t
    GROUP BY ALL ORDER BY run_ns DESC, run_id, name, pid LIMIT $limit
    """


def runtime(store: Store, capture_id: str, run: str | None = None, cpus: str = "workload",
            group_by: GroupBy = "task", limit: int = DEFAULT_LIMIT, span: Span | None = None,
          clock: Clock = "trace") -> models.SchedRuntime:
    ctx = context(store, capture_id, run, span, clock)
    rows, sel_runs = _query_sel(store, ctx, cpus, _runtime_sql(group_by), limit)
    n_cpus: dict[str, int] = {}
    for rid in sel_runs:
        n_cpus[rid] = n_cpus.get(rid, 0) + 1
    wc, dur = _workload_comms(ctx), _duration(ctx)
    out = [models.SchedRuntimeRow(
        run_id=r["run_id"], task=_task(r, wc), run_ns=r["run_ns"],
        cpus_used=r["run_ns"] / 1e9 / dur[r["run_id"]] if dur[r["run_id"]] > 0 else None,
        share=r["run_ns"] / 1e9 / (dur[r["run_id"]] * n_cpus[r["run_id"]]) if dur[r["run_id"]] > 0 else None,
        slices=r["slices"], mean_slice_ns=r["run_ns"] / r["slices"] if r["slices"] else None,
        preempted=r["preempted"], cpus=list(r["cpus"]),
    ) for r in rows]
    return models.SchedRuntime(**ctx.base(), cpus=cpus, group_by=group_by, rows=out)


# --------------------------------------------------------------------------------------------
# Per-run figures: the overview of one capture and the comparison of several


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str
    better: Literal["higher", "lower", "neutral"]
    description: str


METRICS: tuple[Metric, ...] = (
    Metric("switches_workload", "Context switches/s, workload CPUs", "/s", "lower",
           "sched_switch events recorded on the workload's CPUs (all CPUs when not known) / trace duration"),
    Metric("switches_workload_counted", "Context switches/s, workload CPUs (perf stat)", "/s", "lower",
           "perf stat's context-switches on the workload's CPUs (per-CPU counts, -A) / the time perf stat counted"),
    Metric("switches_all", "Context switches/s, all CPUs", "/s", "lower",
           "sched_switch events recorded on every CPU / trace duration"),
    Metric("switches_all_counted", "Context switches/s, all CPUs (perf stat)", "/s", "lower",
           "perf stat's system-wide context-switches / the time perf stat counted"),
    Metric("involuntary_pct", "Involuntary switches, workload CPUs", "%", "lower",
           "% of the switches out of a task (not idle) on the workload's CPUs where it was preempted (R/R+)"),
    Metric("pingpong_per_s", "Top ping-pong pair, round trips/s", "/s", "lower",
           f"round trips of the busiest pair of task groups (kworker/* as one; the top pair of the pairs table) on "
           f"one workload CPU (each ran <= {DEFAULT_WINDOW_US} us between two runs of the other) / trace duration"),
    Metric("workload_cpus_used", "Workload tasks' CPU time", "CPUs", "neutral",
           "run time of the workload's tasks (by name: fio, or the command) on all CPUs / trace duration: "
           "what perf stat's task-clock says in CPUs utilized"),
    Metric("task_clock_cpus", "task-clock (perf stat, workload)", "CPUs", "neutral",
           "perf stat's task-clock of the workload's processes (a perf-stat artifact with scope 'workload') "
           "/ the time counted"),
    Metric("workload_delay_p50", "Workload wakeup-to-run delay p50", "ns", "lower",
           "median time the workload's tasks waited to run after a wakeup or a preemption"),
    Metric("workload_delay_p99", "Workload wakeup-to-run delay p99", "ns", "lower",
           "99th percentile of the same"),
    Metric("kworker_delay_p99", "kworker/* wakeup-to-run delay p99, workload CPUs", "ns", "lower",
           "99th percentile of the time kworkers waited to run on the workload's CPUs (the I/O completion path)"),
    Metric("idle_pct", "Idle, workload CPUs", "%", "neutral",
           "% of the workload CPUs' time spent in the idle task"),
    Metric("migrations_per_s", "Migrations/s", "/s", "neutral",
           "sched_migrate_task events recorded / trace duration"),
    Metric("fio_ctx_per_s", "fio's context switches/s", "/s", "lower",
           "fio's own count of its threads' context switches (ctx in its JSON) / its runtime"),
)

# Per run with a trace: its duration, the workload's CPUs (`wl`; all when unknown) and comm.
_TRACES_CTE = """t AS (
    SELECT run_id, duration_ns / 1e9 AS dur_s, coalesce(workload_cpus, cpus) AS wl, workload_comm, n_migrate
    FROM sched_traces WHERE capture_id = $cid
)"""


def _on_trace(table: str, alias: str, where: str | None = None) -> str:
    """FROM text: the rows of `table` (as `alias`) in capture $cid, each joined to its run's row of
    `t`, and matching `where` when given."""
    return f"{table} {alias} JOIN t USING (run_id) WHERE {alias}.capture_id = $cid{f' AND {where}' if where else ''}"


# Under a time range (views/sched_range.py): the part of the range each trace covers, and the
# migrations in it.
_TRACES_SPAN_CTE = """t AS (
    SELECT tr.run_id, greatest(least(sp.to_ns, tr.duration_ns) - greatest(sp.from_ns, 0), 0) / 1e9 AS dur_s,
           coalesce(tr.workload_cpus, tr.cpus) AS wl, tr.workload_comm,
           (SELECT count(*) FROM sched_migrate m WHERE m.capture_id = $cid AND m.run_id = tr.run_id
              AND m.ts_ns >= tr.first_ts_ns + sp.from_ns AND m.ts_ns < tr.first_ts_ns + sp.to_ns) AS n_migrate
    FROM sched_traces tr
    JOIN (SELECT unnest($sp_runs) AS run_id, unnest($sp_from) AS from_ns, unnest($sp_to) AS to_ns) sp
      ON sp.run_id = tr.run_id
    WHERE tr.capture_id = $cid
)"""


# Per run: the trace's figures for METRICS, from the derived tables. Output columns: run_id, then
# one column per metric key computed from the trace.
_TRACE_METRICS_SQL = f"""
WITH {_TRACES_CTE},
rate AS (
    SELECT c.run_id,
           sum(c.switches) FILTER (WHERE list_contains(t.wl, c.cpu)) AS sw_wl,
           sum(c.switches) AS sw_all,
           sum(c.involuntary) FILTER (WHERE list_contains(t.wl, c.cpu)) AS inv_wl,
           sum(c.involuntary + c.voluntary) FILTER (WHERE list_contains(t.wl, c.cpu)) AS out_wl
    FROM {_on_trace("sched_cpu_rate", "c")} GROUP BY c.run_id
),
rt AS (
    SELECT r.run_id,
           sum(r.run_ns) FILTER (WHERE r.comm = t.workload_comm) AS wl_run_ns,
           sum(r.run_ns) FILTER (WHERE r.pid = 0 AND list_contains(t.wl, r.cpu)) AS idle_ns,
           sum(r.run_ns) FILTER (WHERE list_contains(t.wl, r.cpu)) AS wl_cpu_ns
    FROM {_on_trace("sched_task_runtime", "r")} GROUP BY r.run_id
),
dh AS (  -- the delays of two sets: the workload's tasks (any CPU), kworkers on the workload's CPUs
    SELECT h.run_id, 'wl' AS who, h.delay_us AS v, sum(h.n) AS n
    FROM {_on_trace("sched_delay_hist", "h", "h.delay_us IS NOT NULL AND h.comm = t.workload_comm")} GROUP BY ALL
    UNION ALL
    SELECT h.run_id, 'kw', h.delay_us, sum(h.n)
    FROM {_on_trace("sched_delay_hist", "h",
                    "h.delay_us IS NOT NULL AND h.grp = 'kworker/*' AND list_contains(t.wl, h.cpu)")}
    GROUP BY ALL
),
{nearest_rank_sql("run_id, who", "dh", {"p50": 0.5, "p99": 0.99})},
pp AS (  -- pairs of task groups (kworker/* as one), as the top pairs table beside the metric
    SELECT r.run_id, r.cpu, least(r.grp, r.prev_grp) AS a, greatest(r.grp, r.prev_grp) AS b, sum(r.n) AS n
    FROM {_on_trace("sched_roundtrips", "r", f"r.dur_us <= {DEFAULT_WINDOW_US} AND list_contains(t.wl, r.cpu)")}
    GROUP BY ALL
),
top AS (SELECT run_id, max(n) AS n FROM pp GROUP BY run_id)
SELECT t.run_id,
       rate.sw_wl / t.dur_s AS switches_workload,
       rate.sw_all / t.dur_s AS switches_all,
       100.0 * rate.inv_wl / nullif(rate.out_wl, 0) AS involuntary_pct,
       coalesce(top.n, 0) / t.dur_s AS pingpong_per_s,
       rt.wl_run_ns / 1e9 / t.dur_s AS workload_cpus_used,
       1000 * wl.p50 AS workload_delay_p50, 1000 * wl.p99 AS workload_delay_p99, 1000 * kw.p99 AS kworker_delay_p99,
       100.0 * rt.idle_ns / nullif(rt.wl_cpu_ns, 0) AS idle_pct,
       t.n_migrate / t.dur_s AS migrations_per_s
FROM t LEFT JOIN rate USING (run_id) LEFT JOIN rt USING (run_id) LEFT JOIN top USING (run_id)
LEFT JOIN (SELECT * FROM pct WHERE who = 'wl') wl USING (run_id)
LEFT JOIN (SELECT * FROM pct WHERE who = 'kw') kw USING (run_id)
WHERE t.dur_s > 0
"""
# Per run, perf-stat artifact and kind of row: perf stat's context-switches and task-clock
# (perf_stat), summed. Output columns:
#   run_id, path, scope (system | workload), summary (totals rather than -I intervals), event
#   per_cpu   the rows carry a CPU (-A)
#   on_wl     the CPU is one of the workload's (false when not per CPU)
#   value     the counts summed (msec for task-clock)
#   end_s     the last interval's end: the time counted (NULL for totals)
#   rate      perf's own rate column summed (per second; totals only need it)
#   cpus_utilized  perf's "CPUs utilized" of task-clock (totals)
_STAT_METRICS_SQL = f"""
WITH {_TRACES_CTE}
SELECT p.run_id, p.path, p.scope, p.summary, p.event, p.cpu IS NOT NULL AS per_cpu,
       coalesce(list_contains(t.wl, p.cpu), false) AS on_wl,
       sum(p.value) AS value, max(p.end_s) AS end_s,
       sum(CASE p.metric_unit WHEN '/sec' THEN p.metric_value WHEN 'K/sec' THEN p.metric_value * 1e3
                              WHEN 'M/sec' THEN p.metric_value * 1e6 END) AS rate,
       max(p.metric_value) FILTER (WHERE p.metric_unit = 'CPUs utilized') AS cpus_utilized
FROM {_on_trace("perf_stat", "p", "p.value IS NOT NULL AND p.event IN ('context-switches', 'task-clock')")}
GROUP BY ALL
"""


def _stat_metrics(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """run_id -> switches_workload_counted / switches_all_counted / task_clock_cpus. A file with
    -I intervals is read from its intervals (count / time counted), a file of totals from perf's
    own rate and CPUs-utilized columns."""
    files: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        files.setdefault((r["run_id"], r["path"]), []).append(r)
    out: dict[str, dict[str, float]] = {}
    for (rid, _), rs in files.items():
        intervals = [r for r in rs if not r["summary"]]
        use = intervals or rs
        span = max((r["end_s"] or 0) for r in use) if intervals else None
        got = out.setdefault(rid, {})

        def rate(rows_: list[dict[str, Any]], span: float | None = span) -> float | None:
            if not rows_:
                return None
            if span:
                return sum(r["value"] for r in rows_) / span
            rates = [r["rate"] for r in rows_ if r["rate"] is not None]
            return sum(rates) if rates else None

        cs = [r for r in use if r["event"] == "context-switches"]
        tc = [r for r in use if r["event"] == "task-clock"]
        if rs[0]["scope"] == "system":
            per_cpu = [r for r in cs if r["per_cpu"]]
            if per_cpu and (v := rate([r for r in per_cpu if r["on_wl"]])) is not None:
                got["switches_workload_counted"] = v
            if (v := rate(cs)) is not None:
                got["switches_all_counted"] = v
        elif tc:
            if span:
                got["task_clock_cpus"] = sum(r["value"] for r in tc) / 1000 / span
            elif tc[0]["cpus_utilized"] is not None:
                got["task_clock_cpus"] = sum(r["cpus_utilized"] or 0 for r in tc)
    return out


# Per run: fio's own context switch count (fio_jobs.ctx, one value per job, repeated on each of its
# data directions) over the job's runtime. Output columns: run_id, fio_ctx_per_s.
_FIO_CTX_SQL = """
SELECT run_id, sum(ctx) / nullif(max(runtime_ms) / 1000.0, 0) AS fio_ctx_per_s
FROM (SELECT run_id, job_index, max(ctx) AS ctx, max(runtime_ms) AS runtime_ms
      FROM fio_jobs WHERE capture_id = $cid GROUP BY ALL)
GROUP BY run_id
"""


# The metrics that come from perf stat's and fio's own counts of whole runs: not under a range.
WHOLE_RUN_METRICS = ("switches_workload_counted", "switches_all_counted", "task_clock_cpus", "fio_ctx_per_s")


def run_metrics(store: Store, capture_id: str, ctx: Ctx | None = None) -> dict[str, dict[str, float | None]]:
    """run_id -> metric key -> value (None when not available), for every run with a trace; over
    ctx's time range when it has one (then without WHOLE_RUN_METRICS)."""
    out: dict[str, dict[str, float | None]] = {}
    if ctx is not None and ctx.span is not None:
        sql = ctx.sql(_TRACE_METRICS_SQL.replace(_TRACES_CTE, _TRACES_SPAN_CTE, 1))
        spans = [(r.info.id, r.span) for r in ctx.runs if r.span is not None]
        params = {"cid": capture_id, "sp_runs": [rid for rid, _ in spans], "sp_from": [sp[0] for rid, sp in spans],
                  "sp_to": [sp[1] for rid, sp in spans]}
        for row in store.query(sql, params).dicts():
            rid = row.pop("run_id")
            out[rid] = {k: (None if v is None else float(v)) for k, v in row.items()}
        return out
    for row in store.query(_TRACE_METRICS_SQL, {"cid": capture_id}).dicts():
        rid = row.pop("run_id")
        out[rid] = {k: (None if v is None else float(v)) for k, v in row.items()}
    for rid, got in _stat_metrics(store.query(_STAT_METRICS_SQL, {"cid": capture_id}).dicts()).items():
        if rid in out:
            out[rid].update(got)
    for rid, value in store.query(_FIO_CTX_SQL, {"cid": capture_id}).rows:
        if rid in out:
            out[rid]["fio_ctx_per_s"] = None if value is None else float(value)
    return out


def overview(store: Store, capture_id: str, run: str | None = None, span: Span | None = None,
             clock: Clock = "trace") -> models.SchedOverview:
    ctx = context(store, capture_id, run, span, clock)
    per_run = run_metrics(store, capture_id, ctx)
    ids = ctx.run_ids()
    metrics = [models.SchedRunMetric(
        key=m.key, label=m.label, unit=m.unit, better=m.better, description=m.description,
        values={rid: per_run.get(rid, {}).get(m.key) for rid in ids},
    ) for m in METRICS]
    top = _pingpong_rows(store, ctx, "workload", "task", DEFAULT_WINDOW_US, 5)
    return models.SchedOverview(**ctx.base(), metrics=metrics, pingpong=top,
                                loss_threshold=LOSS_THRESHOLD)


def compare(store: Store, capture_ids: Sequence[str], baseline: str | None = None,
            span: Span | None = None, clock: Clock = "trace") -> models.SchedComparison:
    """The captures side by side (METRICS per run, mean over runs, ratio to the baseline), over the
    time range `span` when given (on `clock`: see context)."""
    ids = list(dict.fromkeys(capture_ids))
    if baseline is not None and baseline not in ids:
        raise BadQuery(f"baseline {baseline} is not one of the captures compared")
    found = {r[0]: r for r in store.query(
        "SELECT capture_id, label, kernel, n_runs, n_repeats, tags FROM captures WHERE list_contains(?, capture_id)",
        [ids]).rows}
    missing = [c for c in ids if c not in found]
    if missing:
        raise UnknownCapture(missing)
    baseline = baseline or ids[0]
    contexts: dict[str, Ctx] = {}
    for cid in ids:
        try:
            contexts[cid] = context(store, cid, span=span, clock=clock)
        except NoSchedData as exc:  # compared all the same: no cells, and the status says why
            contexts[cid] = Ctx(cid, found[cid][1], [], [str(exc)], span, clock=clock)
    values = {cid: run_metrics(store, cid, contexts[cid]) for cid in ids}
    rows = []
    for m in METRICS:
        cells: dict[str, models.StatCell] = {}
        for cid in ids:
            run_ids = [r for r in contexts[cid].run_ids() if values[cid].get(r, {}).get(m.key) is not None]
            vals = [values[cid][r][m.key] for r in run_ids]
            if vals:
                cells[cid] = _stat_cell(vals, run_ids)  # type: ignore[arg-type]
        if not cells:
            continue
        base = cells.get(baseline)
        for cid, cell in cells.items():
            if cid != baseline and base is not None and base.mean and cell.mean is not None:
                cell.ratio = cell.mean / base.mean
        rows.append(models.MetricRow(metric=m.key, label=m.label, unit=m.unit, better=m.better,
                                     description=m.description, cells=cells))
    return models.SchedComparison(
        captures=[models.ComparedCapture(id=cid, label=found[cid][1], kernel=found[cid][2], runs=found[cid][3],
                                         repeats=found[cid][4], tags=json.loads(found[cid][5])) for cid in ids],
        baseline=baseline,
        metrics=rows,
        status={cid: models.SchedCaptureStatus(
            runs=contexts[cid].run_ids(), events_lost=any(r.info.events_lost for r in contexts[cid].runs),
            warnings=contexts[cid].warnings,
            workload_cpus=sorted({c for r in contexts[cid].runs for c in (r.workload_cpus or [])}),
            workload_comm=next((r.info.workload_comm for r in contexts[cid].runs if r.info.workload_comm), None),
        ) for cid in ids},
        pingpong={cid: _pingpong_rows(store, contexts[cid], "workload", "group", DEFAULT_WINDOW_US, 3)
                  if contexts[cid].runs else [] for cid in ids},
        loss_threshold=LOSS_THRESHOLD,
        from_ns=span[0] if span else None,
        to_ns=span[1] if span else None,
        clock=clock,
    )


def _stat_cell(values: list[float], runs: list[str]) -> models.StatCell:
    n = len(values)
    mean = statistics.fmean(values)
    stddev = statistics.stdev(values) if n >= 2 else None
    return models.StatCell(n=n, mean=mean, stddev=stddev, min=min(values), max=max(values),
                           cv=stddev / mean if stddev is not None and mean else None, values=values, runs=runs,
                           ratio=None)
