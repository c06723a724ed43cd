"""The block layer cell ('block' in src/cells/registry.ts) in text and HTML exports: its key numbers
per run, and a link to the charts.

Its state (src/cells/block/state.ts): `c=` charts, `op=read` one operation, `split=1`, `lat=`
latency measures, `dev=all|MAJ,MIN` the device, `t=FROM-TO` the zoom range (ns since run start),
`scale=full` the rate charts unclipped. The text uses `op`, `dev` and `t`; `scale` is read for the
charts that draw it. Per series (a run of a capture):
I/Os completed, mean IOPS and throughput while its trace ran, the time-weighted queue depth (mean,
and the largest value per interval), and completion latency (p50, p99 from the histogram; mean and
max exact), with the loss warning when the capture lost events (docs/block.md). When the run has
fio's own IOPS log on the run's clock (--fio-logs): fio's mean IOPS over the intervals its log
covers wholly, next to the device's over the same intervals, and their ratio (device I/Os per fio
I/O: below 1 when the block layer merged fio's I/Os into bigger requests, above 1 when it split
them).

The notebook's timeline selection (exports/selection.py), when there is one, is the window of every
run instead of `t=`, as in the app (src/cells/block/BlockCell.tsx); the export says so first.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from .. import models
from ..store.rules.bin_percentile import percentile_of_bins
from ..views import block as block_view
from . import selection, svg_block
from . import textfmt as tf
from .context import ExportContext, parse_state

BUCKETS = 200  # resolution of the "max queue depth" figure
CHARTS = ["qd", "iops", "bw", "lat", "hist", "size"]  # the cell's default charts (src/cells/block/state.ts)
LATENCY = ["mean", "p50", "p90", "p99", "p999", "max"]


@dataclass
class SeriesNumbers:
    capture_id: str
    run_id: str
    label: str
    device: str | None
    events_lost: bool
    warnings: list[str]
    span_ns: int           # the part of the window that the trace covers
    ios: float
    iops: float | None
    bytes_per_s: float | None
    depth_mean: float | None
    depth_max: float | None
    p50_ns: float | None
    p99_ns: float | None
    lat_mean_ns: float | None
    lat_max_ns: float | None
    fio: FioNumbers | None = None  # fio's own IOPS log, when the run wrote one


@dataclass
class FioNumbers:
    aligned: bool
    avg_msec: list[int]      # the logs' windows (0: per-I/O logs)
    logs: int
    from_ns: int | None      # the whole intervals compared, ns since run start
    to_ns: int | None
    fio_iops: float | None   # fio's mean over them (the op's data direction, or all summed)
    device_iops: float | None  # the device's over the same intervals
    note: str | None = None


@dataclass
class BlockData:
    index: int | None                   # the cell's position, for its link
    window: tuple[int, int] | None      # the zoom range, or None: whole runs
    op: str | None
    device: str | None
    interval_ns: int = 0
    series: list[SeriesNumbers] = field(default_factory=list)
    without: list[str] = field(default_factory=list)  # capture ids without block data
    # what the HTML export draws (exports/svg_block.py): the cell's charts and latency measures, the
    # answers they are drawn from, each run's last event (ns since its start)
    charts: list[str] = field(default_factory=lambda: list(CHARTS))
    lat_measures: list[str] = field(default_factory=lambda: ["p50", "p99"])
    split: bool = False
    full_scale: bool = False  # scale=full: the rate charts unclipped
    scope_words: str = ""
    qd: models.BlockQueueDepth | None = None
    io: models.BlockIops | None = None
    lat: models.BlockLatency | None = None
    hist: models.BlockLatencyHistogram | None = None
    sizes: models.BlockSizes | None = None
    last_ns: dict[tuple[str, str], int | None] = field(default_factory=dict)
    time_note: str | None = None  # the timeline selection, the window of every run when set


def _window(text: str) -> tuple[int, int] | None:
    m = re.fullmatch(r"(\d{1,16})-(\d{1,16})", text or "")
    if not m or int(m.group(2)) <= int(m.group(1)):
        return None
    return int(m.group(1)), int(m.group(2))


def _span(s: str) -> str:
    """A bucket width of 1, 2 or 5 x 10^k ns: '2 ms'."""
    for f, u in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if int(s) >= f:
            return f"{int(s) / f:g} {u}"
    return f"{s} ns"


def _instant(ns: int) -> str:
    return f"{ns / 1e9:.6f}".rstrip("0").rstrip(".") + " s"


class BlockExport:
    title = "Block layer"

    @staticmethod
    def read_state(state: str) -> dict[str, object]:
        st = parse_state(state)
        window = _window(st.get("t", ""))
        charts = [c for c in CHARTS + ["scatter"] if c in st["c"].split(",")] if "c" in st else list(CHARTS)
        lat = [m for m in LATENCY if m in st["lat"].split(",")] if "lat" in st else ["p50", "p99"]
        return {"op": st.get("op") or "all", "dev": st.get("dev") or None, "range": list(window) if window else None,
                "charts": charts, "lat": lat, "split": st.get("split") == "1",
                "scale": "full" if st.get("scale") == "full" else "clip"}

    def data(self, ctx: ExportContext, state: str) -> BlockData:
        read = self.read_state(state)
        window = tuple(read["range"]) if read["range"] else None
        t = selection.shared_time(ctx)
        if t is not None:  # the notebook's timeline selection is the window shown, every run from its start
            window = (t.from_ns, t.to_ns)
        op = read["op"] if read["op"] != "all" else None
        dev = read["dev"]
        index = next((i for i, c in enumerate(ctx.doc.cells)
                      if getattr(c, "kind", None) == "block" and getattr(c, "state", None) == state), None)
        ids = [c.id for c in ctx.captures]
        runs = block_view.runs(ctx.store, ids)
        have = [c for c in ids if any(r.capture_id == c for r in runs)]
        data = BlockData(index, window, op, dev, without=[c for c in ids if c not in have],
                         charts=read["charts"], lat_measures=read["lat"], split=read["split"],
                         full_scale=read["scale"] == "full")
        if t is not None:
            data.time_note = selection.notice(ctx, t, "applied as the window of every run of each capture (time "
                                                      "since each run's start)")
        if not have:
            return data
        lo, hi = window if window else (None, None)
        qd = block_view.queue_depth(ctx.store, have, lo, hi, BUCKETS, dev)
        io = block_view.iops(ctx.store, have, lo, hi, BUCKETS, dev)
        lat = block_view.latency(ctx.store, have, lo, hi, BUCKETS, dev, op=op)
        hist = block_view.latency_histogram(ctx.store, have, lo, hi, dev)
        data.qd, data.io, data.lat, data.hist = qd, io, lat, hist
        data.sizes = block_view.sizes(ctx.store, have, lo, hi, dev) if "size" in data.charts else None
        data.last_ns = {(r.capture_id, r.run_id): r.last_ns for r in runs}
        data.scope_words = self._scope(data)
        data.interval_ns = qd.grid.interval_ns
        extent = {(r.capture_id, r.run_id): (r.first_ns or 0, r.last_ns or 0) for r in runs}
        w = qd.grid.interval_ns
        for d, r, la, h in zip(qd.series, io.series, lat.series, hist.series):
            first, last = extent.get((d.capture_id, d.run_id), (0, 0))
            a = max(first, window[0] if window else 0)
            b = min(last, window[1] if window else last)
            span = max(0, b - a)
            ops = [o for o in r.ops if op is None or o.op == op]
            ios = sum(v * w / 1e9 for o in ops for v in o.iops)
            nbytes = sum(v * w / 1e9 for o in ops for v in o.bytes_per_s)
            busy = sum(v * w for v in d.depth)
            in_run = [v for t, v in zip(qd.t_ns, d.depth) if t + w > a and t < b]
            n = sum(la.count)
            mean = sum(c * m for c, m in zip(la.count, la.mean_ns) if m is not None) / n if n else None
            mx = max((m for m in la.max_ns if m is not None), default=None)
            bins = sorted((b_.bin, b_.low_ns, b_.high_ns, b_.count) for o in h.ops if op is None or o.op == op
                          for b_ in o.bins)
            merged: dict[int, list] = {}
            for k, low, high, c in bins:
                merged.setdefault(k, [low, high, 0])[2] += c
            data.series.append(SeriesNumbers(
                d.capture_id, d.run_id, d.label, d.device, d.events_lost, list(d.warnings), span, ios,
                ios / (span / 1e9) if span else None, nbytes / (span / 1e9) if span else None,
                busy / span if span else None, max(in_run) if in_run else None,
                percentile_of_bins(list(merged.values()), 50), percentile_of_bins(list(merged.values()), 99), mean, mx,
                _fio_numbers(r, io.t_ns, w, op)))
        return data

    def _fio_text(self, s: SeriesNumbers) -> list[str]:
        fio = s.fio
        if fio is None:
            return []
        if not fio.aligned:
            return tf.wrap("fio's iops log: not on the run's time axis (written without a clock), not compared.",
                           indent="    ", subsequent="      ")
        if fio.fio_iops is None:
            return tf.wrap(f"fio's iops log: {fio.note or 'nothing to compare in this window'}.", indent="    ",
                           subsequent="      ")
        f = tf.format_value
        win = ", ".join("per I/O" if a == 0 else f"{a} ms" for a in fio.avg_msec)
        ratio = (f"{fio.device_iops / fio.fio_iops:.2f} device I/Os per fio I/O"
                 if fio.device_iops is not None and fio.fio_iops else "")
        text = (f"fio's iops log ({win} windows): {f(fio.fio_iops, 'IO/s')} from "
                f"{_instant(fio.from_ns or 0)} to {_instant(fio.to_ns or 0)}; device {f(fio.device_iops, 'IO/s')} "
                f"then{': ' + ratio if ratio else ''}.")
        return tf.wrap(text, indent="    ", subsequent="      ")

    def _link(self, ctx: ExportContext, data: BlockData) -> str:
        return ctx.cell_link(data.index) if data.index is not None else ctx.permalink

    def _scope(self, data: BlockData) -> str:
        win = f"{_instant(data.window[0])} to {_instant(data.window[1])} since run start" if data.window else "whole runs"
        ops = f"{data.op} only" if data.op else "all operations"
        dev = {None: "each run's busiest device", "all": "all devices summed"}.get(data.device, f"device {data.device}")
        return f"{win}; {ops}; {dev}"

    def text(self, ctx: ExportContext, data: BlockData) -> list[str]:
        lines: list[str] = tf.wrap(data.time_note, indent="    ") + [""] if data.time_note else []
        if not data.series:
            lines += tf.wrap("No block layer data in these captures (capture with iolens-collect run ... "
                             "--block DEV).", indent="    ")
            return lines
        lines += tf.wrap(f"Per run, from its block layer trace (blktrace, or perf's block:block_rq_* events): "
                         f"{self._scope(data)}. Queue depth: time-weighted mean of I/Os in flight "
                         f"(issued, not completed); max per {_span(str(data.interval_ns))}. Latency: issue to "
                         f"complete (p50/p99 within ~4 %).", indent="    ")
        for s in data.series:
            lines.append("")
            dev = f"device {s.device}" if s.device else "all devices"
            lines.append(f"  {tf.fit(s.label, 40)} ({s.run_id}, {dev})")
            if s.events_lost:
                lines += tf.wrap("! LOST EVENTS: counts, IOPS and queue depth are too low. "
                                 + "; ".join(s.warnings[:2]), indent="    ", subsequent="      ")
            f = tf.format_value
            lines.append(f"    I/Os {s.ios:,.0f} in {s.span_ns / 1e9:.3f} s: {f(s.iops, 'IO/s')}, "
                         f"{f(s.bytes_per_s, 'B/s')}")
            lines += self._fio_text(s)
            qd_max = "-" if s.depth_max is None else f"{s.depth_max:.2f}"
            qd_mean = "-" if s.depth_mean is None else f"{s.depth_mean:.2f}"
            lines.append(f"    queue depth mean {qd_mean}, max {qd_max}")
            lines.append(f"    latency p50 {f(s.p50_ns, 'ns')}, p99 {f(s.p99_ns, 'ns')}, "
                         f"mean {f(s.lat_mean_ns, 'ns')}, max {f(s.lat_max_ns, 'ns')}")
        if data.without:
            names = ", ".join(ctx.name(c) for c in data.without)
            lines += [""] + tf.wrap(f"Without block data: {names}.", indent="    ")
        lines += [""] + tf.wrap("Charts (queue depth, IOPS, latency over time, zoomable):", indent="    ")
        lines.append("    " + self._link(ctx, data))
        return lines

    def html(self, ctx: ExportContext, data: BlockData) -> str:
        e = html.escape
        link = e(self._link(ctx, data))
        if not data.series:
            return ('<p class="muted">No block layer data in these captures (capture with '
                    '<code>iolens-collect run ... --block DEV</code>).</p>')
        lost = "".join(f'<p class="warning">&#9888; <b>{e(s.label)}</b> ({e(s.run_id)}) lost block events: its '
                       f'counts, IOPS and queue depth are too low. {e("; ".join(s.warnings[:2]))}</p>'
                       for s in data.series if s.events_lost)
        without = (f'<p class="muted">Without block data: {e(", ".join(ctx.label(c) for c in data.without))}.</p>'
                   if data.without else "")
        return (selection.html_notice(data.time_note) + f'<p class="source muted">{e(self._scope(data))}. Per run of each capture; time since each run\'s '
                f'start, so runs overlay from their starts.</p>{lost}'
                + svg_block.charts(ctx, data) + without
                + f'<p class="small muted">Zoom, pan, other percentiles and the sector scatter: '
                  f'<a href="{link}">the cell in iolens</a>.</p>')

    def _fio_cell(self, s: SeriesNumbers) -> str:
        e = html.escape
        fio = s.fio
        if fio is None:
            return "-"
        if not fio.aligned or fio.fio_iops is None:
            return f'<span class="muted" title="{e(fio.note or "", quote=True)}">not aligned</span>'
        ratio = f" ({fio.device_iops / fio.fio_iops:.2f}x)" if fio.device_iops is not None and fio.fio_iops else ""
        return e(tf.format_value(fio.fio_iops, "IO/s") + ratio)


# The block operation a fio data direction is counted as.
_DDIR_OF_OP = {"read": "read", "write": "write", "discard": "trim"}


def _fio_numbers(r, t_ns: list[int], w: int, op: str | None) -> FioNumbers | None:
    """fio's mean IOPS over the buckets its logs cover wholly, and the device's over the same ones."""
    fio = r.fio_iops
    if fio is None:
        return None
    avg = sorted({lg.avg_msec or 0 for lg in fio.logs})
    if not fio.aligned:
        return FioNumbers(False, avg, len(fio.logs), None, None, None, None, fio.note)
    if op is not None and op not in _DDIR_OF_OP:
        return FioNumbers(True, avg, len(fio.logs), None, None, None, None, f"fio has no {op} I/O to compare")
    ddirs = [d for d in fio.ddirs if op is None or d.ddir == _DDIR_OF_OP[op]]
    starts = [lg.from_ns for lg in fio.logs if lg.from_ns is not None]
    ends = [lg.to_ns for lg in fio.logs if lg.to_ns is not None]
    if not ddirs or not starts:
        return FioNumbers(True, avg, len(fio.logs), None, None, None, None, "no entries for this operation")
    a, b = min(starts), max(ends)
    whole = [i for i, t in enumerate(t_ns) if t >= a and t + w <= b]
    if not whole:
        return FioNumbers(True, avg, len(fio.logs), None, None, None, None,
                          "its log covers no whole interval of this window")
    fio_mean = sum(v for d in ddirs for i in whole if (v := d.iops[i]) is not None) / len(whole)
    dev = sum(o.iops[i] for o in r.ops if op is None or o.op == op for i in whole) / len(whole)
    return FioNumbers(True, avg, len(fio.logs), t_ns[whole[0]], t_ns[whole[-1]] + w, fio_mean, dev)
