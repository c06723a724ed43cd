"""The timeline's tracks (views/timeline.py) over real HTTP on real captures: the scheduler trace of
datasets/sched-pinned (per-CPU tracks from the sched_cpu_tiles made at ingest, checked against
sched_slices summed here in SQL, at several zoom levels), the block trace and fio's IOPS log of
datasets/block-loop (the block cell's own numbers on the same grid), the perf samples of
datasets/stacks-xfs (counted against perf_samples), and tracks a run has no data for."""

from __future__ import annotations

from pathlib import Path

import pytest
from server import running_server

REPO = Path(__file__).resolve().parents[2]


def bundle(name: str) -> Path:
    return next((REPO / "datasets" / name).glob("*.iolens.tar.gz"))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("timeline")) as client:
        ids = {}
        for name in ("sched-pinned", "block-loop", "stacks-xfs"):
            p = bundle(name)
            r = client.post("/api/captures", files={"file": (p.name, p.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            ids[name] = r.json()["id"]
        yield client, ids


def sql(client, query: str, cid: str) -> list[list]:
    r = client.get("/api/sql", params={"sql": query, "captures": cid})
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def test_overview_says_which_tracks_each_run_has(served):
    client, ids = served
    o = client.get(f"/api/captures/{ids['sched-pinned']}/timeline").json()
    r = o["runs"][0]
    assert r["aligned"] and r["tracks"] == {"cpu": True, "block": False, "fio": False, "samples": False}
    assert "--block" in r["notes"]["block"] and "--stacks" in r["notes"]["samples"]
    # perf starts just before fio: its first event may come a little before the run's clock reading
    assert r["sched_offset_ns"] is not None and abs(r["sched_offset_ns"]) < 1_000_000_000
    b = client.get(f"/api/captures/{ids['block-loop']}/timeline").json()["runs"][0]
    assert b["tracks"]["block"] and b["tracks"]["fio"] and not b["tracks"]["cpu"]


def slices_in(client, cid: str, run: dict, lo: int, hi: int) -> dict[int, int]:
    """Per CPU: the slices' run time (not idle) within [lo, hi) on the run's axis, clipped, from the raw slices."""
    off = run["sched_offset_ns"]
    return dict(sql(client, f"""SELECT cpu, sum(least(end_ns - t.first_ts_ns + {off}, {hi})
                                           - greatest(start_ns - t.first_ts_ns + {off}, {lo}))
                                FROM sched_slices s JOIN sched_traces t USING (capture_id, run_id)
                                WHERE run_id = '{run['id']}' AND pid <> 0
                                  AND end_ns - t.first_ts_ns + {off} > {lo} AND start_ns - t.first_ts_ns + {off} < {hi}
                                GROUP BY cpu""", cid))


@pytest.mark.parametrize(("width", "window"), [(50, None), (1000, None), (4000, None), (500, (1_000_000_000, 2_000_000_000)),
                                               (1000, (300_000_000, 310_000_000))])
def test_cpu_busy_time_is_the_slices_run_time(served, width, window):
    client, ids = served
    cid = ids["sched-pinned"]
    run = client.get(f"/api/captures/{cid}/timeline").json()["runs"][0]
    params = {"run": run["id"], "width": width, **({"from_ns": window[0], "to_ns": window[1]} if window else {})}
    t = client.get(f"/api/captures/{cid}/timeline/cpu", params=params).json()
    assert t["available"] and t["buckets"] <= width + 1
    # tiles no wider than a column (columns no narrower than the finest tiles, 1 ms)
    assert t["bucket_ns"] >= 1_000_000 and t["level_ns"] <= t["bucket_ns"]
    lo, hi = t["grid_lo_ns"], t["grid_lo_ns"] + t["buckets"] * t["bucket_ns"]
    want = slices_in(client, cid, run, lo, hi)
    for c in t["cpus"]:
        got = sum(c["busy"]) * t["bucket_ns"]
        # tiles are cut on the trace's own time 0 (the run's start moved by sched_offset_ns): up to one
        # tile at each end of the window falls on the other side; shares are rounded to 1e-4 of a column
        assert abs(got - want.get(c["cpu"], 0)) <= 2 * t["level_ns"] + 1e-4 * t["bucket_ns"] * t["buckets"], c["cpu"]
    names = t["names"]
    assert names and all(-1 <= i < len(names) for c in t["cpus"] for i in c["task"])
    if window:
        assert t["from_ns"] == window[0] and t["to_ns"] == window[1]


def test_cpu_track_of_a_window_past_2_s_of_a_trace_that_starts_before_the_run(served):
    """datasets/vmlab-deb61-vs-deb612, 6.12 on xfs: its scheduler trace starts 0.16 s before the run's
    clock reading; the window 2.04-3.98 s (a brush) minus that offset does not fit a 32-bit integer,
    which the track's SQL overflowed (an error, where the flame, block and scheduler cells drew the range)."""
    client, _ids = served
    p = REPO / "datasets" / "vmlab-deb61-vs-deb612" / "dio-probes-deb612-xfs.iolens.tar.gz"
    r = client.post("/api/captures", files={"file": (p.name, p.read_bytes(), "application/gzip")})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    run = client.get(f"/api/captures/{cid}/timeline").json()["runs"][0]
    assert run["sched_offset_ns"] < -100_000_000
    r = client.get(f"/api/captures/{cid}/timeline/cpu", params={"run": run["id"], "width": 1000, "from_ns": 2_040_000_000,
                                                               "to_ns": 3_980_000_000})
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["available"] and t["names"]
    lo, hi = t["grid_lo_ns"], t["grid_lo_ns"] + t["buckets"] * t["bucket_ns"]
    want = slices_in(client, cid, run, lo, hi)
    for c in t["cpus"]:
        got = sum(c["busy"]) * t["bucket_ns"]
        assert abs(got - want.get(c["cpu"], 0)) <= 2 * t["level_ns"] + 1e-4 * t["bucket_ns"] * t["buckets"], c["cpu"]


@pytest.mark.parametrize("window", [None, (1_000_000_000, 1_010_000_000)])  # from tiles; from the I/O rows
def test_block_and_fio_tracks_are_the_block_views_numbers(served, window):
    client, ids = served
    cid = ids["block-loop"]
    run = client.get(f"/api/captures/{cid}/timeline").json()["runs"][0]
    params = {"run": run["id"], "width": 200, **({"from_ns": window[0], "to_ns": window[1]} if window else {})}
    t = client.get(f"/api/captures/{cid}/timeline/block", params=params).json()
    qd = client.get("/api/block/queue-depth", params={"series": f"{cid}:{run['id']}", "from_ns": t["grid_lo_ns"],
                                                     "to_ns": t["grid_lo_ns"] + t["buckets"] * t["bucket_ns"],
                                                     "buckets": t["buckets"]}).json()
    assert qd["grid"]["interval_ns"] == t["bucket_ns"]
    assert t["depth"] == [round(v, 3) for v in qd["series"][0]["depth"]]
    ios = sql(client, f"SELECT count(*) FROM block_ios WHERE run_id = '{run['id']}' AND complete_ns IS NOT NULL "
                      f"AND complete_ns >= {t['grid_lo_ns']} "
                      f"AND complete_ns < {t['grid_lo_ns'] + t['buckets'] * t['bucket_ns']} AND dev = '{t['device']}'",
              cid)[0][0]
    assert ios > 0
    assert abs(sum(t["iops"]) * t["bucket_ns"] / 1e9 - ios) <= 0.1 * t["buckets"] + 1
    f = client.get(f"/api/captures/{cid}/timeline/fio", params={"run": run["id"], "width": 200}).json()
    assert f["available"] and f["ddirs"] and any(v for d in f["ddirs"] for v in d["iops"] if v)


def test_sample_density_counts_the_samples(served):
    client, ids = served
    cid = ids["stacks-xfs"]
    run = client.get(f"/api/captures/{cid}/timeline").json()["runs"][0]
    assert run["tracks"]["samples"] and abs(run["samples_offset_ns"]) < 1_000_000_000
    t = client.get(f"/api/captures/{cid}/timeline/samples", params={"run": run["id"], "width": 300}).json()
    n = sql(client, f"SELECT count(*) FROM perf_samples WHERE run_id = '{run['id']}' AND event = '{t['event']}'", cid)[0][0]
    assert sum(t["counts"]) == n > 1000


def test_tracks_without_data_say_so_and_bad_requests(served):
    client, ids = served
    t = client.get(f"/api/captures/{ids['stacks-xfs']}/timeline/cpu").json()
    assert t["available"] is False and "--sched" in t["note"] and t["cpus"] is None
    assert client.get(f"/api/captures/{ids['stacks-xfs']}/timeline/disk").status_code == 422
    assert client.get(f"/api/captures/{ids['stacks-xfs']}/timeline/cpu", params={"run": "r999"}).status_code == 422
    assert client.get(f"/api/captures/{ids['stacks-xfs']}/timeline/cpu", params={"from_ns": 5, "to_ns": 5}).status_code == 422
    assert client.get("/api/captures/nosuch/timeline").status_code == 404
