"""The scheduler views over a time range (the notebook's timeline selection, issue 17 "Time").

The views read summaries derived once per run at ingest (sched_pair_counts, sched_task_runtime,
sched_roundtrips, sched_delay_hist, sched_cpu_rate: store/schema/sched.sql). Under a range they read
the same summaries computed at query time from the rows of the range: each summary becomes a CTE of
the same name and columns, so the views' SQL is the same text either way (`spanned`). The rows of a
range are cut from the event and slice tables with constant bounds per run, which DuckDB answers
from the row groups that hold them (the tables are stored in time order per run and CPU): a 1 s
range of a 34 s trace of 5.1M events is read in tens of ms (bench/sched_views.py).

A range is [from_ns, to_ns) on one of two clocks. On clock 'trace' (the API's default) it is ns since
each run's first sched event (t = 0 of every sched series, sched_traces.first_ts_ns), the same
numbers in every run asked for. On clock 'run' it is ns since each run's start (its clock reading:
the timeline's time, the notebook's selection), and each run counts it on its own trace, moved by its
own offset (store/rules/run_span.py: the trace's first event lies sched_offset_ns after the run's
start, a different amount in each run), never by the offset of the run that was brushed. What falls
in a run's part:
- switches (sched_pair_counts, sched_cpu_rate): the sched_switch events in it;
- run time (sched_task_runtime): the slices that overlap it, cut at its edges (run_ns), counted
  once each (slices), preempted when the slice ended in it with the task runnable (R/R+);
- round trips (sched_roundtrips): the brief task's slices that began in it;
- wakeup delays (sched_delay_hist): the switch-ins in it.
A range that covers every run whole is answered from the summaries (the same numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..ingest.sched import task_group_sql
from ..store.derived import MAX_WINDOW_US

Span = tuple[int, int]
Clock = Literal["trace", "run"]

_GRP_PREV = task_group_sql("prev_comm", "prev_pid")
_GRP_NEXT = task_group_sql("next_comm", "next_pid")


@dataclass(frozen=True)
class RunBounds:
    """One run's part of a range, on the perf clock: [lo, hi)."""

    run_id: str
    lo: int
    hi: int


def check(span: Span | None, clock: str = "trace") -> str | None:
    """Why a range cannot be used (None: it can)."""
    if clock not in ("trace", "run"):
        return f"clock: 'trace' (ns since each run's first sched event) or 'run' (since each run's start), not {clock!r}"
    if span is None:
        return None
    lo, hi = span
    if lo < 0 or hi <= lo:
        since = "the trace's first event" if clock == "trace" else "the run's start"
        return f"from_ns, to_ns: a range 0 <= from_ns < to_ns in ns since {since}, not {lo}-{hi}"
    return None


def bounds(runs: Sequence[tuple[str, int, int, Span | None]]) -> list[RunBounds] | None:
    """Per run (run_id, first_ts_ns, duration_ns, its range in ns since its first event): its bounds
    on the perf clock; None when there is no range or it covers every run whole (the summaries
    answer then)."""
    if not runs or any(span is None for *_, span in runs):
        return None
    if all(span[0] <= 0 and span[1] > duration for _, _, duration, span in runs):  # type: ignore[index]
        return None
    return [RunBounds(rid, first + span[0], first + span[1]) for rid, first, _, span in runs]  # type: ignore[index]


def covered_ns(duration_ns: int, span: Span | None) -> int:
    """The part of a range a trace of this duration covers (the denominator of its rates)."""
    if span is None:
        return duration_ns
    return max(0, min(span[1], duration_ns) - max(span[0], 0))


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _rows(table: str, where: str, b: list[RunBounds], extra: str = "") -> str:
    """The rows of `table` in capture $cid in each run's bounds (`where` with {lo} and {hi})."""
    if not b:
        cols = ", 0::BIGINT AS lo_, 0::BIGINT AS hi_" if extra else ""
        return f"SELECT *{cols} FROM {table} WHERE false"
    return "\n        UNION ALL ".join(
        f"SELECT *{extra.format(lo=r.lo, hi=r.hi)} FROM {table} WHERE capture_id = $cid AND run_id = {_q(r.run_id)} "
        f"AND {where.format(lo=r.lo, hi=r.hi)}" for r in b)


def _summaries(b: list[RunBounds]) -> dict[str, str]:
    """Each summary table's CTE body over the bounds: same columns as the table (store/schema/sched.sql)."""
    switches = _rows("sched_switch", "ts_ns >= {lo} AND ts_ns < {hi}", b)
    overlapping = _rows("sched_slices", "start_ns < {hi} AND end_ns > {lo}", b, ", {lo}::BIGINT AS lo_, {hi}::BIGINT AS hi_")
    starting = _rows("sched_slices", "start_ns >= {lo} AND start_ns < {hi}", b)
    delays = _rows("sched_delays", "start_ns >= {lo} AND start_ns < {hi}", b)
    # the task groups (a regexp) are computed on the grouped rows, not on each event
    return {
        "sched_pair_counts": f"""
        SELECT capture_id, run_id, cpu, prev_pid, prev_comm, {_GRP_PREV} AS prev_grp, prev_state, next_pid, next_comm,
               {_GRP_NEXT} AS next_grp, switches
        FROM (SELECT capture_id, run_id, cpu, prev_pid, prev_comm, prev_state, next_pid, next_comm, count(*) AS switches
              FROM ({switches}) GROUP BY ALL)""",
        "sched_task_runtime": f"""
        SELECT capture_id, run_id, cpu, pid, comm, grp, sum(least(end_ns, hi_) - greatest(start_ns, lo_)) AS run_ns,
               count(*) AS slices, count(*) FILTER (WHERE end_state LIKE 'R%' AND pid <> 0 AND end_ns < hi_) AS preempted
        FROM ({overlapping}) GROUP BY capture_id, run_id, cpu, pid, comm, grp""",
        "sched_roundtrips": f"""
        SELECT capture_id, run_id, cpu, pid, comm, grp, prev_pid, prev_comm, {_GRP_PREV} AS prev_grp, preempting, dur_us,
               n, first_ns, last_ns
        FROM (SELECT capture_id, run_id, cpu, pid, comm, grp, prev_pid, prev_comm, prev_state LIKE 'R%' AS preempting,
                     ((dur_ns + 999) // 1000)::INTEGER AS dur_us, count(*) AS n, min(start_ns) AS first_ns,
                     max(start_ns) AS last_ns
              FROM ({starting})
              WHERE prev_pid = next_pid AND pid <> 0 AND prev_pid <> 0 AND pid <> prev_pid
                AND dur_ns <= {MAX_WINDOW_US * 1000}
              GROUP BY ALL)""",
        "sched_delay_hist": f"""
        SELECT capture_id, run_id, cpu, pid, comm, grp, reason,
               CASE WHEN delay_ns IS NOT NULL THEN greatest((delay_ns + 999) // 1000, 0) END AS delay_us,
               count(*) AS n, sum(delay_ns) AS sum_ns
        FROM ({delays}) GROUP BY ALL""",
        # one bucket per run and CPU: the range; wakeups and migrations are not counted here (NULL):
        # the switch rate over time reads the 100 ms buckets, never a range
        "sched_cpu_rate": f"""
        SELECT capture_id, run_id, cpu, 0 AS bucket, count(*) AS switches,
               count(*) FILTER (WHERE prev_pid <> 0 AND prev_state LIKE 'R%') AS involuntary,
               count(*) FILTER (WHERE prev_pid <> 0 AND prev_state NOT LIKE 'R%') AS voluntary,
               count(*) FILTER (WHERE prev_pid = 0) AS from_idle, NULL::BIGINT AS wakeups, NULL::BIGINT AS migrations
        FROM ({switches}) GROUP BY capture_id, run_id, cpu""",
    }


def spanned(sql: str, b: list[RunBounds] | None) -> str:
    """`sql` over the bounds: the summary tables it names become CTEs of the rows in them (the
    CTE shadows the table of the same name); unchanged when b is None."""
    if b is None:
        return sql
    ctes = ",\n    ".join(f"{name} AS ({body}\n    )" for name, body in _summaries(b).items() if name in sql)
    if not ctes:
        return sql
    head = sql.lstrip()
    if head[:5].upper() == "WITH ":
        return f"WITH {ctes},\n    {head[5:]}"
    return f"WITH {ctes}\n{head}"
