"""Block layer: ingest (matching, loss checks, tiles) and the views, on hand-written event
sequences whose expected values are worked out by hand below, and over real HTTP on real traces."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from bundles import block_capture, write_bundle
from server import running_server

import iolens.ingest.block as ingest_block
from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import block as views

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"


def blk(t_ns: int, act: str, sector: int, nr: int = 8, rwbs: str = "W", pid: int = 100, cpu: int = 0,
        dev: str = "8,0") -> str:
    """One blkparse default-format line."""
    tail = f"{sector} + {nr} [{'0' if act in 'CR' else 'fio'}]"
    return f"{dev:>7} {cpu:2d} {1:8d} {t_ns // 10**9:5d}.{t_ns % 10**9:09d} {pid:5d} {act:>2} {rwbs:>3} {tail}\n"


def ingest(tmp_path: Path, label: str, runs, name: str = "b") -> tuple[Store, str]:
    m, files = block_capture(label, runs)
    store = Store(tmp_path / f"{name}.duckdb")
    r = ingest_file(store, write_bundle(tmp_path / f"{name}.tar.gz", m, files), bundles_dir=tmp_path / "bundles")
    return store, r.capture_id


# Six I/Os of device 8,0, times in ns since run start (trace_clock_at_start_ns = 0):
#          issue   complete  latency
#   A       500     2500      2000     covers [500, 1000) of bucket 0, all of 1, [2000, 2500) of 2
#   B      1000     2000      1000     exactly bucket 1: starts and ends on its boundaries
#   C      3000     3000         0     zero length: adds nothing
#   D      3000     7000      4000     buckets 3, 4, 5, 6 whole, ends on a boundary
#   E      6500     6600       100     inside bucket 6
#   F      9000    12000      3000     bucket 9 whole; the rest lies after the range asked
IOS = {"A": (500, 2500, 1000), "B": (1000, 2000, 2000), "C": (3000, 3000, 3000), "D": (3000, 7000, 4000),
       "E": (6500, 6600, 5000), "F": (9000, 12000, 6000)}
# Time-weighted depth per 1000 ns bucket over [0, 10000), by hand:
#   b0: A 500/1000 = 0.5          b1: A 1000 + B 1000 = 2.0     b2: A 500 = 0.5 (B ended at 2000)
#   b3, b4, b5: D = 1.0           b6: D 1000 + E 100 = 1.1      b7, b8: 0 (D ended at 7000)
#   b9: F 1000 = 1.0
DEPTH_1000 = [0.5, 2.0, 0.5, 1.0, 1.0, 1.0, 1.1, 0.0, 0.0, 1.0]
# Per 2000 ns bucket: (500 + 2000) / 2000, (500 + 1000) / 2000, 2000 / 2000, (1000 + 100) / 2000, 1000 / 2000
DEPTH_2000 = [1.25, 0.75, 1.0, 0.55, 0.5]


def hand_trace() -> str:
    events = []
    for issue, complete, sector in IOS.values():
        events.append((issue, "D", sector))
        events.append((complete, "C", sector))
    events.sort(key=lambda e: (e[0], e[1] == "C"))  # at equal times, issues first (C: 3000 -> 3000)
    return "".join(blk(t, a, s) for t, a, s in events)


@pytest.fixture()
def hand(tmp_path):
    return ingest(tmp_path, "hand", [[("blkparse", "blkparse.txt", hand_trace(), {"trace_clock_at_start_ns": 0})]])


def test_hand_rows_are_matched_once_at_ingest(hand) -> None:
    store, cid = hand
    rows = store.query("SELECT sector, issue_ns, complete_ns, latency_ns FROM block_ios ORDER BY sector").rows
    assert rows == [(s, i, c, c - i) for i, c, s in sorted(IOS.values(), key=lambda v: v[2])]
    run = store.query("SELECT ios, matched, t0_ns, first_ns, last_ns, events_lost FROM block_runs").rows
    assert run == [(6, 6, 0, 500, 12000, False)]


def test_queue_depth_by_hand_from_rows(hand) -> None:
    store, cid = hand
    d = views.queue_depth(store, [cid], 0, 10_000, 10)
    assert d.grid.interval_ns == 1000 and d.t_ns == list(range(0, 10_000, 1000))
    assert d.series[0].source == "rows"
    assert d.series[0].depth == pytest.approx(DEPTH_1000, abs=1e-12)
    d = views.queue_depth(store, [cid], 0, 10_000, 5)
    assert d.grid.interval_ns == 2000 and d.series[0].depth == pytest.approx(DEPTH_2000, abs=1e-12)


def test_queue_depth_by_hand_from_tiles(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ingest_block, "tile_levels", lambda ios, lo, hi, per: [1000, 10_000])
    store, cid = ingest(tmp_path, "hand", [[("blkparse", "b.txt", hand_trace(), {"trace_clock_at_start_ns": 0})]])
    d = views.queue_depth(store, [cid], 0, 10_000, 10)
    assert d.series[0].source == "tiles 1000 ns"
    assert d.series[0].depth == pytest.approx(DEPTH_1000, abs=1e-12)
    d = views.queue_depth(store, [cid], 0, 10_000, 5)
    assert d.series[0].source == "tiles 1000 ns"
    assert d.series[0].depth == pytest.approx(DEPTH_2000, abs=1e-12)
    # the same I/Os from the rows give the same answer over a window narrower than any tile
    narrow = views.queue_depth(store, [cid], 6000, 7000, 10)
    assert narrow.series[0].source == "rows" and narrow.grid.interval_ns == 100
    assert narrow.series[0].depth == pytest.approx([1.0] * 5 + [2.0] + [1.0] * 4)


def test_iops_and_latency_by_hand(hand) -> None:
    store, cid = hand
    r = views.iops(store, [cid], 0, 10_000, 10)
    [write] = r.series[0].ops
    # completions: B and A at 2000 and 2500 (bucket 2), C 3000, E 6600, D 7000; F after the range
    assert write.iops == [0, 0, 2e6, 1e6, 0, 0, 1e6, 1e6, 0, 0]
    assert write.bytes_per_s == [v * 4096 for v in write.iops]
    lat = views.latency(store, [cid], 0, 10_000, 10).series[0]
    assert lat.count == [0, 0, 2, 1, 0, 0, 1, 1, 0, 0]
    assert lat.mean_ns[2] == 1500 and lat.max_ns[2] == 2000 and lat.max_ns[7] == 4000
    assert lat.p50_ns[2] == pytest.approx(1000, rel=0.045) and lat.p99_ns[2] == pytest.approx(2000, rel=0.045)
    hist = views.latency_histogram(store, [cid], 0, 13_000).series[0].ops[0].bins
    assert sum(b.count for b in hist) == 6
    assert all(b.low_ns <= v < b.high_ns or (v == 0 and b.bin == 0)
               for b, v in zip(hist, sorted(c - i for i, c, _ in IOS.values())))
    sizes = views.sizes(store, [cid]).series[0].ops
    assert [(s.op, [(x.bytes, x.count) for x in s.sizes]) for s in sizes] == [("write", [(4096, 6)])]


def test_scatter_points_are_the_ios_or_a_sample(hand) -> None:
    store, cid = hand
    s = views.scatter(store, [cid]).series[0]
    assert s.weight == 1 and sorted(zip(s.t_ns, s.sector)) == sorted((i, sec) for i, _, sec in IOS.values())
    s = views.scatter(store, [cid], sector_from=2000, sector_to=4000).series[0]
    assert sorted(s.sector) == [2000, 3000]


def test_requeue_partial_and_unmatched_are_counted_not_dropped(tmp_path) -> None:
    text = "".join([
        blk(100, "I", 10), blk(200, "D", 10), blk(300, "R", 10), blk(400, "D", 10, cpu=1), blk(900, "C", 10),
        blk(1000, "D", 50, nr=16), blk(1100, "C", 50, nr=8), blk(1300, "C", 58, nr=8),  # partial completion
        blk(1400, "C", 70),                                   # complete without issue
        blk(1500, "D", 80), blk(1600, "D", 80),               # second issue: the first's C was lost
        blk(1700, "C", 80), blk(1800, "D", 90),               # 90 still in flight at the end
    ])
    store, cid = ingest(tmp_path, "odd", [[("blkparse", "b.txt", text, {"trace_clock_at_start_ns": 0})]])
    rows = store.query("""SELECT sector, bytes, insert_ns, issue_ns, complete_ns, cpu, requeues
                          FROM block_ios ORDER BY sector, issue_ns NULLS FIRST""").rows
    assert rows == [
        (10, 4096, 100, 400, 900, 1, 1),
        (50, 8192, None, 1000, 1300, 0, 0),
        (70, 4096, None, None, 1400, None, 0),
        (80, 4096, None, 1500, None, 0, 0),
        (80, 4096, None, 1600, 1700, 0, 0),
        (90, 4096, None, 1800, None, 0, 0),
    ]
    run = store.query("""SELECT matched, issue_without_complete, complete_without_issue, issue_duplicate,
                                partial_complete, requeues, events_lost FROM block_runs""").rows
    assert run == [(3, 2, 1, 1, 1, 1, False)]  # all near the trace's ends: not taken for loss
    warnings = json.loads(store.query("SELECT warnings FROM captures").scalar())
    assert any("unmatched block events" in w and "issue duplicate 1" in w for w in warnings)


def test_unmatched_events_far_from_the_ends_mean_lost_events(tmp_path) -> None:
    # 3 s of I/O every 10 ms; 40 completions in the middle are missing
    lines = []
    for i in range(300):
        t = i * 10_000_000
        lines.append(blk(t, "D", 1000 + i * 8))
        if not 130 <= i < 170:
            lines.append(blk(t + 50_000, "C", 1000 + i * 8))
    store, cid = ingest(tmp_path, "lossy", [[("blkparse", "b.txt", "".join(lines), {})]])
    lost, warnings = store.query("SELECT events_lost, warnings FROM block_runs").rows[0]
    assert lost is True and "40 issues or completions have no partner" in warnings
    d = views.queue_depth(store, [cid], buckets=10)
    assert d.series[0].events_lost and any("no partner" in w for w in d.series[0].warnings)


@pytest.mark.parametrize("block_path", ["native", "python"], indirect=True)
def test_perf_sample_with_perf_stat_is_flagged(tmp_path, block_path) -> None:
    data = (SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes()
    stat = (SAMPLES / "perf-6.1-block-randrw.stat.csv").read_bytes()
    store, cid = ingest(tmp_path, "perf", [[("perf-block", "block.txt.gz", data, {}),
                                            ("perf-stat-block", "block.stat.csv", stat, {})]])
    r = views.runs(store, [cid])[0]
    assert (r.ios, r.matched, r.events_lost, r.main_device) == (2053, 1200, True, "254,0")
    assert r.counted["block:block_rq_complete"] == 2077
    assert any("counted 2077 block:block_rq_complete" in w and "42.2% lost" in w for w in r.warnings)
    # without the counts, the recording alone is too short (1 s) to tell
    store2, cid2 = ingest(tmp_path, "perf", [[("perf-block", "block.txt.gz", data, {})]], name="c")
    assert views.runs(store2, [cid2])[0].events_lost is False


@pytest.mark.parametrize("block_path", ["native", "python"], indirect=True)
def test_tiles_equal_rows_on_the_real_sample(tmp_path, block_path) -> None:
    """The same view from tiles and from rows (a grid aligned to the tiles) gives the same numbers."""
    data = gzip.decompress((SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes())
    store, cid = ingest(tmp_path, "perf", [[("perf-block", "block.txt", data, {})]])
    levels = [lv for (lv,) in store.query("SELECT level_ns FROM block_tile_levels WHERE kind = 'rate' ORDER BY 1").rows]
    tiled = views.queue_depth(store, [cid], 0, 1_100_000_000, 11)
    assert tiled.series[0].source.startswith("tiles") and levels[0] <= tiled.grid.interval_ns
    orig = views._level
    try:
        views._level = lambda *a, **k: None  # force rows
        raw = views.queue_depth(store, [cid], 0, 1_100_000_000, 11)
        raw_iops = views.iops(store, [cid], 0, 1_100_000_000, 11)
        raw_lat = views.latency(store, [cid], 0, 1_100_000_000, 11)
    finally:
        views._level = orig
    assert raw.series[0].source == "rows"
    assert tiled.series[0].depth == pytest.approx(raw.series[0].depth, rel=1e-9)
    assert views.iops(store, [cid], 0, 1_100_000_000, 11).series[0].ops == raw_iops.series[0].ops
    lat = views.latency(store, [cid], 0, 1_100_000_000, 11).series[0]
    assert lat.source.startswith("tiles")
    assert (lat.count, lat.p50_ns, lat.p99_ns, lat.max_ns) == (raw_lat.series[0].count, raw_lat.series[0].p50_ns,
                                                               raw_lat.series[0].p99_ns, raw_lat.series[0].max_ns)


# --------------------------------------------------------------------------------------------
# HTTP


@pytest.mark.parametrize("block_path", ["native", "python"], indirect=True)
def test_block_api_over_http(tmp_path, corpus, block_path) -> None:
    perf, pfiles = block_capture("perf-6.18", [[
        ("perf-block", "block.txt.gz", (SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes(), {}),
        ("perf-stat-block", "block.stat.csv", (SAMPLES / "perf-6.1-block-randrw.stat.csv").read_bytes(), {})]])
    blkp, bfiles = block_capture("nvme-blkparse", [[
        ("blkparse", "blkparse.txt",
         (corpus / "blktrace" / "sample.blktrace.0.blkparse-default.txt").read_bytes(), {})]])
    with running_server(tmp_path / "data") as api:
        ids = []
        for name, (m, files) in {"p": (perf, pfiles), "b": (blkp, bfiles)}.items():
            with write_bundle(tmp_path / f"{name}.tar.gz", m, files).open("rb") as f:
                r = api.post("/api/captures", files={"file": (f"{name}.tar.gz", f, "application/gzip")})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        runs = api.get("/api/block/runs", params={"captures": ",".join(ids)}).json()
        assert [(x["label"], x["kind"], x["events_lost"]) for x in runs] == [
            ("perf-6.18", "perf-block", True), ("nvme-blkparse", "blkparse", False)]
        series = ",".join(ids)
        for path in ("queue-depth", "iops", "latency", "latency-histogram", "sizes", "scatter"):
            r = api.get(f"/api/block/{path}", params={"series": series})
            assert r.status_code == 200, (path, r.text)
            body = r.json()
            assert [s["events_lost"] for s in body["series"]] == [True, False], path
            assert body["series"][0]["warnings"] and body["series"][1]["device"] == "259,0"
        depth = api.get("/api/block/queue-depth", params={"series": series, "buckets": 100}).json()
        assert depth["grid"]["buckets"] == len(depth["t_ns"]) == len(depth["series"][0]["depth"])
        # the NVMe trace: one read at a time (blkparse's summary says "Read depth: 1")
        assert max(depth["series"][1]["depth"]) <= 1.0 + 1e-9 and max(depth["series"][1]["depth"]) > 0.5
        iops = api.get("/api/block/iops", params={"series": ids[1], "to_ns": 400_000_000, "buckets": 4}).json()
        assert sum(iops["series"][0]["ops"][0]["iops"]) * 0.1 == pytest.approx(963)
        assert iops["series"][0]["fio_iops"] is None
        # errors
        r = api.get("/api/block/queue-depth", params={"series": "nope"})
        assert r.status_code == 404 and r.json()["detail"] == {"missing": ["nope"]}
        r = api.get("/api/block/iops", params={"series": series, "buckets": 0})
        assert r.status_code == 422 and "buckets" in r.json()["error"]
        r = api.get("/api/block/iops", params={"series": series, "from_ns": 5, "to_ns": 5})
        assert r.status_code == 422 and "empty time range" in r.json()["error"]
        assert api.get("/api/block/latency").status_code == 422
        paths = api.get("/openapi.json").json()["paths"]
        assert {"/api/block/runs", "/api/block/queue-depth", "/api/block/iops", "/api/block/latency",
                "/api/block/latency-histogram", "/api/block/sizes", "/api/block/scatter"} <= set(paths)
