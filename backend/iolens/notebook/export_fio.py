"""The fio comparison cell ('fio' in src/cells/registry.ts) in text and HTML exports.

Its state (src/cells/fio/state.ts): `m=iops,bw,...` picks and orders the metrics (absent: all),
`strip=0` hides the dot strips (the exports have none). Text layout: per job and direction, one
line per metric and capture (mean, spread, n, change vs baseline), so any number of captures fits
in 72 columns.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ..api import models
from ..views import fio_compare
from . import textfmt as tf
from .render import ExportContext, parse_state, register

def _pretty(s: str) -> str:
    """The text report's ASCII units as the app shows them (HTML can carry them)."""
    return s.replace(" us", " \u00b5s").replace("+-", "\u00b1").replace("-", "\u2013") if s[:1] != "-" else s


TONE_WORD = {"better": "better", "worse": "worse", "same": "~", "neutral": "", "": ""}
BETTER_WORD = {"higher": "higher is better", "lower": "lower is better", "neutral": "no better direction"}


@dataclass
class FioData:
    cmp: models.FioComparison
    metrics: list[str] | None


class FioExport:
    title = "fio comparison"

    def data(self, ctx: ExportContext, state: str) -> FioData:
        st = parse_state(state)
        metrics = [m for m in st.get("m", "").split(",") if m] or None
        ids = [c.id for c in ctx.captures]
        return FioData(fio_compare.compare_fio(ctx.store, ids, ctx.doc.baseline), metrics)

    @staticmethod
    def _rows(data: FioData, group: models.FioGroup) -> list[models.MetricRow]:
        if not data.metrics:
            return group.metrics
        by = {m.metric: m for m in group.metrics}
        return [by[k] for k in data.metrics if k in by]

    def _order(self, data: FioData) -> list[models.ComparedCapture]:
        base = [c for c in data.cmp.captures if c.id == data.cmp.baseline]
        return base + [c for c in data.cmp.captures if c.id != data.cmp.baseline]

    def text(self, ctx: ExportContext, data: FioData) -> list[str]:
        cmp = data.cmp
        caps = self._order(data)
        base_label = ctx.name(cmp.baseline)
        lines = tf.wrap(
            f"Mean over the repeats; spread: +-stddev when n >= 3, min-max when n = 2; change vs the "
            f"baseline {base_label} (*); '~' means the repeats' ranges overlap.", indent="    ")
        if not cmp.groups:
            return lines + ["", "    No fio job results in these captures."]
        head = f"    {'':18} {'mean':>13} {'spread':>13} {'n':>3}  vs base"
        for g in cmp.groups:
            lines += ["", f"  job {tf.fit(g.job, 40)}, {g.ddir}", head]
            for row in self._rows(data, g):
                lines.append(f"    {tf.fit(row.label, 40)} ({row.unit}, {BETTER_WORD[row.better]})")
                base = row.cells.get(cmp.baseline)
                for c in caps:
                    cell = row.cells.get(c.id)
                    star = " *" if c.id == cmp.baseline else ""
                    name = tf.fit(ctx.name(c.id), 16 - len(star)) + star
                    if cell is None or cell.mean is None:
                        lines.append(f"      {name:<16} {'-':>13}")
                        continue
                    change = ""
                    if c.id != cmp.baseline and base is not None:
                        word = TONE_WORD[tf.tone(cell.model_dump(), base.model_dump(), row.better)]
                        change = f"{tf.format_ratio(cell.ratio)} {word}".rstrip()
                    spread = tf.format_spread(cell.n, cell.mean, cell.stddev, cell.min, cell.max, row.unit)
                    lines.append(f"      {name:<16} {tf.format_value(cell.mean, row.unit):>13} {spread:>13} "
                                 f"{cell.n:>3}  {change}".rstrip())
        return lines

    def html(self, ctx: ExportContext, data: FioData) -> str:
        e = html.escape
        cmp = data.cmp
        caps = self._order(data)
        if not cmp.groups:
            return '<p class="muted">No fio job results in these captures.</p>'
        out = []
        for g in cmp.groups:
            head1 = "".join(
                f'<th colspan="{3 if c.id == cmp.baseline else 4}" class="cap">{e(c.label)}'
                f'{" <span class=base>baseline</span>" if c.id == cmp.baseline else ""}</th>' for c in caps)
            head2 = "".join(
                '<th class="num">mean</th><th class="num">spread</th><th class="num">n</th>'
                + ("" if c.id == cmp.baseline else '<th class="num">vs base</th>') for c in caps)
            body = []
            for row in self._rows(data, g):
                base = row.cells.get(cmp.baseline)
                arrow = {"higher": " &uarr;", "lower": " &darr;"}.get(row.better, "")
                tds = []
                for c in caps:
                    cell = row.cells.get(c.id)
                    if cell is None or cell.mean is None:
                        tds.append('<td class="num muted">&ndash;</td><td></td><td></td>' + ("" if c.id == cmp.baseline else "<td></td>"))
                        continue
                    title = e(f"{c.label}: {', '.join(tf.format_number(v) for v in cell.values)} {row.unit} "
                              f"(runs {', '.join(cell.runs)})", quote=True)
                    spread = tf.format_spread(cell.n, cell.mean, cell.stddev, cell.min, cell.max, row.unit)
                    tds.append(f'<td class="num" title="{title}">{e(_pretty(tf.format_value(cell.mean, row.unit)))}</td>'
                               f'<td class="num muted">{e(_pretty(spread))}</td><td class="num muted">{cell.n}</td>')
                    if c.id != cmp.baseline:
                        t = tf.tone(cell.model_dump(), base.model_dump(), row.better) if base else ""
                        tds.append(f'<td class="num ratio tone-{t or "none"}">{e(tf.format_ratio(cell.ratio))}</td>')
                body.append(f'<tr><th title="{e(row.description, quote=True)}">{e(row.label)}{arrow}</th>{"".join(tds)}</tr>')
            out.append(
                f'<h4>job <code>{e(g.job)}</code> {e(g.ddir)}</h4>'
                f'<div class="scroll"><table class="fio"><thead><tr><th rowspan="2">Metric</th>{head1}</tr>'
                f'<tr>{head2}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
            )
        out.append('<p class="legend muted"><span class="tone-better">green</span> better, '
                   '<span class="tone-worse">red</span> worse than the baseline; grey: the repeats\' '
                   'min&ndash;max ranges overlap. &uarr;/&darr;: higher/lower is better.</p>')
        return "\n".join(out)


register("fio", FioExport())
