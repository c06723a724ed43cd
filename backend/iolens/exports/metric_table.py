"""The compared-metric table that the fio and scheduler cells export (models.MetricRow: one
row per metric, a cell per capture with mean, spread, n and the ratio to the baseline), in text
(72 columns, a line per metric and capture) and in HTML (a column group per capture).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from .. import models
from ..store.stats import MIN_REPEATS
from . import textfmt as tf

TONE_WORD = {"better": "better", "worse": "worse", "same": "~", "neutral": "", "few": "?", "": ""}
BETTER_WORD = {"higher": "higher is better", "lower": "lower is better", "neutral": "no better direction"}
HTML_LEGEND = ('<span class="tone-better">green</span> better, <span class="tone-worse">red</span> worse than '
               "the baseline; grey: the repeats' min&ndash;max ranges overlap.")
HTML_FEW = f" Grey ?: too few repeats to judge a change (fewer than {MIN_REPEATS} on a side)."
NO_BASELINE_HTML = "One capture: no baseline to compare with, so no colours."


def few_shown(rows: Sequence[models.MetricRow], baseline: str) -> bool:
    """Whether a change in these rows is marked '?' (too few repeats to judge it): the legends say
    what '?' means only then, as the app's Legend (frontend/src/logic/compareTable.ts legendNeeds)."""
    for row in rows:
        base = row.cells.get(baseline)
        if base is None:
            continue
        for cid, cell in row.cells.items():
            if (cid != baseline and cell is not None and cell.mean is not None
                    and tf.tone(cell.model_dump(), base.model_dump(), row.better) == "few"):
                return True
    return False


def html_legend(captures: Sequence[object], few: bool) -> str:
    """The colours' legend (the grey '?' only when a change shows it: `few`), or with one capture
    that nothing is compared (as the app's Legend)."""
    return HTML_LEGEND + (HTML_FEW if few else "") if len(captures) > 1 else NO_BASELINE_HTML


def text_legend(few: bool) -> str:
    """What the text report's change words mean ('?' only when a change shows it: `few`)."""
    return "'~' means the repeats' ranges overlap" + (
        f"; '?' too few repeats to judge a change (fewer than {MIN_REPEATS} on a side)." if few else ".")


def pretty(s: str) -> str:
    """The text report's ASCII units as the app shows them (HTML can carry them)."""
    return tf.for_html(s).replace("-", "\u2013") if s[:1] != "-" else tf.for_html(s)


def baseline_first(captures: Sequence[models.ComparedCapture], baseline: str) -> list[models.ComparedCapture]:
    return [c for c in captures if c.id == baseline] + [c for c in captures if c.id != baseline]


def _spread(cell: models.StatCell, unit: str) -> str:
    return tf.format_spread(cell.n, cell.mean, cell.stddev, cell.min, cell.max, unit)


def text_block(rows: Sequence[models.MetricRow], captures: Sequence[models.ComparedCapture], baseline: str,
               name: Callable[[str], str]) -> list[str]:
    """The rows as text: a header, then per metric its heading (label and better direction: every
    value carries its own unit, scaled) and a line per capture with mean, spread, n and the change vs
    the baseline ('~' when the repeats' ranges overlap). `name(id)` is at most 16 characters,
    baseline marked. Columns are as wide as the widest value they hold, so they stay aligned."""
    cells: list[tuple[models.MetricRow, list[tuple[str, str, str, str, str]]]] = []
    for row in rows:
        base = row.cells.get(baseline)
        out = []
        for c in captures:
            cell = row.cells.get(c.id)
            if cell is None or cell.mean is None:
                out.append((name(c.id), "-", "", "", ""))
                continue
            change = ""
            if c.id != baseline and base is not None:
                word = TONE_WORD[tf.tone(cell.model_dump(), base.model_dump(), row.better)]
                change = f"{tf.format_ratio(cell.ratio)} {word}".rstrip()
            out.append((name(c.id), tf.format_value(cell.mean, row.unit), _spread(cell, row.unit), str(cell.n), change))
        cells.append((row, out))
    every = [v for _, out in cells for v in out]
    nw = max([len(v[0]) for v in every] + [7])
    mw = max([len(v[1]) for v in every] + [4])
    sw = max([len(v[2]) for v in every] + [6])
    # two-space gutters, n right-aligned in 3: a 16-character name, '651.5 MiB/s', '482.8-651.5 MiB/s'
    # and '+12.3 % better' make 72 columns
    lines = [f"      {'':{nw}}  {'mean':>{mw}}  {'spread':>{sw}}{'n':>3}  vs base"]
    for row, out in cells:
        lines += tf.wrap(f"{row.label} ({BETTER_WORD[row.better]})", indent="    ", subsequent="      ")
        lines += [f"      {n:<{nw}}  {m:>{mw}}  {sp:>{sw}}{k:>3}  {ch}".rstrip() for n, m, sp, k, ch in out]
    return lines


def html_table(rows: Sequence[models.MetricRow], captures: Sequence[models.ComparedCapture], baseline: str,
               colors: dict[str, str] | None = None) -> str:
    """The rows as an HTML table: per capture mean, spread, n and (but the baseline) the change;
    each mean's title lists the repeats' values and runs. With `colors` (capture id -> colour), a
    dot strip of the repeats after each capture's n, on the row's shared scale (the fio table's)."""
    from .svgplot import dot_strip

    e = html.escape
    strip = colors is not None
    head1 = "".join(
        f'<th colspan="{(3 if c.id == baseline else 4) + strip}" class="cap">{e(c.label)}'
        f'{" <span class=base>baseline</span>" if c.id == baseline else ""}</th>' for c in captures)
    head2 = "".join('<th class="num">mean</th><th class="num">spread</th><th class="num">n</th>'
                    + ('<th title="each repeat (dot), the mean (tick), the baseline\'s mean (grey)">repeats</th>'
                       if strip else "")
                    + ("" if c.id == baseline else '<th class="num">vs base</th>') for c in captures)
    body = []
    for row in rows:
        base = row.cells.get(baseline)
        arrow = {"higher": " &uarr;", "lower": " &darr;"}.get(row.better, "")
        tds = []
        every = [v for x in row.cells.values() if x is not None for v in x.values]
        for c in captures:
            cell = row.cells.get(c.id)
            if cell is None or cell.mean is None:
                tds.append('<td class="num muted">&ndash;</td><td></td><td></td>' + ("<td></td>" if strip else "")
                           + ("" if c.id == baseline else "<td></td>"))
                continue
            title = e(f"{c.label}: {', '.join(tf.format_number(v) for v in cell.values)} {row.unit} "
                      f"(runs {', '.join(cell.runs)})", quote=True)
            tds.append(f'<td class="num" title="{title}">{e(pretty(tf.format_value(cell.mean, row.unit)))}</td>'
                       f'<td class="num muted">{e(pretty(_spread(cell, row.unit)))}</td><td class="num muted">{cell.n}</td>')
            if strip and colors is not None:
                tds.append('<td class="strip">' + (dot_strip(
                    cell.values, cell.mean, None if c.id == baseline or base is None else base.mean, min(every),
                    max(every), colors.get(c.id, "#4e79a7")) if cell.values else "") + "</td>")
            if c.id != baseline:
                t = tf.tone(cell.model_dump(), base.model_dump(), row.better) if base else ""
                mark = "?" if t == "few" else ""
                tds.append(f'<td class="num ratio tone-{t or "none"}">{e(tf.for_html(tf.format_ratio(cell.ratio)))}{mark}</td>')
        body.append(f'<tr><th title="{e(row.description, quote=True)}">{e(row.label)}{arrow}</th>{"".join(tds)}</tr>')
    return (f'<div class="scroll"><table class="fio"><thead><tr><th rowspan="2">Metric</th>{head1}</tr>'
            f'<tr>{head2}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')
