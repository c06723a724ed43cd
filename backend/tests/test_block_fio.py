"""fio's own IOPS log on the block views' time axis (docs/block.md "fio's own IOPS log"): ingest of
fio logs written on CLOCK_MONOTONIC (run_ms, the job-start estimate), the bucket maths on
hand-written logs checked against values worked out by hand and against a brute-force
millisecond integration, old zero-based bundles (run_ms NULL, the API's note), an existing
database file without the new columns, and the real capture datasets/block-loop over HTTP."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from bundles import add_file, block_capture, write_bundle
from server import running_server

from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import block as views

REPO = Path(__file__).resolve().parents[2]
DATASET = REPO / "datasets" / "block-loop"

T0 = 5_000_000_123_456          # CLOCK_MONOTONIC at the run's start, ns (not a whole ms: run_ms floors it)
T0_MS = T0 // 1_000_000         # 5_000_000
MS = 1_000_000


def blk(t_ns: int, act: str, sector: int, rwbs: str = "R") -> str:
    """One blkparse default-format line at absolute time t_ns."""
    tail = f"{sector} + 8 [{'0' if act == 'C' else 'fio'}]"
    return f"{'8,0':>7} {0:2d} {1:8d} {t_ns // 10**9:5d}.{t_ns % 10**9:09d} {100:5d} {act:>2} {rwbs:>3} {tail}\n"


def block_trace(ios: list[tuple[int, int, int]]) -> str:
    """(issue ns since run start, complete ns since run start, sector) -> blkparse text."""
    ev = sorted([(T0 + i, "D", s) for i, _, s in ios] + [(T0 + c, "C", s) for _, c, s in ios])
    return "".join(blk(t, a, s) for t, a, s in ev)


# Two reads, so that the series spans [0, 1 s) of the run.
TRACE = block_trace([(100 * MS, 101 * MS, 8), (998 * MS, 999 * MS, 16)])


def log_text(entries: list[tuple[int, float, int]], bs: int = 0) -> str:
    """fio 3.33 log lines: time (ms), value, ddir (0 read, 1 write), block size, offset."""
    return "".join(f"{t}, {v:g}, {d}, {bs}, 0\n" for t, v, d in entries)


# An averaged iops log (log_avg_msec=100), times in ms since the run's start (written as T0_MS + t):
#   333  read 1000, write 500   first entry, t_ms 100: covers [233, 333)
#   433  read 2000              covers [333, 433) (the entry before it 100 ms earlier); no write: 0
#   534  read 3000, write 1000  covers [433, 534) (101 ms: within 1.5 windows of the one before)
#   734  read 4000              200 ms after the one before: fio wrote nothing for [534, 634), a
#                               window without I/O (0 IO/s there), and this one covers [634, 734)
# The log covers [233, 734).
AVG_LOG = [(333, 1000, 0), (333, 500, 1), (433, 2000, 0), (534, 3000, 0), (534, 1000, 1), (734, 4000, 0)]
WINDOWS = {  # ddir -> [(from ms, to ms, IO/s)]
    "read": [(233, 333, 1000), (333, 433, 2000), (433, 534, 3000), (534, 634, 0), (634, 734, 4000)],
    "write": [(233, 333, 500), (333, 433, 0), (433, 534, 1000), (534, 634, 0), (634, 734, 0)],
}
COVER = (233, 734)
# By hand, buckets of 200 ms over [0, 1000):
#   b0 [0, 200)     not covered: null
#   b1 [200, 400)   covered [233, 400) = 167 ms: read (1000 x 100 + 2000 x 67) / 167, write 500 x 100 / 167
#   b2 [400, 600)   whole: read (2000 x 33 + 3000 x 101 + 0 x 66) / 200, write 1000 x 101 / 200
#   b3 [600, 800)   covered [600, 734) = 134 ms: read (0 x 34 + 4000 x 100) / 134, write 0
#   b4 [800, 1000)  not covered: null
HAND_READ = [None, (1000 * 100 + 2000 * 67) / 167, (2000 * 33 + 3000 * 101) / 200, 4000 * 100 / 134, None]
HAND_WRITE = [None, 500 * 100 / 167, 1000 * 101 / 200, 0.0, None]


def brute(windows: list[tuple[int, int, float]], cover: tuple[int, int], lo: int, hi: int, w: int) -> list[float | None]:
    """The same values by brute force: the rate at every ms (windows hold whole ms), averaged over
    the covered ms of each bucket (lo, hi, w in ms)."""
    out: list[float | None] = []
    for b0 in range(lo, hi, w):
        ms = [t for t in range(b0, b0 + w) if cover[0] <= t < cover[1]]
        rates = [next((v for a, e, v in windows if a <= t < e), 0.0) for t in ms]
        out.append(sum(rates) / len(rates) if ms else None)
    return out


def fio_log_capture(label: str, logs: list[tuple[str, str, dict]], trace: str = TRACE,
                    block_t0: int | None = T0) -> tuple[dict, dict[str, bytes]]:
    """One run: the block trace and fio logs [(file name, text, artifact fields)]."""
    m, files = block_capture(label, [[("blkparse", "blkparse.txt", trace,
                                       {} if block_t0 is None else {"trace_clock_at_start_ns": block_t0})]])
    for name, text, extra in logs:
        add_file(m, files, f"runs/r000/logs/{name}", text, "fio-log", run=0)
        m["runs"][0]["artifacts"][-1].update(extra)
    return m, files


def mono(log: str, clone: int = 1, avg: int | None = 100, job: str = "randrw", index: int = 0) -> dict:
    return {"log": log, "job": job, "job_index": index, "clone": clone, "avg_msec": avg,
            "clock": "CLOCK_MONOTONIC", "trace_clock_at_start_ns": T0}


def shift(entries: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    return [(T0_MS + t, v, d) for t, v, d in entries]


def ingest(tmp_path: Path, m: dict, files: dict, name: str = "b") -> tuple[Store, str, list[str]]:
    store = Store(tmp_path / f"{name}.duckdb")
    r = ingest_file(store, write_bundle(tmp_path / f"{name}.tar.gz", m, files), bundles_dir=tmp_path / "bundles")
    return store, r.capture_id, r.warnings


@pytest.fixture()
def hand(tmp_path):
    # a clat log too: its averaged entries close at the first completion after each 100 ms since the
    # job's start (333 and 434: phase 33), which puts the start at 233
    m, files = fio_log_capture("hand", [
        ("0-randrw_iops.1.log", log_text(shift(AVG_LOG)), mono("iops")),
        ("0-randrw_clat.1.log", log_text(shift([(333, 250_000, 0), (434, 260_000, 0)])), mono("clat")),
    ])
    return ingest(tmp_path, m, files)


def test_monotonic_logs_get_run_ms_and_a_job_start_estimate(hand) -> None:
    store, cid, _ = hand
    rows = store.query("SELECT log, t_ms, run_ms, t0_ns, ddir, value FROM fio_log_samples ORDER BY log, run_ms, ddir").rows
    iops = [r for r in rows if r[0] == "iops"]
    # run_ms is the raw time minus the run's start (floored to the ms); t_ms counts from the job's
    # estimated start, 233
    assert [(r[2], r[4], r[5]) for r in iops] == [(t, "read" if d == 0 else "write", v) for t, v, d in
                                                  sorted(AVG_LOG, key=lambda e: (e[0], e[2]))]
    assert [r[1] for r in iops] == [t - 233 for t, _, _ in sorted(AVG_LOG, key=lambda e: (e[0], e[2]))]
    assert {r[3] for r in rows} == {T0}
    assert [r[1:3] for r in rows if r[0] == "clat"] == [(100, 333), (201, 434)]


@pytest.mark.parametrize("logs, start", [
    # datasets/block-loop r001 (ms since the run's start): the first I/Os stalled (clat's first entry
    # at 576 closed its window 82 ms late), the iops log's first entry came 147 ms after the start
    ([("iops", 100, [441, 642, 742]), ("clat", 100, [576, 594, 694, 794])], 294),
    # measured with fio 3.33: the first iops entry 133 ms after the start
    ([("iops", 100, [425, 525]), ("bw", 100, [425, 525]), ("lat", 100, [392, 492, 592])], 292),
    # phase 99: entries just after a multiple of 100 wrap around to 0 and 1
    ([("iops", 100, [1199, 1300]), ("clat", 100, [1100, 1199, 1301, 1400])], 1099),
    # without latency logs: the first entry minus one window
    ([("iops", 100, [333, 433])], 233),
    # per-I/O logs: the first completion
    ([("iops", 0, [250, 251]), ("clat", 0, [250, 251])], 250),
])
def test_job_start_estimate(logs, start) -> None:
    from iolens.ingest.sweep import _job_start

    assert _job_start(logs) == start


def test_bucket_maths_by_hand(hand) -> None:
    store, cid, _ = hand
    r = views.iops(store, [cid], 0, 1000 * MS, 5)
    assert r.grid.interval_ns == 200 * MS and r.grid.from_ns == 0
    f = r.series[0].fio_iops
    assert f is not None and f.aligned and f.note is None
    assert [(lg.path, lg.job, lg.clone, lg.avg_msec, lg.from_ns, lg.to_ns) for lg in f.logs] == [
        ("runs/r000/logs/0-randrw_iops.1.log", "randrw", 1, 100, 233 * MS, 734 * MS)]
    by = {d.ddir: d for d in f.ddirs}
    assert list(by) == ["read", "write"]
    assert by["read"].iops == pytest.approx(HAND_READ)
    assert by["write"].iops == pytest.approx(HAND_WRITE)
    # null outside what the log covers, never zero
    assert by["read"].iops[0] is None and by["read"].iops[4] is None and by["write"].iops[3] == 0.0
    # the mean over the range: every I/O fio counted over the 501 ms its log covers
    ios = sum((e - a) * v for a, e, v in WINDOWS["read"]) / 1000
    assert by["read"].mean_iops == pytest.approx(ios / 0.501)
    # the block I/Os are unchanged, on the same grid
    assert r.series[0].ops[0].op == "read" and sum(r.series[0].ops[0].iops) == pytest.approx(2 / 0.2)


@pytest.mark.parametrize("lo, hi, buckets", [(0, 1000, 50), (200, 800, 6), (300, 400, 10), (500, 700, 100)])
def test_bucket_maths_against_brute_force(hand, lo, hi, buckets) -> None:
    """Window boundaries inside buckets, buckets inside windows, partial coverage at both ends."""
    store, cid, _ = hand
    r = views.iops(store, [cid], lo * MS, hi * MS, buckets)
    w = r.grid.interval_ns // MS
    assert w * MS == r.grid.interval_ns  # 1 ms and wider here: the brute force works in whole ms
    by = {d.ddir: d.iops for d in r.series[0].fio_iops.ddirs}
    for ddir in ("read", "write"):
        want = brute(WINDOWS[ddir], COVER, r.grid.from_ns // MS, r.grid.to_ns // MS, w)
        assert by[ddir] == pytest.approx(want), ddir


def test_clones_add_up_and_per_io_logs_count(tmp_path) -> None:
    """Two clones of one job (numjobs=2) add up; a per-I/O log (log_avg_msec 0, one line per I/O,
    its completion truncated to the ms) counts I/Os per bucket over the part it covers, and on a grid
    finer than 1 ms spreads each ms's count over that ms."""
    io_log = [(250, 1, 0)] * 3 + [(251, 1, 0), (260, 1, 1), (260, 1, 1)]  # 4 reads, 2 writes; covers [250, 261)
    m, files = fio_log_capture("clones", [
        ("0-randrw_iops.1.log", log_text(shift(AVG_LOG)), mono("iops", clone=1)),
        ("0-randrw_iops.2.log", log_text(shift(AVG_LOG)), mono("iops", clone=2)),
        ("1-single_iops.1.log", log_text(shift(io_log), bs=4096), mono("iops", avg=0, job="single", index=1)),
    ])
    store, cid, _ = ingest(tmp_path, m, files)
    r = views.iops(store, [cid], 0, 1000 * MS, 5)
    f = r.series[0].fio_iops
    assert [(lg.job, lg.clone, lg.avg_msec, lg.from_ns, lg.to_ns) for lg in f.logs] == [
        ("randrw", 1, 100, 233 * MS, 734 * MS), ("randrw", 2, 100, 233 * MS, 734 * MS),
        ("single", 1, 0, 250 * MS, 261 * MS)]
    by = {d.ddir: d.iops for d in f.ddirs}
    # bucket 1 [200, 400): both clones' average, plus the per-I/O job's 4 reads over the 11 ms it covers
    assert by["read"][1] == pytest.approx(2 * HAND_READ[1] + 4 / 0.011)
    assert by["write"][1] == pytest.approx(2 * HAND_WRITE[1] + 2 / 0.011)
    assert by["read"][2] == pytest.approx(2 * HAND_READ[2]) and by["read"][0] is None
    # 100 us buckets over [250, 252) ms: 3 reads in ms 250 are 3000 IO/s throughout it, 1 in ms 251
    fine = views.iops(store, [cid], 250 * MS, 252 * MS, 20)
    assert fine.grid.interval_ns == 100_000
    read = {d.ddir: d.iops for d in fine.series[0].fio_iops.ddirs}["read"]
    assert read == pytest.approx([2 * 1000 + 3000] * 10 + [2 * 1000 + 1000] * 10)


def test_old_zero_based_bundle_still_ingests_not_aligned(tmp_path) -> None:
    """A bundle of iolens-collect before the clock (no clock field, times since the job started):
    it ingests as before, run_ms is NULL, and the block view says why it draws nothing."""
    m, files = fio_log_capture("old", [
        ("0-randrw_iops.1.log", log_text(AVG_LOG), {"log": "iops", "job": "randrw", "job_index": 0, "clone": 1,
                                                    "avg_msec": 100})])
    store, cid, _ = ingest(tmp_path, m, files)
    rows = store.query("SELECT t_ms, run_ms, t0_ns FROM fio_log_samples ORDER BY t_ms").rows
    assert [r[0] for r in rows] == sorted(t for t, _, _ in AVG_LOG) and {r[1:] for r in rows} == {(None, None)}
    f = views.iops(store, [cid], 0, 1000 * MS, 5).series[0].fio_iops
    assert f is not None and not f.aligned and f.ddirs == []
    assert "no clock" in f.note and "not drawn" in f.note and "Re-capture" in f.note
    assert [(lg.path, lg.from_ns) for lg in f.logs] == [("runs/r000/logs/0-randrw_iops.1.log", None)]


def test_block_events_from_another_time_zero_are_not_aligned(tmp_path) -> None:
    """blktrace's times start at its first event: without trace_clock_at_start_ns on the block
    artifact its time 0 is not the run's start that fio's log counts from."""
    m, files = fio_log_capture("blktrace", [("0-randrw_iops.1.log", log_text(shift(AVG_LOG)), mono("iops"))],
                               block_t0=None)
    store, cid, _ = ingest(tmp_path, m, files)
    f = views.iops(store, [cid], None, None, 5).series[0].fio_iops
    assert not f.aligned and f.ddirs == [] and "another time 0" in f.note


def test_a_run_without_fio_logs_has_none(tmp_path) -> None:
    m, files = fio_log_capture("none", [])
    store, cid, _ = ingest(tmp_path, m, files)
    assert views.iops(store, [cid], None, None, 5).series[0].fio_iops is None


def test_an_existing_database_gets_the_new_columns(tmp_path) -> None:
    """A DuckDB file made before run_ms and t0_ns: opening it adds them, its rows keep NULL."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("""CREATE TABLE fio_log_samples (capture_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL,
        log VARCHAR NOT NULL, jobname VARCHAR NOT NULL, job_index INTEGER, clone INTEGER NOT NULL, avg_msec INTEGER,
        t_ms BIGINT NOT NULL, value DOUBLE NOT NULL, ddir VARCHAR NOT NULL, bs BIGINT, path VARCHAR NOT NULL)""")
    con.execute("INSERT INTO fio_log_samples VALUES ('c', 'r000', 'iops', 'j', 0, 1, 100, 100, 5.0, 'read', 0, 'p')")
    con.close()
    store = Store(path)
    cols = [r[0] for r in store.query("DESCRIBE fio_log_samples").rows]
    assert cols[-2:] == ["run_ms", "t0_ns"]
    assert store.query("SELECT t_ms, run_ms, t0_ns FROM fio_log_samples").rows == [(100, None, None)]
    store.close()
    Store(path).close()  # and again: nothing to add


def test_block_loop_dataset_fio_over_block_over_http(tmp_path) -> None:
    """The real capture (make-probes.sh block, --fio-logs 100): fio's IOPS on the block layer's
    time axis. 4k O_DIRECT random I/O on a loop device is neither merged nor split, and fio is
    limited to 6000 reads/s and 6000 writes/s: in the steady part, fio's log and the device agree
    bucket by bucket, and fio's log starts where the device's randrw I/O starts."""
    bundle = next(DATASET.glob("*.iolens.tar.gz"), None)
    if bundle is None:
        pytest.skip("datasets/block-loop has no bundle")
    with running_server(tmp_path / "data") as api:
        with bundle.open("rb") as fh:
            r = api.post("/api/captures", files={"file": (bundle.name, fh, "application/gzip")})
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        body = api.get("/api/block/iops", params={"series": cid, "buckets": 50}).json()
        assert len(body["series"]) == 2
        for s in body["series"]:
            f = s["fio_iops"]
            assert f["aligned"] and f["note"] is None, f
            (lg,) = f["logs"]
            assert lg["path"] == f"runs/{s['run_id']}/logs/0-randrw-4k_iops.1.log" and lg["avg_msec"] == 100
            t = body["t_ns"]
            w = body["grid"]["interval_ns"]
            fio = {d["ddir"]: d for d in f["ddirs"]}
            blk = {o["op"]: o["iops"] for o in s["ops"]}
            assert set(fio) == {"read", "write"}
            # the steady part: buckets inside the log's span, from 1 s after its start (r001's first
            # I/Os stalled for ~94 ms, then fio's rate limiter caught up with a burst that fio reaped
            # later than the device completed it)
            inner = [i for i, t0 in enumerate(t) if t0 >= lg["from_ns"] + 1000 * MS and t0 + w <= lg["to_ns"] - 100 * MS]
            assert len(inner) >= 15
            for ddir in ("read", "write"):
                for i in inner:
                    assert fio[ddir]["iops"][i] == pytest.approx(blk[ddir][i], rel=0.06), (s["run_id"], ddir, i)
                assert fio[ddir]["mean_iops"] == pytest.approx(6000, rel=0.03)
                # outside the log: null, not zero
                outside = [v for t0, v in zip(t, fio[ddir]["iops"]) if t0 + w <= lg["from_ns"] or t0 >= lg["to_ns"]]
                assert outside and set(outside) == {None}


def test_block_loop_export_names_fio_iops_next_to_the_device(tmp_path) -> None:
    """The notebook's text and HTML exports give fio's IOPS beside the device's, over the same
    intervals, and their ratio: 4k random O_DIRECT I/O is neither merged nor split (1.00)."""
    bundle = next(DATASET.glob("*.iolens.tar.gz"), None)
    if bundle is None:
        pytest.skip("datasets/block-loop has no bundle")
    with running_server(tmp_path / "data") as api:
        with bundle.open("rb") as fh:
            cid = api.post("/api/captures", files={"file": (bundle.name, fh, "application/gzip")}).json()["id"]
        doc = {"format_version": 1, "title": "fio vs block", "captures": [cid], "baseline": cid, "cells": [
            {"type": "view", "kind": "block", "state": "", "full": False},
            {"type": "view", "kind": "block", "state": "op=read", "full": False},
            {"type": "view", "kind": "block", "state": "op=flush", "full": False}]}
        r = api.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        nid = r.json()["id"]
        text = api.get(f"/api/notebooks/{nid}/export", params={"format": "text"}).text
        for line in text.split("\n"):
            assert len(line) <= 72 and all(" " <= ch <= "~" for ch in line), line
        whole, reads, flushes = text.split("Block layer")[1:4]
        for cell, iops in ((whole, 12.0), (reads, 6.0)):
            for run in ("r000", "r001"):
                part = cell.split(f"(r{run[1:]}, device")[1].split("queue depth")[0]
                flat = " ".join(part.split())
                assert "fio's iops log (100 ms windows):" in flat, part
                fio = float(flat.split("windows): ")[1].split("k IO/s")[0])
                assert fio == pytest.approx(iops, rel=0.03)
                ratio = float(flat.split("then: ")[1].split(" device I/Os per fio I/O")[0])
                assert ratio == pytest.approx(1.0, abs=0.02)
        assert "fio has no flush I/O to compare" in " ".join(flushes.split())
        page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
        # beside the device's IOPS chart (svg_block.py): fio's own line and its mean under it
        assert "fio&#x27;s iops log" in page and "fio's own log (mean)</th>" in page
        assert "(1.00 device I/Os per fio I/O)" in page and "fio has no flush I/O to compare" in page
