"""Off-CPU and wakeup stacks (docs/offcpu.md): per run what was recorded and weighted, the threads
by time off the CPU, and for a pair of tasks (a row of the scheduler's ping-pong table) both
sides' blocked stacks weighted by time off the CPU and the stacks of the wakeups aimed at them.

Rows come from offcpu_runs, offcpu_checks, offcpu_intervals and offcpu_wakings, filled at ingest
from `perf-offcpu` artifacts (iolens/ingest/offcpu.py); stacks from perf_stacks. The off-CPU flame
graph itself is the flame view's (views/flame.py) with event 'offcpu'.

A side of a pair is a thread id ('7894') or a task group as the sched views name them
('kworker/*', 'ksoftirqd/*', or a comm), so a ping-pong row of either grouping links here.
"""

from __future__ import annotations

import json
from typing import Any

from .. import models
from ..store.db import Store
from .flame import NoStacks, UnknownCapture, build_tree

TASK_LIMIT = 50


class BadQuery(ValueError):
    """An unknown run or a side that selects nothing: HTTP 422."""


def _ref(store: Store, cid: str) -> models.FlameCaptureRef:
    meta = store.query("SELECT label, kernel FROM captures WHERE capture_id = ?", [cid]).rows
    if not meta:
        raise UnknownCapture([cid])
    return models.FlameCaptureRef(id=cid, label=meta[0][0], kernel=meta[0][1])


def _runs(store: Store, cid: str) -> list[models.OffcpuRun]:
    # one row per run; checks as a list of structs
    rows = store.query(
        """SELECT r.run_id, r.switches, r.wakings, r.intervals, r.blocked_ns, r.open_at_end, r.open_at_end_ns,
                  r.in_at_start, r.unpaired, r.last_ts_ns - r.first_ts_ns AS duration_ns, r.events_lost, r.warnings,
                  (SELECT count(DISTINCT i.tid) FROM offcpu_intervals i
                   WHERE i.capture_id = r.capture_id AND i.run_id = r.run_id)::BIGINT AS threads
           FROM offcpu_runs r JOIN runs USING (capture_id, run_id)
           WHERE r.capture_id = ? ORDER BY runs.run_index""", [cid]).rows
    if not rows:
        _ref(store, cid)
        raise NoStacks(f"capture {cid} has no off-CPU stacks (record them with `iolens-collect run --offcpu`)")
    checks: dict[str, list[models.OffcpuCheck]] = {}
    for run_id, name, event, rec, exp, ratio, ok, detail in store.query(
            "SELECT run_id, name, event, recorded, expected, ratio, ok, detail FROM offcpu_checks "
            "WHERE capture_id = ? ORDER BY run_id, name, event", [cid]).rows:
        checks.setdefault(run_id, []).append(models.OffcpuCheck(name=name, event=event, recorded=rec, expected=exp,
                                                                ratio=ratio, ok=ok, detail=detail))
    return [models.OffcpuRun(run_id=r[0], switches=r[1], wakings=r[2], intervals=r[3], blocked_ns=r[4],
                             open_at_end=r[5], open_at_end_ns=r[6], in_at_start=r[7], unpaired=r[8],
                             duration_ns=r[9], events_lost=r[10], warnings=json.loads(r[11]), threads=r[12],
                             checks=checks.get(r[0], [])) for r in rows]


def summary(store: Store, cid: str, run: str | None = None, limit: int = TASK_LIMIT) -> models.OffcpuSummary:
    """Each run's recording and, per run, its threads: the workload's first, then the most time off the
    CPU first, at most ``limit`` of each run (each run's totals over all its threads are in its row)."""
    ref = _ref(store, cid)
    runs = _runs(store, cid)
    if run is not None and run not in {r.run_id for r in runs}:
        raise BadQuery(f"capture {cid} has no off-CPU stacks in run {run!r} "
                       f"(runs with them: {', '.join(r.run_id for r in runs)})")
    params: dict[str, Any] = {"cid": cid, "run": run, "limit": limit}
    # per run and thread: intervals, ns off the CPU, ns per state, the longest, the most frequent
    # waker group, whether it is the workload's; the workload's threads first
    rows = store.query(
        """WITH i AS (SELECT i.*, i.comm IS NOT DISTINCT FROM r.workload_comm AS wl FROM offcpu_intervals i
                     JOIN offcpu_runs r USING (capture_id, run_id)
                     WHERE i.capture_id = $cid AND ($run IS NULL OR i.run_id = $run)),
           st AS (SELECT run_id, tid, state, sum(blocked_ns)::BIGINT AS ns FROM i GROUP BY ALL),
           -- the most frequent command, group and waker of a thread; a tie goes to the first by name
           -- (mode() breaks ties by the order it meets rows, which parallel scans change)
           cm AS (SELECT run_id, tid, first(v ORDER BY n DESC, v) AS comm FROM
                    (SELECT run_id, tid, comm AS v, count(*) AS n FROM i GROUP BY ALL) GROUP BY ALL),
           gr AS (SELECT run_id, tid, first(v ORDER BY n DESC, v) AS grp FROM
                    (SELECT run_id, tid, grp AS v, count(*) AS n FROM i GROUP BY ALL) GROUP BY ALL),
           wk AS (SELECT run_id, tid, first(v ORDER BY n DESC, v) AS waker FROM
                    (SELECT run_id, tid, waker_grp AS v, count(*) AS n FROM i WHERE waker_grp IS NOT NULL
                     GROUP BY ALL) GROUP BY ALL)
        SELECT i.run_id, i.tid, min(i.pid), any_value(cm.comm), any_value(gr.grp), count(*)::BIGINT,
               sum(i.blocked_ns)::BIGINT AS ns, max(i.blocked_ns)::BIGINT,
               (SELECT json_group_object(st.state, st.ns) FROM st WHERE st.run_id = i.run_id AND st.tid = i.tid),
               any_value(wk.waker), bool_or(i.wl) AS wl
        FROM i LEFT JOIN wk ON wk.run_id = i.run_id AND wk.tid = i.tid
               JOIN cm ON cm.run_id = i.run_id AND cm.tid = i.tid
               JOIN gr ON gr.run_id = i.run_id AND gr.tid = i.tid
        GROUP BY i.run_id, i.tid
        QUALIFY row_number() OVER (PARTITION BY i.run_id ORDER BY bool_or(i.wl) DESC, sum(i.blocked_ns) DESC, i.tid) <= $limit
        ORDER BY wl DESC, ns DESC, i.run_id, i.tid""", params).rows
    tasks = [models.OffcpuTaskRow(run_id=r[0], tid=r[1], pid=r[2], comm=r[3], group=r[4], workload=r[10],
                                  intervals=r[5], blocked_ns=r[6], max_ns=r[7],
                                  states=json.loads(r[8]) if r[8] else {}, top_waker=r[9]) for r in rows]
    comms = store.query("SELECT DISTINCT workload_comm FROM offcpu_runs WHERE capture_id = ? AND workload_comm IS NOT NULL",
                        [cid]).rows
    warnings = [f"{r.run_id}: {w}" for r in runs for w in r.warnings]
    return models.OffcpuSummary(capture=ref, runs=runs, events_lost=any(r.events_lost for r in runs),
                                warnings=warnings, workload_comm=comms[0][0] if len(comms) == 1 else None, tasks=tasks)


def _side_where(selector: str, tid_col: str, grp_col: str) -> tuple[str, Any]:
    """SQL condition and parameter for a side: digits are a thread id, anything else a group."""
    if selector.isdigit():
        return f"{tid_col} = ?", int(selector)
    return f"{grp_col} = ?", selector


def _tree(rows: list[tuple[str, int, int]]) -> models.FlameTree:
    t = build_tree({stack: (w, n) for stack, w, n in rows}, 2)
    return models.FlameTree(names=t.names, name=t.name, depth=t.depth, self_weight=t.values[0],
                            self_samples=t.values[1])


def _side(store: Store, cid: str, run: str, sel: str, partner: str) -> models.OffcpuSide:
    cond, val = _side_where(sel, "i.tid", "i.grp")
    pcond, pval = _side_where(partner, "i.waker_tid", "i.waker_grp")
    base = "FROM offcpu_intervals i WHERE i.capture_id = ? AND i.run_id = ? AND " + cond
    args = [cid, run, val]
    # threads selected, their comms, intervals, ns off the CPU, and those ended by a wakeup from the partner
    head = store.query(
        f"""SELECT list(DISTINCT i.tid ORDER BY i.tid), list(DISTINCT i.comm ORDER BY i.comm), count(*)::BIGINT,
                   coalesce(sum(i.blocked_ns), 0)::BIGINT,
                   count(*) FILTER (WHERE {pcond})::BIGINT,
                   coalesce(sum(i.blocked_ns) FILTER (WHERE {pcond}), 0)::BIGINT
            {base}""", [pval, pval] + args).rows[0]
    states = dict(store.query(f"SELECT i.state, sum(i.blocked_ns)::BIGINT {base} GROUP BY 1 ORDER BY 2 DESC",
                              args).rows)
    blocked = store.query(
        f"""SELECT st.folded_stack, sum(i.blocked_ns)::BIGINT, count(*)::BIGINT {base.replace('FROM offcpu_intervals i',
            'FROM offcpu_intervals i JOIN perf_stacks st ON st.capture_id = i.capture_id AND st.run_id = i.run_id '
            'AND st.stack_id = i.stack_id')} GROUP BY 1""", args).rows
    wcond, wval = _side_where(sel, "w.wakee_tid", "w.wakee_grp")
    wpcond, wpval = _side_where(partner, "w.waker_tid", "w.waker_grp")
    wbase = ("FROM offcpu_wakings w JOIN perf_stacks st ON st.capture_id = w.capture_id AND st.run_id = w.run_id "
             "AND st.stack_id = w.stack_id WHERE w.capture_id = ? AND w.run_id = ? AND " + wcond)
    woken = store.query(f"SELECT st.folded_stack, count(*)::BIGINT, count(*)::BIGINT {wbase} GROUP BY 1",
                        [cid, run, wval]).rows
    wk = store.query(
        f"""SELECT count(*)::BIGINT, count(*) FILTER (WHERE {wpcond})::BIGINT
            FROM offcpu_wakings w WHERE w.capture_id = ? AND w.run_id = ? AND {wcond}""",
        [wpval, cid, run, wval]).rows[0]
    if not head[0] and not wk[0]:
        raise BadQuery(f"run {run} of capture {cid} has no off-CPU interval or wakeup of {sel!r} "
                       "(a thread id, or a task group such as 'kworker/*')")
    return models.OffcpuSide(
        selector=sel, label=", ".join(head[1][:4]) + (f" (+{len(head[1]) - 4})" if len(head[1]) > 4 else "") or sel,
        tids=head[0] or [], intervals=head[2], blocked_ns=head[3], woken_by_partner=head[4],
        woken_by_partner_ns=head[5], states=states, wakeups=wk[0], wakeups_by_partner=wk[1],
        blocked=_tree(blocked), woken_by=_tree(woken))


def pair(store: Store, cid: str, run: str, a: str, b: str) -> models.OffcpuPair:
    """Both sides of a ping-pong pair in one run: blocked stacks by time, and who woke them from where."""
    ref = _ref(store, cid)
    runs = _runs(store, cid)
    this = next((r for r in runs if r.run_id == run), None)
    if this is None:
        raise BadQuery(f"capture {cid} has no off-CPU stacks in run {run!r} "
                       f"(runs with them: {', '.join(r.run_id for r in runs)})")
    if a == b:
        raise BadQuery(f"the two sides of a pair must differ (both {a!r})")
    sa, sb = _side(store, cid, run, a, b), _side(store, cid, run, b, a)
    notes = []
    if this.open_at_end or this.in_at_start:
        notes.append(f"run {run}: {this.open_at_end} switch-outs still off the CPU at the end of the recording "
                     f"(at least {this.open_at_end_ns / 1e6:.1f} ms) and {this.in_at_start} switch-ins of threads off "
                     "the CPU since before it are not weighted")
    return models.OffcpuPair(capture=ref, run_id=run, a=sa, b=sb, events_lost=this.events_lost,
                             warnings=[f"{run}: {w}" for w in this.warnings], notes=notes)
