"""Block-layer artifacts at ingest: events -> one row per I/O, matched once, here.

Artifact kinds (docs/bundle-format.md): `blkparse` and `perf-block` (the events of one run, gzip
allowed) and `perf-stat-block` (perf stat -x, counts of the same tracepoints during the capture).

Matching issue (D) to completion (C) over a whole table costs 0.3-1.6 s per query on 10M rows
(DESIGN "Facts measured"), so it is done once, in one streaming pass (`IoMatcher`), and the views
read the matched rows. The rows go to a CSV file beside the unpacked bundle and are loaded with
one `INSERT ... SELECT FROM read_csv` inside the ingest transaction: memory stays flat for a
capture of any size. Events that cannot be matched are counted per run (table block_runs) and
reported in the ingest warnings; they are never dropped silently.

A capture that lost events (perf record drops interrupt-context tracepoints while CPUs idle, see
DESIGN) is detected by three independent checks and flagged per run (block_runs.events_lost,
block_runs.warnings); every block view returns the flag.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, MutableSequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats import gz, perf_block_native
from ..formats.blkparse import BlkparseReader
from ..formats.block_events import BlockEvent, op_of
from ..formats.errors import FormatError
from ..formats.perf_block import PerfBlockReader
from ..formats.perf_stat import parse_perf_stat_csv
from ..store.rules.bin_percentile import lat_bin
from ..store.rules.lost_events import (
    BOUNDARY_NS,
    INTERIOR_UNMATCHED_ABS,
    INTERIOR_UNMATCHED_REL,
    recorded_short,
)
from .parsed import BulkCsv, Parsed

BLOCK_KINDS = ("blkparse", "perf-block")
STAT_KIND = "perf-stat-block"
# perf stat counts compared with the recording: ours, and the generic perf stat artifact when it
# counted the block tracepoints too
STAT_KINDS = (STAT_KIND, "perf-stat")

# tracepoint counted by perf stat -> action recorded
COUNTED_ACTIONS = {"block:block_rq_issue": "issue", "block:block_rq_complete": "complete",
                   "block:block_rq_insert": "insert"}

# Columns of the rows IoMatcher emits, (name, DuckDB type) in order: the CSV loaded into block_ios
# (store/schema/block.sql documents each); capture_id and run_id are added as constants.
ROW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("dev", "VARCHAR"), ("sector", "BIGINT"), ("bytes", "BIGINT"), ("op", "VARCHAR"), ("rwbs", "VARCHAR"),
    ("insert_ns", "BIGINT"), ("issue_ns", "BIGINT"), ("complete_ns", "BIGINT"), ("latency_ns", "BIGINT"),
    ("lat_bin", "SMALLINT"), ("cpu", "SMALLINT"), ("pid", "INTEGER"), ("comm", "VARCHAR"),
    ("error", "INTEGER"), ("requeues", "SMALLINT"),
)

class IoMatcher:
    """Pure and streaming: feed BlockEvents in trace order, get one row per I/O request.

    Requests are keyed by (device, first sector), as blkparse's btt and iowatcher do:
    - insert (I) remembers the insert time; a front merge moves the key to the bio's sector;
      a request merged into another (block_rq_merge) is forgotten.
    - issue (D) takes the insert time if any (a request issued directly has none) and starts the
      I/O. A second issue at a key that is still in flight means the first one's completion was
      not recorded: the first is emitted without completion and counted (`issue_duplicate`).
      Requests without sectors (flushes, sector 0 + 0) are queued first-in first-out instead.
    - requeue (R) takes the I/O back; its next issue continues it (`requeues` + 1; issue_ns is the
      last issue).
    - complete (C) ends the I/O; a completion of fewer sectors than the request is partial: the
      rest stays in flight at the next sector (`partial_complete`). A completion with no issue is
      emitted with issue_ns NULL (`complete_without_issue`).
    - at the end, I/Os still in flight are emitted with complete_ns NULL (`issue_without_complete`).
    Rows come out in completion order (the unfinished ones last); times are ns since `t0_ns`.

    perf-block artifacts are matched by the compiled equivalent of these rules and of
    PerfBlockReader (formats/perf_block_native.py, src/block/ of backend/native/iolens_native):
    a change of rule here needs the same change there (test_block_native.py compares the two).
    """

    def __init__(self, t0_ns: int | None = None) -> None:
        self.t0_ns = t0_ns
        self.first_ns: int | None = None
        self.last_ns: int | None = None
        self.counts: Counter[str] = Counter()
        self.actions: Counter[str] = Counter()
        self.devices: Counter[str] = Counter()
        self._inserted: dict[tuple[str, int], list[int]] = {}
        self._inflight: dict[tuple[str, int], list[list[Any]]] = {}
        self._requeued: dict[tuple[str, int], list[list[Any]]] = {}
        # times of unmatched issues and completions, to tell lost events from the trace's ends
        # (lists here; arrays of int64 when the native pass filled them)
        self._unmatched_completes: MutableSequence[int] = []
        self._unfinished_issues: MutableSequence[int] = []

    def feed(self, events: Iterable[BlockEvent]) -> Iterator[tuple[Any, ...]]:
        inserted, inflight, requeued = self._inserted, self._inflight, self._requeued
        counts, actions = self.counts, self.actions
        t0 = self.t0_ns
        last = None
        for ev in events:
            t = ev.t_ns
            if t0 is None:
                t0 = self.t0_ns = t
            if self.first_ns is None:
                self.first_ns = t
            last = t
            action = ev.action
            actions[action] += 1
            if action == "complete":
                key = (ev.dev, ev.sector)
                lst = inflight.get(key)
                if not lst:
                    counts["complete_without_issue"] += 1
                    self._unmatched_completes.append(t)
                    self.devices[ev.dev] += 1
                    yield (ev.dev, ev.sector, ev.bytes, op_of(ev.rwbs), ev.rwbs, None, None, t - t0,
                           None, None, None, None, None, ev.error, 0)
                    continue
                e = lst[0]
                nr = ev.nr_sectors or 0
                if 0 < nr < e[10]:
                    # partial completion: the rest of the request stays in flight after it
                    counts["partial_complete"] += 1
                    lst.pop(0)
                    if not lst:
                        del inflight[key]
                    e[10] -= nr
                    inflight.setdefault((ev.dev, ev.sector + nr), []).append(e)
                    continue
                lst.pop(0)
                if not lst:
                    del inflight[key]
                if t < e[6]:
                    counts["negative_latency"] += 1
                counts["matched"] += 1
                self.devices[e[0]] += 1
                lat = t - e[6]
                yield (e[0], e[1], e[2], op_of(e[3]), e[3], None if e[5] is None else e[5] - t0,
                       e[6] - t0, t - t0, lat, lat_bin(lat), e[7], e[8], e[9], ev.error, e[11])
            elif action == "issue":
                key = (ev.dev, ev.sector)
                if ev.sector is None:
                    counts["issue_without_sector"] += 1
                    continue
                rq = requeued.get(key)
                if rq:
                    e = rq.pop(0)
                    if not rq:
                        del requeued[key]
                    e[6], e[7], e[8], e[9] = t, ev.cpu, ev.pid, ev.comm
                else:
                    ins = inserted.get(key)
                    t_ins = None
                    if ins:
                        t_ins = ins.pop(0)
                        if not ins:
                            del inserted[key]
                    nbytes = ev.bytes if ev.bytes is not None else (ev.nr_sectors or 0) * 512
                    # [dev, sector, bytes, rwbs, -, insert, issue, cpu, pid, comm, sectors left, requeues]
                    e = [ev.dev, ev.sector, nbytes, ev.rwbs, None, t_ins, t, ev.cpu, ev.pid, ev.comm,
                         ev.nr_sectors or 0, 0]
                lst = inflight.get(key)
                if lst is None:
                    inflight[key] = [e]
                elif e[10] > 0:
                    # the previous issue at this sector never completed (its C was not recorded)
                    counts["issue_duplicate"] += 1
                    for old in lst:
                        yield self._unfinished(old, t0)
                    inflight[key] = [e]
                else:
                    lst.append(e)  # flushes: several may be in flight at sector 0
            elif action == "insert":
                key = (ev.dev, ev.sector)
                ins = inserted.get(key)
                if ins is None:
                    inserted[key] = [t]
                elif ev.nr_sectors:
                    counts["insert_duplicate"] += 1
                    ins[:] = [t]
                else:
                    ins.append(t)
            elif action == "requeue":
                key = (ev.dev, ev.sector)
                lst = inflight.get(key)
                if not lst:
                    counts["requeue_without_issue"] += 1
                    continue
                e = lst.pop(0)
                if not lst:
                    del inflight[key]
                e[11] += 1
                requeued.setdefault(key, []).append(e)
            elif action == "frontmerge" and ev.sector is not None and ev.nr_sectors:
                old = (ev.dev, ev.sector + ev.nr_sectors)
                ins = inserted.pop(old, None)
                if ins:
                    inserted[(ev.dev, ev.sector)] = ins
            elif action == "rq_merge":
                ins = inserted.get((ev.dev, ev.sector))
                if ins:
                    ins.pop(0)
                    if not ins:
                        del inserted[(ev.dev, ev.sector)]
        if last is not None:
            self.last_ns = last

    def _unfinished(self, e: list[Any], t0: int) -> tuple[Any, ...]:
        self.counts["issue_without_complete"] += 1
        self._unfinished_issues.append(e[6])
        self.devices[e[0]] += 1
        return (e[0], e[1], e[2], op_of(e[3]), e[3], None if e[5] is None else e[5] - t0, e[6] - t0,
                None, None, None, e[7], e[8], e[9], None, e[11])

    def finish(self) -> Iterator[tuple[Any, ...]]:
        """Emit the I/Os still in flight or requeued at the end of the trace."""
        t0 = self.t0_ns or 0
        for table in (self._inflight, self._requeued):
            for lst in table.values():
                for e in lst:
                    yield self._unfinished(e, t0)
            table.clear()
        left = sum(len(v) for v in self._inserted.values())
        if left:
            self.counts["insert_without_issue"] += left
        self._inserted.clear()

    def interior_unmatched(self) -> int:
        """Unmatched issues and completions more than BOUNDARY_NS away from both ends of the trace."""
        if self.first_ns is None or self.last_ns is None:
            return 0
        lo, hi = self.first_ns + BOUNDARY_NS, self.last_ns - BOUNDARY_NS
        return (sum(1 for t in self._unfinished_issues if t < hi)
                + sum(1 for t in self._unmatched_completes if t > lo))


def open_text(path: Path, source: str | None = None) -> IO[str]:
    """A bundle member as text lines, gzip or not (detected from the first bytes); a damaged gzip
    stream is a FormatError naming `source` and the line reached (formats/gz.py)."""
    return gz.open_text(path, source)


@dataclass
class BlockRun:
    """What one block artifact of one run gave: the block_runs row and the CSV of its I/Os."""

    kind: str
    path: str
    csv_path: Path
    matcher: IoMatcher
    tool: dict[str, Any] = field(default_factory=dict)   # reader facts: tool-reported loss, summary
    counted: dict[str, int | None] | None = None
    warnings: list[str] = field(default_factory=list)
    events_lost: bool = False


def read_block_artifact(kind: str, member: Path, source: str, csv_path: Path,
                        t0_ns: int | None = None, *, native: bool | None = None) -> BlockRun:
    """Parse, match and write the rows of one blkparse / perf-block file (raises FormatError).

    perf-block goes through the compiled pass (formats/perf_block_native.py: the same CSV bytes and
    counters as the Python path below, ~18x faster) unless it is unavailable, IOLENS_BLOCK_NATIVE=0
    or the input needs the Python reader; `native` forces one path or the other (tests)."""
    if kind == "perf-block" and (perf_block_native.enabled() if native is None else native):
        try:
            p = perf_block_native.perf_block_csv(member, source, csv_path, t0_ns)
        except perf_block_native.Fallback:
            pass  # the Python path gives the exact result, or error, for this input
        else:
            reader, matcher = _from_native(p, source, t0_ns)
            return _block_run(kind, source, csv_path, reader, matcher)
    matcher = IoMatcher(t0_ns)
    reader: BlkparseReader | PerfBlockReader = BlkparseReader(source) if kind == "blkparse" else PerfBlockReader(source)
    with open_text(member, source) as f, csv_path.open("w", newline="", encoding="utf-8") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerows(matcher.feed(reader.events(f)))
        w.writerows(matcher.finish())
    return _block_run(kind, source, csv_path, reader, matcher)


def _from_native(p: perf_block_native.BlockPass, source: str,
                 t0_ns: int | None) -> tuple[PerfBlockReader, IoMatcher]:
    """The reader and matcher, in the state the Python path leaves them in, from the native pass."""
    reader = PerfBlockReader(source)
    reader.tracepoints = Counter(p.tracepoints)
    reader.foreign, reader.passthrough, reader.usec_times = p.foreign, p.passthrough, p.usec_times
    reader.lost, reader.lines = p.lost, p.lines
    matcher = IoMatcher(t0_ns)
    matcher.t0_ns, matcher.first_ns, matcher.last_ns = p.t0_ns, p.first_ns, p.last_ns
    matcher.counts, matcher.actions, matcher.devices = Counter(p.counts), Counter(p.actions), Counter(p.devices)
    matcher._unmatched_completes = p.unmatched_completes
    matcher._unfinished_issues = p.unfinished_issues
    return reader, matcher


def _block_run(kind: str, source: str, csv_path: Path, reader: BlkparseReader | PerfBlockReader,
               matcher: IoMatcher) -> BlockRun:
    run = BlockRun(kind, source, csv_path, matcher)
    if isinstance(reader, BlkparseReader):
        s = reader.summary
        run.tool = {"lost": sum(s.skipped_events.values()), "passthrough": reader.passthrough,
                    "summary": {"blocks": [{"scope": b.scope, "device": b.device, **b.stats} for b in s.blocks],
                                "events": s.events, "skips": s.skips, "throughput": s.throughput},
                    "lines": dict(sorted(reader.actions.items()))}
    else:
        run.tool = {"lost": reader.lost, "passthrough": reader.passthrough,
                    "tracepoints": dict(sorted(reader.tracepoints.items())), "foreign": reader.foreign,
                    "usec_times": reader.usec_times}
    if not sum(matcher.actions.values()):
        raise FormatError(source, "no block events in this file")
    return run


def assess(run: BlockRun, counted: dict[str, int | None] | None) -> None:
    """Fill run.warnings and run.events_lost from the three loss checks (docs/block.md)."""
    m = run.matcher
    c = m.counts
    issues = m.actions["issue"]
    completes = m.actions["complete"]
    where = run.path
    # 1. the tool said so: blkparse skipped sequence numbers, perf printed LOST records
    if run.tool.get("lost"):
        run.events_lost = True
        run.warnings.append(f"{where}: the tracer reported {run.tool['lost']} lost events")
    # 2. perf stat counted more events than were recorded
    run.counted = counted
    if counted:
        for tp, action in COUNTED_ACTIONS.items():
            n = counted.get(tp)
            if n is None:
                continue
            got = m.actions[action]
            missing = n - got
            if recorded_short(got, n):
                run.events_lost = True
                run.warnings.append(
                    f"{where}: perf stat counted {n} {tp} events, the recording has {got} "
                    f"({missing / n:.1%} lost): queue depth, IOPS and latency from this run are incomplete")
    # 3. issues and completions that do not pair up, away from the ends of the trace
    interior = m.interior_unmatched()
    if interior > max(INTERIOR_UNMATCHED_ABS, INTERIOR_UNMATCHED_REL * max(issues, completes)):
        run.events_lost = True
        run.warnings.append(
            f"{where}: {interior} issues or completions have no partner more than "
            f"{BOUNDARY_NS / 1e9:g} s from the ends of the trace (recorded {issues} issues, "
            f"{completes} completions): events were lost")
    unmatched = {k: v for k, v in sorted(c.items()) if v and k != "matched"}
    if unmatched:
        run.warnings.append(f"{where}: unmatched block events: "
                            + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in unmatched.items()))
    if run.tool.get("passthrough"):
        run.warnings.append(f"{where}: {run.tool['passthrough']} passthrough request events (no sector) not matched")
    if run.tool.get("usec_times"):
        run.warnings.append(f"{where}: times have microsecond resolution (perf script without --ns)")


def read_counted(member: Path, source: str) -> dict[str, int | None]:
    with open_text(member, source) as f:
        return parse_perf_stat_csv(f.read(), source).counts


def block_run_row(cid: str, run_id: str, run: BlockRun) -> tuple[Any, ...]:
    m = run.matcher
    devices = [{"dev": d, "ios": n} for d, n in m.devices.most_common()]
    c = m.counts

    def rel(t: int | None) -> int | None:
        return None if t is None or m.t0_ns is None else t - m.t0_ns

    return (
        cid, run_id, run.kind, run.path, m.t0_ns, rel(m.first_ns), rel(m.last_ns),
        sum(m.actions.values()), _json(dict(sorted(m.actions.items()))), sum(m.devices.values()),
        c["matched"],
        c["issue_without_complete"], c["complete_without_issue"], c["issue_duplicate"],
        c["insert_without_issue"], c["partial_complete"], m.actions["requeue"], c["negative_latency"],
        _json(run.counted) if run.counted is not None else None, run.tool.get("lost") or 0,
        devices[0]["dev"] if devices else None, _json(devices), run.events_lost, _json(run.warnings),
        _json(run.tool),
    )


BLOCK_RUN_COLUMNS = (
    "capture_id", "run_id", "kind", "path", "t0_ns", "first_ns", "last_ns", "events", "actions", "ios",
    "matched", "issue_without_complete", "complete_without_issue", "issue_duplicate",
    "insert_without_issue", "partial_complete", "requeues", "negative_latency", "counted",
    "tool_lost", "main_dev", "devices", "events_lost", "warnings", "tool",
)
TABLE_COLUMNS = {"block_runs": BLOCK_RUN_COLUMNS}


def _json(v: Any) -> str:
    return json.dumps(v)


def block_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """ARTIFACT_PARSERS entry of `blkparse` and `perf-block`: one run's events -> block_ios (bulk
    CSV) and one block_runs row, compared with the run's perf-stat-block counts if it has one."""

    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError(f"{art.kind} artifact must belong to a run", where, 422)
    t0 = art.trace_clock_at_start_ns
    if t0 is not None and not isinstance(t0, int):
        raise BundleError("trace_clock_at_start_ns must be an integer (ns on the trace's clock)",
                          {"file": "manifest.json", "field": f"artifact {art.path}: trace_clock_at_start_ns"}, 422)
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-block-", dir=bundle.root))
    run = read_block_artifact(art.kind, bundle.path(art.path), art.path, tmp / "block_ios.csv", t0)
    counted = None
    for r in bundle.manifest.runs:
        if r.id == run_id:
            for a in r.artifacts:
                if a.kind in STAT_KINDS:
                    counted = {**(counted or {}), **read_counted(bundle.path(a.path), a.path)}
    assess(run, counted)
    out.warnings.extend(run.warnings)
    out.add("block_runs", [block_run_row(bundle.capture_id, run_id, run)])
    out.bulk.append(BulkCsv("block_ios", run.csv_path, ROW_COLUMNS,
                            (("capture_id", bundle.capture_id), ("run_id", run_id))))
    cid = bundle.capture_id
    out.derive.append(lambda w: derive_tiles(w, cid, run_id))


def perf_stat_block_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """ARTIFACT_PARSERS entry of `perf-stat-block`: checked here; compared by block_artifact."""
    if run_id is None:
        raise BundleError("perf-stat-block artifact must belong to a run", {"file": art.path, "field": "kind"}, 422)
    read_counted(bundle.path(art.path), art.path)
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    if not any(a.kind in BLOCK_KINDS for a in run.artifacts):
        out.warnings.append(f"{art.path}: block events were counted but not recorded in run {run_id}")


# --- Tiles: pre-aggregation for the views (docs/block.md "Downsampling") ----------------------
RATE_IOS_PER_TILE = 16    # finest rate level: about this many I/Os per tile on average
HIST_IOS_PER_TILE = 64    # finest histogram level
TOP_TILES = 100           # coarsest level: about this many tiles over the run
SCATTER_LEVELS = ((1, 512), (2, 64), (3, 8), (4, 1))  # level, kept if hash % 4096 < this (1 in 8^level)

_SPANS_SQL = """
SELECT dev, count(*) AS ios,
       min(least(coalesce(issue_ns, complete_ns), coalesce(complete_ns, issue_ns))) AS t_min,
       max(greatest(coalesce(issue_ns, complete_ns), coalesce(complete_ns, issue_ns))) AS t_max
FROM block_ios WHERE capture_id = $cid AND run_id = $rid GROUP BY dev
"""

# Finest rate level from the I/O rows. In-flight time per tile: the partial overlaps of each I/O
# with its first and last tile, plus +1/-1 at the tiles it covers whole (a difference array),
# summed over a dense range of tiles.
_RATE_TILES_SQL = """
INSERT INTO block_tiles
WITH io AS (
    SELECT op, issue_ns AS s, complete_ns AS e, bytes, latency_ns
    FROM block_ios WHERE capture_id = $cid AND run_id = $rid AND dev = $dev
), dep AS (
    SELECT op, s, e, floor(s / $T)::BIGINT AS fb, floor(e / $T)::BIGINT AS lb
    FROM io WHERE s IS NOT NULL AND e IS NOT NULL AND e >= s
), parts AS (
    SELECT k, op, sum(busy) AS busy, sum(d) AS d FROM (
        SELECT fb AS k, op, least(e, (fb + 1) * $T) - s AS busy, 0 AS d FROM dep
        UNION ALL SELECT lb, op, e - lb * $T, 0 FROM dep WHERE lb > fb
        UNION ALL SELECT fb + 1, op, 0, 1 FROM dep WHERE lb > fb + 1
        UNION ALL SELECT lb, op, 0, -1 FROM dep WHERE lb > fb + 1
    ) GROUP BY ALL
), dense AS (
    SELECT g.k, o.op, coalesce(p.busy, 0) AS busy,
           sum(coalesce(p.d, 0)) OVER (PARTITION BY o.op ORDER BY g.k) AS covering
    FROM range($k0, $k1 + 1) g(k) CROSS JOIN (SELECT DISTINCT op FROM io) o
    LEFT JOIN parts p ON p.k = g.k AND p.op = o.op
), c AS (
    SELECT floor(e / $T)::BIGINT AS k, op, count(*) AS n, sum(bytes) AS bytes, count(latency_ns) AS lat_n,
           sum(latency_ns) AS lat_sum, max(latency_ns) AS lat_max
    FROM io WHERE e IS NOT NULL GROUP BY ALL
)
SELECT $cid, $rid, $dev, $T, k, op, coalesce(c.n, 0), coalesce(c.bytes, 0), coalesce(c.lat_n, 0),
       coalesce(c.lat_sum, 0), c.lat_max, coalesce(d.busy + d.covering * $T, 0)
FROM dense d FULL JOIN c USING (k, op)
WHERE coalesce(c.n, 0) > 0 OR coalesce(d.busy + d.covering * $T, 0) > 0
ORDER BY k
"""

_RATE_UP_SQL = """
INSERT INTO block_tiles
SELECT capture_id, run_id, dev, $T2, floor(k / $f)::BIGINT AS k2, op, sum(completed), sum(bytes), sum(lat_n),
       sum(lat_sum_ns), max(lat_max_ns), sum(inflight_ns)
FROM block_tiles WHERE capture_id = $cid AND run_id = $rid AND dev = $dev AND level_ns = $T
GROUP BY capture_id, run_id, dev, k2, op ORDER BY k2
"""

_HIST_TILES_SQL = """
INSERT INTO block_hist_tiles
SELECT * FROM (
    SELECT $cid, $rid, $dev, $T, floor(complete_ns / $T)::BIGINT AS k, op, 'lat', lat_bin, count(*)
    FROM block_ios WHERE capture_id = $cid AND run_id = $rid AND dev = $dev AND lat_bin IS NOT NULL
    GROUP BY ALL
    UNION ALL
    SELECT $cid, $rid, $dev, $T, floor(coalesce(issue_ns, complete_ns) / $T)::BIGINT AS k, op, 'size', bytes, count(*)
    FROM block_ios WHERE capture_id = $cid AND run_id = $rid AND dev = $dev AND bytes IS NOT NULL
    GROUP BY ALL
) ORDER BY 5
"""

_HIST_UP_SQL = """
INSERT INTO block_hist_tiles
SELECT capture_id, run_id, dev, $T2, floor(k / $f)::BIGINT AS k2, op, kind, value, sum(n)
FROM block_hist_tiles WHERE capture_id = $cid AND run_id = $rid AND dev = $dev AND level_ns = $T
GROUP BY capture_id, run_id, dev, k2, op, kind, value ORDER BY k2
"""

_SCATTER_SQL = f"""
INSERT INTO block_scatter_sample
SELECT $cid, $rid, $dev, l.level, issue_ns, sector, bytes, op
FROM block_ios, (VALUES {", ".join(f"({lv}, {keep})" for lv, keep in SCATTER_LEVELS)}) l(level, keep)
WHERE capture_id = $cid AND run_id = $rid AND dev = $dev AND issue_ns IS NOT NULL AND sector IS NOT NULL
      AND hash(issue_ns, sector) % 4096 < l.keep
ORDER BY l.level, issue_ns
"""


def tile_levels(ios: int, t_min: int, t_max: int, ios_per_tile: int) -> list[int]:
    """Powers of ten from the one giving about `ios_per_tile` I/Os a tile to the one giving about
    TOP_TILES tiles over the run (at least one level)."""
    span = max(1, t_max - t_min + 1)

    def tiles(t: int) -> int:
        return t_max // t - t_min // t + 1

    fine = 1
    while tiles(fine) > max(1, ios // ios_per_tile):
        fine *= 10
    top = fine
    while tiles(top) > TOP_TILES and top < span:
        top *= 10
    levels = [fine]
    while levels[-1] < top:
        levels.append(levels[-1] * 10)
    return levels


def derive_tiles(w: Any, cid: str, rid: str) -> None:
    """Tiles and scatter samples of one run, every device (inside the ingest transaction)."""
    for dev, ios, t_min, t_max in w.query(_SPANS_SQL, {"cid": cid, "rid": rid}).rows:
        if t_min is None:
            continue
        base = {"cid": cid, "rid": rid, "dev": dev}
        rate = tile_levels(ios, t_min, t_max, RATE_IOS_PER_TILE)
        hist = tile_levels(ios, t_min, t_max, HIST_IOS_PER_TILE)
        t = rate[0]
        w.execute(_RATE_TILES_SQL, {**base, "T": t, "k0": t_min // t, "k1": t_max // t})
        for lo, hi in zip(rate, rate[1:]):
            w.execute(_RATE_UP_SQL, {**base, "T": lo, "T2": hi, "f": hi // lo})
        w.execute(_HIST_TILES_SQL, {**base, "T": hist[0]})
        for lo, hi in zip(hist, hist[1:]):
            w.execute(_HIST_UP_SQL, {**base, "T": lo, "T2": hi, "f": hi // lo})
        w.execute(_SCATTER_SQL, base)
        w.insert("block_tile_levels", ("capture_id", "run_id", "dev", "kind", "level_ns"),
                 [(cid, rid, dev, "rate", lv) for lv in rate] + [(cid, rid, dev, "hist", lv) for lv in hist])
