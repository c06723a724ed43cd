"""The block layer cell's charts in the HTML export (exports/block.py keeps its data and text):
queue depth, IOPS (with fio's own IOPS log when the run wrote one), throughput and latency over
time, the latency histogram and the request sizes, as the app draws them (src/cells/block,
src/logic/blockSeries.ts): one line per run, in its capture's colour (later runs shaded), time
since each run's start, a shorter run's line ending where its data ends. Below each chart its
key numbers per run, with the run, device and where the values came from.
"""

from __future__ import annotations

import html
import math
from typing import Any

from ..store.rules.bin_percentile import percentile_of_bins
from . import svgplot as sp
from . import textfmt as tf
from .context import ExportContext
from .svgplot import Axis, Line

BlockData = Any  # exports/block.py BlockData (which imports this module to draw its charts)

e = html.escape
OP_DASH = {"read": "", "write": "5 3", "discard": "2 2", "flush": "1 3"}
FIO_DASH = "12 4"
LAT_NAMES = {"mean": "mean", "p50": "p50", "p90": "p90", "p99": "p99", "p999": "p99.9", "max": "max"}
LAT_FIELD = {"mean": "mean_ns", "p50": "p50_ns", "p90": "p90_ns", "p99": "p99_ns", "p999": "p99_9_ns", "max": "max_ns"}
LAT_DASH = ["", "5 3", "2 2", "8 3 2 3", "1 3", "10 4"]
TIME = Axis("time since run start", "s")


def _colors(ctx: ExportContext, series) -> list[str]:
    order = list(ctx.doc.captures)
    seen: dict[str, int] = {}
    out = []
    for s in series:
        k = seen.get(s.capture_id, 0)
        seen[s.capture_id] = k + 1
        idx = order.index(s.capture_id) if s.capture_id in order else len(order)
        out.append(sp.run_color(sp.capture_color(idx), k))
    return out


def _end_at(values, t_ns: list[int], last: int | None) -> list[float | None]:
    if last is None:
        return list(values)
    return [None if t > last else v for v, t in zip(values, t_ns)]


def _who(s, color: str) -> str:
    lost = ' <span class="tone-worse" title="events lost: counts are too low">&#9888; events lost</span>' if s.events_lost else ""
    return f"{sp.swatch(color)}{e(s.label)} <span class=muted>{e(s.run_id)}, {e(s.device or 'all devices')}</span>{lost}"


def _src(source: str) -> str:
    if source.startswith("tiles"):
        return "pre-aggregated at ingest"
    if source.startswith("sample"):
        return source.replace("sample", "a sample,")
    return "every I/O"


def charts(ctx: ExportContext, d: BlockData) -> str:
    if d.qd is None or d.io is None:
        return ""
    out: list[str] = []
    t_s = [t / 1e9 for t in d.qd.t_ns]
    last = d.last_ns
    colors = _colors(ctx, d.qd.series)
    interval = tf.for_html(_span(d.interval_ns))
    want = d.charts
    scope = "; ".join(x for x in (f"values per {interval} interval", d.scope_words) if x)

    def key(s) -> int | None:
        return last.get((s.capture_id, s.run_id))

    if "qd" in want:
        lines = [Line(s.label, c, t_s, _end_at(s.depth, d.qd.t_ns, key(s)))
                 for s, c in zip(d.qd.series, colors)]
        svg, note = sp.xy_chart(lines, TIME, Axis("queue depth", "I/Os in flight"), height=200, label="queue depth over time")
        rows = [[_who(s, c), "-" if n.depth_mean is None else f"{n.depth_mean:.2f}",
                 "-" if n.depth_max is None else f"{n.depth_max:.2f}", f"{n.span_ns / 1e9:.3f} s"]
                for s, c, n in zip(d.qd.series, colors, d.series)]
        out.append(sp.figure("block-qd", "Queue depth", "I/Os issued and not yet completed, time-weighted mean per interval",
                             svg, sp.legend([(ln.label, ln.color, "") for ln in lines], note),
                             sp.numbers(["run", "mean", f"max per {interval}", "traced"], rows,
                                        f"Mean over the part of the window each trace covers; {e(scope)}.")))
    for metric, title, unit, name in (("iops", "IOPS", "IO/s", "block-iops"), ("bytes_per_s", "Throughput", "B/s", "block-bw")):
        if (metric == "iops" and "iops" not in want) or (metric == "bytes_per_s" and "bw" not in want):
            continue
        lines = []
        rows = []
        for s, c, n in zip(d.io.series, colors, d.series):
            ops = [o for o in s.ops if d.op is None or o.op == d.op]
            mine: list[Line] = []
            if d.split and d.op is None:
                for o in ops:
                    vals = getattr(o, metric)
                    if any(v > 0 for v in vals):
                        mine.append(Line(f"{s.label} {o.op}", c, t_s, _end_at(vals, d.io.t_ns, key(s)),
                                         dash=OP_DASH.get(o.op, "8 2 2 2")))
            else:
                vals = [sum(getattr(o, metric)[b] for o in ops) for b in range(len(d.io.t_ns))]
                mine.append(Line(s.label, c, t_s,
                                 _end_at(vals, d.io.t_ns, key(s))))
            peak = max((v for ln in mine for v in ln.y if v is not None), default=None)
            lines += mine
            if metric == "iops":
                fio_cell = "-"
                if s.fio_iops is not None and s.fio_iops.aligned:
                    ddir = {"read": "read", "write": "write", "discard": "trim"}.get(d.op or "", None)
                    ddirs = [x for x in s.fio_iops.ddirs if d.op is None or x.ddir == ddir]
                    if ddirs:
                        fio_vals = [None if all(x.iops[b] is None for x in ddirs) else sum(x.iops[b] or 0 for x in ddirs)
                                    for b in range(len(d.io.t_ns))]
                        lines.append(Line(f"{s.label}: fio's iops log", c, t_s, fio_vals, dash=FIO_DASH,
                                          width=2.2))
                if n.fio is not None and n.fio.fio_iops is not None:
                    ratio = (f" ({n.fio.device_iops / n.fio.fio_iops:.2f} device I/Os per fio I/O)"
                             if n.fio.device_iops else "")
                    fio_cell = sp.val(n.fio.fio_iops, "IO/s") + e(ratio)
                elif n.fio is not None:
                    fio_cell = f'<span class="muted">{e(n.fio.note or "not aligned")}</span>'
                rows.append([_who(s, c), f"{n.ios:,.0f}", sp.val(n.iops, "IO/s"), sp.val(peak, "IO/s"), fio_cell])
            else:
                rows.append([_who(s, c), sp.val(n.bytes_per_s, "B/s"), sp.val(peak, "B/s"),
                             e(_size(n.bytes_per_s / n.iops)) if n.iops and n.bytes_per_s is not None else "-"])
        svg, note = sp.xy_chart(lines, TIME, Axis(title, unit), height=210, robust=not d.full_scale, label=f"{title} over time")
        keys = [(ln.label, ln.color, ln.dash) for ln in lines]
        if metric == "iops":
            nums = sp.numbers(["run", "I/Os", "mean", f"highest per {interval}", "fio's own log (mean)"], rows,
                              f"I/Os completed ({e(d.op or 'all operations')}); mean over the part of the window each "
                              f"trace covers; {e(scope)}. fio's line: its write_iops_log on the run's clock "
                              "(iolens-collect --fio-logs), what fio counted against what reached the device.")
        else:
            nums = sp.numbers(["run", "mean", f"highest per {interval}", "mean request"], rows,
                              f"Bytes completed ({e(d.op or 'all operations')}); {e(scope)}.")
        out.append(sp.figure(name, title, f"completed, per second, {e(d.op or 'all operations')}", svg,
                             sp.legend(keys, note), nums))
    if "lat" in want and d.lat is not None:
        lines = []
        measures = [m for m in d.lat_measures if m in LAT_FIELD] or ["p50", "p99"]
        lat_colors = _colors(ctx, d.lat.series)
        for s, c in zip(d.lat.series, lat_colors):
            for k, m in enumerate(measures):
                lines.append(Line(f"{s.label} {LAT_NAMES[m]}", c, t_s, _end_at(getattr(s, LAT_FIELD[m]), d.lat.t_ns, key(s)),
                                  dash=LAT_DASH[k % len(LAT_DASH)]))
        svg, note = sp.xy_chart(lines, TIME, Axis("issue to complete", "ns"), height=210, robust=not d.full_scale,
                                label="latency over time")
        rows = [[_who(s, c), sp.val(n.p50_ns, "ns"), sp.val(n.p99_ns, "ns"), sp.val(n.lat_mean_ns, "ns"),
                 sp.val(n.lat_max_ns, "ns")] for s, c, n in zip(d.lat.series, lat_colors, d.series)]
        out.append(sp.figure("block-lat", "Latency", f"{', '.join(LAT_NAMES[m] for m in measures)} per interval, "
                             f"{d.op or 'all operations'}", svg, sp.legend([(ln.label, ln.color, ln.dash) for ln in lines], note),
                             sp.numbers(["run", "p50", "p99", "mean", "max"], rows,
                                        "Over the whole window: percentiles from the log histogram (8 bins per "
                                        f"doubling, within ~4.4 %), mean and max exact; {e(scope)}.")))
    if "hist" in want and d.hist is not None:
        lines, rows = [], []
        for s, c in zip(d.hist.series, _colors(ctx, d.hist.series)):
            merged: dict[int, list] = {}
            for o in s.ops:
                if d.op is not None and o.op != d.op:
                    continue
                for b in o.bins:
                    merged.setdefault(b.bin, [b.low_ns, b.high_ns, 0])[2] += b.count
            if not merged:
                continue
            bins = [merged[k] for k in sorted(merged)]
            total = sum(b[2] for b in bins)
            xs, ys = [], []
            for lo, hi, n in bins:
                xs += [lo, hi]
                ys += [n / total * 100, n / total * 100]
            lines.append(Line(s.label, c, xs, ys))
            p50, p99 = percentile_of_bins(bins, 50), percentile_of_bins(bins, 99)
            mode = max(bins, key=lambda b: b[2])
            rows.append([_who(s, c), f"{total:,}", sp.val(p50, "ns"), sp.val(p99, "ns"),
                         f"{sp.val(mode[0], 'ns')} &ndash; {sp.val(mode[1], 'ns')}"])
        if lines:
            svg, note = sp.xy_chart(lines, Axis("issue to complete", "ns", log=True), Axis("share of I/Os", "%"),
                                    height=200, label="latency histogram")
            out.append(sp.figure("block-hist", "Latency histogram", f"share of the I/Os per latency bin, {d.op or 'all operations'}",
                                 svg, sp.legend([(ln.label, ln.color, "") for ln in lines], note),
                                 sp.numbers(["run", "I/Os", "p50", "p99", "most common bin"], rows,
                                            f"Bins of 1/8 of a doubling; {e(d.scope_words)}.")))
    if "size" in want and d.sizes is not None:
        groups: dict[int, str] = {}
        per: list[tuple[str, str, dict[int, float]]] = []
        rows = []
        for s, c in zip(d.sizes.series, _colors(ctx, d.sizes.series)):
            counts: dict[int, int] = {}
            for o in s.ops:
                if d.op is not None and o.op != d.op:
                    continue
                for z in o.sizes:
                    exp = int(math.floor(math.log2(z.bytes))) if z.bytes > 0 else -1
                    counts[exp] = counts.get(exp, 0) + z.count
            total = sum(counts.values())
            if not total:
                continue
            per.append((s.label, c,
                        {k: v / total * 100 for k, v in counts.items()}))
            for k in counts:
                groups[k] = "0 B" if k < 0 else tf.for_html(_size(2 ** k))
            allz = [(z.bytes, z.count) for o in s.ops if d.op is None or o.op == d.op for z in o.sizes]
            top = max(allz, key=lambda x: x[1])
            mean = sum(b * n for b, n in allz) / total
            rows.append([_who(s, c), f"{total:,}", f"{e(_size(top[0]))} ({top[1] / total * 100:.1f} %)", e(_size(mean))])
        if per:
            keys = sorted(groups)
            svg = sp.bar_chart([groups[k] + ("" if k < 0 else "+") for k in keys],
                               [(lbl, c, [v.get(k) for k in keys]) for lbl, c, v in per],
                               Axis("request size", "bins by power of two, from"), Axis("share of I/Os", "%"), height=190,
                               label="request sizes")
            out.append(sp.figure("block-size", "Request sizes", f"share of the I/Os per size, by power of two, "
                                 f"{d.op or 'all operations'}", svg, sp.legend([(lbl, c, "") for lbl, c, _ in per]),
                                 sp.numbers(["run", "I/Os", "most common size", "mean size"], rows,
                                            f"Sizes of the requests as the block layer completed them; {e(d.scope_words)}.")))
    return "".join(out)


def _span(ns: int) -> str:
    for f, u in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= f:
            return f"{ns / f:g} {u}"
    return f"{ns} ns"


def _size(b: float) -> str:
    for f, u in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= f:
            v = b / f
            return f"{v:.0f} {u}" if v == int(v) else f"{v:.1f} {u}"
    return f"{b:.0f} B"
