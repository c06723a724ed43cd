"""Time order (speedscope's "time order", Firefox Profiler's stack chart): the samples of one
thread, or of one CPU, of one run, in the order they were taken, with their call stacks. The flame
cell merges consecutive samples that share a frame prefix into one box per level
(frontend/src/logic/flameTime.ts), after the same transforms as its flame graph: the server sends the
sequence, compactly, not boxes, so a transform or a zoom needs no new answer.

The answer (models.FlameTimeOrder):
- `names`: distinct frame names; `stack_frames` / `stack_start`: the distinct stacks of the
  sequence, stack k is stack_frames[stack_start[k]:stack_start[k + 1]], root side first, its first
  frame the task's command name (as folded stacks);
- per sample, in time order: `dt_ns`, ns since the previous sample (the first: since the run's
  origin, its first sample of any event: the origin of the flame cell's time ranges), and `stack`,
  the index of its stack (-1: perf printed no usable frame);
- `interval_ns`: the time one sample stands for: for cpu-clock and task-clock the median sample
  period (ns of CPU), otherwise the median gap between consecutive samples of the track. A box of n
  samples lasts n x interval_ns.

Which track: the filters' thread (`tid`), else their one CPU (`cpus` of one element), else the
busiest thread of the run whose command is `workload` (the capture's workload, e.g. fio; the cell
knows it), else the busiest thread that is not the idle task (tid 0). Which run: the filters' one
run, else the first. The other filters (event, command, time range) apply as in the flame graph.
"""

from __future__ import annotations

import time
from dataclasses import replace

from .. import models
from ..store.db import Store
from .flame import BadQuery, Filters, _capture, _resolve, _tasks_sql, _weight_unit, _where

# A sequence longer than this is refused: ask for a time range.
MAX_SAMPLES = 5_000_000


def time_order(store: Store, cid: str, f: Filters = Filters(), workload: str | None = None) -> models.FlameTimeOrder:
    started = time.perf_counter()
    cap = _capture(store, cid)
    f = _resolve(cap, f)
    if f.runs is not None and len(f.runs) != 1:
        raise BadQuery(f"time order shows one run at a time, not {len(f.runs)} ({', '.join(f.runs)})")
    if f.cpus is not None and len(f.cpus) != 1 and f.tid is None:
        raise BadQuery(f"time order shows one CPU or one thread, not CPUs {', '.join(map(str, f.cpus))}")
    run = f.runs[0] if f.runs is not None else cap.runs[0].id
    f = replace(f, runs=(run,))
    notes: list[str] = []

    # the run's threads and CPUs (event and run only, so that the pickers offer every choice)
    join, where, params = _where(cid, Filters(event=f.event, runs=f.runs))
    tasks = store.query(_tasks_sql(join, where), params).rows
    cpus = store.query(f"SELECT s.cpu, count(*)::BIGINT FROM perf_samples s {join} WHERE {where} AND s.cpu IS NOT NULL "
                       "GROUP BY 1 ORDER BY 1", params).rows
    t0, t1 = store.query("SELECT min(ts_ns), max(ts_ns) FROM perf_samples WHERE capture_id = ? AND run_id = ?",
                         [cid, run]).rows[0]

    if f.tid is not None:
        kind, picked = "thread", "the thread chosen"
    elif f.cpus is not None:
        kind, picked = "cpu", "the CPU chosen"
    else:
        kind = "thread"
        busiest = [t for t in tasks if t[0] != 0]
        ours = [t for t in busiest if workload is not None and t[2] == workload]
        if ours:
            f, picked = replace(f, tid=ours[0][0]), "the workload's busiest thread"
        elif busiest:
            f, picked = replace(f, tid=busiest[0][0]), "the busiest thread of the run"
        else:
            raise BadQuery(f"run {run} of capture {cid} has no {f.event} samples of a thread")

    join, where, params = _where(cid, f)
    # dt: ns since the previous sample of the track (the first: since the run's origin t0); sid: perf_stacks.stack_id
    seq = store.query(
        f"""WITH q AS (
                SELECT s.ts_ns, s.stack_id AS sid, s.weight, s.tid, s.pid, s.comm
                FROM perf_samples s {join} WHERE {where} AND s.ts_ns IS NOT NULL)
            SELECT count(*)::BIGINT AS n,
                   list(sid ORDER BY ts_ns) AS sids,
                   list(ts_ns ORDER BY ts_ns) AS ts,
                   median(weight)::BIGINT AS median_weight,
                   min(pid) AS pid,
                   -- the most frequent command and thread; a tie to the first (mode() would take
                   -- whichever row a parallel scan met first)
                   (SELECT first(comm ORDER BY n DESC, comm) FROM (SELECT comm, count(*) AS n FROM q GROUP BY 1)) AS comm,
                   (SELECT first(tid ORDER BY n DESC, tid) FROM (SELECT tid, count(*) AS n FROM q WHERE tid IS NOT NULL GROUP BY 1)) AS tid
            FROM q""", params).rows[0]
    n = int(seq[0])
    if n > MAX_SAMPLES:
        raise BadQuery(f"this track has {n:,} samples, more than {MAX_SAMPLES:,}: choose a time range")
    sids: list[int | None] = seq[1] or []
    ts: list[int] = seq[2] or []
    # distinct stacks, in order of first use
    index: dict[int, int] = {}
    for sid in sids:
        if sid is not None and sid not in index:
            index[sid] = len(index)
    stack_text: dict[int, str] = {}
    if index:
        rows = store.query("SELECT stack_id, folded_stack FROM perf_stacks WHERE capture_id = ? AND run_id = ? "
                           "AND list_contains(?, stack_id)", [cid, run, list(index)]).rows
        stack_text = {int(r[0]): r[1] for r in rows}
    names: dict[str, int] = {}
    frames: list[int] = []
    start = [0]
    for sid in index:
        for fr in stack_text[sid].split(";"):
            frames.append(names.setdefault(fr, len(names)))
        start.append(len(frames))
    stack = [-1 if sid is None else index[sid] for sid in sids]
    dt = [ts[0] - t0] + [b - a for a, b in zip(ts, ts[1:])] if ts else []
    stackless = stack.count(-1)

    unit = _weight_unit(f.event)
    if unit == "ns" and seq[3]:
        interval, interval_from = int(seq[3]), "the median sample period"
    else:
        gaps = sorted(x for x in dt[1:] if x > 0)
        interval = gaps[len(gaps) // 2] if gaps else 1
        interval_from = "the median time between consecutive samples of this track"
        if unit != "ns":
            notes.append(f"{f.event} counts events, not time: a sample stands for the median gap between samples, "
                         f"{interval / 1e6:.3g} ms")
    if stackless:
        notes.append(f"{stackless:,} sample{'s' if stackless != 1 else ''} had no usable frame: gaps in the chart")
    if n == 0:
        notes.append("no sample of this track matches the selection")
    track = models.FlameTrack(kind=kind, tid=f.tid if kind == "thread" else None,
                              pid=seq[4] if kind == "thread" else None,
                              comm=seq[5] if kind == "thread" else None,
                              cpu=f.cpus[0] if kind == "cpu" and f.cpus else None, picked=picked)
    return models.FlameTimeOrder(
        capture=cap.ref, filters=f.public(), weight_unit=unit, run=run, runs=cap.runs, track=track,
        threads=[models.FlameTask(tid=t, pid=p, comm=c, samples=k) for t, p, c, k in tasks],
        cpus=[models.FlameCpu(cpu=c, samples=k) for c, k in cpus],
        t0_ns=int(t0), duration_ns=int(t1 - t0), interval_ns=interval, interval_from=interval_from,
        samples=n, stackless_samples=stackless, names=list(names), stack_frames=frames, stack_start=start,
        dt_ns=dt, stack=stack, notes=notes, elapsed_ms=round((time.perf_counter() - started) * 1000, 1))
