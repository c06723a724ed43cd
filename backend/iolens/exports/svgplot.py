"""The charts of the HTML export as inline SVG: lines over time or over a swept parameter (with a
band around each line), histograms and grouped bars. No script: every point has a <title> that
viewers show on hover, the legend and the key numbers are HTML below the chart.

Drawn as the app draws them (src/charts/bandChart.ts, timeSeries.ts): one colour per capture by its
position in the notebook (Tableau 10, src/logic/colors.ts), a capture's later runs shaded
(src/logic/blockSeries.ts mix), y from 0 for values >= 0, both axes titled with their unit. Numbers
on the axes use the one formatter of the exports (textfmt.scale_for: the unit scaled once for the
whole axis, 'MiB/s', 'k IO/s', '\u00b5s'); the key numbers under each chart use format_value, as
the app's tables do.

Every chart is a <figure class="chart" data-chart="NAME"> with one <svg class="plot">, as wide as
the page (viewBox W, drawn at width 100 %), so it fits a 1440 px screen and an A4 page alike.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import textfmt as tf
from .svgchart import COLORS, nice_ticks

W = 1040              # the page's content width (html.py body: 1100 px less the cell's padding)
MARGIN = {"top": 14, "right": 18, "bottom": 40, "left": 70}
RUN_SHADES = [0, 0.4, -0.3, 0.6, -0.5]  # a capture's 2nd, 3rd... run (src/logic/blockSeries.ts)
DASHES = {"": "", "dash": "6 3", "dot": "2 3", "dashdot": "8 3 2 3"}

e = html.escape


def capture_color(index: int) -> str:
    """The capture's colour by its position in the notebook's captures (src/logic/colors.ts)."""
    return COLORS[index % len(COLORS)]


def mix(hex_: str, k: float) -> str:
    """#rrggbb toward white (k > 0) or black (k < 0) by |k| (src/logic/blockSeries.ts mix)."""
    n = int(hex_.lstrip("#"), 16)
    ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255]
    ch = [round(c + (255 - c) * k) if k >= 0 else round(c * (1 + k)) for c in ch]
    return "#" + "".join(f"{c:02x}" for c in ch)


def run_color(base: str, k: int) -> str:
    return mix(base, RUN_SHADES[k % len(RUN_SHADES)])


@dataclass
class Line:
    label: str
    color: str
    x: Sequence[float | str]
    y: Sequence[float | None]
    lo: Sequence[float | None] | None = None   # the band around the line (95 % CI, min-max)
    hi: Sequence[float | None] | None = None
    dash: str = ""                             # "", "dash", "dot", "dashdot"
    width: float = 1.6
    dots: bool = False
    titles: Sequence[str] | None = None        # per point, the hover text
    step: bool = False                         # a histogram's steps


@dataclass
class Axis:
    title: str               # "IOPS", "time since run start"
    unit: str                # a unit textfmt knows ("IO/s", "B/s", "ns", "%", "/s", "s"...) or any text
    log: bool = False
    values: list[str] = field(default_factory=list)  # categorical axis: its values, in order


def axis_scale(top: float, unit: str) -> tuple[float, str]:
    """(factor, unit shown) for an axis whose largest value is top: 'MiB/s', 'k IO/s', '\u00b5s'."""
    if unit in ("IO/s", "B/s", "ns", "/s"):
        factor, suffix, _ = tf.scale_for(top or 1.0, unit)
        return factor, tf.for_html(suffix.strip() if unit != "/s" else (suffix.replace("/s", "") + " per s").strip())
    return 1.0, unit


def _tick_text(v: float, step: float) -> str:
    if v == 0:
        return "0"
    dec = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return f"{v:,.{dec}f}"


def _with_unit(v: float, unit: str) -> str:
    """A round tick with its own unit: '5 µs', '20 ms'."""
    factor, suffix, _ = tf.scale_for(v, unit)
    return tf.for_html(f"{v / factor:g}{suffix}")


def _title(axis: Axis, unit: str) -> str:
    return f"{axis.title} ({unit})" if unit else axis.title


def _path(points: list[tuple[float, float] | None], step: bool = False) -> str:
    out, pen = [], False
    prev: tuple[float, float] | None = None
    for p in points:
        if p is None:
            pen = False
            continue
        if step and pen and prev is not None:
            out.append(f"L{p[0]:.1f},{prev[1]:.1f}")
        out.append(f"{'L' if pen else 'M'}{p[0]:.1f},{p[1]:.1f}")
        pen, prev = True, p
    return "".join(out)


def legend(items: Sequence[tuple[str, str, str]], note: str = "") -> str:
    """HTML legend: (label, colour, dash) per line; note: what the chart leaves out, its scale."""
    keys = "".join(f'<span><i class="key" style="border-top:2.5px {"dashed" if dash else "solid"} {color}"></i>'
                   f"{e(label)}</span>" for label, color, dash in items)
    return keys + (f'<span class="muted">{e(note)}</span>' if note else "")


def figure(name: str, title: str, sub: str, svg: str, caption: str, numbers: str = "") -> str:
    """A chart with its heading (title, what it shows), legend, and key numbers below."""
    head = f'<div class="chart-head"><b>{e(title)}</b>' + (f' <span class="muted">{e(sub)}</span>' if sub else "") + "</div>"
    return (f'<figure class="chart" data-chart="{e(name)}">{head}{svg}'
            f'<figcaption class="legend">{caption}</figcaption>{numbers}</figure>')


def xy_chart(lines: Sequence[Line], x: Axis, y: Axis, *, height: int = 220, label: str = "",
             robust: bool = False, y_min_zero: bool = True) -> tuple[str, str]:
    """Lines (with bands) on a linear, log or categorical x against a linear y. Returns (svg, note):
    note says how the scale was set when a spike was clipped (robust=True, as the app's block charts:
    when the largest value is above twice the 90th percentile, the scale is set by that percentile;
    clipped points sit on the top edge, marked)."""
    m = MARGIN
    pw, ph = W - m["left"] - m["right"], height - m["top"] - m["bottom"]
    ys = [v for ln in lines for v in ln.y if v is not None and math.isfinite(v)]
    ys += [v for ln in lines for v in (ln.hi or []) if v is not None and math.isfinite(v)]
    if not ys:
        return '<p class="muted">No values to draw.</p>', ""
    lo_v, hi_v = min(ys), max(ys)
    note = ""
    pos = sorted(v for ln in lines for v in ln.y if v is not None and math.isfinite(v) and v > 0)
    if robust and len(pos) >= 20:  # src/logic/blockSeries.ts robustTop: the 90th percentile of the values
        q = pos[min(len(pos) - 1, math.ceil(0.9 * len(pos)) - 1)]
        if q > 0 and pos[-1] > 2 * q:
            clip = q
            note = "clip"
            peak, hi_v = hi_v, clip * 1.15  # a little room above the steady state
    if y_min_zero and lo_v >= 0:
        lo_v = 0.0
    factor, yunit = axis_scale(hi_v, y.unit)
    yt = nice_ticks(lo_v / factor, hi_v / factor, 5)
    y0, y1 = min(yt[0], lo_v / factor), max(yt[-1], hi_v / factor)
    ystep = yt[1] - yt[0] if len(yt) > 1 else 1
    if note == "clip":
        note = (f"scale set by the 90th percentile (the cell's scale=full draws all): values above {tf.for_html(tf.format_value(y1 * factor, y.unit))} "
                f"(up to {tf.for_html(tf.format_value(peak, y.unit))}) drawn on the top edge, marked \u25b2")

    def sy(v: float) -> float:
        v = min(max(v / factor, y0), y1)
        return m["top"] + ph - (v - y0) / ((y1 - y0) or 1) * ph

    # x
    if x.values:
        cats = x.values
        band = pw / max(len(cats), 1)

        def sx(v: float | str) -> float:
            i = cats.index(str(v)) if str(v) in cats else 0
            return m["left"] + band * (i + 0.5)

        every = max(1, math.ceil(len(cats) * 7.0 * max((len(c) for c in cats), default=1) / pw))
        xticks = [(sx(c), c) for i, c in enumerate(cats) if i % every == 0]
        xunit = x.unit
    else:
        xs = [float(v) for ln in lines for v in ln.x]  # type: ignore[arg-type]
        if x.log:
            xs = [v for v in xs if v > 0]
        x_lo, x_hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
        xfactor, xunit = axis_scale(x_hi, x.unit)
        if x.log:
            a, b = math.log10(x_lo), math.log10(x_hi if x_hi > x_lo else x_lo * 10)

            def sx(v: float | str) -> float:
                return m["left"] + (math.log10(max(float(v), x_lo)) - a) / ((b - a) or 1) * pw

            xticks = []
            for k in range(math.floor(a), math.ceil(b) + 1):
                for mult in (1, 2, 5):
                    t = mult * 10 ** k
                    if x_lo * 0.999 <= t <= x_hi * 1.001:
                        xticks.append((sx(t), _with_unit(t, x.unit) if x.unit in ("ns", "B/s", "IO/s")
                                       else _tick_text(t / xfactor, min(1.0, t / xfactor))))
            if x.unit in ("ns", "B/s", "IO/s"):  # each tick has its unit: the title names them
                units = list(dict.fromkeys(t.split(" ", 1)[1] for _, t in xticks if " " in t))
                xunit = "log scale" + (": " + ", ".join(units) if units else "")
            else:
                xunit = (xunit + ", " if xunit else "") + "log scale"
        else:
            xt = nice_ticks(x_lo / xfactor, x_hi / xfactor, 8)
            x0, x1 = min(xt[0], x_lo / xfactor), max(xt[-1], x_hi / xfactor)
            xstep = xt[1] - xt[0] if len(xt) > 1 else 1

            def sx(v: float | str) -> float:
                return m["left"] + (float(v) / xfactor - x0) / ((x1 - x0) or 1) * pw

            xticks = [(sx(t * xfactor), _tick_text(t, xstep)) for t in xt]

    aria = label or f"{y.title} against {x.title}"
    parts = [f'<svg class="plot" viewBox="0 0 {W} {height}" width="{W}" '
             f'height="{height}" role="img" aria-label="{e(aria)}">']
    for t in yt:
        yy = sy(t * factor)
        parts.append(f'<line x1="{m["left"]}" x2="{W - m["right"]}" y1="{yy:.1f}" y2="{yy:.1f}" class="grid"/>'
                     f'<text x="{m["left"] - 6}" y="{yy + 3.5:.1f}" text-anchor="end" class="tick">'
                     f'{e(_tick_text(t, ystep))}</text>')
    bottom = m["top"] + ph
    parts.append(f'<line x1="{m["left"]}" x2="{W - m["right"]}" y1="{bottom}" y2="{bottom}" class="axis"/>')
    for xx, text in xticks:
        parts.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{bottom}" y2="{bottom + 4}" class="axis"/>'
                     f'<text x="{xx:.1f}" y="{bottom + 15}" text-anchor="middle" class="tick">{e(text)}</text>')
    parts.append(f'<text x="{m["left"] + pw / 2:.1f}" y="{height - 5}" text-anchor="middle" class="axis-title">'
                 f'{e(_title(x, xunit))}</text>')
    parts.append(f'<text transform="translate(13,{m["top"] + ph / 2:.1f}) rotate(-90)" text-anchor="middle" '
                 f'class="axis-title">{e(_title(y, yunit))}</text>')
    for ln in lines:
        if ln.lo is not None and ln.hi is not None:
            top = [(sx(a), sy(h)) for a, h, v in zip(ln.x, ln.hi, ln.y) if h is not None and v is not None]
            bot = [(sx(a), sy(max(lo, 0) if y_min_zero and lo_v >= 0 else lo)) for a, lo, v in zip(ln.x, ln.lo, ln.y)
                   if lo is not None and v is not None]
            if len(top) > 1 and len(top) == len(bot):
                d = "M" + "L".join(f"{a:.1f},{b:.1f}" for a, b in top + bot[::-1]) + "Z"
                parts.append(f'<path d="{d}" fill="{ln.color}" fill-opacity="0.13" stroke="none"/>')
    for ln in lines:
        pts = [None if v is None or not math.isfinite(v) else (sx(a), sy(v)) for a, v in zip(ln.x, ln.y)]
        d = _path(pts, ln.step)
        dash = DASHES.get(ln.dash, ln.dash)
        g = [f'<g data-series="{e(ln.label)}">']
        if d and sum(p is not None for p in pts) > 1:
            g.append(f'<path d="{d}" fill="none" stroke="{ln.color}" stroke-width="{ln.width}"'
                     + (f' stroke-dasharray="{dash}"' if dash else "") + ' stroke-linejoin="round"/>')
        for k, (p, v) in enumerate(zip(pts, ln.y)):
            if p is None or v is None:
                continue
            over = v / factor > y1 * 1.0001
            if ln.dots or over or sum(q is not None for q in pts) == 1:
                tip = ln.titles[k] if ln.titles else ""
                shape = (f'<path d="M{p[0] - 4:.1f},{p[1] + 5:.1f}L{p[0] + 4:.1f},{p[1] + 5:.1f}L{p[0]:.1f},{p[1] - 2:.1f}Z" '
                         f'fill="{ln.color}">' if over else
                         f'<circle cx="{p[0]:.1f}" cy="{p[1]:.1f}" r="3" fill="{ln.color}">')
                g.append(shape + (f"<title>{e(tip)}</title>" if tip else "") + ("</path>" if over else "</circle>"))
        g.append("</g>")
        parts.append("".join(g))
    parts.append("</svg>")
    return "".join(parts), note


def bar_chart(groups: Sequence[str], bars: Sequence[tuple[str, str, Sequence[float | None]]], x: Axis, y: Axis,
              *, height: int = 200, label: str = "", titles: Sequence[Sequence[str]] | None = None) -> str:
    """Grouped vertical bars: per group (x value) one bar per series (label, colour, values)."""
    m = MARGIN
    pw, ph = W - m["left"] - m["right"], height - m["top"] - m["bottom"]
    vals = [v for _, _, vs in bars for v in vs if v is not None]
    if not vals or not groups:
        return '<p class="muted">No values to draw.</p>'
    hi_v = max(max(vals), 0.0)
    factor, yunit = axis_scale(hi_v, y.unit)
    yt = nice_ticks(0, hi_v / factor or 1, 5)
    y1 = max(yt[-1], hi_v / factor)
    ystep = yt[1] - yt[0] if len(yt) > 1 else 1

    def sy(v: float) -> float:
        return m["top"] + ph - (v / factor) / (y1 or 1) * ph

    band = pw / len(groups)
    parts = [f'<svg class="plot" viewBox="0 0 {W} {height}" width="{W}" '
             f'height="{height}" role="img" aria-label="{e(label or y.title)}">']
    for t in yt:
        yy = sy(t * factor)
        parts.append(f'<line x1="{m["left"]}" x2="{W - m["right"]}" y1="{yy:.1f}" y2="{yy:.1f}" class="grid"/>'
                     f'<text x="{m["left"] - 6}" y="{yy + 3.5:.1f}" text-anchor="end" class="tick">{e(_tick_text(t, ystep))}</text>')
    bottom = m["top"] + ph
    every = max(1, math.ceil(len(groups) * 7.0 * max(len(g) for g in groups) / pw))
    n = max(len(bars), 1)
    bw = min(band * 0.8 / n, 40)
    for j, g in enumerate(groups):
        cx = m["left"] + band * (j + 0.5)
        if j % every == 0:
            parts.append(f'<text x="{cx:.1f}" y="{bottom + 15}" text-anchor="middle" class="tick">{e(g)}</text>')
        for k, (name, color, vs) in enumerate(bars):
            v = vs[j] if j < len(vs) else None
            if v is None:
                continue
            bx = cx - bw * n / 2 + bw * k
            top = sy(max(v, 0))
            tip = titles[k][j] if titles else f"{name}, {g}: {tf.format_value(v, y.unit)}"
            parts.append(f'<rect x="{bx:.1f}" y="{top:.1f}" width="{max(bw - 1.5, 1):.1f}" '
                         f'height="{max(bottom - top, 0.5):.1f}" fill="{color}"><title>{e(tip)}</title></rect>')
    parts.append(f'<line x1="{m["left"]}" x2="{W - m["right"]}" y1="{bottom}" y2="{bottom}" class="axis"/>')
    parts.append(f'<text x="{m["left"] + pw / 2:.1f}" y="{height - 5}" text-anchor="middle" class="axis-title">'
                 f'{e(_title(x, x.unit))}</text>')
    parts.append(f'<text transform="translate(13,{m["top"] + ph / 2:.1f}) rotate(-90)" text-anchor="middle" '
                 f'class="axis-title">{e(_title(y, yunit))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def hbar_chart(rows: Sequence[str], bars: Sequence[tuple[str, str, Sequence[float | None]]], x: Axis,
               *, label: str = "", row_h: int = 0) -> str:
    """Horizontal bars: per row (a name, left) one bar per series; for long names (lock classes)."""
    n = max(len(bars), 1)
    row_h = row_h or max(16, 7 * n + 6)
    left = min(360, 16 + 6.6 * max((len(r) for r in rows), default=4))
    m = {"top": 6, "right": 90, "bottom": 40}
    height = m["top"] + row_h * len(rows) + m["bottom"]
    pw = W - left - m["right"]
    vals = [v for _, _, vs in bars for v in vs if v is not None]
    if not vals:
        return '<p class="muted">No values to draw.</p>'
    hi_v = max(vals)
    factor, xunit = axis_scale(hi_v, x.unit)
    xt = nice_ticks(0, hi_v / factor or 1, 6)
    x1 = max(xt[-1], hi_v / factor)
    xstep = xt[1] - xt[0] if len(xt) > 1 else 1

    def sx(v: float) -> float:
        return left + max(v, 0) / factor / (x1 or 1) * pw

    bottom = m["top"] + row_h * len(rows)
    parts = [f'<svg class="plot" viewBox="0 0 {W} {height}" width="{W}" '
             f'height="{height}" role="img" aria-label="{e(label or x.title)}">']
    for t in xt:
        xx = sx(t * factor)
        parts.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{m["top"]}" y2="{bottom}" class="grid"/>'
                     f'<text x="{xx:.1f}" y="{bottom + 15}" text-anchor="middle" class="tick">{e(_tick_text(t, xstep))}</text>')
    bh = (row_h - 6) / n
    max_chars = int((left - 12) / 6.6)
    for j, r in enumerate(rows):
        y0 = m["top"] + row_h * j + 3
        parts.append(f'<text x="{left - 8:.1f}" y="{y0 + (row_h - 6) / 2 + 4:.1f}" text-anchor="end" class="name">'
                     f'{e(tf.fit(r, max_chars))}<title>{e(r)}</title></text>')
        for k, (name, color, vs) in enumerate(bars):
            v = vs[j] if j < len(vs) else None
            if v is None:
                continue
            parts.append(f'<rect x="{left}" y="{y0 + bh * k:.1f}" width="{max(sx(v) - left, 0.5):.1f}" '
                         f'height="{max(bh - 1, 1):.1f}" fill="{color}"><title>{e(name)}: {e(r)}: '
                         f'{e(tf.format_value(v, x.unit))}</title></rect>'
                         f'<text x="{sx(v) + 4:.1f}" y="{y0 + bh * k + bh / 2 + 3.5:.1f}" class="tick">'
                         f'{e(tf.for_html(tf.format_value(v, x.unit)))}</text>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{m["top"]}" y2="{bottom}" class="axis"/>')
    parts.append(f'<text x="{left + pw / 2:.1f}" y="{height - 5}" text-anchor="middle" class="axis-title">'
                 f'{e(_title(x, xunit))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def numbers(head: Sequence[str], rows: Sequence[Sequence[str]], note: str = "") -> str:
    """The key numbers below a chart: a compact table (the first column: what the row is, with its
    colour key as HTML), then where they came from."""
    th = "".join(f'<th{" class=num" if i else ""}>{h}</th>' for i, h in enumerate(head))
    body = "".join("<tr>" + "".join(f'<td{" class=num" if i else ""}>{c}</td>' for i, c in enumerate(r)) + "</tr>"
                   for r in rows)
    return (f'<table class="numbers"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'
            + (f'<p class="source muted">{note}</p>' if note else ""))


def swatch(color: str, dash: str = "") -> str:
    return f'<i class="key" style="border-top:2.5px {"dashed" if dash else "solid"} {color}"></i>'


def val(v: float | None, unit: str) -> str:
    """A number with its unit, as the app shows it (HTML-escaped)."""
    return e(tf.for_html(tf.format_value(v, unit)))


def dot_strip(values: Sequence[float], mean: float | None, base_mean: float | None, lo: float, hi: float,
              color: str, width: int = 72, height: int = 14) -> str:
    """A row's per-repeat values as dots on the row's shared scale, the tick the mean, the grey line
    the baseline's mean (src/charts/dotStrip.ts, DotStrip.tsx): the fio table's strips."""
    if lo == hi:
        d = abs(lo) * 0.01 or 1
        lo, hi = lo - d, hi + d
    pad = 4

    def x(v: float) -> float:
        v = min(max(v, lo), hi)
        return round(pad + (v - lo) / (hi - lo) * (width - 2 * pad), 1)

    mid = height / 2
    out = [f'<svg class="strip" width="{width}" height="{height}" viewBox="0 0 {width} {height}" aria-hidden="true">'
           f'<line x1="{pad}" x2="{width - pad}" y1="{mid}" y2="{mid}" stroke="#d8dee4"/>']
    if base_mean is not None:
        out.append(f'<line x1="{x(base_mean)}" x2="{x(base_mean)}" y1="1" y2="{height - 1}" stroke="#8c959f"/>')
    if mean is not None:
        out.append(f'<line x1="{x(mean)}" x2="{x(mean)}" y1="2" y2="{height - 2}" stroke="{color}" stroke-width="1.5"/>')
    out += [f'<circle cx="{x(v)}" cy="{mid}" r="2.5" fill="{color}" fill-opacity="0.55" stroke="{color}" '
            f'stroke-width="0.75"/>' for v in values if math.isfinite(v)]
    return "".join(out) + "</svg>"
