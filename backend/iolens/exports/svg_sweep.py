"""The sweep chart and fio log cells' charts in the HTML export (exports/sweep.py keeps their data
and text), as the app draws them (src/logic/sweep.ts, src/charts/bandChart.ts): a line per capture
(and per value of a parameter drawn as "each", dashed), mean of the repeats, band: the 95 %
confidence interval of the mean (sweep chart) or the min-max over the repeats (fio log). Below
each chart the numbers it draws: per line and x value the mean, its 95 % CI or the repeats' range,
and n.
"""

from __future__ import annotations

import html
from typing import Any

from .. import models
from . import svgplot as sp
from . import textfmt as tf
from .context import ExportContext
from .svgplot import Axis, Line

e = html.escape
DASHES = ["", "6 3", "2 2", "8 3 2 3", "1 3"]  # src/logic/sweep.ts
LOG_NAMES = {"iops": "IOPS", "bw": "Bandwidth", "clat": "clat (completion latency)", "lat": "lat (total latency)",
             "slat": "slat (submission latency)"}


def _color(ctx: ExportContext, capture: str) -> str:
    order = list(ctx.doc.captures)
    return sp.capture_color(order.index(capture) if capture in order else 0)


def sweepline(ctx: ExportContext, d: Any) -> str:
    """d: exports/sweep.py LineData, with `series`: (capture, label, cells per x value)."""
    m: models.SweepMatrix = d.m
    unit = m.metric.unit or ""
    xs = [xv for xv, _ in d.rows]
    lines = []
    for k, (cap, label, cells) in enumerate(d.series):
        combo = k % max(1, d.combos)
        titles = [f"{label}, {d.x}={xv}: " + (report_cell(c, unit)) for xv, c in zip(xs, cells)]
        lines.append(Line(label, _color(ctx, cap), xs, [c.mean if c else None for c in cells],
                          lo=[c.ci_low if c else None for c in cells] if d.bands else None,
                          hi=[c.ci_high if c else None for c in cells] if d.bands else None,
                          dash=DASHES[combo % len(DASHES)], dots=True, titles=titles))
    svg, note = sp.xy_chart(lines, Axis(d.x, "swept", values=xs), Axis(m.metric.label, unit), height=260,
                            label=f"{m.metric.label} against {d.x}")
    fixed = "; ".join(f"{k}={v}" for k, v in d.others.items() if v is not None)
    head = ["line"] + [e(f"{d.x}={xv}") for xv in xs]
    rows = []
    for (_cap, label, cells), ln in zip(d.series, lines):
        rows.append([sp.swatch(ln.color, ln.dash) + e(label)]
                    + [_cell_html(c, unit) for c in cells])
    better = {"higher": "higher is better", "lower": "lower is better"}.get(m.metric.better, "")
    return sp.figure(
        "sweepline", f"{m.metric.label} against {d.x}",
        ", ".join(x for x in (f"{unit}" if unit else "", better, fixed) if x),
        svg, sp.legend([(ln.label, ln.color, ln.dash) for ln in lines],
                       "; ".join(x for x in ("mean of the repeats" + ("; band: 95 % confidence interval of the mean" if d.bands else ""), note) if x)),
        sp.numbers(head, rows, "Mean of each point's repeats &plusmn; the half width of the 95 % confidence interval of "
                               "the mean (Student t), n repeats; from each capture's runs at that point"
                   + (f" ({e(fixed)})" if fixed else "") + "."))


def report_cell(c: models.SweepCell | None, unit: str) -> str:
    if c is None or c.mean is None:
        return "no value"
    text = tf.format_value(c.mean, unit)
    if c.ci_high is not None and c.n >= 2:
        text += f" +-{tf.format_value(c.ci_high - c.mean, unit)}"
    return tf.for_html(text + f" (n={c.n}, runs {', '.join(c.runs)})")


def _cell_html(c: models.SweepCell | None, unit: str) -> str:
    if c is None or c.mean is None:
        return '<span class="muted">&ndash;</span>'
    ci = (f' <span class="muted">&plusmn;{e(tf.for_html(tf.format_value(c.ci_high - c.mean, unit)))}</span>'
          if c.ci_high is not None and c.n >= 2 else "")
    return f'{sp.val(c.mean, unit)}{ci} <span class="muted small">n={c.n}</span>'


def fiolog(ctx: ExportContext, d: models.FioLogSeries, bands: bool = True) -> str:
    unit = d.unit
    lines = []
    rows = []
    multi = len({s.capture for s in d.series}) < len(d.series)
    for s in d.series:
        if not s.points:
            continue
        label = s.label + (f" {s.point}" if multi and s.point else "")
        xs = [p.t_s for p in s.points]
        lines.append(Line(label, _color(ctx, s.capture), xs, [p.mean for p in s.points],
                          lo=[p.min for p in s.points] if bands else None, hi=[p.max for p in s.points] if bands else None))
        means = [p.mean for p in s.points]
        rows.append([sp.swatch(lines[-1].color) + e(label), sp.val(means[0], unit), sp.val(means[-1], unit),
                     sp.val(min(means), unit), sp.val(max(means), unit), sp.val(sum(means) / len(means), unit),
                     f"{s.points[-1].t_s:g} s", e(", ".join(s.runs))])
    if not lines:
        return '<p class="muted">No fio time-series logs in these captures (iolens-collect --fio-logs MSEC).</p>'
    step = d.series[0].step_ms
    svg, note = sp.xy_chart(lines, Axis("time since the job started", "s"), Axis(LOG_NAMES.get(d.log, d.log), unit),
                            height=260, label=f"fio {d.log} log over time")
    point = d.series[0].point
    sub = f"{unit}, direction {d.ddir}, every {step} ms" + (f", point {point}" if point else "")
    return sp.figure(
        "fiolog", f"fio {LOG_NAMES.get(d.log, d.log)} log over time", sub, svg,
        sp.legend([(ln.label, ln.color, "") for ln in lines],
                  "; ".join(x for x in ("mean of the repeats" + ("; band: min\u2013max over the repeats" if bands else ""), note) if x)),
        sp.numbers(["capture", "first", "last", "lowest", "highest", "mean over time", "until", "runs"], rows,
                   f"fio's own {e(d.log)} log (write_{e(d.log)}_log, log_avg_msec={step}), each value the mean of the "
                   "runs at that time; first and last: the first and last window of the job."))
