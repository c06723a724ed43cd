"""A capture's headline figures per probe and run (GET /api/captures/{id}/headlines, for the
capture page) over real HTTP: the block figures of datasets/block-loop, the same as the block
cell's text export prints; the scheduler's of the hand trace (8 switches on CPU 1 in 0.150010 s);
the stacks' of the hand-made perf script of test_flame_api.py, checked by hand:

  before, r000 (cpu-clock, 10 ns a sample): 5 samples with a stack, 4 of them fio's; fio's top
  function iomap_dio_rw, 2 of fio's 4 (50 %). r001: 4 samples, 3 of fio's, all iomap_dio_rw.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bundles import fio_capture, write_bundle
from sched_traces import HAND, sched_bundle, stat_text
from server import running_server
from test_flame_api import A_RUNS, perf_bundle, upload

REPO = Path(__file__).resolve().parents[2]
LOOP = sorted((REPO / "datasets" / "block-loop").glob("*.iolens.tar.gz"))


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("headlines")
    with running_server(tmp / "data", public_url="https://iolens.example.org") as client:
        ids = {"stacks": upload(client, perf_bundle(tmp, "before", A_RUNS)),
               "plain": upload(client, write_bundle(tmp / "plain.iolens.tar.gz", *fio_capture("plain", [[{"iops": 1}]])))}
        r = client.post("/api/captures", files={"file": ("s.tar.gz", sched_bundle(tmp, "hand", HAND, stat_text()).read_bytes(),
                                                          "application/gzip")})
        assert r.status_code == 201, r.text
        ids["sched"] = r.json()["id"]
        if LOOP:
            ids["block"] = upload(client, LOOP[0])
        client.ids = ids  # type: ignore[attr-defined]
        yield client


def _get(api, key: str) -> dict:
    r = api.get(f"/api/captures/{api.ids[key]}/headlines")
    assert r.status_code == 200, r.text
    return r.json()


def _figs(p: dict) -> dict[str, dict]:
    return {f["label"]: f for f in p["figures"]}


def test_stacks_per_run_with_the_workloads_top_function(api):
    h = _get(api, "stacks")
    probes = [p for p in h["probes"] if p["probe"] == "stacks"]
    assert [p["run_id"] for p in probes] == ["r000", "r001"]
    r0, r1 = (_figs(p) for p in probes)
    assert probes[0]["scope"] == "event cpu-clock; top function of fio's tasks"
    assert (r0["samples"]["value"], r0["samples"]["unit"]) == (5, "samples")
    assert (r0["CPU time"]["value"], r0["CPU time"]["unit"]) == (50, "ns")
    assert r0["fio's share"]["value"] == pytest.approx(80.0) and r0["fio's share"]["unit"] == "%"
    assert (r0["top function"]["text"], r0["top function"]["value"]) == ("iomap_dio_rw", pytest.approx(50.0))
    assert r1["top function"]["value"] == pytest.approx(100.0) and r1["fio's share"]["value"] == pytest.approx(75.0)
    # every figure says where it came from
    assert all(f["source"].startswith("perf record samples of cpu-clock") for p in probes for f in p["figures"])


def test_sched_per_run(api):
    h = _get(api, "sched")
    (p,) = [p for p in h["probes"] if p["probe"] == "sched"]
    f = _figs(p)
    assert p["run_id"] == "r000" and p["scope"] == "fio on CPUs 1"
    assert f["context switches"]["value"] == pytest.approx(8 / 0.150010) and f["context switches"]["unit"] == "/s"
    assert f["involuntary"]["unit"] == "%" and f["wakeup delay p99"]["unit"] == "ns"
    assert "perf sched trace of the run" in f["involuntary"]["source"]


@pytest.mark.skipif(not LOOP, reason="datasets/block-loop has no bundle")
def test_block_per_run_matches_the_block_export(api):
    h = _get(api, "block")
    probes = [p for p in h["probes"] if p["probe"] == "block"]
    assert [p["run_id"] for p in probes] == ["r000", "r001"]
    doc = {"format_version": 1, "title": "b", "captures": [api.ids["block"]], "baseline": api.ids["block"],
           "cells": [{"type": "view", "kind": "block", "state": "", "full": False}]}
    nid = api.post("/api/notebooks", json={"document": doc, "parent": None}).json()["id"]
    text = api.get(f"/api/notebooks/{nid}/export").text
    for p in probes:
        f = _figs(p)
        assert p["scope"] == "device 7,0, whole run" and not p["warnings"]
        assert set(f) == {"completed", "IOPS", "throughput", "queue depth mean", "queue depth max", "D2C p50", "D2C p99"}
        part = text.split(f"({p['run_id']}, device 7,0)")[1]
        assert f"I/Os {f['completed']['value']:,.0f} in " in part
        assert f"queue depth mean {f['queue depth mean']['value']:.2f}, max {f['queue depth max']['value']:.2f}" in part
        assert "blktrace" in f["D2C p99"]["source"] or "perf block" in f["D2C p99"]["source"]
        assert f["D2C p50"]["value"] < f["D2C p99"]["value"]
        assert f["throughput"]["unit"] == "B/s" and f["IOPS"]["unit"] == "IO/s" and f["D2C p99"]["unit"] == "ns"


def test_a_capture_without_probes_and_an_unknown_one(api):
    assert _get(api, "plain")["probes"] == []
    r = api.get("/api/captures/0000000000000000/headlines")
    assert r.status_code == 404 and "no capture" in r.text
