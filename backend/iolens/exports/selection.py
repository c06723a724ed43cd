"""The notebook's one shared time selection in exports (issue 17 "Time"): the `sel=` of its first
timeline cell that has one, as the app reads it (frontend/src/cells/timeline/shared.ts). In the app
the flame, block and scheduler cells follow it; their exports follow it the same way, and each says
so with the same words ("time range 12.400-18.000 s of run r000 (timeline selection)"), so that a
number in a report says what it covers:

- flame: the graph and table of that run only, over the range moved to the flame graph's time 0 (the
  run's first sample, `samples_offset_ns` after the run's start); not applied to a difference of two
  captures, to another capture's graph, or to a run without samples;
- block: the range as the window of every run of every capture (time since each run's start);
- sched: the range counted in every run of every capture, each run moving it to its own trace's time
  0 (its first event, that run's `sched_offset_ns` after the run's start; store/rules/run_span.py).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .. import models
from ..store.rules.timeline_run import timeline_run
from ..views import timeline as timeline_view
from .context import ExportContext


@dataclass(frozen=True)
class SharedTime:
    capture: str
    run: str
    from_ns: int   # ns since the run's start (its clock reading: the timeline's and the block views' time 0)
    to_ns: int
    cell: int      # the timeline cell that holds it (0-based)

    def range_text(self) -> str:
        return f"{self.from_ns / 1e9:.3f}-{self.to_ns / 1e9:.3f} s of run {self.run}"


def shared_time(ctx: ExportContext) -> SharedTime | None:
    """The selection of the notebook's first timeline cell that has one (None: no selection).
    A cell without cap= names the baseline; without run=, the capture's first run (as the
    timeline cell shows it; store/rules/timeline_run.py); none when the capture has no runs."""
    if "time" in ctx.memo:
        return ctx.memo["time"]
    from .timeline import TimelineExport  # timeline.py draws the selection itself

    found = None
    for i, cell in enumerate(ctx.doc.cells):
        if getattr(cell, "kind", None) != "timeline":
            continue
        st = TimelineExport.read_state(cell.state)  # type: ignore[union-attr]
        sel = st["sel"]
        if not isinstance(sel, list):
            continue
        cap = str(st["cap"] or ctx.doc.baseline)
        named = st["run"]
        run = timeline_run(str(named) if named is not None else None, [] if named is not None else timeline_runs(ctx, cap))
        if run is not None:  # a capture without runs: no selection to apply
            found = SharedTime(cap, run, int(sel[0]), int(sel[1]), i)
        break
    ctx.memo["time"] = found
    return found


def timeline_runs(ctx: ExportContext, capture: str) -> dict[str, models.TimelineRun]:
    """The capture's runs on the timeline's axis (their offsets), in run order; {} when unknown."""
    key = f"runs:{capture}"
    if key not in ctx.memo:
        try:
            ctx.memo[key] = {r.id: r for r in timeline_view.overview(ctx.store, capture).runs}
        except timeline_view.UnknownRun:
            ctx.memo[key] = {}
    return ctx.memo[key]


def words(ctx: ExportContext, t: SharedTime) -> str:
    """'time range 12.400-18.000 s of run r000 (timeline selection)', naming the capture when the
    notebook has several."""
    cap = f" of {ctx.name(t.capture)}" if len(ctx.captures) > 1 else ""
    return f"time range {t.range_text()}{cap} (timeline selection)"


def notice(ctx: ExportContext, t: SharedTime, detail: str) -> str:
    """The sentence a cell's export starts with: the selection and what it means for the cell."""
    w = words(ctx, t)
    return f"{w[0].upper()}{w[1:]}: {detail}."


def html_notice(text: str | None) -> str:
    """The notice in the HTML export, as the app's banner (cells/timeline/TimeApplied.tsx)."""
    if not text:
        return ""
    return f'<p class="time-applied" data-testid="time-applied">{html.escape(text)}</p>'


def offset_text(off_ns: int) -> str:
    """'12.5 ms after the run's start' (or before: perf may start before the clock reading)."""
    return f"{abs(off_ns) / 1e6:.1f} ms {'after' if off_ns >= 0 else 'before'} the run's start"
