"""Block layer views: device queue depth, IOPS and throughput, completion latency, I/O sizes and a
sector-vs-time scatter, for one or several runs overlaid on one time axis (ns since run start).

Rows come from `block_ios` (one row per I/O, matched at ingest by iolens/ingest/block.py) and
`block_runs` (per-run facts and loss warnings). Definitions are in docs/block.md.

Downsampling happens here, in SQL: the client asks for a time range and a number of buckets; the
server picks a round interval (1, 2 or 5 x 10^k ns) at least (to - from) / buckets wide, aligns the
range to it, and returns one value per bucket. No view returns more than a few thousand points per
series, whatever the capture's size, and no view uses window functions over the I/O rows (those
cost 0.3-1.6 s on 10M rows, DESIGN "Facts measured"): every query is one filtered scan and a
group-by, and windows run only over the per-bucket results.

Each `SERIES_*` SQL takes $cid, $rid, $dev (NULL: every device), $lo, $hi (the aligned range,
ns since run start) and $w (interval, ns).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from .. import models
from ..store.db import Store
from ..store.rules.bin_percentile import LAT_BINS_PER_OCTAVE, bin_centre_ns, bin_low_ns, percentiles_sql

MAX_BUCKETS = 2000
# Percentiles over time use at most this many buckets (a wider request gets a coarser grid, which
# the response reports): more points than that are noise, and cost a scan of many histogram tiles.
LATENCY_MAX_BUCKETS = 1000
DEFAULT_BUCKETS = 500
HIST_GRID_BUCKETS = 100   # histograms over a window: the window is aligned to span/100 (< 2% wider)
DEFAULT_POINTS = 10_000
MAX_POINTS = 50_000
OPS = ("read", "write", "discard", "flush", "none", "other")
PERCENTILES = (50.0, 90.0, 99.0, 99.9)

# Every query reads one series: $cid, $rid and $dev (NULL: every device).
_SERIES = "capture_id = $cid AND run_id = $rid AND ($dev IS NULL OR dev = $dev)"
# Tiles of level $T inside the aligned range [$lo, $hi); a tile belongs to bucket (k x T - lo) // w.
_TILES = _SERIES + " AND level_ns = $T AND k >= $lo // $T AND k < $hi // $T"
_BUCKET = "(k * $T - $lo) // $w"

# Tile levels of a series (block_tile_levels): kind rate | hist.
LEVELS_SQL = """
SELECT kind, level_ns, count(DISTINCT dev) AS devs
FROM block_tile_levels WHERE capture_id = $cid AND run_id = $rid AND ($dev IS NULL OR dev = $dev)
GROUP BY ALL
"""
DEVICES_SQL = "SELECT count(DISTINCT dev) FROM block_tile_levels WHERE capture_id = $cid AND run_id = $rid"

# --- Queue depth ------------------------------------------------------------------------------
# The time-weighted average number of I/Os issued (D) and not yet completed (C) per bucket:
# (integral over the bucket of the in-flight count) / interval. From tiles: the sum of the tiles'
# inflight_ns (computed at ingest the same way as below). Output columns:
#   b     bucket index (0 = [$lo, $lo + $w))
#   busy  in-flight integral over the bucket, ns
#   d     0 (tiles carry whole integrals)
DEPTH_TILES_SQL = f"""
SELECT {_BUCKET} AS b, sum(inflight_ns) AS busy, 0 AS d
FROM block_tiles WHERE {_TILES} GROUP BY b
"""
# From I/O rows (windows narrower than the finest tile level). Each matched I/O, clipped to
# [$lo, $hi), adds its overlap with each bucket. One that starts in bucket fb and ends in lb adds:
#   to fb:            min(end, fb's end) - start           (all of it when fb = lb)
#   to lb (lb > fb):  end - lb's start
#   to fb+1 .. lb-1:  the whole interval each: +1 at fb+1 and -1 at lb here (d, a difference
#                     array), summed over the buckets by the caller.
DEPTH_RAW_SQL = f"""
WITH io AS (
    SELECT greatest(issue_ns, $lo) AS s, least(complete_ns, $hi) AS e
    FROM block_ios
    WHERE {_SERIES} AND complete_ns > $lo AND issue_ns < $hi AND complete_ns >= issue_ns
), b AS (
    SELECT s, e, (s - $lo) // $w AS fb, least((e - $lo) // $w, $n - 1) AS lb FROM io
)
SELECT b, sum(busy)::DOUBLE AS busy, sum(d)::BIGINT AS d FROM (
    SELECT fb AS b, least(e, $lo + (fb + 1) * $w) - s AS busy, 0 AS d FROM b
    UNION ALL SELECT lb, e - ($lo + lb * $w), 0 FROM b WHERE lb > fb
    UNION ALL SELECT fb + 1, 0, 1 FROM b WHERE lb > fb + 1
    UNION ALL SELECT lb, 0, -1 FROM b WHERE lb > fb + 1
) GROUP BY b
"""

# --- IOPS and throughput ----------------------------------------------------------------------
# I/Os completed per bucket and operation. Output columns:
#   b      bucket index
#   op     read | write | discard | flush | none | other
#   n      I/Os completed in the bucket
#   bytes  their bytes
IOPS_TILES_SQL = f"""
SELECT {_BUCKET} AS b, op, sum(completed) AS n, sum(bytes)::BIGINT AS bytes
FROM block_tiles WHERE {_TILES} GROUP BY ALL
"""
IOPS_RAW_SQL = f"""
SELECT (complete_ns - $lo) // $w AS b, op, count(*) AS n, sum(bytes)::BIGINT AS bytes
FROM block_ios WHERE {_SERIES} AND complete_ns >= $lo AND complete_ns < $hi GROUP BY ALL
"""

# --- Completion latency over time ---------------------------------------------------------------
# Latency = complete - issue (D2C), by completion bucket. Percentiles come from the log-scale
# histogram (block_ios.lat_bin, 8 bins per doubling): the first bin whose running count reaches p%
# of the bucket's I/Os (fio's rule), reported at the bin's geometric centre (within ~4.4%).
# Histogram output columns:
#   b        bucket index
#   lat_bin  latency bin: [2^(bin/8), 2^((bin+1)/8)) ns
#   n        I/Os of the bucket in the bin
LAT_HIST_TILES_SQL = f"""
SELECT {_BUCKET} AS b, value AS lat_bin, sum(n) AS n
FROM block_hist_tiles WHERE {_TILES} AND kind = 'lat' AND ($op IS NULL OR op = $op) GROUP BY ALL
"""
LAT_HIST_RAW_SQL = f"""
SELECT (complete_ns - $lo) // $w AS b, lat_bin, count(*) AS n
FROM block_ios WHERE {_SERIES} AND complete_ns >= $lo AND complete_ns < $hi AND lat_bin IS NOT NULL
      AND ($op IS NULL OR op = $op)
GROUP BY ALL
"""
# Percentiles per bucket from either histogram (a window over the per-bucket histogram rows, a few
# thousand buckets x bins, never over I/O rows). Output columns:
#   b                     bucket index
#   p50, p90, p99, p99_9  latency bin of each percentile (fio's rule above)
# Exact mean and max per bucket. Output columns:
#   b       bucket index
#   n       I/Os with a latency
#   sum_ns  their latencies summed
#   max_ns  the largest
LAT_SUM_TILES_SQL = f"""
SELECT {_BUCKET} AS b, sum(lat_n) AS n, sum(lat_sum_ns) AS sum_ns, max(lat_max_ns) AS max_ns
FROM block_tiles WHERE {_TILES} AND ($op IS NULL OR op = $op) GROUP BY b
"""
LAT_SUM_RAW_SQL = f"""
SELECT (complete_ns - $lo) // $w AS b, count(*) AS n, sum(latency_ns)::DOUBLE AS sum_ns, max(latency_ns) AS max_ns
FROM block_ios WHERE {_SERIES} AND complete_ns >= $lo AND complete_ns < $hi AND latency_ns IS NOT NULL
      AND ($op IS NULL OR op = $op)
GROUP BY b
"""

# --- Histograms over a window -------------------------------------------------------------------
# Latency histogram (by completion time) or request sizes (by issue time), by operation.
# Output columns:
#   op     operation
#   value  latency bin (kind lat) or request size in bytes (kind size)
#   n      I/Os
HIST_TILES_SQL = f"""
SELECT op, value, sum(n) AS n
FROM block_hist_tiles WHERE {_TILES} AND kind = $kind GROUP BY ALL ORDER BY op, value
"""
LAT_BINS_RAW_SQL = f"""
SELECT op, lat_bin AS value, count(*) AS n
FROM block_ios WHERE {_SERIES} AND complete_ns >= $lo AND complete_ns < $hi AND lat_bin IS NOT NULL
GROUP BY ALL ORDER BY op, value
"""
# (two scans, each narrowed by one time column: an OR of both would read every row)
SIZES_RAW_SQL = f"""
SELECT op, value, sum(n) AS n FROM (
    SELECT op, bytes AS value, count(*) AS n FROM block_ios
    WHERE {_SERIES} AND bytes IS NOT NULL AND issue_ns >= $lo AND issue_ns < $hi GROUP BY ALL
    UNION ALL
    SELECT op, bytes, count(*) FROM block_ios
    WHERE {_SERIES} AND bytes IS NOT NULL AND issue_ns IS NULL AND complete_ns >= $lo AND complete_ns < $hi
    GROUP BY ALL
) GROUP BY ALL ORDER BY op, value
"""

# --- Sector vs time (seekwatcher) ---------------------------------------------------------------
# Points, not cells: I/Os issued in the window (and sector range), read from the densest sample
# level (block_scatter_sample: 1 in 8^level) that has at most $max points there, or from the I/O
# rows when even 1 in 8 would be fewer than that. Counting output columns:
#   level  sample level
#   n      sampled I/Os in the window
SCATTER_COUNT_SQL = f"""
SELECT level, count(*) AS n
FROM block_scatter_sample
WHERE {_SERIES} AND issue_ns >= $lo AND issue_ns < $hi AND sector >= $slo AND sector < $shi
GROUP BY level
"""
# Points output columns: issue_ns (ns since run start), sector, bytes, op.
SCATTER_SAMPLE_SQL = f"""
SELECT issue_ns, sector, bytes, op
FROM block_scatter_sample
WHERE {_SERIES} AND level = $level AND issue_ns >= $lo AND issue_ns < $hi AND sector >= $slo AND sector < $shi
ORDER BY issue_ns
"""
SCATTER_RAW_SQL = f"""
SELECT issue_ns, sector, bytes, op
FROM block_ios
WHERE {_SERIES} AND issue_ns >= $lo AND issue_ns < $hi AND sector >= $slo AND sector < $shi
ORDER BY issue_ns
"""

# The runs with block data, and their loss facts.
RUNS_SQL = """
SELECT b.capture_id, b.run_id, c.label, r.run_index, b.kind, b.path, b.first_ns, b.last_ns, b.events,
       b.ios, b.matched, b.issue_without_complete, b.complete_without_issue, b.issue_duplicate,
       b.insert_without_issue, b.partial_complete, b.requeues, b.tool_lost, b.counted, b.actions,
       b.main_dev, b.devices, b.events_lost, b.warnings
FROM block_runs b JOIN captures c USING (capture_id) JOIN runs r USING (capture_id, run_id)
WHERE list_contains($ids, b.capture_id)
ORDER BY list_position($ids, b.capture_id), r.run_index, b.path
"""


class UnknownSeries(LookupError):
    def __init__(self, missing: list[str]):
        super().__init__(f"no block data for: {', '.join(missing)}")
        self.missing = missing


class BadRange(ValueError):
    pass


@dataclass(frozen=True)
class Series:
    capture_id: str
    run_id: str
    label: str
    dev: str | None           # the device shown (None: all devices)
    last_ns: int
    events_lost: bool
    warnings: list[str]

    def public(self) -> dict[str, object]:
        """The BlockSeriesInfo fields every series of every view carries."""
        return {"capture_id": self.capture_id, "run_id": self.run_id, "label": self.label, "device": self.dev,
                "events_lost": self.events_lost, "warnings": self.warnings}


@dataclass(frozen=True)
class Grid:
    lo: int        # first bucket's start, ns since run start (a multiple of w)
    w: int         # interval, ns
    n: int         # buckets

    @property
    def hi(self) -> int:
        return self.lo + self.n * self.w

    def params(self) -> dict[str, int]:
        return {"lo": self.lo, "hi": self.hi, "w": self.w, "n": self.n}

    def public(self) -> models.BlockGrid:
        return models.BlockGrid(from_ns=self.lo, to_ns=self.hi, interval_ns=self.w, buckets=self.n)


def nice_interval(raw: float) -> int:
    """Smallest of 1, 2, 5 x 10^k ns that is >= raw (at least 1 ns)."""
    if raw <= 1:
        return 1
    exp = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * exp >= raw:
            return int(m * exp)
    return int(10 * exp)  # pragma: no cover


def make_grid(from_ns: int | None, to_ns: int | None, buckets: int, series: list[Series]) -> Grid:
    """The interval adapts to the zoom: (to - from) / buckets rounded up to 1-2-5, the range aligned
    to it. Default range: from run start to the end of the longest series."""
    if not 1 <= buckets <= MAX_BUCKETS:
        raise BadRange(f"buckets must be between 1 and {MAX_BUCKETS}")
    lo = 0 if from_ns is None else from_ns
    hi = to_ns if to_ns is not None else max((s.last_ns for s in series), default=0) + 1
    if hi <= lo:
        raise BadRange(f"empty time range: from_ns {lo} >= to_ns {hi}")
    w = nice_interval((hi - lo) / buckets)
    start = (lo // w) * w
    n = max(1, -(-(hi - start) // w))
    return Grid(start, w, n)


def resolve_series(store: Store, specs: list[str], device: str | None) -> list[Series]:
    """'CAPTURE' (every run of it with block data) or 'CAPTURE:RUN', in the order given.
    device: 'MAJ,MIN', 'all', or None (each run's busiest device)."""
    ids = list(dict.fromkeys(s.split(":", 1)[0] for s in specs))
    rows = store.query(RUNS_SQL, {"ids": ids}).dicts()
    out: list[Series] = []
    missing: list[str] = []
    for spec in dict.fromkeys(specs):
        cid, _, rid = spec.partition(":")
        found = [r for r in rows if r["capture_id"] == cid and (not rid or r["run_id"] == rid)]
        if not found:
            missing.append(spec)
        by_run: dict[str, list[dict]] = {}
        for r in found:
            by_run.setdefault(r["run_id"], []).append(r)
        for run_id, rs in by_run.items():
            dev = None if device == "all" else device or rs[0]["main_dev"]
            warnings = [w for r in rs for w in json.loads(r["warnings"])]
            label = rs[0]["label"] if rid or len(by_run) == 1 else f"{rs[0]['label']} / {run_id}"
            out.append(Series(cid, run_id, label, dev, max(r["last_ns"] or 0 for r in rs),
                              any(r["events_lost"] for r in rs), warnings))
    if missing:
        raise UnknownSeries(missing)
    return out


def _q(store: Store, sql: str, s: Series, grid: Grid, **extra: object) -> list[tuple]:
    params = {"cid": s.capture_id, "rid": s.run_id, "dev": s.dev, **grid.params(), **extra}
    # DuckDB refuses named parameters that the statement does not use
    return store.query(sql, {k: v for k, v in params.items() if f"${k}" in sql}).rows


def _level(store: Store, s: Series, kind: str, w: int) -> int | None:
    """The coarsest tile level of `kind` no wider than the interval (it divides it: both are
    decimal), present for the series' device (or for every device when summing all of them)."""
    base = {"cid": s.capture_id, "rid": s.run_id, "dev": s.dev}
    rows = store.query(LEVELS_SQL, base).rows
    need = 1 if s.dev is not None else store.query(DEVICES_SQL, {"cid": s.capture_id, "rid": s.run_id}).scalar()
    levels = [lv for k, lv, devs in rows if k == kind and devs == need and lv <= w]
    return max(levels) if levels else None


def _times(grid: Grid) -> list[int]:
    return [grid.lo + i * grid.w for i in range(grid.n)]


def _ops_sorted(d: dict[str, object]) -> list[str]:
    return sorted(d, key=lambda op: OPS.index(op) if op in OPS else len(OPS))


def queue_depth(store: Store, specs: list[str], from_ns: int | None = None, to_ns: int | None = None,
                buckets: int = DEFAULT_BUCKETS, device: str | None = None) -> models.BlockQueueDepth:
    series = resolve_series(store, specs, device)
    grid = make_grid(from_ns, to_ns, buckets, series)
    out = []
    for s in series:
        t = _level(store, s, "rate", grid.w)
        rows = _q(store, DEPTH_TILES_SQL, s, grid, T=t) if t else _q(store, DEPTH_RAW_SQL, s, grid)
        busy = [0.0] * grid.n
        delta = [0] * (grid.n + 1)
        for b, bz, d in rows:
            busy[b] += bz
            delta[b] += d
        depth, covering = [], 0
        for b in range(grid.n):
            covering += delta[b]
            depth.append((busy[b] + covering * grid.w) / grid.w)
        out.append(models.BlockDepthSeries(**s.public(), source=_source(t), depth=depth))
    return models.BlockQueueDepth(grid=grid.public(), t_ns=_times(grid), series=out)


def _source(level: int | None) -> str:
    return f"tiles {level} ns" if level else "rows"


def iops(store: Store, specs: list[str], from_ns: int | None = None, to_ns: int | None = None,
         buckets: int = DEFAULT_BUCKETS, device: str | None = None) -> models.BlockIops:
    series = resolve_series(store, specs, device)
    grid = make_grid(from_ns, to_ns, buckets, series)
    secs = grid.w / 1e9
    out = []
    for s in series:
        t = _level(store, s, "rate", grid.w)
        rows = _q(store, IOPS_TILES_SQL, s, grid, T=t) if t else _q(store, IOPS_RAW_SQL, s, grid)
        per_op: dict[str, tuple[list[float], list[float]]] = {}
        for b, op, n, nbytes in rows:
            io_s, b_s = per_op.setdefault(op, ([0.0] * grid.n, [0.0] * grid.n))
            io_s[b] = n / secs
            b_s[b] = (nbytes or 0) / secs
        ops = [models.BlockOpRate(op=op, iops=per_op[op][0], bytes_per_s=per_op[op][1]) for op in _ops_sorted(per_op)]
        out.append(models.BlockIopsSeries(**s.public(), source=_source(t), ops=ops, fio_iops=fio_iops(store, s, grid)))
    return models.BlockIops(grid=grid.public(), t_ns=_times(grid), series=out)


# --- fio's own IOPS log -------------------------------------------------------------------------
# fio_log_samples rows of kind iops (iolens-collect --fio-logs). Only logs with run_ms (fio wrote
# CLOCK_MONOTONIC times: ingest/sweep.py) can be put on the run's axis. Per log (a job's clone):
FIO_LOGS_SQL = """
SELECT path, any_value(jobname) AS job, any_value(job_index) AS job_index, any_value(clone) AS clone,
       any_value(avg_msec) AS avg_msec, min(run_ms) AS first_ms, max(run_ms) AS last_ms,
       arg_min(t_ms, run_ms) AS first_t_ms, list(DISTINCT ddir ORDER BY ddir) AS ddirs,
       count(run_ms) AS timed, list(DISTINCT t0_ns) FILTER (t0_ns IS NOT NULL) AS t0s
FROM fio_log_samples WHERE capture_id = $cid AND run_id = $rid AND log = 'iops'
GROUP BY path ORDER BY any_value(job_index), any_value(jobname), any_value(clone), path
"""
# Averaged entries near the range ($lo_ms, $hi_ms: the range in ms widened by three windows, so
# that each entry's predecessor is there).
FIO_AVG_SQL = """
SELECT path, run_ms, ddir, value FROM fio_log_samples
WHERE capture_id = $cid AND run_id = $rid AND log = 'iops' AND coalesce(avg_msec, 0) > 0
      AND run_ms >= $lo_ms AND run_ms <= $hi_ms
ORDER BY path, run_ms
"""
# Per-I/O entries (one per I/O, its completion truncated to the ms) counted per ms ($per_ms) or per
# bucket of the grid (bucket index b = (run_ms x 10^6 - lo) // w, grids of 1 ms and wider).
FIO_IO_SQL = """
SELECT path, ddir, CASE WHEN $per_ms THEN run_ms ELSE (run_ms * 1000000 - $lo) // $w END AS k, count(*) AS n
FROM fio_log_samples
WHERE capture_id = $cid AND run_id = $rid AND log = 'iops' AND coalesce(avg_msec, 0) = 0
      AND run_ms * 1000000 + 1000000 > $lo AND run_ms * 1000000 < $hi
GROUP BY ALL
"""
BLOCK_T0_SQL = "SELECT DISTINCT t0_ns FROM block_runs WHERE capture_id = $cid AND run_id = $rid"
FIO_NOT_ALIGNED = ("fio's IOPS log of this run has no clock (its times count from each job's start, which fio does "
                   "not record): not aligned with the block events, so not drawn. Re-capture with this iolens-collect "
                   "(--fio-logs records the logs on CLOCK_MONOTONIC when fio knows log_alternate_epoch_clock_id)")
MS = 1_000_000
FIO_DDIRS = ("read", "write", "trim", "other")  # fio's data directions, in this order


def _spread(pieces: list[tuple[int, int, float]], grid: Grid, into: list[float]) -> None:
    """Add rate x overlap (ns) of each piece [start, end) with each bucket."""
    lo, w, n = grid.lo, grid.w, grid.n
    for a, e, rate in pieces:
        a, e = max(a, lo), min(e, grid.hi)
        if e <= a:
            continue
        for b in range((a - lo) // w, min(n - 1, (e - 1 - lo) // w) + 1):
            into[b] += rate * (min(e, lo + (b + 1) * w) - max(a, lo + b * w))


def fio_iops(store: Store, s: Series, grid: Grid) -> models.BlockFioIops | None:
    """fio's iops logs of the series' run on the grid, per data direction, summed over jobs and
    clones (docs/block.md "fio's own IOPS log"). Per log:

    - an averaged entry (log_avg_msec > 0) is the I/Os fio counted since its previous sample divided
      by that time (fio stat.c __add_samples), so it covers [previous entry, its time): the log's
      first one from the job's start (its t_ms, estimated at ingest), and an entry more than 1.5
      windows after the previous one (fio writes nothing for a window without I/O) its own window
      [time - avg_msec, time);
    - a per-I/O entry is one I/O completed within [its ms, + 1 ms);
    - the log covers [its first window's start, its last entry); inside, time that no entry of a
      direction covers counts as 0 IO/s for that direction (no I/O: fio wrote nothing);
    - a bucket's value is the integral of the rate over the bucket divided by the part of the
      bucket the log covers (the time-weighted average of the entries covering it); null where the
      log covers none of it.
    Logs are then added up per direction, counting only logs that have that direction at all.
    """
    logs = store.query(FIO_LOGS_SQL, {"cid": s.capture_id, "rid": s.run_id}).dicts()
    if not logs:
        return None

    def public(r: dict, aligned: bool) -> models.BlockFioLog:
        start = None
        if aligned and r["first_ms"] is not None:
            avg = r["avg_msec"] or 0
            start = (r["first_ms"] - (_first_window(r["first_t_ms"], avg) if avg > 0 else 0)) * MS
        end = None
        if aligned and r["last_ms"] is not None:  # an averaged log ends at its last entry, a per-I/O one 1 ms later
            end = (r["last_ms"] + (0 if (r["avg_msec"] or 0) > 0 else 1)) * MS
        return models.BlockFioLog(path=r["path"], job=r["job"], job_index=r["job_index"], clone=r["clone"],
                                  avg_msec=r["avg_msec"], from_ns=start, to_ns=end)

    timed = [r for r in logs if r["timed"]]
    block_t0 = {t for (t,) in store.query(BLOCK_T0_SQL, {"cid": s.capture_id, "rid": s.run_id}).rows}
    fio_t0 = {t for r in timed for t in (r["t0s"] or [])}
    note = None
    if not timed:
        note = FIO_NOT_ALIGNED
    elif block_t0 != fio_t0:
        note = ("fio's IOPS log counts from the run's start (trace_clock_at_start_ns), the block events of this run "
                "from another time 0 (blktrace's first event, or no trace_clock_at_start_ns): not aligned, not drawn")
    if note:
        return models.BlockFioIops(aligned=False, note=note, logs=[public(r, False) for r in logs], ddirs=[])
    untimed = [r["path"] for r in logs if not r["timed"]]
    if untimed:
        note = f"not aligned, left out: {', '.join(untimed)} (no clock)"

    covered: dict[str, list[float]] = {}
    integral: dict[tuple[str, str], list[float]] = {}
    for r in timed:
        info = public(r, True)
        cov = [0.0] * grid.n
        _spread([(info.from_ns or 0, info.to_ns or 0, 1.0)], grid, cov)
        covered[r["path"]] = cov
        for d in r["ddirs"]:
            integral[(r["path"], d)] = [0.0] * grid.n
    by_path = {r["path"]: r for r in timed}

    avg_logs = [r for r in timed if (r["avg_msec"] or 0) > 0]
    if avg_logs:
        widest = max(r["avg_msec"] for r in avg_logs)
        rows = store.query(FIO_AVG_SQL, {"cid": s.capture_id, "rid": s.run_id, "lo_ms": grid.lo // MS - 3 * widest,
                                         "hi_ms": -(-grid.hi // MS) + 3 * widest}).rows
        prev_t: dict[str, int] = {}      # path -> time of its previous entry
        prev_start: dict[str, int] = {}  # path -> start of that entry's window
        for path, run_ms, ddir, value in rows:
            r = by_path[path]
            avg = r["avg_msec"]
            if prev_t.get(path) == run_ms:  # another direction of the same entry: the same window
                start = prev_start[path]
            else:
                p = prev_t.get(path)
                if run_ms == r["first_ms"]:
                    start = run_ms - _first_window(r["first_t_ms"], avg)
                elif p is not None and run_ms - p <= 1.5 * avg:
                    start = p
                else:  # the first entry fetched, or one after windows without I/O
                    start = run_ms - avg
                prev_t[path], prev_start[path] = run_ms, start
            _spread([(start * MS, run_ms * MS, value / 1e9)], grid, integral[(path, ddir)])
    io_logs = [r for r in timed if not (r["avg_msec"] or 0) > 0]
    if io_logs:
        per_ms = grid.w < MS
        rows = store.query(FIO_IO_SQL, {"cid": s.capture_id, "rid": s.run_id, "lo": grid.lo, "hi": grid.hi,
                                        "w": grid.w, "per_ms": per_ms}).rows
        for path, ddir, k, n in rows:
            if per_ms:  # n I/Os in [k ms, k + 1 ms)
                _spread([(k * MS, (k + 1) * MS, n / MS)], grid, integral[(path, ddir)])
            elif 0 <= k < grid.n:  # whole buckets: n I/Os in bucket k
                integral[(path, ddir)][k] += n

    ddirs = sorted({d for (_, d) in integral}, key=lambda d: FIO_DDIRS.index(d) if d in FIO_DDIRS else len(FIO_DDIRS))
    out = []
    for d in ddirs:
        vals: list[float | None] = [None] * grid.n
        mean: float | None = None
        for (path, dd), integ in integral.items():
            if dd != d:
                continue
            cov = covered[path]
            for b in range(grid.n):
                if cov[b] > 0:
                    vals[b] = (vals[b] or 0.0) + integ[b] * 1e9 / cov[b]
            c = sum(cov)
            if c > 0:
                mean = (mean or 0.0) + sum(integ) * 1e9 / c
        out.append(models.BlockFioDdir(ddir=d, iops=vals, mean_iops=mean))
    return models.BlockFioIops(aligned=True, note=note, logs=[public(r, True) for r in logs], ddirs=out)


def _first_window(first_t_ms: int | None, avg: int) -> int:
    """Length of an averaged log's first window, ms: from the job's start (estimated at ingest:
    t_ms, ingest/sweep.py _job_start) to its first entry, which fio's helper thread writes one to two
    windows after the start; a longer t_ms means the job's first windows had no I/O: one window."""
    if first_t_ms is not None and avg - 1 <= first_t_ms < 2 * avg:
        return first_t_ms
    return avg


def bin_centre(lat_bin: int) -> float:
    """Geometric centre of a latency bin, ns."""
    return bin_centre_ns(lat_bin)


def latency(store: Store, specs: list[str], from_ns: int | None = None, to_ns: int | None = None,
            buckets: int = DEFAULT_BUCKETS, device: str | None = None, op: str | None = None) -> models.BlockLatency:
    series = resolve_series(store, specs, device)
    grid = make_grid(from_ns, to_ns, min(buckets, LATENCY_MAX_BUCKETS) if buckets >= 1 else buckets, series)
    out = []
    for s in series:
        th = _level(store, s, "hist", grid.w)
        tr = _level(store, s, "rate", grid.w) if th else None
        if th and tr:
            pcts = _q(store, percentiles_sql(LAT_HIST_TILES_SQL, PERCENTILES), s, grid, T=th, op=op)
            sums = _q(store, LAT_SUM_TILES_SQL, s, grid, T=tr, op=op)
        else:
            th = None
            pcts = _q(store, percentiles_sql(LAT_HIST_RAW_SQL, PERCENTILES), s, grid, op=op)
            sums = _q(store, LAT_SUM_RAW_SQL, s, grid, op=op)
        count = [0] * grid.n
        mean: list[float | None] = [None] * grid.n
        mx: list[float | None] = [None] * grid.n
        for b, n, sum_ns, max_ns in sums:
            if n:
                count[b], mean[b], mx[b] = n, sum_ns / n, float(max_ns)
        pct: dict[float, list[float | None]] = {p: [None] * grid.n for p in PERCENTILES}
        for b, *bins in pcts:
            for p, lat_bin in zip(PERCENTILES, bins):
                pct[p][b] = None if lat_bin is None else bin_centre(lat_bin)
        out.append(models.BlockLatencySeries(
            **s.public(), source=_source(th), count=count, mean_ns=mean, max_ns=mx,
            p50_ns=pct[50.0], p90_ns=pct[90.0], p99_ns=pct[99.0], p99_9_ns=pct[99.9]))
    return models.BlockLatency(grid=grid.public(), t_ns=_times(grid), op=op, series=out)


def _hist(store: Store, s: Series, grid: Grid, kind: str) -> tuple[list[tuple], int | None]:
    t = _level(store, s, "hist", grid.w)
    if t:
        return _q(store, HIST_TILES_SQL, s, grid, T=t, kind=kind), t
    return _q(store, LAT_BINS_RAW_SQL if kind == "lat" else SIZES_RAW_SQL, s, grid), None


def latency_histogram(store: Store, specs: list[str], from_ns: int | None = None, to_ns: int | None = None,
                      device: str | None = None) -> models.BlockLatencyHistogram:
    series = resolve_series(store, specs, device)
    grid = make_grid(from_ns, to_ns, HIST_GRID_BUCKETS, series)
    out = []
    for s in series:
        rows, t = _hist(store, s, grid, "lat")
        per_op: dict[str, list[models.BlockHistBin]] = {}
        for op, b, n in rows:
            per_op.setdefault(op, []).append(models.BlockHistBin(
                bin=b, low_ns=bin_low_ns(b), high_ns=bin_low_ns(b + 1), count=n))
        out.append(models.BlockHistSeries(**s.public(), source=_source(t),
                                          ops=[models.BlockOpHistogram(op=op, bins=per_op[op]) for op in _ops_sorted(per_op)]))
    return models.BlockLatencyHistogram(grid=grid.public(), bins_per_octave=LAT_BINS_PER_OCTAVE, series=out)


def sizes(store: Store, specs: list[str], from_ns: int | None = None, to_ns: int | None = None,
          device: str | None = None) -> models.BlockSizes:
    series = resolve_series(store, specs, device)
    grid = make_grid(from_ns, to_ns, HIST_GRID_BUCKETS, series)
    out = []
    for s in series:
        rows, t = _hist(store, s, grid, "size")
        per_op: dict[str, list[models.BlockSizeCount]] = {}
        for op, nbytes, n in rows:
            per_op.setdefault(op, []).append(models.BlockSizeCount(bytes=nbytes, count=n))
        out.append(models.BlockSizeSeries(**s.public(), source=_source(t),
                                          ops=[models.BlockOpSizes(op=op, sizes=per_op[op]) for op in _ops_sorted(per_op)]))
    return models.BlockSizes(grid=grid.public(), series=out)


def scatter(store: Store, specs: list[str], from_ns: int | None = None, to_ns: int | None = None,
            max_points: int = DEFAULT_POINTS, sector_from: int | None = None, sector_to: int | None = None,
            device: str | None = None) -> models.BlockScatter:
    if not 1 <= max_points <= MAX_POINTS:
        raise BadRange(f"max_points must be between 1 and {MAX_POINTS}")
    series = resolve_series(store, specs, device)
    grid = make_grid(from_ns, to_ns, HIST_GRID_BUCKETS, series)
    # no time alignment needed for points: the exact range asked
    lo = grid.lo if from_ns is None else from_ns
    hi = grid.hi if to_ns is None else to_ns
    rng = {"lo": lo, "hi": hi, "slo": -(1 << 62) if sector_from is None else sector_from,
           "shi": (1 << 62) if sector_to is None else sector_to}
    out = []
    for s in series:
        counts = dict(_q(store, SCATTER_COUNT_SQL, s, grid, **rng))
        level = 0
        if counts.get(1, 0) * 8 > max_points:
            level = next((lv for lv in sorted(counts) if counts[lv] <= max_points), max(counts))
        rows = (_q(store, SCATTER_SAMPLE_SQL, s, grid, level=level, **rng) if level
                else _q(store, SCATTER_RAW_SQL, s, grid, **rng))
        out.append(models.BlockScatterSeries(
            **s.public(), source=f"sample 1 in {8 ** level}" if level else "rows",
            weight=8 ** level, t_ns=[r[0] for r in rows], sector=[r[1] for r in rows],
            bytes=[r[2] for r in rows], op=[r[3] for r in rows]))
    return models.BlockScatter(from_ns=lo, to_ns=hi, series=out)


def runs(store: Store, capture_ids: list[str]) -> list[models.BlockRunPublic]:
    rows = store.query(RUNS_SQL, {"ids": list(dict.fromkeys(capture_ids))}).dicts()
    return [models.BlockRunPublic(
        capture_id=r["capture_id"], run_id=r["run_id"], label=r["label"], kind=r["kind"], path=r["path"],
        first_ns=r["first_ns"], last_ns=r["last_ns"], events=r["events"], ios=r["ios"], matched=r["matched"],
        issue_without_complete=r["issue_without_complete"], complete_without_issue=r["complete_without_issue"],
        issue_duplicate=r["issue_duplicate"], insert_without_issue=r["insert_without_issue"],
        partial_complete=r["partial_complete"], requeues=r["requeues"], tool_lost=r["tool_lost"],
        counted=json.loads(r["counted"]) if r["counted"] else None, actions=json.loads(r["actions"]),
        main_device=r["main_dev"], devices=json.loads(r["devices"]), events_lost=r["events_lost"],
        warnings=json.loads(r["warnings"])) for r in rows]
