"""A SQL cell's chart as a static SVG string, for the HTML export (no script needed).

Same rules as the frontend's src/charts/sqlChart.ts: x is linear when every x value is a number,
otherwise categorical in row order; line and scatter sort numeric x; bar groups the y columns per
x value. Colours: Tableau 10, in y column order.
"""

from __future__ import annotations

import html
import math
from typing import Any

from . import textfmt as tf

COLORS = ["#4e79a7", "#f28e2c", "#e15759", "#76b7b2", "#59a14f", "#edc949", "#af7aa1", "#ff9da7", "#9c755f", "#bab0ab"]
W, H = 1040, 260  # the page's width (exports/svgplot.py W)
M = {"top": 12, "right": 18, "bottom": 40, "left": 70}


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    if lo == hi:
        lo, hi = lo - (abs(lo) * 0.1 or 1), hi + (abs(hi) * 0.1 or 1)
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step) * step
    ticks = []
    v = start
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 12))
        v += step
    return ticks


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)) and math.isfinite(v):
        return float(v)
    return None


def _short(v: float) -> str:
    a = abs(v)
    for f, s in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= f:
            return f"{v / f:.3g}{s}"
    return f"{v:.3g}"


def chart_svg(columns: list[str], rows: list[list[Any]], mark: str, x: str, ys: list[str]) -> str:
    e = html.escape
    if x not in columns or not any(y in columns for y in ys):
        return '<p class="muted">The chart\'s columns are not in the result.</p>'
    xi = columns.index(x)
    ycols = [(y, columns.index(y)) for y in ys if y in columns]
    xs_raw = [r[xi] for r in rows]
    numeric_x = mark != "bar" and all(_num(v) is not None for v in xs_raw if v is not None) and any(
        v is not None for v in xs_raw)
    vals = [_num(r[i]) for r in rows for _, i in ycols]
    ynums = [v for v in vals if v is not None]
    if not ynums:
        return '<p class="muted">No numbers to draw in the chart\'s y columns.</p>'
    lo, hi = min(ynums), max(ynums)
    if mark == "bar":
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    yt = nice_ticks(lo, hi)
    y0, y1 = min(yt[0], lo), max(yt[-1], hi)
    pw, ph = W - M["left"] - M["right"], H - M["top"] - M["bottom"]

    def sy(v: float) -> float:
        return M["top"] + ph - (v - y0) / ((y1 - y0) or 1) * ph

    parts = [f'<svg class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             f'role="img" aria-label="{e(mark)} chart of {e(", ".join(ys))} by {e(x)}">']
    for t in yt:
        yy = sy(t)
        parts.append(f'<line x1="{M["left"]}" x2="{W - M["right"]}" y1="{yy:.1f}" y2="{yy:.1f}" class="grid"/>'
                     f'<text x="{M["left"] - 6}" y="{yy + 3.5:.1f}" text-anchor="end">{e(_short(t))}</text>')
    if numeric_x:
        xv = [_num(v) for v in xs_raw]
        xn = [v for v in xv if v is not None]
        xt = nice_ticks(min(xn), max(xn))
        x0, x1 = min(xt[0], min(xn)), max(xt[-1], max(xn))

        def sx(v: float) -> float:
            return M["left"] + (v - x0) / ((x1 - x0) or 1) * pw

        for t in xt:
            parts.append(f'<text x="{sx(t):.1f}" y="{H - M["bottom"] + 14}" text-anchor="middle">{e(_short(t))}</text>')
        for k, (_, i) in enumerate(ycols):
            pts = sorted((xv[r], _num(row[i])) for r, row in enumerate(rows)
                         if xv[r] is not None and _num(row[i]) is not None)
            color = COLORS[k % len(COLORS)]
            if mark == "line" and len(pts) > 1:
                d = " ".join(f"{'M' if j == 0 else 'L'}{sx(a):.1f},{sy(b):.1f}" for j, (a, b) in enumerate(pts))
                parts.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.5"/>')
            r = 2 if mark == "line" else 3
            parts += [f'<circle cx="{sx(a):.1f}" cy="{sy(b):.1f}" r="{r}" fill="{color}" fill-opacity="0.8"/>' for a, b in pts]
    else:
        cats = list(dict.fromkeys(tf.format_number(v) for v in xs_raw))
        band = pw / max(len(cats), 1)
        step = max(1, math.ceil(len(cats) / 12))
        chars = max(4, int(band * step / 6.2) - 1)
        for j, c in enumerate(cats):
            if j % step == 0:
                parts.append(f'<text x="{M["left"] + band * (j + 0.5):.1f}" y="{H - M["bottom"] + 14}" '
                             f'text-anchor="middle">{e(tf.fit(c, chars))}<title>{e(c)}</title></text>')
        for k, (_, i) in enumerate(ycols):
            color = COLORS[k % len(COLORS)]
            pts = []
            for row in rows:
                v = _num(row[i])
                if v is None:
                    continue
                j = cats.index(tf.format_number(row[xi]))
                pts.append((j, v))
            if mark == "bar":
                bw = band * 0.8 / len(ycols)
                for j, v in pts:
                    bx = M["left"] + band * j + band * 0.1 + bw * k
                    top, bottom = sy(max(v, 0)), sy(min(v, 0))
                    parts.append(f'<rect x="{bx:.1f}" y="{top:.1f}" width="{max(bw - 1, 1):.1f}" '
                                 f'height="{max(bottom - top, 0.5):.1f}" fill="{color}"/>')
            else:
                coords = [(M["left"] + band * (j + 0.5), sy(v)) for j, v in pts]
                if mark == "line" and len(coords) > 1:
                    d = " ".join(f"{'M' if n == 0 else 'L'}{a:.1f},{b:.1f}" for n, (a, b) in enumerate(coords))
                    parts.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.5"/>')
                parts += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="{2 if mark == "line" else 3}" fill="{color}"/>' for a, b in coords]
    parts.append(f'<line x1="{M["left"]}" x2="{W - M["right"]}" y1="{sy(y0):.1f}" y2="{sy(y0):.1f}" class="axis"/>')
    parts.append(f'<text x="{M["left"] + pw / 2:.1f}" y="{H - 5}" text-anchor="middle" class="axis-title">{e(x)}</text>')
    ytitle = ", ".join(y for y, _ in ycols)
    parts.append(f'<text transform="translate(13,{M["top"] + ph / 2:.1f}) rotate(-90)" text-anchor="middle" '
                 f'class="axis-title">{e(tf.fit(ytitle, 40))}</text>')
    parts.append("</svg>")
    legend = "".join(f'<span><i style="background:{COLORS[k % len(COLORS)]}"></i>{e(y)}</span>' for k, (y, _) in enumerate(ycols))
    return (f'<figure class="chart" data-chart="sql">{"".join(parts)}<figcaption class="legend">{legend}</figcaption>'
            "</figure>")
