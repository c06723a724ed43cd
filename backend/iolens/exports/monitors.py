"""The monitors cell ('monitors' in src/cells/registry.ts) in text and HTML exports: the kernel
counters that moved most against the baseline (the text report carries these differences). Charts
stay in the app (a link). State: `src=SOURCE;k=SOURCE/KEY` (src/cells/monitors/state.ts)."""

from __future__ import annotations

import html
import math

from .. import models
from ..views import monitors as monitors_view
from . import svg_misc
from . import textfmt as tf
from .context import ExportContext, parse_state

ROWS = 40
MOVED = math.log2(1.07)  # a row of the report: changed by more than 7 % against the baseline


class MonitorsExport:
    title = "Monitors"

    @staticmethod
    def read_state(state: str) -> dict[str, str | None]:
        """The field of the cell's state the export uses (the source shown), as src/cells/monitors/state.ts
        decodes it."""
        return {"source": parse_state(state).get("src") or None}

    def data(self, ctx: ExportContext, state: str) -> models.MonitorComparison:
        st = self.read_state(state)
        return monitors_view.compare(ctx.store, [c.id for c in ctx.captures], ctx.doc.baseline, st["source"],
                                     limit=ROWS)  # ranked by change: the report keeps the rows that moved

    def text(self, ctx: ExportContext, data: models.MonitorComparison) -> list[str]:
        if not any(data.available.values()):
            return tf.wrap("No monitors in these captures: record them with iolens-collect run --monitors.", indent="    ")
        caps = [c for c in data.captures if data.available.get(c)]
        compared = len(caps) > 1
        rows = [r for r in data.rows if (r.change or 0) >= MOVED] if compared else data.rows
        where = f" ({data.source})" if data.source else ""
        if compared and not rows:
            return tf.wrap(f"No kernel counter{where} differs from {ctx.name(data.baseline)} by more than 7 % "
                           f"(mean of the runs; {data.total} compared).", indent="    ")
        lines = tf.wrap((f"Kernel counters{where} that moved more than 7 % against {ctx.name(data.baseline)} (*)"
                         if compared else f"Kernel counters{where} of {ctx.name(caps[0])}")
                        + ", mean of the runs: counters per second of run, levels as their mean. "
                        f"{len(rows)} shown of {data.total}.", indent="    ")
        shown = caps[:3]
        # key (unit) 24 | per capture: value 9, and for the others their change 8: 72 columns with 3 captures
        head = f"    {'key (unit)':<24}"
        for c in shown:
            head += f"{tf.fit(ctx.name(c) + (' *' if c == data.baseline else ''), 8):>9}" + ("" if c == data.baseline else " " * 8)
        lines += ["", head.rstrip()[:72]]
        for r in rows:
            line = f"    {tf.fit(f'{r.source}/{r.key}' + (f' ({r.unit})' if r.unit else ''), 23):<24}"
            for c in shown:
                x = r.cells.get(c)
                line += f"{'-' if x is None else tf.format_monitor(x.value, r.unit):>9}"
                if c != data.baseline:
                    line += f"{'' if x is None else tf.format_ratio(x.ratio).replace(' ', ''):>8}"
            lines.append(line.rstrip()[:72])
        return lines

    def html(self, ctx: ExportContext, data: models.MonitorComparison) -> str:
        e = html.escape
        if not any(data.available.values()):
            return '<p class="muted">No monitors in these captures: <code>iolens-collect run --monitors</code>.</p>'
        caps = [c for c in data.captures if data.available.get(c)]
        head = "".join(f"<th>{e(ctx.label(c))}{' (baseline)' if c == data.baseline else ''}</th>" for c in caps)
        body = []
        for r in data.rows:
            tds = []
            for c in caps:
                x = r.cells.get(c)
                ch = "" if x is None or c == data.baseline else f" <span class=muted>{e(tf.for_html(tf.format_ratio(x.ratio)))}</span>"
                tds.append(f"<td class=num>{'-' if x is None else e(tf.format_monitor(x.value, r.unit))}{ch}</td>")
            body.append(f"<tr><td>{e(r.source)}/{e(r.key)}</td><td>{e(r.unit)}</td>{''.join(tds)}</tr>")
        return (svg_misc.monitors(ctx, data)
                + f"<h4>Kernel counters that moved most against the baseline</h4><p class=\"source muted\">Mean of the "
                f"runs; counters per second of run, levels as their mean; {len(data.rows)} of {data.total}.</p>"
                f"<div class=\"scroll\"><table class=\"numbers\"><thead><tr><th>key</th><th>unit</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
