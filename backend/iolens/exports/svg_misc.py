"""The charts of the scheduler, monitors, traced events and lock contention cells in the HTML export
(their data, text and tables stay in exports/sched.py, monitors.py, events.py, lockstat.py), as
the app draws them:

- sched: context switches per second over time on the workload's CPUs, a line per capture and run
  (src/cells/sched/SchedRate.tsx overlay), with perf stat's counted figure beside the trace's; under
  the notebook's timeline selection, the intervals of its range only (the app's window);
- monitors: the key of the cell (`k=`, or the row that moved most) over time, mean of the runs with
  the runs' range as a band (MonitorsCell.tsx);
- events: the chosen event's rate over time per capture (EventsCell.tsx), and its counts per value
  of the field as horizontal bars;
- lockstat: the top classes' wait (total or per I/O) per capture as horizontal bars.

Each chart has its key numbers below it, with the runs they come from.
"""

from __future__ import annotations

import html
import math
from typing import Any

from .. import models
from ..store.rules.run_span import run_span
from ..views import events as events_view
from ..views import monitors as monitors_view
from ..views import sched as sched_view
from . import svgplot as sp
from . import textfmt as tf
from .context import ExportContext, parse_state
from .svgplot import Axis, Line

e = html.escape
RUN_DASHES = ["", "6 3", "2 2", "8 3 2 3", "1 3"]
TIME = Axis("time since the run started", "s")


def _color(ctx: ExportContext, capture: str) -> str:
    order = list(ctx.doc.captures)
    return sp.capture_color(order.index(capture) if capture in order else 0)


# --- sched ---------------------------------------------------------------------------------------

def _in_span(rate: models.SchedSwitchRate, span: tuple[int, int]) -> models.SchedSwitchRate:
    """The intervals of each run's series that overlap the range (ns since the run's start), moved
    onto that run's trace by its own offset (store/rules/run_span.py)."""
    w = rate.step_ms * 1_000_000
    own = {r.id: run_span(span[0], span[1], r.offset_ns or 0) for r in rate.runs}
    series = []
    for s in rate.series:
        lo, hi = own.get(s.run_id, span)
        keep = [i for i, t in enumerate(s.t_s) if round(t * 1e9) + w > lo and round(t * 1e9) < hi]
        cols = {k: [getattr(s, k)[i] for i in keep] for k in ("t_s", "switches", "involuntary", "voluntary",
                                                              "from_idle", "wakeups", "migrations")}
        series.append(s.model_copy(update=cols))
    return rate.model_copy(update={"series": series})


def sched(ctx: ExportContext, cmp: models.SchedComparison, traced: list[str],
          span: tuple[int, int] | None = None) -> str:
    lines: list[Line] = []
    rows = []
    steps: set[int] = set()
    for cid in traced:
        try:
            rate = sched_view.switch_rate(ctx.store, cid, None, "workload", 1000)
            if span is not None:
                if max((len(s.t_s) for s in _in_span(rate, span).series), default=0) < 20:
                    rate = sched_view.switch_rate(ctx.store, cid, None, "workload", 100)
                rate = _in_span(rate, span)
            elif max((len(s.t_s) for s in rate.series), default=0) < 20:  # short runs: 100 ms intervals
                rate = sched_view.switch_rate(ctx.store, cid, None, "workload", 100)
        except (sched_view.BadQuery, LookupError):
            continue
        step = rate.step_ms
        color = _color(ctx, cid)
        label = ctx.label(cid)
        runs = sorted({s.run_id for s in rate.series})
        counted = {c.run_id: c for c in rate.counted if c.event == "context-switches" and c.workload}
        for k, run in enumerate(runs):
            per_cpu = [s for s in rate.series if s.run_id == run]
            if not per_cpu:
                continue
            n = max(len(s.t_s) for s in per_cpu)
            t = next(s.t_s for s in per_cpu if len(s.t_s) == n)
            total = [sum(s.switches[i] for s in per_cpu if i < len(s.switches)) for i in range(n)]
            invol = [sum(s.involuntary[i] for s in per_cpu if i < len(s.involuntary)) for i in range(n)]
            cpus = ",".join(str(s.cpu) for s in per_cpu)
            lines.append(Line(f"{label} {run}", color, t, total, dash=RUN_DASHES[k % len(RUN_DASHES)]))
            mean = sum(total) / len(total) if total else None
            share = sum(invol) / sum(total) * 100 if sum(total) else None
            c = counted.get(run)
            cval = [v for v in (c.values if c else []) if v is not None]
            steps.add(step)
            counted_cell = (sp.val(sum(cval) / len(cval), "/s") + (' <span class="muted">(whole run)</span>' if span else "")
                            if cval else '<span class="muted">not recorded</span>')
            rows.append([sp.swatch(color, RUN_DASHES[k % len(RUN_DASHES)]) + e(f"{label} {run}")
                         + (' <span class="tone-worse">&#9888; events lost</span>' if cmp.status[cid].events_lost else ""),
                         e(cpus), sp.val(mean, "/s"), sp.val(max(total) if total else None, "/s"),
                         "-" if share is None else f"{share:.1f} %", counted_cell])
    if not lines:
        return ""
    x = TIME if span is None else Axis("time since the trace's first event", "s")
    svg, note = sp.xy_chart(lines, x, Axis("context switches", "/s"), height=220,
                            label="context switches per second on the workload's CPUs")
    every = " and ".join(f"{x / 1000:g} s" for x in sorted(steps))
    where = ("" if span is None else f", the intervals of {span[0] / 1e9:.3f}-{span[1] / 1e9:.3f} s since each run's "
             "start (timeline selection), on each run's own trace")
    return sp.figure("sched-rate", "Context switches on the workload's CPUs", f"per second, {every} intervals{where}, the "
                     "workload's CPUs summed, a line per run", svg,
                     sp.legend([(ln.label, ln.color, ln.dash) for ln in lines], note),
                     sp.numbers(["run", "CPUs", "mean", "highest interval", "involuntary", "perf stat counted (mean)"],
                                rows, "From the scheduler trace (perf sched record) of each run; involuntary: the "
                                "task leaving was preempted; perf stat's context-switches of the workload, counted "
                                "in its own intervals (never lost), when recorded."))


# --- monitors ------------------------------------------------------------------------------------

def _mon_unit(unit: str) -> str:
    return {"bytes/s": "B/s", "bytes": "B"}.get(unit, unit)


def monitors(ctx: ExportContext, data: models.MonitorComparison) -> str:
    st = parse_state(ctx.cell_state)
    key = None
    if st.get("k"):
        import urllib.parse

        k = urllib.parse.unquote(st["k"])
        if "/" in k:
            key = tuple(k.split("/", 1))
    if key is None:
        if not data.rows:
            return ""
        key = (data.rows[0].source, data.rows[0].key)
    ids = [c for c in data.captures if data.available.get(c)]
    try:
        s = monitors_view.series(ctx.store, ids, key[0], key[1])
    except LookupError:
        return ""
    unit = s.unit
    lines, rows = [], []
    for x in s.series:
        if not x.points:
            continue
        color = _color(ctx, x.capture)
        lines.append(Line(x.label, color, [p.t_s for p in x.points], [p.mean for p in x.points],
                          lo=[p.lo for p in x.points], hi=[p.hi for p in x.points]))
        means = [p.mean for p in x.points]
        cell = next((r.cells.get(x.capture) for r in data.rows if (r.source, r.key) == key), None)
        ratio = "" if cell is None or x.capture == data.baseline else tf.for_html(tf.format_ratio(cell.ratio))
        rows.append([sp.swatch(color) + e(x.label), _fmt(sum(means) / len(means), unit), _fmt(min(means), unit),
                     _fmt(max(means), unit), "-" if cell is None else _fmt(cell.value, unit) + (f" ({e(ratio)})" if ratio else ""),
                     str(max(p.n for p in x.points))])
    if not lines:
        return ""
    svg, note = sp.xy_chart(lines, TIME, Axis(f"{s.source}/{s.key}", _mon_unit(unit) or "count"), height=220,
                            label=f"{s.source}/{s.key} over time")
    what = "per second of run (a counter's change)" if s.counter else "its level"
    return sp.figure("monitors", f"{s.source}/{s.key}", f"{unit}, {what}, mean of the runs", svg,
                     sp.legend([(ln.label, ln.color, "") for ln in lines],
                               "; ".join(x for x in ("band: the runs' range", note) if x)),
                     sp.numbers(["capture", "mean over time", "lowest", "highest", "the comparison's value", "runs"],
                                rows, "Sampled by iolens-collect --monitors during each run; the comparison's value: "
                                "mean of the runs (vs the baseline)."))


def _fmt(v: float | None, unit: str) -> str:
    u = _mon_unit(unit)
    if u in ("B/s", "IO/s", "ns", "%", "/s"):
        return sp.val(v, u)
    if v is None or not math.isfinite(v):
        return "-"
    a = abs(v)
    num = (f"{v / 1e9:.2f}G" if a >= 1e9 else f"{v / 1e6:.2f}M" if a >= 1e6 else f"{v / 1e3:.1f}k" if a >= 1e4
           else f"{v:.1f}" if a < 100 and v != int(v) else f"{v:,.0f}")  # as exports/monitors.py
    return e(f"{num} {unit}".strip())


# --- events --------------------------------------------------------------------------------------

def events(ctx: ExportContext, summary: models.EventsSummary, by: models.EventsByField | None) -> str:
    if not summary.events:
        return ""
    event = by.event if by is not None else summary.events[0].event
    ids = [c.id for c in ctx.captures]
    out = []
    try:
        rate = events_view.rate(ctx.store, ids, event)
    except (events_view.BadEventQuery, LookupError):
        rate = None
    if rate is not None and rate.series:
        lines, rows = [], []
        for s in rate.series:
            color = _color(ctx, s.capture)
            lines.append(Line(s.label, color, [i * rate.bucket_s for i in range(len(s.per_s))], s.per_s))
            ev = next((x for x in summary.events if x.event == event and x.capture == s.capture), None)
            rows.append([sp.swatch(color) + e(s.label)
                         + (' <span class="tone-worse">&#9888; events lost</span>' if ev is not None and ev.lost else ""),
                         sp.val(sum(s.per_s) / len(s.per_s) if s.per_s else None, "/s"),
                         sp.val(max(s.per_s) if s.per_s else None, "/s"),
                         "-" if ev is None else f"{ev.per_run:,.0f}", "-" if ev is None else str(ev.runs)])
        svg, note = sp.xy_chart(lines, TIME, Axis(event, "/s"), height=220, label=f"{event} per second over time")
        out.append(sp.figure("events-rate", f"{event} over time", f"events per second, {tf.for_html(tf.format_value(rate.bucket_s * 1e9, 'ns'))} "
                             "buckets, mean of the runs", svg, sp.legend([(ln.label, ln.color, "") for ln in lines], note),
                             sp.numbers(["capture", "mean rate", "highest bucket", "events per run", "runs"], rows,
                                        f"Traced with iolens-collect --trace {e(event)}; each bucket averaged over the runs.")))
    if by is not None and by.captures:
        names: list[str] = []
        for c in by.captures:
            for r in c.rows:
                n = "(the rest)" if r.rest else (r.value if r.value is not None else by.event)
                if n not in names:
                    names.append(str(n))
        bars = []
        for c in by.captures:
            per = {("(the rest)" if r.rest else str(r.value if r.value is not None else by.event)): r.per_run for r in c.rows}
            bars.append((ctx.label(c.capture), _color(ctx, c.capture), [per.get(n) for n in names]))
        svg = sp.hbar_chart(names, bars, Axis("events", "per run"), label=f"{by.event} per {by.field}")
        rows = []
        for c in by.captures:
            for r in c.rows:
                n = "(the rest)" if r.rest else (r.value if r.value is not None else by.event)
                rows.append([sp.swatch(_color(ctx, c.capture)) + e(f"{ctx.label(c.capture)}: {n}"), f"{r.per_run:,.1f}",
                             "-" if r.first_s is None else f"{r.first_s:.3f} s", "-" if r.last_s is None else f"{r.last_s:.3f} s"])
        out.append(sp.figure("events-field", f"{by.event} per {by.field or 'event'}", "events per run, the top values",
                             svg, sp.legend([(b[0], b[1], "") for b in bars]),
                             sp.numbers(["capture: value", "per run", "first", "last"], rows,
                                        "Counted from the trace of each run (mean of the runs); first and last: time "
                                        "since the run started.")))
    return "".join(out)


# --- lockstat ------------------------------------------------------------------------------------

def lockstat(ctx: ExportContext, data: Any) -> str:
    """data: exports/lockstat.py LockData."""
    if not data.rows:
        return ""
    names = [r.lock_class + (f" ({r.occurrence + 1}.)" if r.occurrence else "") for r in data.rows]
    bars = []
    for cid in data.caps:
        vals = []
        for r in data.rows:
            s = r.cells.get(cid)
            vals.append(None if s is None else (s.wait_per_op_ns if data.per_op else s.wait_total_ns))
        bars.append((ctx.label(cid), _color(ctx, cid), vals))
    what = "wait per I/O" if data.per_op else "total wait"
    svg = sp.hbar_chart(names, bars, Axis(what, "ns"), label=f"lock classes by {what}")
    return sp.figure("lockstat", f"Lock classes: {what}", f"the first {len(data.rows)} of {data.total} classes, {data.sort}",
                     svg, sp.legend([(b[0], b[1], "") for b in bars]))
