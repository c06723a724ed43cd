"""The traced events cell ('events' in src/cells/registry.ts) in text and HTML exports: what each
capture traced (events per run, lost events flagged) and the counts of the chosen event per value of
its field, with the first and last time. State: `e=SYS:NAME;f=FIELD;top=N` (src/cells/events/state.ts)."""

from __future__ import annotations

import html

from .. import models
from ..views import events as events_view
from . import svg_misc
from . import textfmt as tf
from .context import ExportContext, parse_state


class EventsExport:
    title = "Traced events"

    @staticmethod
    def read_state(state: str) -> dict[str, str | int | None]:
        """The fields of the cell's state the export uses, as src/cells/events/state.ts decodes them."""
        st = parse_state(state)
        top = int(st["top"]) if st.get("top", "").isdigit() and 1 <= int(st["top"]) <= 1000 else 20
        return {"event": st.get("e") or None, "field": st.get("f") or None, "top": top}

    def data(self, ctx: ExportContext, state: str) -> tuple[models.EventsSummary, models.EventsByField | None]:
        st = self.read_state(state)
        ids = [c.id for c in ctx.captures]
        summary = events_view.summary(ctx.store, ids)
        event = st["event"] or (summary.events[0].event if summary.events else None)
        if event is None:
            return summary, None
        try:
            return summary, events_view.by_field(ctx.store, ids, str(event), st["field"],  # type: ignore[arg-type]
                                                 min(int(st["top"] or 20), 20))
        except events_view.BadEventQuery:
            return summary, None

    def text(self, ctx: ExportContext, data: tuple[models.EventsSummary, models.EventsByField | None]) -> list[str]:
        summary, by = data
        if not summary.events:
            return tf.wrap("No traced events in these captures: record them with iolens-collect run --trace SYS:EVENT.",
                           indent="    ")
        lines = tf.wrap("Tracepoints recorded with perf (iolens-collect run --trace), per capture: events per "
                        "run, over its runs that traced them.", indent="    ") + [""]
        lines.append(f"    {'event':<30} {'capture':<14} {'per run':>8} {'runs':>5}")
        for ev in summary.events:
            lost = "  LOST" if ev.lost else ""
            lines.append(f"    {tf.fit(ev.event, 30):<30} {tf.fit(ctx.name(ev.capture), 14):<14} "
                         f"{tf.format_value(ev.per_run, ''):>8} {ev.runs:>5}{lost}")
        if any(ev.lost for ev in summary.events):
            lines += tf.wrap("LOST: the recording holds fewer events than perf stat counted; its counts are too low.",
                             indent="    ")
        if by is None:
            return lines
        lines += [""] + tf.wrap(f"{by.event} per {by.field or 'event'}: events per run, first and last time since the "
                                "run started (s).", indent="    ")
        lines.append(f"      {'value':<30} {'per run':>10} {'first s':>10} {'last s':>10}")
        for c in by.captures:
            lines.append(f"    {tf.fit(ctx.name(c.capture), 40)} ({c.runs} run{'s' if c.runs != 1 else ''}, "
                         f"{c.total:,} events)")
            for r in c.rows:
                name = "(the rest)" if r.rest else (r.value if r.value is not None else by.event)
                first = "-" if r.first_s is None else f"{r.first_s:.3f}"
                last = "-" if r.last_s is None else f"{r.last_s:.3f}"
                lines.append(f"      {tf.fit(name, 30):<30} {tf.format_value(r.per_run, ''):>10} {first:>10} {last:>10}"[:72])
        return lines

    def html(self, ctx: ExportContext, data: tuple[models.EventsSummary, models.EventsByField | None]) -> str:
        e = html.escape
        summary, by = data
        if not summary.events:
            return ('<p class="muted">No traced events in these captures: record them with <code>iolens-collect run '
                    '--trace SYS:EVENT</code>.</p>')
        rows = "".join(f"<tr><td><code>{e(ev.event)}</code></td><td>{e(ctx.label(ev.capture))}</td>"
                       f"<td class=num>{e(tf.format_value(ev.per_run, ''))}</td><td class=num>{ev.runs}</td>"
                       f"<td>{'<span class=tone-worse>&#9888; events lost</span>' if ev.lost else 'complete'}</td></tr>"
                       for ev in summary.events)
        return (svg_misc.events(ctx, summary, by)
                + '<h4>What each capture traced</h4><table class="numbers"><thead><tr><th>event</th><th>capture</th>'
                  f'<th class=num>events per run</th><th class=num>runs</th><th></th></tr></thead><tbody>{rows}</tbody></table>')
