"""A capture's headline figures, per probe and run, for its page (GET /api/captures/{id}/headlines):
what a kernel engineer reads first, each figure with its unit and where it came from. Every figure
comes from the probe's own view (views/block.py, sched.py, flame.py, lock_stat.py, monitors.py,
events.py), computed as that view's cell and the text report compute it:

- block, per run, the whole run on the run's busiest device: I/Os completed, IOPS and throughput
  while the trace ran, the time-weighted queue depth (mean, and the highest of 200 intervals), and
  the device's issue-to-complete (D2C) latency p50 and p99 from its histogram (within ~4 %); the
  loss warning of the run. The same figures as the block cell's text export (exports/block.py;
  test_capture_headlines.py holds the two together).
- sched, per run with a trace: context switches/s on the workload's CPUs, the share of them that
  were involuntary (preemptions), the workload's wakeup-to-run delay p99 (views/sched.py METRICS).
- stacks, per run: samples of the capture's first sampled event with a stack, what they weigh, the
  workload's share of them, and the function with the largest self share among the workload's own
  tasks (views/workload.py; all tasks when the workload's command is not known).
- offcpu, per run with off-CPU stacks (--offcpu): the waits weighed, the time they spent off the
  CPU, and the workload's share of that time (the off-CPU cell's totals; no top function: every
  off-CPU stack ends in the scheduler).
- lock_stat, the capture (its dumps are summed over the runs): the most contended class by total
  wait, its contentions and wait, and how many classes were contended.
- monitors, the capture: the sources recorded and how many counters moved.
- events, the capture: per traced event, events per run, flagged when the recording lost some.
"""

from __future__ import annotations

import time

from .. import models
from ..store.db import Store
from ..store.derived import OFFCPU_EVENT, OFFCPU_EVENTS
from ..store.rules.bin_percentile import percentile_of_bins
from . import block as block_view
from . import captures as captures_view
from . import events as events_view
from . import flame as flame_view
from . import lock_stat as lock_view
from . import monitors as monitors_view
from . import sched as sched_view
from .workload import workload_comm

BLOCK_BUCKETS = 200  # the resolution of "queue depth max": the highest of this many intervals per run
SCHED_KEYS = ("switches_workload", "involuntary_pct", "workload_delay_p99")


def _fig(label: str, value: float | None, unit: str, source: str, text: str | None = None) -> models.HeadlineFigure:
    return models.HeadlineFigure(label=label, value=value, unit=unit, text=text, source=source)


def block(store: Store, cid: str) -> list[models.ProbeHeadline]:
    runs = {r.run_id: r for r in block_view.runs(store, [cid])}
    if not runs:
        return []
    qd = block_view.queue_depth(store, [cid], None, None, BLOCK_BUCKETS, None)
    io = block_view.iops(store, [cid], None, None, BLOCK_BUCKETS, None)
    hist = block_view.latency_histogram(store, [cid], None, None, None)
    w = qd.grid.interval_ns
    out = []
    for d, r, h in zip(qd.series, io.series, hist.series):
        run = runs.get(d.run_id)
        first, last = (run.first_ns or 0, run.last_ns or 0) if run else (0, 0)
        span = max(0, last - first)
        ios = sum(v * w / 1e9 for o in r.ops for v in o.iops)
        nbytes = sum(v * w / 1e9 for o in r.ops for v in o.bytes_per_s)
        busy = sum(v * w for v in d.depth)
        in_run = [v for t, v in zip(qd.t_ns, d.depth) if t + w > first and t < last]
        merged: dict[int, list[float]] = {}
        for o in h.ops:
            for b in o.bins:
                merged.setdefault(b.bin, [b.low_ns, b.high_ns, 0])[2] += b.count
        bins = [merged[k] for k in sorted(merged)]
        kind = run.kind if run else "block"
        trace = f"{'blktrace' if kind == 'blkparse' else 'perf block:block_rq_*'} trace of the run"
        per_s = f"{trace}: completions over the {span / 1e9:.3f} s it covers"
        out.append(models.ProbeHeadline(
            probe="block", run_id=d.run_id,
            scope=f"device {d.device}, whole run" if d.device else "all devices summed, whole run",
            figures=[
                _fig("completed", ios, "I/Os", f"{trace}: I/Os completed"),
                _fig("IOPS", ios / (span / 1e9) if span else None, "IO/s", per_s),
                _fig("throughput", nbytes / (span / 1e9) if span else None, "B/s", per_s),
                _fig("queue depth mean", busy / span if span else None, "",
                     f"{trace}: I/Os issued and not completed, time-weighted over the run"),
                _fig("queue depth max", max(in_run) if in_run else None, "",
                     f"{trace}: the highest time-weighted mean of {BLOCK_BUCKETS} intervals of "
                     f"{w / 1e6:g} ms"),
                _fig("D2C p50", percentile_of_bins(bins, 50), "ns",
                     f"{trace}: issue to complete at the device, from its histogram (8 bins per doubling, "
                     "within ~4 %)"),
                _fig("D2C p99", percentile_of_bins(bins, 99), "ns",
                     f"{trace}: issue to complete at the device, from its histogram (within ~4 %)"),
            ],
            warnings=list(d.warnings) if d.events_lost else []))
    return out


def sched(store: Store, cid: str) -> list[models.ProbeHeadline]:
    cmp = sched_view.compare(store, [cid], cid)
    st = cmp.status.get(cid)
    if st is None or not st.runs:
        return []
    rows = {m.metric: m for m in cmp.metrics}
    who = st.workload_comm or "the workload"
    cpus = ",".join(map(str, st.workload_cpus)) if st.workload_cpus else "all (not known)"
    out = []
    for run in st.runs:
        figs = []
        for key in SCHED_KEYS:
            row = rows.get(key)
            if row is None:
                continue
            cell = row.cells.get(cid)
            value = None
            if cell is not None and run in cell.runs:
                value = cell.values[cell.runs.index(run)]
            label = {"switches_workload": "context switches", "involuntary_pct": "involuntary",
                     "workload_delay_p99": "wakeup delay p99"}[key]
            figs.append(_fig(label, value, row.unit, f"perf sched trace of the run: {row.description}"))
        lost = [w for w in st.warnings if w.startswith(f"run {run}:")] if st.events_lost else []
        out.append(models.ProbeHeadline(probe="sched", run_id=run, scope=f"{who} on CPUs {cpus}", figures=figs,
                                        warnings=lost))
    return out


def stacks(store: Store, cid: str) -> list[models.ProbeHeadline]:
    runs = [r[0] for r in store.query(
        "SELECT DISTINCT run_id FROM perf_samples WHERE capture_id = ? ORDER BY run_id", [cid]).rows]
    comm = workload_comm(captures_view.get_capture(store, cid))
    out = []
    for run in runs:
        try:
            every = flame_view.top_functions(store, cid, flame_view.Filters(runs=(run,)), by="self", limit=1)
            top = (flame_view.top_functions(store, cid, flame_view.Filters(runs=(run,), comm=comm), by="self", limit=1)
                   if comm else every)
        except (flame_view.NoStacks, flame_view.BadQuery):
            continue
        ev = every.filters.event
        if ev in OFFCPU_EVENTS:
            continue  # only off-CPU stacks (--offcpu): offcpu() says what they weigh
        src = f"perf record samples of {ev} with a call stack in the run"
        figs = [_fig("samples", every.total_samples, "samples", f"{src}, all tasks"),
                _fig("CPU time" if every.weight_unit == "ns" else "weight", every.total_weight,
                     "ns" if every.weight_unit == "ns" else "events", f"{src}, all tasks: their periods summed")]
        who = f"{comm}'s tasks" if comm else "all tasks"
        if comm:
            figs.append(_fig(f"{comm}'s share", 100.0 * top.total_weight / every.total_weight if every.total_weight
                             else None, "%", f"{src}: the weight of the samples of tasks named {comm}"))
        if top.functions:
            f = top.functions[0]
            figs.append(_fig("top function", f.self_pct, "%",
                             f"{src}, {who}: the largest self share (samples ending in it) of their weight", text=f.name))
        out.append(models.ProbeHeadline(probe="stacks", run_id=run, scope=f"event {ev}; top function of {who}",
                                        figures=figs, warnings=[]))
    return out


def offcpu(store: Store, cid: str) -> list[models.ProbeHeadline]:
    runs = [r[0] for r in store.query(
        "SELECT DISTINCT run_id FROM perf_samples WHERE capture_id = ? AND event = ? ORDER BY run_id",
        [cid, OFFCPU_EVENT]).rows]
    comm = workload_comm(captures_view.get_capture(store, cid))
    out = []
    for run in runs:
        try:
            every = flame_view.top_functions(store, cid, flame_view.Filters(event=OFFCPU_EVENT, runs=(run,)),
                                             by="self", limit=1)
            mine = (flame_view.top_functions(store, cid, flame_view.Filters(event=OFFCPU_EVENT, runs=(run,), comm=comm),
                                             by="self", limit=1) if comm else None)
        except (flame_view.NoStacks, flame_view.BadQuery):
            continue
        src = "sched_switch call chains of the run (--offcpu), each wait from a task's switch-out to its switch-in"
        figs = [_fig("waits", every.total_samples, "", f"{src}: the waits weighed, all tasks"),
                _fig("off the CPU", every.total_weight, "ns", f"{src}: their time off the CPU summed, all tasks")]
        if mine is not None:
            figs.append(_fig(f"{comm}'s share", 100.0 * mine.total_weight / every.total_weight if every.total_weight
                             else None, "%", f"{src}: the time off the CPU of tasks named {comm}"))
        out.append(models.ProbeHeadline(probe="offcpu", run_id=run, scope="event offcpu, weighed by time off the CPU",
                                        figures=figs, warnings=[]))
    return out


def lock_stat(store: Store, cid: str) -> list[models.ProbeHeadline]:
    top = lock_view.top_classes(store, cid, "wait_total", limit=1)
    if not top.availability.available:
        return []
    src = "/proc/lock_stat, the difference of the dumps before and after each run, summed over the runs"
    figs = [_fig("classes contended", top.contended, "", src)]
    if top.rows and top.rows[0].stat.contentions:
        r = top.rows[0]
        figs += [_fig("top class", None, "text", f"{src}: the class with the most total wait", text=r.lock_class),
                 _fig("contentions", r.stat.contentions, "", f"{src}: acquisitions of {r.lock_class} that waited"),
                 _fig("wait time", r.stat.wait_total_ns, "ns", f"{src}: total wait for {r.lock_class}"),
                 _fig("wait avg", r.stat.wait_avg_ns, "ns", f"{src}: total wait / contentions")]
    return [models.ProbeHeadline(probe="lock_stat", run_id=None, scope="all runs", figures=figs, warnings=[])]


def monitors(store: Store, cid: str) -> list[models.ProbeHeadline]:
    cmp = monitors_view.compare(store, [cid], cid, None, limit=1)
    sources = cmp.available.get(cid) or []
    if not sources:
        return []
    src = "the collector's monitors (--monitors), sampled through each run"
    return [models.ProbeHeadline(probe="monitors", run_id=None, scope="all runs", warnings=[], figures=[
        _fig("sources", len(sources), "", src, text=", ".join(sources)),
        _fig("counters", cmp.total, "", f"{src}: keys that are non-zero")])]


def events(store: Store, cid: str) -> list[models.ProbeHeadline]:
    s = events_view.summary(store, [cid])
    if not s.events:
        return []
    figs = [_fig(e.event, e.per_run, "events/run", f"perf record of the tracepoint over {e.runs} run"
                 f"{'s' if e.runs != 1 else ''} (--trace)") for e in s.events]
    lost = [f"{e.event}: the recording kept fewer events than perf stat counted ({e.recorded} of {e.counted})"
            for e in s.events if e.lost]
    return [models.ProbeHeadline(probe="events", run_id=None, scope="per run, mean over the runs", figures=figs,
                                 warnings=lost)]


def capture_headlines(store: Store, cid: str) -> models.CaptureHeadlines:
    started = time.perf_counter()
    probes: list[models.ProbeHeadline] = []
    for part in (block, sched, stacks, offcpu, lock_stat, monitors, events):
        probes += part(store, cid)
    return models.CaptureHeadlines(capture_id=cid, probes=probes,
                                   elapsed_ms=round((time.perf_counter() - started) * 1000, 1))
