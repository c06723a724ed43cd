"""The timeline of one run (issue 17 "Time"; the `timeline` cell): tracks on one time axis, ns since the
run's start, each answered with a level of detail that fits the pixels asked for.

The run's start (t0) is the clock reading every probe artifact of the run carries
(`trace_clock_at_start_ns`, CLOCK_MONOTONIC, read just before fio started): the block views count from
it already (block_runs.t0_ns), fio's logs on that clock have run_ms, and the scheduler trace and the
perf samples are shifted by it. A run whose artifacts carry no clock reading has no common axis:
each track then counts from its own first event and the answer says so (`aligned` false).

Tracks (one request each, `track(...)`):
- cpu: per CPU and pixel column, the share of the column a task ran (not idle) and the task group
  that ran longest, from sched_cpu_tiles (ingest/timeline.py: sched_slices cut at 1 ms, 10 ms,
  100 ms and 1 s), the coarsest level no wider than a column;
- block: the device's queue depth and IOPS (views/block.py queue_depth and iops, from block_tiles);
- fio: fio's own IOPS log per data direction (views/block.py fio_iops on the same grid when the run
  has block events on the same clock; else each column's mean of the entries in it);
- samples: perf samples per column (the capture's default event, the flame graph's).
A track the run has no data for answers `available: false` with the reason.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Literal

from .. import models
from ..ingest.timeline import LEVELS_NS
from ..store.db import Store
from . import block as block_view

TrackKind = Literal["cpu", "block", "fio", "samples"]
TRACKS: tuple[TrackKind, ...] = ("cpu", "block", "fio", "samples")
MAX_WIDTH = 4000
MAX_NAMES = 12   # task groups named per answer: the others are "other"


class UnknownRun(LookupError):
    pass


class BadTimeline(ValueError):
    pass


@dataclass(frozen=True)
class RunAxis:
    run_id: str
    index: int
    repeat: int
    t0_ns: int | None            # the clock reading at the run's start; None: not recorded
    sched_first_ns: int | None   # the sched trace's first event, on that clock (None: no trace)
    samples_first_ns: int | None  # the run's first perf sample (any event)
    block: bool
    block_last_ns: int | None
    block_aligned: bool          # block_runs.t0_ns is the run's clock reading
    fio_log: bool
    fio_aligned: bool
    cpus: list[int]


def _clock_readings(manifest: str) -> dict[str, int]:
    """run id -> trace_clock_at_start_ns of its artifacts (the collector writes one reading per run)."""
    out: dict[str, int] = {}
    for r in json.loads(manifest).get("runs", []):
        for a in r.get("artifacts", []) or []:
            t = a.get("trace_clock_at_start_ns")
            if isinstance(t, int) and not isinstance(t, bool):
                out.setdefault(r["id"], t)
    return out


RUNS_SQL = """
SELECT r.run_id, r.run_index, r.repeat,
  (SELECT first_ts_ns FROM sched_traces t WHERE t.capture_id = r.capture_id AND t.run_id = r.run_id),
  (SELECT last_ts_ns FROM sched_traces t WHERE t.capture_id = r.capture_id AND t.run_id = r.run_id),
  (SELECT cpus FROM sched_traces t WHERE t.capture_id = r.capture_id AND t.run_id = r.run_id),
  (SELECT min(t0_ns) FROM block_runs b WHERE b.capture_id = r.capture_id AND b.run_id = r.run_id),
  (SELECT max(last_ns) FROM block_runs b WHERE b.capture_id = r.capture_id AND b.run_id = r.run_id),
  (SELECT count(*) FROM block_runs b WHERE b.capture_id = r.capture_id AND b.run_id = r.run_id),
  (SELECT count(*) FROM fio_log_samples f WHERE f.capture_id = r.capture_id AND f.run_id = r.run_id AND f.log = 'iops'),
  (SELECT count(run_ms) FROM fio_log_samples f WHERE f.capture_id = r.capture_id AND f.run_id = r.run_id AND f.log = 'iops'),
  (SELECT max(run_ms) FROM fio_log_samples f WHERE f.capture_id = r.capture_id AND f.run_id = r.run_id AND f.log = 'iops')
FROM runs r WHERE r.capture_id = $cid ORDER BY r.run_index
"""
# the perf samples' extent per run, from one scan
SAMPLES_SQL = """
SELECT run_id, min(ts_ns), max(ts_ns) FROM perf_samples WHERE capture_id = $cid AND ts_ns IS NOT NULL GROUP BY run_id
"""


# A capture never changes once ingested: its axes are kept per store and capture, checked against
# its ingest time (a capture deleted and uploaded again is read again). A brush then costs only its
# track's query.
_AXES: dict[tuple[int, str], tuple[object, tuple]] = {}
_BLOCK: dict[tuple[int, str, str], tuple[object, block_view.Series, list[int]]] = {}


def _axes(store: Store, cid: str) -> tuple[models.FlameCaptureRef, list[RunAxis], dict[str, int]]:
    stamp = store.query("SELECT ingested_at FROM captures WHERE capture_id = $cid", {"cid": cid}).rows
    if not stamp:
        raise UnknownRun(f"no capture with id {cid}")
    hit = _AXES.get((id(store), cid))
    if hit is not None and hit[0] == stamp[0][0]:
        return hit[1]  # type: ignore[return-value]
    out = _read_axes(store, cid)
    if len(_AXES) > 256:
        _AXES.clear()
        _BLOCK.clear()
    _AXES[(id(store), cid)] = (stamp[0][0], out)
    return out


def _read_axes(store: Store, cid: str) -> tuple[models.FlameCaptureRef, list[RunAxis], dict[str, int]]:
    meta = store.query("SELECT label, kernel, manifest FROM captures WHERE capture_id = $cid", {"cid": cid}).rows
    clocks = _clock_readings(meta[0][2])
    samples = {r: (lo, hi) for r, lo, hi in store.query(SAMPLES_SQL, {"cid": cid}).rows}
    axes, ends = [], {}
    for (rid, idx, rep, s_first, s_last, cpus, b_t0, b_last, n_block, n_fio, n_fio_timed,
         fio_last_ms) in store.query(RUNS_SQL, {"cid": cid}).rows:
        t0 = clocks.get(rid)
        smp = samples.get(rid)
        axes.append(RunAxis(rid, idx, rep, t0, s_first, smp[0] if smp else None, n_block > 0, b_last,
                            b_t0 is not None and b_t0 == t0, n_fio > 0, n_fio_timed > 0, list(cpus or [])))
        # the run's extent on its axis: the latest end of any track
        end = 0
        if s_last is not None:
            end = max(end, s_last - (t0 if t0 is not None else s_first))
        if b_last is not None:
            end = max(end, b_last)
        if fio_last_ms is not None:
            end = max(end, fio_last_ms * 1_000_000)
        if smp:
            end = max(end, smp[1] - (t0 if t0 is not None else smp[0]))
        ends[rid] = end
    return models.FlameCaptureRef(id=cid, label=meta[0][0], kernel=meta[0][1]), axes, ends


def _run_public(a: RunAxis, end: int) -> models.TimelineRun:
    t0 = a.t0_ns
    notes: dict[str, str] = {}
    if a.sched_first_ns is None:
        notes["cpu"] = "no scheduler trace in this run (iolens-collect run --sched)"
    if not a.block:
        notes["block"] = "no block trace in this run (iolens-collect run --block DEV)"
    if not a.fio_log:
        notes["fio"] = "fio wrote no IOPS log in this run (iolens-collect run --fio-logs MSEC)"
    elif not a.fio_aligned:
        notes["fio"] = "fio's IOPS log has no clock (an older fio or collector): not on the run's axis, not drawn"
    if a.samples_first_ns is None:
        notes["samples"] = "no perf samples in this run (iolens-collect run --stacks)"
    return models.TimelineRun(
        id=a.run_id, index=a.index, repeat=a.repeat, t0_ns=t0, duration_ns=end, aligned=t0 is not None,
        cpus=a.cpus,
        samples_offset_ns=(a.samples_first_ns - t0 if t0 is not None else 0) if a.samples_first_ns is not None else None,
        sched_offset_ns=(a.sched_first_ns - t0 if t0 is not None else 0) if a.sched_first_ns is not None else None,
        tracks={k: k not in notes for k in TRACKS}, notes=notes)


def overview(store: Store, cid: str) -> models.TimelineOverview:
    """The runs of a capture, the tracks each has data for (or why not) and their origins."""
    ref, axes, ends = _axes(store, cid)
    runs = [_run_public(a, ends[a.run_id]) for a in axes]
    notes = []
    if any(not r.aligned for r in runs):
        notes.append("runs without a clock reading at their start (trace_clock_at_start_ns): each track counts "
                     "from its own first event, so tracks of those runs are not aligned with each other")
    return models.TimelineOverview(capture=ref, runs=runs, notes=notes)


def _grid(lo: int, hi: int, width: int) -> block_view.Grid:
    if not 1 <= width <= MAX_WIDTH:
        raise BadTimeline(f"width must be 1 to {MAX_WIDTH} pixels, not {width}")
    if hi <= lo:
        raise BadTimeline(f"empty time range: from_ns {lo} >= to_ns {hi}")
    w = block_view.nice_interval((hi - lo) / width)
    start = (lo // w) * w
    return block_view.Grid(start, w, max(1, -(-(hi - start) // w)))


CPU_SQL = """
-- the parameters as BIGINT: DuckDB types a Python int that fits as INTEGER, and $lo - $off
-- (2.04 s after a trace that starts 0.16 s before the run) overflowed it
WITH t AS (  -- the tiles of the window, per CPU, column and task group
    SELECT cpu, ((k * $L::BIGINT + $off::BIGINT) - $lo::BIGINT) // $w::BIGINT AS b, grp, sum(run_ns) AS ns
    FROM sched_cpu_tiles
    WHERE capture_id = $cid AND run_id = $rid AND level_ns = $L::BIGINT
      AND k >= ($lo::BIGINT - $off::BIGINT) // $L::BIGINT - 1 AND k < ($hi::BIGINT - $off::BIGINT) // $L::BIGINT + 1
    GROUP BY ALL
), c AS (    -- per CPU and column: time not idle, and the group that ran longest
    SELECT cpu, b, sum(ns) FILTER (WHERE grp <> '<idle>') AS busy, arg_max(grp, ns) FILTER (WHERE grp <> '<idle>') AS top
    FROM t WHERE b >= 0 AND b < $n GROUP BY cpu, b
)
SELECT 'c' AS what, cpu, b, busy, top FROM c
UNION ALL
SELECT 'g', NULL, NULL, sum(ns), grp FROM t WHERE grp <> '<idle>' AND b >= 0 AND b < $n GROUP BY grp
"""


def _cpu(store: Store, cid: str, a: RunAxis, g: block_view.Grid, out: dict) -> None:
    off = a.sched_first_ns - (a.t0_ns if a.t0_ns is not None else a.sched_first_ns)  # type: ignore[operator]
    if g.w < LEVELS_NS[0]:   # the finest tiles are 1 ms: no narrower columns
        g = block_view.Grid((g.lo // LEVELS_NS[0]) * LEVELS_NS[0], LEVELS_NS[0],
                            max(1, -(-(g.hi - (g.lo // LEVELS_NS[0]) * LEVELS_NS[0]) // LEVELS_NS[0])))
        out["_grid"] = g
    level = max((lv for lv in LEVELS_NS if lv <= g.w), default=LEVELS_NS[0])
    rows = store.query(CPU_SQL, {"cid": cid, "rid": a.run_id, "L": level, "off": off, "lo": g.lo, "hi": g.hi,
                                 "w": g.w, "n": g.n}).rows
    totals = sorted(((ns, grp) for what, _c, _b, ns, grp in rows if what == "g"), key=lambda x: (-x[0], x[1]))
    names = [grp for _ns, grp in totals[:MAX_NAMES]]
    index = {n: i for i, n in enumerate(names)}
    other = len(names)
    busy: dict[int, list[float]] = {c: [0.0] * g.n for c in a.cpus}
    task: dict[int, list[int]] = {c: [-1] * g.n for c in a.cpus}
    for what, cpu, b, ns, grp in rows:
        if what != "c":
            continue
        if cpu not in busy:
            busy[cpu], task[cpu] = [0.0] * g.n, [-1] * g.n
        if ns:
            busy[cpu][b] = round(min(1.0, ns / g.w), 4)
            task[cpu][b] = index.get(grp, other)
    out["level_ns"] = level
    out["names"] = names + ["other"] if len(totals) > len(names) else names
    out["cpus"] = [models.TimelineCpu(cpu=c, busy=busy[c], task=task[c]) for c in sorted(busy)]


BLOCK_TILES_SQL = f"""
SELECT {block_view._BUCKET} AS b, sum(inflight_ns) AS busy, sum(completed) AS n
FROM block_tiles WHERE {block_view._TILES} GROUP BY b
"""


def _block(store: Store, cid: str, a: RunAxis, g: block_view.Grid, out: dict) -> None:
    spec = [f"{cid}:{a.run_id}"]
    key = (id(store), cid, a.run_id)
    hit = _BLOCK.get(key)
    if hit is None or hit[0] is not _AXES.get((id(store), cid)):
        # the run's block series and its rate tile levels, kept with the capture's axes
        series = block_view.resolve_series(store, spec, None)[0]
        levels = [lv for (k, lv) in store.query(
            "SELECT kind, level_ns FROM block_tile_levels WHERE capture_id = $cid AND run_id = $rid AND dev = $dev",
            {"cid": cid, "rid": a.run_id, "dev": series.dev}).rows if k == "rate"]
        hit = _BLOCK[key] = (_AXES.get((id(store), cid)), series, levels)
    series, levels = hit[1], hit[2]
    level = max((lv for lv in levels if lv <= g.w), default=None) if series.dev is not None else \
        block_view._level(store, series, "rate", g.w)
    if level is not None:
        # one scan of the tiles for both (the block views' rules: queue_depth and iops from tiles)
        depth, iops = [0.0] * g.n, [0.0] * g.n
        for b, busy, n in block_view._q(store, BLOCK_TILES_SQL, series, g, T=level):
            if 0 <= b < g.n:
                depth[b] = round(busy / g.w, 3)
                iops[b] = round(n / (g.w / 1e9), 1)
        out.update(device=series.dev, depth=depth, iops=iops, events_lost=series.events_lost,
                   warnings=series.warnings)
        return
    # a window narrower than the finest tiles: the I/O rows, by the block views' rules (queue_depth, iops)
    depth_rows = block_view._q(store, block_view.DEPTH_RAW_SQL, series, g)
    busy, delta = [0.0] * g.n, [0] * (g.n + 1)
    for b, bz, d in depth_rows:
        busy[b] += bz
        delta[b] += d
    depth, covering = [], 0
    for b in range(g.n):
        covering += delta[b]
        depth.append(round((busy[b] + covering * g.w) / g.w, 3))
    iops = [0.0] * g.n
    for b, _op, n, _bytes in block_view._q(store, block_view.IOPS_RAW_SQL, series, g):
        if 0 <= b < g.n:
            iops[b] += n / (g.w / 1e9)
    out.update(device=series.dev, depth=depth, iops=[round(v, 1) for v in iops], events_lost=series.events_lost,
               warnings=series.warnings)


FIO_SIMPLE_SQL = """
SELECT (run_ms * 1000000 - $lo) // $w AS b, ddir, path, avg(value)
FROM fio_log_samples
WHERE capture_id = $cid AND run_id = $rid AND log = 'iops' AND run_ms IS NOT NULL
  AND run_ms * 1000000 >= $lo AND run_ms * 1000000 < $hi
GROUP BY ALL
"""


def _fio(store: Store, cid: str, a: RunAxis, g: block_view.Grid, out: dict) -> None:
    if a.block and a.block_aligned:
        s = block_view.Series(cid, a.run_id, "", None, a.block_last_ns or 0, False, [])
        f = block_view.fio_iops(store, s, g)
        if f is not None and f.aligned:
            out["ddirs"] = [models.TimelineFioDdir(ddir=d.ddir, iops=d.iops) for d in f.ddirs]
            out["note"] = f.note
            return
    sums: dict[str, list[float | None]] = {}
    for b, ddir, _path, v in store.query(FIO_SIMPLE_SQL, {"cid": cid, "rid": a.run_id, "lo": g.lo, "hi": g.hi,
                                                          "w": g.w}).rows:
        col = sums.setdefault(ddir, [None] * g.n)
        if 0 <= b < g.n:
            col[b] = (col[b] or 0.0) + v
    out["ddirs"] = [models.TimelineFioDdir(ddir=d, iops=v) for d, v in sorted(sums.items())]
    out["note"] = ("each column: the mean of fio's log entries in it, summed over jobs (no block trace on the same "
                   "clock to weigh them by the time they cover)")


SAMPLES_DENSITY_SQL = """
SELECT (ts_ns - $base - $lo) // $w AS b, count(*)::BIGINT FROM perf_samples
WHERE capture_id = $cid AND run_id = $rid AND event IS NOT DISTINCT FROM $event
  AND ts_ns >= $base + $lo AND ts_ns < $base + $hi
GROUP BY ALL
"""


def _samples(store: Store, cid: str, a: RunAxis, g: block_view.Grid, out: dict) -> None:
    ev = store.query("SELECT event FROM perf_samples WHERE capture_id = $cid AND ts_ns IS NOT NULL "
                     "ORDER BY ts_ns LIMIT 1", {"cid": cid}).rows
    event = ev[0][0] if ev else None
    base = a.t0_ns if a.t0_ns is not None else a.samples_first_ns
    counts = [0] * g.n
    for b, n in store.query(SAMPLES_DENSITY_SQL, {"cid": cid, "rid": a.run_id, "event": event, "base": base,
                                                  "lo": g.lo, "hi": g.hi, "w": g.w}).rows:
        if 0 <= b < g.n:
            counts[b] = n
    out["event"] = event
    out["counts"] = counts


def track(store: Store, cid: str, run: str | None, kind: TrackKind, from_ns: int | None = None,
          to_ns: int | None = None, width: int = 1000) -> models.TimelineTrack:
    """One track of one run over [from_ns, to_ns) (default: the whole run) in about `width` columns."""
    started = time.perf_counter()
    if kind not in TRACKS:
        raise BadTimeline(f"track must be one of {', '.join(TRACKS)}, not {kind!r}")
    _ref, axes, ends = _axes(store, cid)
    if not axes:
        raise UnknownRun(f"capture {cid} has no runs")
    a = next((x for x in axes if x.run_id == run), None) if run is not None else axes[0]
    if a is None:
        raise BadTimeline(f"capture {cid} has no run {run} (runs: {', '.join(x.run_id for x in axes)})")
    pub = _run_public(a, ends[a.run_id])
    lo = from_ns if from_ns is not None else 0
    hi = to_ns if to_ns is not None else max(ends[a.run_id], 1)
    g = _grid(lo, hi, width)
    out: dict = {}
    if pub.tracks[kind]:
        {"cpu": _cpu, "block": _block, "fio": _fio, "samples": _samples}[kind](store, cid, a, g, out)
        g = out.pop("_grid", g)
    return models.TimelineTrack(
        kind=kind, run=a.run_id, available=pub.tracks[kind], note=pub.notes.get(kind, out.pop("note", None)),
        from_ns=lo, to_ns=hi, grid_lo_ns=g.lo, bucket_ns=g.w, buckets=g.n, aligned=pub.aligned,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1), **out)
