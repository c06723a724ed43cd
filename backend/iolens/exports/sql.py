"""SQL cells in exports: the query, its result as a table, and for a chart its key numbers (text)
or a static SVG (HTML). Queries run through the same sandbox as in the app."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

from .. import models
from ..store.sandbox import SqlAnswer, SqlRefused
from . import textfmt as tf
from .context import ExportContext
from .svgchart import chart_svg

TEXT_ROWS = 20  # rows of a result shown in the text report
HTML_ROWS = 500


@dataclass
class SqlData:
    answer: SqlAnswer | None
    error: str | None


def run(ctx: ExportContext, cell: models.SqlCell) -> SqlData:
    try:
        return SqlData(ctx.sandbox.run(cell.sql, [c.id for c in ctx.captures]), None)
    except SqlRefused as exc:
        return SqlData(None, exc.message)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def key_numbers(columns: list[str], rows: list[list[Any]], chart: models.SqlChart) -> list[str]:
    """What a chart shows, in words: per y column its min, max and mean, first and last by x."""
    out = []
    if chart.x not in columns:
        return out
    xi = columns.index(chart.x)
    for y in chart.y:
        if y not in columns:
            continue
        yi = columns.index(y)
        pts = [(r[xi], r[yi]) for r in rows if _is_num(r[yi]) and math.isfinite(r[yi])]
        if not pts:
            out.append(f"{y}: no numbers")
            continue
        vals = [v for _, v in pts]
        lo = min(pts, key=lambda p: p[1])
        hi = max(pts, key=lambda p: p[1])
        f = tf.format_number
        out.append(f"{y}: min {f(lo[1])} at {chart.x}={f(lo[0])}, max {f(hi[1])} at {chart.x}={f(hi[0])}, "
                   f"mean {f(sum(vals) / len(vals))}; first {f(pts[0][1])}, last {f(pts[-1][1])} "
                   f"({len(pts)} points)")
    return out


def text_table(columns: list[str], rows: list[list[Any]], width: int, indent: str = "    ") -> list[str]:
    """A result as a text table: numbers right-aligned, columns cut to fit, extra columns named."""
    cells = [[tf.to_ascii(tf.format_number(v)) for v in r] for r in rows]
    numeric = [all(_is_num(r[i]) or r[i] is None for r in rows) and rows != [] for i in range(len(columns))]
    widths = [min(24, max([len(c)] + [len(r[i]) for r in cells])) for i, c in enumerate(columns)]
    avail = width - len(indent)
    shown: list[int] = []
    used = 0
    for i, w in enumerate(widths):
        need = w + (2 if shown else 0)
        if used + need > avail:
            break
        shown.append(i)
        used += need
    if not shown and columns:
        shown, widths[0] = [0], avail

    def line(vals: list[str]) -> str:
        parts = []
        for i in shown:
            v = tf.fit(vals[i], widths[i])
            parts.append(v.rjust(widths[i]) if numeric[i] else v.ljust(widths[i]))
        return (indent + "  ".join(parts)).rstrip()

    out = [line(list(columns)), indent + "  ".join("-" * widths[i] for i in shown)]
    out += [line(r) for r in cells]
    hidden = [c for i, c in enumerate(columns) if i not in shown]
    if hidden:
        out += tf.wrap(f"({len(hidden)} more column{'s' if len(hidden) > 1 else ''} not shown: {', '.join(hidden)})",
                       width, indent)
    return out


def text(ctx: ExportContext, index: int, cell: models.SqlCell, data: SqlData) -> list[str]:
    lines = []
    for q in cell.sql.strip().splitlines():
        lines += tf.wrap(q, indent="    ", subsequent="      ") if q.strip() else [""]
    lines.append("")
    if data.error is not None:
        return lines + tf.wrap(f"The query did not run: {data.error}", indent="    ")
    a = data.answer
    assert a is not None
    cols = [c for c, _ in a.columns]
    lines += text_table(cols, a.rows[:TEXT_ROWS], tf.WIDTH)
    n = len(a.rows)
    more = "+" if a.truncated else ""
    if n > TEXT_ROWS:
        lines.append(f"    ({n}{more} rows; the first {TEXT_ROWS} shown, all at the link below)")
    elif not n:
        lines.append("    (no rows)")
    if cell.chart:
        lines.append("")
        lines += tf.wrap(f"Chart ({cell.chart.mark} of {', '.join(cell.chart.y)} by {cell.chart.x}), key numbers:",
                         indent="    ")
        for k in key_numbers(cols, a.rows, cell.chart):
            lines += tf.wrap(k, indent="      ", subsequent="        ")
    if n > TEXT_ROWS or cell.chart:
        lines += ["    " + ctx.cell_link(index)]
    return lines


def html_cell(cell: models.SqlCell, data: SqlData) -> str:
    e = html.escape
    out = [f'<details class="sql"><summary>SQL</summary><pre><code>{e(cell.sql)}</code></pre></details>']
    if data.error is not None:
        return "".join(out) + f'<p class="error">The query did not run: {e(data.error)}</p>'
    a = data.answer
    assert a is not None
    cols = [c for c, _ in a.columns]
    if cell.chart:
        out.append(chart_svg(cols, a.rows, cell.chart.mark, cell.chart.x, cell.chart.y))
    rows = a.rows[:HTML_ROWS]
    numeric = [all(_is_num(r[i]) or r[i] is None for r in rows) for i in range(len(cols))]
    head = "".join(f'<th class="{"num" if numeric[i] else ""}">{e(c)}<br><span class="muted type">{e(t)}</span></th>'
                   for i, (c, t) in enumerate(a.columns))
    body = "".join(
        "<tr>" + "".join(f'<td class="{"num" if numeric[i] else ""}">{e(tf.format_number(v))}</td>' for i, v in enumerate(r))
        + "</tr>" for r in rows)
    out.append(f'<div class="scroll"><table class="result"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')
    note = f"{len(a.rows)}{'+' if a.truncated else ''} rows"
    if len(a.rows) > HTML_ROWS:
        note += f", the first {HTML_ROWS} shown"
    out.append(f'<p class="muted small">{note}</p>')
    return "".join(out)
