"""The notebook's timeline selection in the text and HTML exports (exports/selection.py): a shipped
dataset with scheduler, block and stack traces (datasets/vmlab-lockstat-6.12, two runs) uploaded to
the real app over HTTP, a notebook of a timeline cell with `sel=` and flame, block and scheduler
cells. Each of those cells' exports says what the selection means for it and counts only its range:
the figures are checked against the raw events of the range (read with the app's SQL endpoint)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from server import running_server

from iolens.exports import textfmt as tf

BUNDLE = Path(__file__).resolve().parents[2] / "datasets" / "vmlab-lockstat-6.12" / "lockstat-plain.iolens.tar.gz"
SEL = (1_000_000_000, 2_000_000_000)  # ns since the run's start
WORDS = "Time range 1.000-2.000 s of run r000 (timeline selection)"
OWN = "runs=r001;t=0-500000000;hm=50;tb=600000000-900000000"  # a flame cell's own ranges A and B of run r001


def _doc(cid: str, timeline: str) -> dict:
    return {"format_version": 1, "title": "selection", "captures": [cid], "baseline": cid,
            "cells": [{"type": "view", "kind": "timeline", "state": timeline, "full": False},
                      {"type": "view", "kind": "flame", "state": "", "full": False},
                      {"type": "view", "kind": "block", "state": "", "full": False},
                      {"type": "view", "kind": "sched", "state": "", "full": False}]}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("selection-export")
    with running_server(tmp / "data", public_url="https://iolens.example.org") as api:
        with BUNDLE.open("rb") as f:
            r = api.post("/api/captures", files={"file": (BUNDLE.name, f, "application/gzip")}, timeout=300)
        assert r.status_code in (200, 201), r.text
        cid = r.json()["id"]
        out: dict = {"cid": cid, "timeline": api.get(f"/api/captures/{cid}/timeline").json()}
        # (three notebooks: with the selection, without, and with it over a flame cell with its own ranges)
        for name, state in (("sel", f"run=r000;sel={SEL[0]}-{SEL[1]}"), ("none", ""), ("own", f"run=r000;sel={SEL[0]}-{SEL[1]}")):
            doc = _doc(cid, state)
            if name == "own":
                doc["cells"][1]["state"] = OWN
            nid = api.post("/api/notebooks", json={"document": doc, "parent": None}).json()["id"]
            for fmt in ("text", "html"):
                r = api.get(f"/api/notebooks/{nid}/export", params={"format": fmt}, timeout=300)
                assert r.status_code == 200, r.text
                out[f"{name}_{fmt}"] = r.text

        def sql(q: str) -> list[list]:
            r = api.get("/api/sql", params={"captures": cid, "sql": q})
            assert r.status_code == 200, r.text
            return r.json()["rows"]

        runs = {r["id"]: r for r in out["timeline"]["runs"]}
        t0 = runs["r000"]["t0_ns"]
        out["samples"] = sql(f"SELECT count(*) FROM perf_samples WHERE run_id = 'r000' AND event = 'cpu-clock' "
                             f"AND ts_ns >= {t0 + SEL[0]} AND ts_ns < {t0 + SEL[1]}")[0][0]
        out["samples_all"] = sql("SELECT count(*) FROM perf_samples WHERE event = 'cpu-clock'")[0][0]
        out["ios"] = dict(sql(f"SELECT run_id, count(*) FROM block_ios WHERE complete_ns >= {SEL[0]} "
                              f"AND complete_ns < {SEL[1]} GROUP BY run_id"))
        # the scheduler's range: the selection on each run's own clock (its clock reading t0 + SEL), never
        # moved by r000's offset into the other runs
        out["switches"] = {rid: sql(
            f"SELECT count(*) FROM sched_switch s JOIN sched_traces t USING (capture_id, run_id) WHERE s.run_id = '{rid}' "
            f"AND s.ts_ns >= greatest(t.first_ts_ns, {r['t0_ns'] + SEL[0]}) AND s.ts_ns < {r['t0_ns'] + SEL[1]}")[0][0]
            for rid, r in runs.items() if r["sched_offset_ns"] is not None}
        out["api_cmp"] = api.get("/api/compare/sched",
                                 params={"captures": cid, "from_ns": SEL[0], "to_ns": SEL[1], "clock": "run"}).json()
    return out


def _cell(text: str, title: str) -> str:
    """The text of one cell of the text report, from its rule to the next."""
    m = re.search(rf"^-- \[\d\] {title} -+\n(.*?)(?=^-- \[|^-{{72}}$)", text, re.S | re.M)
    assert m, title
    return m.group(1)


def _flat(s: str) -> str:
    return " ".join(s.split())


def test_every_cell_that_follows_the_selection_says_so(exported) -> None:
    text = exported["sel_text"]
    assert all(len(line) <= 72 for line in text.splitlines())
    assert WORDS in _flat(text.split("-- [1]")[0])  # the header names it once
    for title in ("Flame graph", "Block layer", "Scheduler"):
        assert _flat(_cell(text, title)).startswith(WORDS), title
    assert "time range" not in exported["none_text"].lower()
    page = exported["sel_html"]
    notes = re.findall(r'<p class="time-applied"[^>]*>(.*?)</p>', page, re.S)
    assert len(notes) == 4 and all(WORDS in _flat(n) for n in notes), notes   # the top and three cells
    assert "time-applied" not in exported["none_html"].replace(".time-applied{", "")


def test_flame_counts_the_samples_of_the_range(exported) -> None:
    cell = _flat(_cell(exported["sel_text"], "Flame graph"))
    n = exported["samples"]
    assert 0 < n < exported["samples_all"]
    assert f"run r000; {n:,} samples" in cell, cell
    off = exported["timeline"]["runs"][0]["samples_offset_ns"]
    assert f"{(SEL[0] - off) / 1e9:.3f}-{(SEL[1] - off) / 1e9:.3f} s since its first sample" in cell
    whole = _flat(_cell(exported["none_text"], "Flame graph"))
    assert f"all runs; {exported['samples_all']:,} samples" in whole
    # the HTML graph is of the same samples: its root frame's count
    fig = re.search(r'<figure class="chart" data-chart="flame">.*?</figure>', exported["sel_html"], re.S).group(0)
    assert f"<title>all\n{n:,} samples," in fig and "runs r000, time " in fig


def test_flame_says_the_timeline_range_replaces_the_cells_own(exported) -> None:
    """A flame cell with its own ranges A and B (of another run): the timeline's selection is what is
    counted, and the report says so twice, as the app's notice: in the notice (what it replaces) and in
    the table's scope (which range the numbers are of)."""
    off = exported["timeline"]["runs"][0]["samples_offset_ns"]
    span = f"{(SEL[0] - off) / 1e9:.3f} to {(SEL[1] - off) / 1e9:.3f} s"
    own = "ranges A 0.000-0.500 s and B 0.600-0.900 s of run r001"
    for fmt in ("text", "html"):
        cell = _flat(_cell(exported[f"own_{fmt}"], "Flame graph")) if fmt == "text" else _flat(exported["own_html"])
        assert "since its first sample (the flame graph's time 0, " in cell.replace("&#x27;", "'")
        assert f"in place of the cell's own {own}." in cell.replace("&#x27;", "'"), cell[:800]
        assert (f"the timeline's selection, {span} since run r000's first sample (not the cell's own {own})"
                in cell.replace("&#x27;", "'")), cell[:1500]
    # the figures are the selection's, not the cell's own ranges (no difference of A and B)
    cell = _flat(_cell(exported["own_text"], "Flame graph"))
    assert f"run r000; {exported['samples']:,} samples" in cell and "B-A" not in cell
    # a cell without its own ranges: nothing replaced, nothing said
    assert "in place of" not in exported["sel_text"] and "not the cell's own" not in exported["sel_text"]


def test_block_counts_the_ios_of_the_range(exported) -> None:
    cell = _cell(exported["sel_text"], "Block layer")
    assert "1 s to 2 s since run start" in _flat(cell)
    for run, n in exported["ios"].items():
        assert n > 0
        m = re.search(rf"\({run}, device [^)]*\)\n\s+I/Os ([\d,]+) in 1\.000 s", cell)
        assert m and int(m.group(1).replace(",", "")) == n, (run, n, cell)


def test_sched_counts_the_switches_of_the_range(exported) -> None:
    cell = _cell(exported["sel_text"], "Scheduler")
    assert f"count only {SEL[0] / 1e9:.3f}-{SEL[1] / 1e9:.3f} s since each run's start, in every run" in _flat(cell)
    # each run's trace starts at another distance from its run's start: one offset for all would be wrong
    offsets = {r["id"]: r["sched_offset_ns"] for r in exported["timeline"]["runs"] if r["sched_offset_ns"] is not None}
    assert len(offsets) > 1 and len(set(offsets.values())) > 1, offsets
    assert all(off < SEL[0] for off in offsets.values()), offsets  # no run's range is cut at its trace's start
    # the workload's CPUs are not known in this capture: every CPU counts, per second of the 1 s range
    per_run = {r: n / ((SEL[1] - SEL[0]) / 1e9) for r, n in exported["switches"].items()}
    row = next(m for m in exported["api_cmp"]["metrics"] if m["metric"] == "switches_workload")
    c = row["cells"][exported["cid"]]
    assert dict(zip(c["runs"], c["values"])) == pytest.approx(per_run)
    mean = sum(per_run.values()) / len(per_run)
    line = cell.split("Context switches/s, workload CPUs (lower is better)\n")[1].splitlines()[0]
    assert tf.format_value(mean, "/s") in line, line
    whole = _cell(exported["none_text"], "Scheduler")
    assert "Context switches/s, workload CPUs (perf stat)" in whole
    assert "Context switches/s, workload CPUs (perf stat)" not in cell
