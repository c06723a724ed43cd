"""The timeline cell ('timeline' in src/cells/registry.ts) in text and HTML exports: one run's tracks
on one time axis in seconds (views/timeline.py answers them, as the app's /timeline API does).

HTML: one inline SVG: per CPU a row whose height is the share of each column busy and whose colour
is the task group that ran longest (the app's colours: d3's Tableau10 by rank, 'other' grey), then
the block device's queue depth and IOPS, fio's IOPS log and the perf sample density as small area
tracks, each with its max and unit; the brushed selection (sel=) shaded; a track without data says
why. Below it the key numbers: per series the mean and max over the run and over the selection.
Text: the same table in 72 columns, with a context line (capture, run, selection).

State (src/cells/timeline/state.ts): `cap=` capture (default: the baseline), `run=` (default: the
first run), `sel=FROM-TO` the selection, `w=FROM-TO` the app's zoom (the export draws the whole run).
A `run=` the capture does not have: as the app, the export draws the capture's first run and says
so first ("run r007 is not in this capture; showing r000"); the selection stays of the named run and
is not applied (store/rules/timeline_run.py, testdata/vectors/timeline-run.json).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from .. import models
from ..store.rules.timeline_run import missing_capture_notice, missing_run_notice, shown_capture, shown_run
from ..views import timeline as tl
from . import svgplot
from . import textfmt as tf
from .context import ExportContext, parse_state

WIDTH = 800   # columns asked of each track (the SVG's plot width in pixels)
LABEL_W = 130
CPU_ROW = 12
TRACK_ROW = 46
LABEL_TEXT, VALUE_TEXT = 20, 12  # text table: 4 + 20 + 4 x 12 = 72 columns
# d3's schemeTableau10, as frontend/src/logic/timeline.ts taskColour; 'other' and ranks >= 10 grey
TABLEAU10 = ("#4e79a7", "#f28e2c", "#e15759", "#76b7b2", "#59a14f", "#edc949", "#af7aa1", "#ff9da7", "#9c755f",
             "#bab0ab")
OTHER = "#9aa1ad"
_RANGE = re.compile(r"^(\d{1,18})-(\d{1,18})$")
_CAP = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RUN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def task_colour(i: int, names: list[str]) -> str:
    if i < 0:
        return "none"
    if i >= len(names) or names[i] == "other" or i >= 10:
        return OTHER
    return TABLEAU10[i]


@dataclass
class Series:
    """One line of the key numbers: what it is, its unit, its values per column (None: not covered)."""
    track: str
    label: str
    unit: str
    colour: str
    values: list[float | None]
    sel_values: list[float | None] | None = None

    @staticmethod
    def stats(vals: list[float | None] | None) -> tuple[float | None, float | None]:
        v = [x for x in (vals or []) if x is not None]
        return (sum(v) / len(v), max(v)) if v else (None, None)


@dataclass
class TimelineData:
    capture: models.FlameCaptureRef | None = None
    run: models.TimelineRun | None = None
    tracks: dict[str, models.TimelineTrack] = field(default_factory=dict)
    sel_tracks: dict[str, models.TimelineTrack] = field(default_factory=dict)
    sel: tuple[int, int] | None = None
    error: str | None = None
    missing_run: str | None = None  # what the view says of a run= the capture (or cap= the notebook) does not have
    unapplied: tuple[str, int, int] | None = None  # (whose, from, to): the selection of that run or capture


def cpu_busy(t: models.TimelineTrack) -> list[float | None]:
    """Per column: CPUs busy, summed over the CPU rows (0 to the number of CPUs)."""
    if not t.cpus:
        return []
    return [round(sum(c.busy[i] for c in t.cpus), 4) for i in range(t.buckets)]


def fio_sum(t: models.TimelineTrack) -> list[float | None]:
    """Per column: fio's IO/s summed over data directions (None where no direction covers it)."""
    out: list[float | None] = []
    for i in range(t.buckets):
        v = [d.iops[i] for d in t.ddirs or [] if i < len(d.iops) and d.iops[i] is not None]
        out.append(sum(v) if v else None)  # type: ignore[arg-type]
    return out


def samples_rate(t: models.TimelineTrack) -> list[float | None]:
    return [n / (t.bucket_ns / 1e9) for n in t.counts or []]


def series_of(tracks: dict[str, models.TimelineTrack]) -> list[tuple[str, str, str, str, list[float | None]]]:
    """(track, label, unit, colour, values) of every drawn series, in the app's order and colours."""
    out = []
    for kind in tl.TRACKS:
        t = tracks.get(kind)
        if t is None or not t.available:
            continue
        if kind == "cpu":
            out.append(("cpu", "CPUs busy (sched)", "CPUs", "#4e79a7", cpu_busy(t)))
        elif kind == "block":
            out.append(("block", f"queue depth ({t.device})", "I/Os", "#3a6fb0", list(t.depth or [])))
            out.append(("block", f"IOPS ({t.device})", "IO/s", "#2a8a57", list(t.iops or [])))
        elif kind == "fio":
            out.append(("fio", "fio's IOPS log", "IO/s", "#c0612b", fio_sum(t)))
        elif kind == "samples":
            out.append(("samples", f"samples ({t.event or 'default event'})", "/s", "#8a4fbf", samples_rate(t)))
    return out


def _s(ns: int) -> str:
    return f"{ns / 1e9:.3f} s"


class TimelineExport:
    title = "Timeline"

    @staticmethod
    def read_state(state: str) -> dict[str, object]:
        """The fields the export uses, as src/cells/timeline/state.ts decodes them (invalid: absent)."""
        st = parse_state(state)
        out: dict[str, object] = {"cap": None, "run": None, "sel": None, "win": None}
        if _CAP.match(st.get("cap", "")):
            out["cap"] = st["cap"]
        if _RUN.match(st.get("run", "")):
            out["run"] = st["run"]
        for key, name in (("sel", "sel"), ("w", "win")):
            m = _RANGE.match(st.get(key, ""))
            if m and int(m[2]) > int(m[1]):
                out[name] = [int(m[1]), int(m[2])]
        return out

    def data(self, ctx: ExportContext, state: str) -> TimelineData:
        st = self.read_state(state)
        # a cap= the notebook does not have: the baseline is drawn and the export says so, as the cell does
        named_cap = str(st["cap"]) if st["cap"] else None
        in_notebook = [c.id for c in ctx.captures]
        cid = shown_capture(named_cap, in_notebook, ctx.doc.baseline)
        cap_notice = missing_capture_notice(named_cap, in_notebook, ctx.doc.baseline, ctx.name)
        out = TimelineData()
        try:
            ov = tl.overview(ctx.store, str(cid))
        except tl.UnknownRun as exc:
            out.error = str(exc)
            return out
        out.capture = ov.capture
        ids = [r.id for r in ov.runs]
        named = str(st["run"]) if st["run"] else None
        # under a cap= the notebook lacks, the run= is of that capture: the baseline's first run is drawn
        shown = shown_run(None if cap_notice else named, ids)
        out.missing_run = cap_notice or missing_run_notice(named, ids)
        run = next((r for r in ov.runs if r.id == shown), None)
        if run is None:
            out.error = out.missing_run or f"capture {cid} has no runs"
            return out
        out.run = run
        sel = st["sel"]
        if out.missing_run is not None and isinstance(sel, list):
            # the selection is of the named run (or capture): not applied to the run drawn
            whose = (f"run {named}" if named else "the first run") + (f" of capture {named_cap}" if cap_notice else "")
            out.unapplied = (whose, sel[0], sel[1])
            sel = None
        for kind in tl.TRACKS:
            out.tracks[kind] = tl.track(ctx.store, str(cid), run.id, kind, width=WIDTH)
            if isinstance(sel, list):
                out.sel_tracks[kind] = tl.track(ctx.store, str(cid), run.id, kind, sel[0], sel[1], width=WIDTH)
        if isinstance(sel, list):
            out.sel = (sel[0], sel[1])
        return out

    def context_line(self, ctx: ExportContext, d: TimelineData) -> str:
        return f"{self._run_words(ctx, d)}; {self._sel_words(d)}"

    @staticmethod
    def _run_words(ctx: ExportContext, d: TimelineData) -> str:
        assert d.capture is not None and d.run is not None
        return (f"capture {ctx.name(d.capture.id)}, run {d.run.id} (repeat {d.run.repeat}), "
                f"{_s(d.run.duration_ns)} long")

    @staticmethod
    def _sel_words(d: TimelineData) -> str:
        if d.sel:
            return f"selection {_s(d.sel[0])} - {_s(d.sel[1])}"
        if d.unapplied:
            whose, lo, hi = d.unapplied
            return f"selection {_s(lo)} - {_s(hi)} of {whose}: not applied"
        return "no selection"

    def rows(self, d: TimelineData) -> list[tuple[str, str, tuple, tuple]]:
        """(label, unit, (mean, max) over the run, (mean, max) over the selection or (None, None))."""
        sel = {(k, lab): v for k, lab, _u, _c, v in series_of(d.sel_tracks)} if d.sel else {}
        return [(lab, unit, Series.stats(v), Series.stats(sel.get((k, lab))) if d.sel else (None, None))
                for k, lab, unit, _c, v in series_of(d.tracks)]

    def text(self, ctx: ExportContext, data: TimelineData) -> list[str]:
        if data.error or data.run is None:
            return tf.wrap(f"No timeline: {data.error}", indent="    ")
        lines = tf.wrap(f"! {data.missing_run}", indent="    ") if data.missing_run else []
        lines += tf.wrap(self._run_words(ctx, data), indent="    ") + tf.wrap(self._sel_words(data), indent="    ")
        if not data.run.aligned:
            lines += tf.wrap("! no clock reading at the run's start: each track counts from its own first event",
                             indent="    ")
        lines.append(f"    {'series':<{LABEL_TEXT}}" + "".join(f"{h:>{VALUE_TEXT}}" for h in
                                                            ("run mean", "run max", "sel. mean", "sel. max")))
        for lab, unit, (m, x), (sm, sx) in self.rows(data):
            lines.append(f"    {tf.fit(lab, LABEL_TEXT):<{LABEL_TEXT}}" + "".join(
                f"{tf.format_value(v, unit):>{VALUE_TEXT}}" for v in (m, x, sm, sx)))
        for kind in tl.TRACKS:
            t = data.tracks[kind]
            if not t.available:
                lines += tf.wrap(f"{kind}: {t.note}", indent="    ", subsequent="      ")
        c = data.tracks.get("cpu")
        lines += tf.wrap(f"Means and maxima are over {WIDTH}-column grids ({_bucket(data)}); the maxima "
                         "depend on the column width; units: CPUs busy summed over the CPU rows, I/Os in flight, IO/s, samples/s. "
                         + (f"CPU rows from the {c.level_ns / 1e6:g} ms tiles." if c and c.level_ns else ""),
                         indent="    ")
        return lines

    def html(self, ctx: ExportContext, data: TimelineData) -> str:
        if data.error or data.run is None:
            return f'<p class="muted">No timeline: {html.escape(str(data.error))}</p>'
        said = (f'<p class="warning" data-testid="timeline-missing-run">{html.escape(data.missing_run)}</p>'
                if data.missing_run else "")
        svg, legend = timeline_svg(data)
        head = ["series", "unit", "run mean", "run max", "selection mean", "selection max"]
        rows = [[html.escape(lab), html.escape(unit)] + [svgplot.val(v, unit) for v in (m, x, sm, sx)]
                for lab, unit, (m, x), (sm, sx) in self.rows(data)]
        note = html.escape(self.context_line(ctx, data) + f"; {WIDTH}-column grids ({_bucket(data)}); "
                           "from views/timeline.py, the app's /timeline answers.")
        return said + svgplot.figure("timeline", f"Run {data.run.id}", "per-CPU rows, block, fio, perf samples; time in s",
                                     svg, legend, svgplot.numbers(head, rows, note))


def _bucket(d: TimelineData) -> str:
    def cols(ts: dict[str, models.TimelineTrack]) -> str:
        return ", ".join(tf.format_value(w, "ns") for w in sorted({t.bucket_ns for t in ts.values()}))
    return f"run columns of {cols(d.tracks)}" + (f", selection columns of {cols(d.sel_tracks)}" if d.sel else "")


def timeline_svg(d: TimelineData) -> tuple[str, str]:
    """The run's tracks on one axis: (svg, legend HTML)."""
    assert d.run is not None
    e = html.escape
    end = max(d.run.duration_ns, 1)
    x0, pw = LABEL_W, WIDTH
    parts: list[str] = []
    y = 8

    def sx(ns: float) -> float:
        return x0 + pw * min(max(ns / end, 0.0), 1.0)

    cpu = d.tracks["cpu"]
    names = cpu.names or []
    if cpu.available and cpu.cpus:
        for c in cpu.cpus:
            parts.append(f'<g class="cpu-row" data-cpu="{c.cpu}"><text x="{x0 - 6}" y="{y + CPU_ROW - 2}" '
                         f'text-anchor="end">CPU {c.cpu}</text>')
            for i, b in enumerate(c.busy):
                if b <= 0:
                    continue
                lo = cpu.grid_lo_ns + i * cpu.bucket_ns
                h = max(1.0, b * CPU_ROW)
                parts.append(f'<rect x="{sx(lo):.1f}" y="{y + CPU_ROW - h:.1f}" width="{max(sx(lo + cpu.bucket_ns) - sx(lo), 0.6):.1f}" '
                             f'height="{h:.1f}" fill="{task_colour(c.task[i], names)}"/>')
            parts.append("</g>")
            y += CPU_ROW + 1
        y += 6
    else:
        parts.append(f'<text x="{x0 - 6}" y="{y + 12}" text-anchor="end">CPUs (sched)</text>'
                     f'<text class="why" x="{x0 + 4}" y="{y + 12}">{e(cpu.note or "no data")}</text>')
        y += 22
    for kind in ("block", "fio", "samples"):
        t = d.tracks[kind]
        if not t.available:
            title = {"block": "block device", "fio": "fio's IOPS log", "samples": "perf samples"}[kind]
            parts.append(f'<text x="{x0 - 6}" y="{y + 12}" text-anchor="end">{e(title)}</text>'
                         f'<text class="why" x="{x0 + 4}" y="{y + 12}">{e(t.note or "no data")}</text>')
            y += 22
            continue
        for track, lab, unit, colour, vals in series_of({kind: t}):
            del track
            mx = max((v for v in vals if v is not None), default=0.0) or 1e-9
            pts = []
            for i, v in enumerate(vals):
                if v is None:
                    continue
                lo = t.grid_lo_ns + i * t.bucket_ns
                yy = y + TRACK_ROW - (v / mx) * (TRACK_ROW - 4)
                pts.append(f"{sx(lo):.1f},{yy:.1f} {sx(lo + t.bucket_ns):.1f},{yy:.1f}")
            base = y + TRACK_ROW
            area = (f'<polygon points="{sx(t.grid_lo_ns):.1f},{base} {" ".join(pts)} '
                    f'{sx(t.grid_lo_ns + t.buckets * t.bucket_ns):.1f},{base}" fill="{colour}" fill-opacity="0.55" '
                    f'stroke="{colour}" stroke-width="0.8"/>' if pts else "")
            short = lab.split(" (")[0]
            parts.append(f'<g class="track" data-track="{e(kind)}"><text class="axis-title" x="{x0 - 6}" y="{y + 14}" '
                         f'text-anchor="end">{e(short)} ({e(unit)})</text>'
                         f'<line x1="{x0}" x2="{x0 + pw}" y1="{base}" y2="{base}" stroke="#ccd"/>{area}'
                         f'<text x="{x0 + 4}" y="{y + 10}">max {e(tf.for_html(tf.format_value(mx, unit)))}</text></g>')
            y += TRACK_ROW + 8
    # the time axis, seconds since the run's start
    ticks = [v for v in _ticks(end)]
    axis = "".join(f'<line x1="{sx(v):.1f}" x2="{sx(v):.1f}" y1="{y}" y2="{y + 4}" stroke="#889"/>'
                   f'<text x="{sx(v):.1f}" y="{y + 15}" text-anchor="middle">{v / 1e9:g}</text>' for v in ticks)
    axis += (f'<text class="axis-title" x="{x0 + pw / 2}" y="{y + 30}" text-anchor="middle">'
             "time since the run's start (s)</text>")
    shade = ""
    if d.sel:
        a, b = sx(d.sel[0]), sx(d.sel[1])
        shade = (f'<rect class="selection" x="{a:.1f}" y="0" width="{max(b - a, 1):.1f}" height="{y}" '
                 f'fill="#f5c542" fill-opacity="0.22" stroke="#c9a227" stroke-width="0.8"/>')
    height = y + 38
    svg = (f'<svg class="chart plot" xmlns="http://www.w3.org/2000/svg" width="{x0 + pw + 10}" height="{height}" '
           f'viewBox="0 0 {x0 + pw + 10} {height}" role="img">{shade}{"".join(parts)}{axis}</svg>')
    keys = [(n, task_colour(i, names), "") for i, n in enumerate(names)]
    note = "CPU rows: height = share of the column busy, colour = the task group that ran longest"
    if d.sel:
        note += f"; shaded: the selection {_s(d.sel[0])} - {_s(d.sel[1])}"
    return svg, svgplot.legend(keys, note)


def _ticks(end: int) -> list[int]:
    step = 10 ** 9
    for s in (1e7, 2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10, 2e10, 5e10, 1e11, 3e11, 6e11, 1.2e12, 3.6e12):
        if end / s <= 10:
            step = int(s)
            break
    else:
        step = int(end // 10) or 1
    return list(range(0, end + 1, step))
