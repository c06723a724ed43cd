"""The scheduler views under a time range (the notebook's timeline selection; views/sched_range.py),
over the real app and a real DuckDB file: the hand-written trace counted by hand (sched_traces.py),
the real fio <-> kworker recording checked against its raw sched_switch events of the range (read
with the app's own SQL endpoint, computed there independently of the views' summaries), and the
range path over a whole trace equal to the summaries derived at ingest."""

from __future__ import annotations

import pytest
from sched_traces import HAND, SAMPLES, sched_bundle, stat_text, upload
from server import running_server

from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import sched as views
from iolens.views import sched_range

US = 1000
REAL_SPAN = (200_000_000, 450_000_000)  # ns since the real trace's first event: 0.25 s of its 0.84 s


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sched-range")
    with running_server(tmp / "data") as client:
        ids = {}
        for label, trace, stat in (("hand", HAND, stat_text()),
                                   ("real", (SAMPLES / "fio-pinned.perf-script.txt.gz").read_bytes(),
                                    (SAMPLES / "fio-pinned.perf-stat.csv").read_text())):
            r = upload(client, sched_bundle(tmp, label, trace, stat))
            assert r.status_code == 201, r.text
            ids[label] = r.json()["id"]
        client.ids = ids  # type: ignore[attr-defined]
        yield client


def _get(api, path: str, **params) -> dict:
    r = api.get(path, params=params)
    assert r.status_code == 200, r.text
    return r.json()


def _sql(api, cid: str, sql: str) -> list[list]:
    r = api.get("/api/sql", params={"captures": cid, "sql": sql})
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def test_hand_trace_counted_by_hand(api) -> None:
    """[13 us, 27 us) of the hand trace (CPU 1): switches at 15 (kworker -> fio), 22 (fio preempted by
    the kworker) and 26 (kworker -> fio); fio ran [5, 12) [15, 22) [26, 30), cut: 7 + 1 us."""
    cid = api.ids["hand"]
    span = {"from_ns": 13 * US, "to_ns": 27 * US}
    t = _get(api, f"/api/captures/{cid}/sched/tasks", cpus="1", **span)
    assert (t["from_ns"], t["to_ns"]) == (13 * US, 27 * US)
    fio = next(r for r in t["rows"] if r["task"]["comm"] == "fio")
    kw = next(r for r in t["rows"] if r["task"]["group"] == "kworker/*")
    assert (fio["switched_in"], fio["switched_out"], fio["involuntary"]) == (2, 1, 1)
    assert (fio["run_ns"], fio["slices"]) == (8 * US, 2)
    assert fio["cpu_share"] == pytest.approx(8 / 14)   # rates over the 14 us of the range
    assert (kw["switched_in"], kw["switched_out"], kw["run_ns"], kw["slices"]) == (1, 2, 2 * US + 4 * US, 2)
    pairs = {(r["prev"]["comm"], r["next"]["comm"]): r for r in
             _get(api, f"/api/captures/{cid}/sched/pairs", cpus="1", **span)["rows"]}
    assert {k: v["switches"] for k, v in pairs.items()} == {("kworker/1:1", "fio"): 2, ("fio", "kworker/1:1"): 1}
    assert pairs[("kworker/1:1", "fio")]["per_s"] == pytest.approx(2 / 14e-6)
    # round trips whose brief slice began in the range: fio inside the kworker (15), the kworker inside fio (22)
    pp = _get(api, f"/api/captures/{cid}/sched/pingpong", cpus="1", **span)["rows"]
    assert len(pp) == 1 and pp[0]["round_trips"] == 2 and pp[0]["preempting"] == 1
    whole = _get(api, f"/api/captures/{cid}/sched/pingpong", cpus="1")["rows"]
    assert whole[0]["round_trips"] == 3 and whole[0]["per_s"] != pp[0]["per_s"]
    # switch-ins in the range: fio at 15 (preempted at 12: 3 us) and 26 (4 us); the kworker at 22 (woken at 20)
    d = {r["task"]["comm"]: r for r in _get(api, f"/api/captures/{cid}/sched/delays", cpus="1", group_by="task",
                                               **span)["rows"]}
    assert (d["fio"]["count"], d["fio"]["mean_ns"], d["fio"]["max_ns"]) == (2, 3.5 * US, 4 * US)
    assert d["fio"]["reasons"] == {"preempted": 2}
    assert (d["kworker/1:1"]["count"], d["kworker/1:1"]["max_ns"], d["kworker/1:1"]["reasons"]) == (1, 2 * US, {"waking": 1})
    rt = {r["task"]["comm"]: r for r in _get(api, f"/api/captures/{cid}/sched/runtime", **span)["rows"]}
    assert rt["fio"]["run_ns"] == 8 * US and rt["fio"]["preempted"] == 1  # [15, 22) ended preempted; [26, 30) ends after
    assert rt["fio"]["cpus_used"] == pytest.approx(8 / 14)


def test_hand_trace_comparison_under_a_range(api) -> None:
    cid = api.ids["hand"]
    whole = _get(api, "/api/compare/sched", captures=cid)
    part = _get(api, "/api/compare/sched", captures=cid, from_ns=13 * US, to_ns=27 * US)
    assert whole["from_ns"] is None and (part["from_ns"], part["to_ns"]) == (13 * US, 27 * US)
    m = {r["metric"]: r["cells"][cid]["mean"] for r in part["metrics"]}
    # CPU 1 (the workload's): 3 switches in 14 us, all out of a task; 1 of them preempted (fio, R+)
    assert m["switches_workload"] == pytest.approx(3 / 14e-6)
    assert m["involuntary_pct"] == pytest.approx(100 / 3)
    assert m["pingpong_per_s"] == pytest.approx(2 / 14e-6)
    assert m["migrations_per_s"] == 0
    # perf stat's counts are of whole runs: left out under a range, present without one
    assert {r["metric"] for r in whole["metrics"]} >= {"switches_workload_counted"}
    assert not {r["metric"] for r in part["metrics"]} & set(views.WHOLE_RUN_METRICS)
    # a range past the trace's end counts nothing and divides by nothing
    past = _get(api, "/api/compare/sched", captures=cid, from_ns=10**9, to_ns=2 * 10**9)
    assert past["metrics"] == []


def test_real_recording_against_its_raw_events(api) -> None:
    cid = api.ids["real"]
    lo_rel, hi_rel = REAL_SPAN
    first = _get(api, f"/api/captures/{cid}/sched")["runs"][0]["first_ts_ns"]
    lo, hi = first + lo_rel, first + hi_rel
    span = {"from_ns": lo_rel, "to_ns": hi_rel}
    in_range = f"capture_id = '{cid}' AND ts_ns >= {lo} AND ts_ns < {hi}"
    # switches in per task on each CPU, from the raw events
    raw_in = {(cpu, pid): n for cpu, pid, n in _sql(
        api, cid, f"SELECT cpu, next_pid, count(*) FROM sched_switch WHERE {in_range} GROUP BY ALL")}
    rows = _get(api, f"/api/captures/{cid}/sched/tasks", limit=5000, **span)["rows"]
    got_in: dict[tuple[int, int], int] = {}
    for r in rows:  # a task is a pid and its comm: a thread that renamed itself has a row per name
        if r["switched_in"]:
            got_in[(r["cpu"], r["task"]["pid"])] = got_in.get((r["cpu"], r["task"]["pid"]), 0) + r["switched_in"]
    assert got_in == raw_in and sum(raw_in.values()) > 5000
    whole = _get(api, f"/api/captures/{cid}/sched/tasks", limit=5000)["rows"]
    assert sum(r["switched_in"] for r in whole) > sum(raw_in.values())
    # the top pair
    top = _get(api, f"/api/captures/{cid}/sched/pairs", limit=1, **span)["rows"][0]
    (n,), = _sql(api, cid, f"SELECT count(*) FROM sched_switch WHERE {in_range} AND cpu = {top['cpu']} "
                           f"AND prev_pid = {top['prev']['pid']} AND next_pid = {top['next']['pid']}")
    assert top["switches"] == n
    # fio's run time on CPU 1: the raw switches' intervals (each switch to fio until the CPU's next
    # switch, which switches fio out), cut at the range's edges
    fio = next(r for r in rows if r["task"]["comm"] == "fio" and r["cpu"] == 1)
    assert sum(r["run_ns"] for r in rows if r["task"]["pid"] == fio["task"]["pid"] and r["cpu"] == 1) == fio["run_ns"]
    (ran,), = _sql(api, cid, f"""
        SELECT sum(least(end_ns, {hi}) - greatest(ts_ns, {lo})) FROM (
          SELECT ts_ns, next_pid, lead(ts_ns) OVER w AS end_ns, lead(prev_pid) OVER w AS end_pid
          FROM sched_switch WHERE capture_id = '{cid}' AND cpu = 1 WINDOW w AS (ORDER BY line))
        WHERE next_pid = {fio['task']['pid']} AND end_pid = next_pid AND ts_ns < {hi} AND end_ns > {lo}""")
    assert fio["run_ns"] == ran > 0
    # round trips on CPU 1 (Y -> X -> Y, X at most 1 ms, X's run beginning in the range), from the raw events
    (trips,), = _sql(api, cid, f"""
        SELECT count(*) FROM (
          SELECT ts_ns, prev_pid, next_pid, lead(ts_ns) OVER w AS end_ns, lead(prev_pid) OVER w AS end_prev,
                 lead(next_pid) OVER w AS end_next
          FROM sched_switch WHERE capture_id = '{cid}' AND cpu = 1 WINDOW w AS (ORDER BY line))
        WHERE ts_ns >= {lo} AND ts_ns < {hi} AND end_prev = next_pid AND end_next = prev_pid
          AND prev_pid <> 0 AND next_pid <> 0 AND prev_pid <> next_pid AND end_ns - ts_ns <= 1000000""")
    pp = _get(api, f"/api/captures/{cid}/sched/pingpong", cpus="1", limit=5000, **span)["rows"]
    assert sum(r["round_trips"] for r in pp) == trips > 1000
    # the comparison's switch rate: CPU 1's switches in the range over the range's length
    (sw,), = _sql(api, cid, f"SELECT count(*) FROM sched_switch WHERE {in_range} AND cpu = 1")
    cmp = _get(api, "/api/compare/sched", captures=cid, **span)
    m = {r["metric"]: r["cells"][cid]["mean"] for r in cmp["metrics"]}
    assert m["switches_workload"] == pytest.approx(sw / ((hi_rel - lo_rel) / 1e9))
    # delays: the switch-ins of the range after a wait (a delay, or an unknown one)
    (waited,), = _sql(api, cid, f"SELECT count(*) FROM sched_delays WHERE capture_id = '{cid}' AND start_ns >= {lo} "
                                f"AND start_ns < {hi}")
    d = _get(api, f"/api/captures/{cid}/sched/delays", limit=5000, **span)["rows"]
    assert sum(r["count"] + r["unknown"] for r in d) == waited > 1000
    # a switch-in after a sleep whose wakeup was not recorded has no delay: unknown, not a 0 us delay
    (unknown,), = _sql(api, cid, f"SELECT count(*) FROM sched_delays WHERE capture_id = '{cid}' AND start_ns >= {lo} "
                                 f"AND start_ns < {hi} AND delay_ns IS NULL")
    assert sum(r["unknown"] for r in d) == unknown > 0
    (unknown_all,), = _sql(api, cid, f"SELECT count(*) FROM sched_delays WHERE capture_id = '{cid}' AND delay_ns IS NULL")
    whole = _get(api, f"/api/captures/{cid}/sched/delays", limit=5000)["rows"]
    assert sum(r["unknown"] for r in whole) == unknown_all > unknown


def test_bad_ranges_are_refused(api) -> None:
    cid = api.ids["hand"]
    for params, word in (({"from_ns": 5}, "give both"), ({"from_ns": 5, "to_ns": 5}, "from_ns < to_ns"),
                         ({"from_ns": -1, "to_ns": 5}, "from_ns < to_ns")):
        r = api.get(f"/api/captures/{cid}/sched/tasks", params=params)
        assert r.status_code == 422 and word in r.text, (params, r.text)
    r = api.get("/api/compare/sched", params={"captures": cid, "from_ns": 9, "to_ns": 3})
    assert r.status_code == 422


def test_the_range_path_over_a_whole_trace_equals_the_summaries(tmp_path, monkeypatch) -> None:
    """The summaries computed from the rows of a range, over the whole trace, are the ones ingest
    derived: every view answers the same either way."""
    store = Store(tmp_path / "iolens.duckdb")
    bundle = sched_bundle(tmp_path, "real", (SAMPLES / "fio-pinned.perf-script.txt.gz").read_bytes(),
                          (SAMPLES / "fio-pinned.perf-stat.csv").read_text())
    cid = ingest_file(store, bundle, bundles_dir=tmp_path / "bundles").capture_id
    dur = views.context(store, cid).runs[0].duration_ns
    span = (0, dur + 1)
    calls = [lambda **k: views.tasks(store, cid, limit=5000, **k), lambda **k: views.pairs(store, cid, limit=5000, **k),
             lambda **k: views.pingpong(store, cid, limit=5000, **k),
             lambda **k: views.delays(store, cid, limit=5000, group_by="task", **k),
             lambda **k: views.runtime(store, cid, limit=5000, cpus="all", **k)]
    summaries = [f(span=span).model_dump() for f in calls]
    assert sched_range.bounds([("r000", 0, dur, span)]) is None  # answered from the summaries
    real_bounds = sched_range.bounds
    monkeypatch.setattr(sched_range, "bounds", lambda runs: [
        sched_range.RunBounds(rid, first + s[0], first + s[1]) for rid, first, _, s in runs])
    assert real_bounds is not sched_range.bounds
    for f, want in zip(calls, summaries):
        got = f(span=span).model_dump()
        assert got["rows"] == want["rows"] and len(got["rows"]) > 3
    cmp_events = views.compare(store, [cid], span=span).model_dump()["metrics"]
    monkeypatch.setattr(sched_range, "bounds", real_bounds)
    assert cmp_events == views.compare(store, [cid], span=span).model_dump()["metrics"]
    store.close()


# --- two runs of one capture, each with its own clock reading: the selection on each run's clock -----

# The hand trace in two runs; perf's clock reads 100 s at the trace's t = 0 (sched_traces.trace_line).
# r000's run started 5 us before its first event, r001's 10 us before it (sched_offset_ns 5 us, 10 us).
OFFSETS_US = {"r000": 5, "r001": 10}


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    from bundles import add_file, fio_capture, write_bundle

    tmp = tmp_path_factory.mktemp("sched-two-runs")
    m, files = fio_capture("two-runs", [[{"name": "t", "iops": 1000}], [{"name": "t", "iops": 1000}]])
    for i, (rid, off) in enumerate(OFFSETS_US.items()):
        m["runs"][i]["params"] = {"cpus": "1"}
        add_file(m, files, f"runs/{rid}/sched.txt", HAND, "perf-sched", run=i)
        m["runs"][i]["artifacts"][-1]["trace_clock_at_start_ns"] = 100_000_000_000 - off * US
    path = write_bundle(tmp / "two-runs.iolens.tar.gz", m, files)
    with running_server(tmp / "data") as client:
        r = upload(client, path)
        assert r.status_code == 201, r.text
        client.cid = r.json()["id"]  # type: ignore[attr-defined]
        yield client


def test_each_run_cut_at_the_selection_on_its_own_clock(two_runs) -> None:
    """The selection [18 us, 32 us) since each run's start is [13, 27) of r000's trace and [8, 22) of
    r001's: r000 as in test_hand_trace_counted_by_hand (fio in at 15 and 26, out at 22, preempted);
    r001 counts the switches at 12 (fio preempted by the kworker) and 15 (back to fio), not the one at
    22. Moving both by the brushed run's offset (r000's) would give r001 r000's counts."""
    api, cid = two_runs, two_runs.cid
    ov = _get(api, f"/api/captures/{cid}/timeline")
    assert {r["id"]: r["sched_offset_ns"] for r in ov["runs"]} == {k: v * US for k, v in OFFSETS_US.items()}
    sel = {"from_ns": 18 * US, "to_ns": 32 * US, "clock": "run"}
    t = _get(api, f"/api/captures/{cid}/sched/tasks", cpus="1", **sel)
    assert (t["from_ns"], t["to_ns"], t["clock"]) == (18 * US, 32 * US, "run")
    assert {r["id"]: (r["offset_ns"], r["from_ns"], r["to_ns"]) for r in t["runs"]} == {
        "r000": (5 * US, 13 * US, 27 * US), "r001": (10 * US, 8 * US, 22 * US)}
    fio = {r["run_id"]: r for r in t["rows"] if r["task"]["comm"] == "fio"}
    assert (fio["r000"]["switched_in"], fio["r000"]["switched_out"], fio["r000"]["involuntary"]) == (2, 1, 1)
    assert (fio["r001"]["switched_in"], fio["r001"]["switched_out"], fio["r001"]["involuntary"]) == (1, 1, 1)
    assert (fio["r000"]["run_ns"], fio["r001"]["run_ns"]) == (8 * US, 4 * US + 7 * US)  # r001: [8, 12) and [15, 22)
    # each run's part equals that run asked alone on its trace's clock
    for rid, (lo, hi) in {"r000": (13, 27), "r001": (8, 22)}.items():
        alone = _get(api, f"/api/captures/{cid}/sched/tasks", cpus="1", run=rid, from_ns=lo * US, to_ns=hi * US)
        assert [r for r in t["rows"] if r["run_id"] == rid] == alone["rows"]
        for view in ("pairs", "pingpong", "delays", "runtime"):
            both = _get(api, f"/api/captures/{cid}/sched/{view}", cpus="1", **sel)
            one = _get(api, f"/api/captures/{cid}/sched/{view}", cpus="1", run=rid, from_ns=lo * US, to_ns=hi * US)
            assert [r for r in both["rows"] if r["run_id"] == rid] == one["rows"], view
    # the comparison: per run, the switches on the workload CPU over each run's own 14 us
    cmp = _get(api, "/api/compare/sched", captures=cid, **sel)
    cell = next(r for r in cmp["metrics"] if r["metric"] == "switches_workload")["cells"][cid]
    assert dict(zip(cell["runs"], cell["values"])) == pytest.approx({"r000": 3 / 14e-6, "r001": 2 / 14e-6})
    assert cmp["clock"] == "run"
    # the trace clock (the default) keeps the same numbers in every run
    same = _get(api, f"/api/captures/{cid}/sched/tasks", cpus="1", from_ns=13 * US, to_ns=27 * US)
    assert {r["id"]: (r["from_ns"], r["to_ns"]) for r in same["runs"]} == {"r000": (13 * US, 27 * US), "r001": (13 * US, 27 * US)}
    r = api.get(f"/api/captures/{cid}/sched/tasks", params={"from_ns": 1, "to_ns": 5, "clock": "perf"})
    assert r.status_code == 422
