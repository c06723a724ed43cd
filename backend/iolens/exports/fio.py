"""The fio comparison cell ('fio' in src/cells/registry.ts) in text and HTML exports.

Its state (src/cells/fio/state.ts): `m=iops,bw,...` picks and orders the metrics (absent: all),
`strip=0` hides the dot strips (the exports have none). Text layout: per job and direction, one
line per metric and capture (mean, spread, n, change vs baseline), so any number of captures fits
in 72 columns.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .. import models
from ..views import fio_compare
from . import textfmt as tf
from .context import ExportContext, parse_state
from .metric_table import baseline_first, few_shown, html_legend, html_table, text_block, text_legend
from .svgplot import capture_color


@dataclass
class FioData:
    cmp: models.FioComparison
    metrics: list[str] | None
    strips: bool = True  # the per-repeat dot strips (HTML)


class FioExport:
    title = "fio comparison"

    @staticmethod
    def read_state(state: str) -> dict[str, list[str] | None]:
        st = parse_state(state)
        return {"metrics": [m for m in st.get("m", "").split(",") if m] or None, "strips": st.get("strip") != "0"}

    def data(self, ctx: ExportContext, state: str) -> FioData:
        st = self.read_state(state)
        ids = [c.id for c in ctx.captures]
        return FioData(fio_compare.compare_fio(ctx.store, ids, ctx.doc.baseline), st["metrics"], st["strips"])

    @staticmethod
    def _rows(data: FioData, group: models.FioGroup) -> list[models.MetricRow]:
        if not data.metrics:
            return group.metrics
        by = {m.metric: m for m in group.metrics}
        return [by[k] for k in data.metrics if k in by]

    def text(self, ctx: ExportContext, data: FioData) -> list[str]:
        cmp = data.cmp
        caps = baseline_first(cmp.captures, cmp.baseline)
        base_label = ctx.name(cmp.baseline)
        few = any(few_shown(self._rows(data, g), cmp.baseline) for g in cmp.groups)
        compared = (f"change vs the baseline {base_label} (*); {text_legend(few)}" if len(caps) > 1
                    else "one capture: no baseline to compare with.")
        lines = tf.wrap(
            f"fio's own results (each run's fio output), per job and data direction. Mean over the "
            f"repeats; spread: +-stddev when n >= 3, min-max when n = 2; {compared}", indent="    ")
        if not cmp.groups:
            return lines + ["", "    No fio job results in these captures."]
        def name(cid: str) -> str:
            star = " *" if cid == cmp.baseline else ""
            return tf.fit(ctx.name(cid), 16 - len(star)) + star

        for g in cmp.groups:
            lines += ["", f"  job {tf.fit(g.job, 40)}, {g.ddir}"]
            lines += text_block(self._rows(data, g), caps, cmp.baseline, name)
        return lines

    def html(self, ctx: ExportContext, data: FioData) -> str:
        e = html.escape
        cmp = data.cmp
        caps = baseline_first(cmp.captures, cmp.baseline)
        if not cmp.groups:
            return '<p class="muted">No fio job results in these captures.</p>'
        out = []
        order = list(ctx.doc.captures)
        colors = {c.id: capture_color(order.index(c.id) if c.id in order else 0) for c in caps}
        for g in cmp.groups:
            out.append(f'<h4>job <code>{e(g.job)}</code> {e(g.ddir)}</h4>'
                       + html_table(self._rows(data, g), caps, cmp.baseline, colors if data.strips else None))
        strips = (" Repeats: each repeat's value (dot) on the row's scale, the mean (tick), the baseline's mean (grey)."
                  if data.strips else "")
        few = any(few_shown(self._rows(data, g), cmp.baseline) for g in cmp.groups)
        out.append(f'<p class="legend muted">{html_legend(caps, few)} &uarr;/&darr;: higher/lower is better.{strips}</p>')
        return "\n".join(out)
