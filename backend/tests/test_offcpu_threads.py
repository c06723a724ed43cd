"""The off-CPU summary's threads over real HTTP, on datasets/offcpu-xfs-dio (a busy host: fio's 4
threads among 70 others): the limit is per run, the workload's threads come first, and each run
says how many threads its totals are over, so the cell's "other threads" row can add up to them."""

from __future__ import annotations

from pathlib import Path

import pytest
from server import running_server

REPO = Path(__file__).resolve().parents[2]
BUNDLES = sorted((REPO / "datasets" / "offcpu-xfs-dio").glob("*.iolens.tar.gz"))


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    if not BUNDLES:
        pytest.skip("datasets/offcpu-xfs-dio is not in this checkout")
    tmp = tmp_path_factory.mktemp("offcpu-threads")
    with running_server(tmp / "data") as client:
        with BUNDLES[0].open("rb") as f:
            r = client.post("/api/captures", files={"file": (BUNDLES[0].name, f, "application/gzip")}, timeout=300)
        assert r.status_code == 201, r.text
        client.cid = r.json()["id"]  # type: ignore[attr-defined]
        yield client


def _summary(api, **params) -> dict:
    r = api.get(f"/api/captures/{api.cid}/offcpu", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_each_run_counts_its_threads_and_their_totals_add_up(api):
    s = _summary(api, limit=5000)
    for run in s["runs"]:
        rows = [t for t in s["tasks"] if t["run_id"] == run["run_id"]]
        assert run["threads"] == len(rows) == len({t["tid"] for t in rows}) > 10
        assert run["intervals"] == sum(t["intervals"] for t in rows)
        assert run["blocked_ns"] == sum(t["blocked_ns"] for t in rows)


def test_the_limit_is_per_run_and_keeps_the_workload_first(api):
    every = _summary(api, limit=5000)
    s = _summary(api, limit=6)
    assert s["runs"] == every["runs"]  # the totals do not depend on the listing
    for run in s["runs"]:
        rows = [t for t in s["tasks"] if t["run_id"] == run["run_id"]]
        assert len(rows) == 6 < run["threads"]
        flags = [t["workload"] for t in rows]
        assert flags[0] and flags == sorted(flags, reverse=True)  # fio's threads, then the others
        assert [t["comm"] for t in rows if t["workload"]] == ["fio"] * sum(flags)
        others = [t["blocked_ns"] for t in rows if not t["workload"]]
        assert others == sorted(others, reverse=True)
    # one run asked for: the same rows as that run's share of the whole
    r0 = s["runs"][0]["run_id"]
    assert _summary(api, limit=6, run=r0)["tasks"] == [t for t in s["tasks"] if t["run_id"] == r0]


def test_the_flame_graph_and_the_capture_page_weigh_the_time_off_the_cpu(api):
    """A capture of off-CPU stacks alone: the flame graph's default event is `offcpu` (time off the
    CPU, docs/offcpu.md), not the wakeups beside it; the capture page's figures name the probe that
    recorded them (--offcpu) and add up to the off-CPU cell's totals."""
    fl = api.get(f"/api/captures/{api.cid}/flame").json()
    assert {e["event"] for e in fl["events"]} == {"offcpu", "wakeup"}
    assert fl["filters"]["event"] == "offcpu" and fl["weight_unit"] == "ns"
    s = _summary(api, limit=5000)
    h = api.get(f"/api/captures/{api.cid}/headlines").json()
    rows = [p for p in h["probes"] if p["probe"] in ("stacks", "offcpu")]
    assert [(p["probe"], p["run_id"]) for p in rows] == [("offcpu", r["run_id"]) for r in s["runs"]]
    for p, run in zip(rows, s["runs"]):
        figs = {f["label"]: f for f in p["figures"]}
        assert (figs["waits"]["value"], figs["waits"]["unit"]) == (run["intervals"], "")
        assert (figs["off the CPU"]["value"], figs["off the CPU"]["unit"]) == (run["blocked_ns"], "ns")
        mine = sum(t["blocked_ns"] for t in s["tasks"] if t["run_id"] == run["run_id"] and t["comm"] == "fio")
        # the flame graph's command is the one of each wait's stack (at its switch-out), the cell's the
        # thread's: a few µs of 1.49 s apart here
        assert figs["fio's share"]["value"] == pytest.approx(100.0 * mine / run["blocked_ns"], rel=1e-3)
        assert all("--offcpu" in f["source"] for f in p["figures"])


def test_the_text_report_of_an_offcpu_flame_graph_says_waits_and_time_off_the_cpu(api):
    """The flame cell of event offcpu in the plain-text report: its figures are waits and time off
    the CPU (where it said 'samples' and 'of CPU', 'weight: CPU time')."""
    from notebook_helpers import save

    from iolens.exports import textfmt as tf

    fl = api.get(f"/api/captures/{api.cid}/flame", params={"event": "offcpu", "comm": "fio"}).json()
    doc = {"format_version": 1, "title": "off-CPU flame", "captures": [api.cid], "baseline": api.cid,
           "cells": [{"type": "view", "kind": "flame", "state": "ev=offcpu;comm=fio", "full": False}]}
    r = save(api, doc)
    assert r.status_code == 201, r.text
    text = api.get(f"/api/notebooks/{r.json()['id']}/export").text
    flat = " ".join(text.split())
    assert "off-CPU waits with call stacks (sched_switch, from each switch-out to the switch-in; --offcpu)" in flat
    assert "(weight: time off the CPU)" in flat
    assert f"{fl['total_samples']:,} waits, {tf.format_value(fl['total_weight'], 'ns')} off the CPU" in flat
    assert "n: their waits." in flat
    assert "of CPU" not in flat and "CPU time" not in flat and " samples" not in flat.split("-- [1]")[1].split("Share:")[0]


def test_the_text_report_of_an_offcpu_flame_graph_defaults_to_the_workloads_tasks(api):
    """One capture's off-CPU flame cell with no task chosen: the report counts fio's waits (the app's
    default for off-CPU stacks, views/workload.py single_comm) and says why; comm=* counts every task."""
    from notebook_helpers import save

    from iolens.exports import textfmt as tf

    def flat(state: str) -> str:
        doc = {"format_version": 1, "title": "off-CPU flame default", "captures": [api.cid], "baseline": api.cid,
               "cells": [{"type": "view", "kind": "flame", "state": state, "full": False}]}
        r = save(api, doc)
        assert r.status_code in (200, 201), r.text
        return " ".join(api.get(f"/api/notebooks/{r.json()['id']}/export").text.split())

    fio = api.get(f"/api/captures/{api.cid}/flame", params={"event": "offcpu", "comm": "fio"}).json()
    every = api.get(f"/api/captures/{api.cid}/flame", params={"event": "offcpu"}).json()
    assert fio["total_samples"] < every["total_samples"]
    text = flat("")
    assert "tasks: command fio (the workload's own, the default for off-CPU stacks)" in text
    assert f"{fio['total_samples']:,} waits, {tf.format_value(fio['total_weight'], 'ns')} off the CPU" in text
    text = flat("comm=*")
    assert "tasks: all tasks (chosen)" in text
    assert f"{every['total_samples']:,} waits" in text
