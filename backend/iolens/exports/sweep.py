"""The sweep cells (src/cells/sweep, sweepline, fiolog) in text and HTML exports.

- `sweep` (the matrix; state `m=KEY;abs=1`): the table of report.py, points as rows, the
  baseline absolute with its 95% CI and the others as changes marked with the t-test.
- `sweepline` (state `m=KEY;x=NAME;f=NAME:VALUE,...`): the numbers of the chart: per value of
  the x parameter, each line's mean and 95% CI.
- `fiolog` (state `l=iops;d=all;p=POINT`): per capture, the log's first, last, lowest and highest
  mean over the run, and a link to the chart.
"""

from __future__ import annotations

import html
import urllib.parse
from dataclasses import dataclass, field

from .. import models
from ..views import sweep as sweep_view
from . import report, svg_sweep
from . import textfmt as tf
from .context import ExportContext, parse_state


def _pm(text: str) -> str:
    """The text tables' ASCII '+-' as the app shows it (HTML can carry it)."""
    return tf.for_html(text)


def _legend_html(relative: bool) -> str:
    return ('<p class="legend muted">Mean of each point\'s repeats, &plusmn; the 95% confidence interval of the mean'
            + ('; others: change of the mean against the baseline' if relative else '')
            + ". <b>*</b> Welch's t-test p &lt; 0.05 with 3 or more repeats on both sides; <b>?</b> too few repeats.</p>")


def _points_line(m: models.SweepMatrix) -> str:
    """What the rows are: the sweep's parameter points, and each capture's repeats of them."""
    names = [p.name for p in m.params]
    if not names:
        return "One point (no swept parameter): each capture's runs are its repeats."
    counts = " x ".join(f"{len(p.values)} {p.name}" for p in m.params)
    return (f"Rows: the {len(m.points)} points of the sweep ({counts}); each capture's runs at a point are its "
            "repeats there.")


def _at(others: dict[str, str | None]) -> str:
    """', at rw=randread, iodepth=32; a line per numjobs': the parameters the chart holds fixed or splits by."""
    fixed = [f"{k}={v}" for k, v in others.items() if v is not None]
    split = [k for k, v in others.items() if v is None]
    return (f", at {', '.join(fixed)}" if fixed else "") + (f"; a line per {' and '.join(split)}" if split else "")


@dataclass
class MatrixData:
    m: models.SweepMatrix
    relative: bool


class SweepExport:
    title = "Sweep matrix"

    @staticmethod
    def read_state(state: str) -> dict[str, object]:
        st = parse_state(state)
        return {"metric": st.get("m") or None, "relative": st.get("abs") != "1"}

    def data(self, ctx: ExportContext, state: str) -> MatrixData:
        st = self.read_state(state)
        ids = [c.id for c in ctx.captures]
        return MatrixData(sweep_view.sweep_matrix(ctx.store, ids, ctx.doc.baseline, st["metric"]), st["relative"])

    def text(self, ctx: ExportContext, data: MatrixData) -> list[str]:
        m = data.m
        short = {r.capture: ctx.name(r.capture) for r in m.rows}
        lines = tf.wrap(f"{m.metric.label} ({m.metric.unit or 'no unit'}, {report.BETTER[m.metric.better]}): "
                        f"{m.metric.description}.", indent="    ")
        if not m.points:
            return lines + ["", "    No runs in these captures."]
        lines += tf.wrap(_points_line(m), indent="    ")
        g = report.grid(m, short, "points", False)
        if not data.relative:  # absolute: every capture as the baseline is shown
            g.cells = [[report.base_cell(r.cells.get(p.key), m.metric.unit) for r in m.rows] for p in m.points]
        lines += [""] + ["    " + ln if ln else "" for ln in report.render_grid(g, width=tf.WIDTH - 4)]
        return lines + [""] + tf.wrap(report.LEGEND if data.relative else
                                      "Mean of the repeats, +- the 95% confidence interval of the mean.", indent="    ")

    def html(self, ctx: ExportContext, data: MatrixData) -> str:
        e = html.escape
        m = data.m
        if not m.points:
            return '<p class="muted">No runs in these captures.</p>'
        names = [p.name for p in m.params] or ["point"]
        head = "".join(f"<th>{e(n)}</th>" for n in names) + "".join(
            f'<th class="num">{e(r.label)}{" <span class=base>baseline</span>" if r.capture == m.baseline else ""}</th>'
            for r in m.rows)
        body = []
        for p in m.points:
            tds = "".join(f"<td>{e(p.params.get(n, '') if m.params else p.key)}</td>" for n in names)
            for r in m.rows:
                c = r.cells.get(p.key)
                base = r.capture == m.baseline
                text = report.base_cell(c, m.metric.unit) if base or not data.relative else report.other_cell(c)
                tone = ""
                if c is not None and not base and data.relative and c.significant and c.ratio is not None:
                    tone = "neutral" if m.metric.better == "neutral" else (
                        "better" if (c.ratio > 1) == (m.metric.better == "higher") else "worse")
                title = "" if c is None else e(f"n={c.n}; values {', '.join(tf.format_number(v) for v in c.values)}"
                                              + (f"; p={c.p:.3g}" if c.p is not None else ""), quote=True)
                tds += f'<td class="num tone-{tone or "none"}" title="{title}">{e(_pm(text.strip()))}</td>'
            body.append(f"<tr>{tds}</tr>")
        caption = e(f"{m.metric.label} ({m.metric.unit}, {report.BETTER[m.metric.better]})")
        return (f'<h4>{caption}</h4><div class="scroll"><table class="fio"><thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(body)}</tbody></table></div>' + _legend_html(data.relative))


@dataclass
class LineData:
    m: models.SweepMatrix
    x: str | None
    rows: list[tuple[str, list[str]]]  # (x value, cells per line)
    lines: list[str]
    others: dict[str, str | None] = field(default_factory=dict)  # the other parameters: fixed value, None: a line each
    # what the HTML export draws (svg_sweep.py): per line its capture, label and cell per x value
    series: list[tuple[str, str, list[models.SweepCell | None]]] = field(default_factory=list)
    combos: int = 1
    bands: bool = True


def _fixed(text: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for item in (text or "").split(","):
        if ":" in item:
            k, v = item.split(":", 1)
            out[urllib.parse.unquote(k)] = None if v == "*" else urllib.parse.unquote(v)
    return out


class SweepLineExport:
    title = "Sweep chart"

    @staticmethod
    def read_state(state: str) -> dict[str, object]:
        st = parse_state(state)
        return {"metric": st.get("m") or None, "x": st.get("x") or None, "fixed": _fixed(st.get("f", "")),
                "bands": st.get("band") != "0"}

    def data(self, ctx: ExportContext, state: str) -> LineData:
        st = self.read_state(state)
        ids = [c.id for c in ctx.captures]
        m = sweep_view.sweep_matrix(ctx.store, ids, ctx.doc.baseline, st["metric"])
        names = [p.name for p in m.params]
        numeric = [p.name for p in m.params if len(p.values) > 1 and all(v.replace(".", "", 1).lstrip("-").isdigit()
                                                                         for v in p.values)]
        x = st["x"] if st["x"] in names else (numeric[-1] if numeric else (names[-1] if names else None))
        if x is None:
            return LineData(m, None, [], [])
        fixed = st["fixed"]
        others = {p.name: (fixed[p.name] if p.name in fixed else (p.values[0] if p.values else None))
                  for p in m.params if p.name != x}
        splits = [n for n, v in others.items() if v is None]
        combos: list[dict[str, str]] = [{}]
        for n in splits:
            combos = [dict(c, **{n: v}) for c in combos for v in next(p.values for p in m.params if p.name == n)]
        xvals = next(p.values for p in m.params if p.name == x)
        lines = [f"{ctx.name(r.capture)}{' ' + ' '.join(f'{k}={v}' for k, v in c.items()) if c else ''}"
                 for r in m.rows for c in combos]
        rows = []
        raw: list[list[models.SweepCell | None]] = [[] for _ in lines]
        for xv in xvals:
            cells = []
            for r in m.rows:
                for c in combos:
                    want = {x: xv, **{k: v for k, v in others.items() if v is not None}, **c}
                    point = next((p for p in m.points if p.params == want), None)
                    cell = r.cells.get(point.key) if point else None
                    raw[len(cells)].append(cell)
                    cells.append(report.base_cell(cell, m.metric.unit))
            rows.append((xv, cells))
        caps = [r.capture for r in m.rows for _ in combos]
        return LineData(m, x, rows, lines, others, list(zip(caps, lines, raw)), len(combos), st["bands"])

    def text(self, ctx: ExportContext, data: LineData) -> list[str]:
        if data.x is None:
            return ["    These captures sweep no parameter."]
        m = data.m
        lines = tf.wrap(f"{m.metric.label} ({m.metric.unit or 'no unit'}, {report.BETTER[m.metric.better]}) against "
                        f"{data.x}{_at(data.others)}: {m.metric.description}; mean of each capture's repeats at the "
                        "point, +- the 95% confidence interval of the mean.", indent="    ")
        g = report.Grid(head_names=[data.x], rows=[[xv] for xv, _ in data.rows],
                        col_heads=[[tf.fit(n, 24)] for n in data.lines], cells=[c for _, c in data.rows])
        return lines + [""] + ["    " + ln if ln else "" for ln in report.render_grid(g, width=tf.WIDTH - 4)]

    def html(self, ctx: ExportContext, data: LineData) -> str:
        if data.x is None:
            return '<p class="muted">These captures sweep no parameter.</p>'
        return svg_sweep.sweepline(ctx, data)


class FioLogExport:
    title = "fio log over time"

    @staticmethod
    def read_state(state: str) -> dict[str, str | None]:
        st = parse_state(state)
        return {"log": st["l"] if st.get("l") in ("iops", "bw", "lat", "clat", "slat") else "iops",
                "ddir": st["d"] if st.get("d") in ("all", "read", "write", "trim") else "all",
                "point": urllib.parse.unquote(st["p"]) if st.get("p") else None}

    def data(self, ctx: ExportContext, state: str) -> models.FioLogSeries:
        st = self.read_state(state)
        return sweep_view.fio_log_series(ctx.store, [c.id for c in ctx.captures], st["log"], st["ddir"], st["point"])

    def _rows(self, d: models.FioLogSeries, bare_rate: bool = False) -> list[tuple[str, list[str]]]:
        """Per series: first, last, lowest and highest mean value, the end of the log and the runs.
        `bare_rate`: IO/s values without the unit, '98.11k' (the text's heading names it)."""
        def value(v: float) -> str:
            text = tf.format_value(v, d.unit)
            return text.removesuffix("IO/s").rstrip() if bare_rate and d.unit == "IO/s" else text

        out = []
        for s in d.series:
            means = [p.mean for p in s.points]
            if not means:
                continue
            out.append((s.label, [value(v) for v in (means[0], means[-1], min(means), max(means))]
                        + [f"{s.points[-1].t_s:g} s", str(len(s.runs))]))
        return out

    def text(self, ctx: ExportContext, d: models.FioLogSeries) -> list[str]:
        if not d.series:
            return tf.wrap("No fio time-series logs in these captures (iolens-collect --fio-logs MSEC).", indent="    ")
        step = d.series[0].step_ms
        rows = self._rows(d, bare_rate=True)
        # One number of runs for all goes in the heading; a runs column only when they differ (beside
        # four values, a sixth column would not fit 72 characters).
        runs = {cells[-1] for _, cells in rows}
        repeats = f"mean of the {next(iter(runs))} repeats" if len(runs) == 1 else "mean of the repeats (runs: last column)"
        keep = 5 if len(runs) == 1 else 6
        pts = sorted({s.point for s in d.series if s.point and s.point != "all"})
        point = f", at {'; '.join(pts)}" if pts else ""
        lines = tf.wrap(f"fio {d.log} log ({d.unit}, direction {d.ddir}), averaged over {step} ms, {repeats}{point}"
                        ": first, last, lowest and highest value over the run", indent="    ")
        g = report.Grid(head_names=["capture"], rows=[[tf.fit(lbl, 20)] for lbl, _ in rows],
                        col_heads=[["first"], ["last"], ["min"], ["max"], ["until"], ["runs"]][:keep],
                        cells=[c[:keep] for _, c in rows])
        lines += [""] + ["    " + ln if ln else "" for ln in report.render_grid(g, width=tf.WIDTH - 4)]
        many = {s.capture for s in d.series if len(d.points.get(s.capture, [])) > 1}
        if many:
            lines += [""] + tf.wrap(f"{', '.join(ctx.name(c) for c in sorted(many))} ha{'s' if len(many) == 1 else 've'} "
                                    "logs at other points too: the chart at the link picks the point.", indent="    ")
        return lines

    def html(self, ctx: ExportContext, d: models.FioLogSeries) -> str:
        return svg_sweep.fiolog(ctx, d)
