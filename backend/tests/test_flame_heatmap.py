"""The subsecond-offset heatmap (views/flame_heatmap.py) over real HTTP, on the real perf script text
of datasets/stacks-xfs: every cell against a count made here from the text read by the Python
reference reader (formats/perf_script.sample_table, not the native ingest, not SQL); a range of cells
against the flame graph of that range; two ranges of one run as a difference (range_b)."""

from __future__ import annotations

import gzip
import tarfile
from collections import Counter
from pathlib import Path

import pytest
from server import running_server

from iolens.formats.perf_script import sample_table

REPO = Path(__file__).resolve().parents[2]
XFS = next((REPO / "datasets" / "stacks-xfs").glob("*.iolens.tar.gz"))
S = 1_000_000_000


def run_texts(bundle: Path) -> dict[str, str]:
    with tarfile.open(bundle) as tar:
        return {n.split("/")[1]: gzip.decompress(tar.extractfile(n).read()).decode()  # type: ignore[union-attr]
                for n in sorted(tar.getnames()) if n.endswith("perf.script.gz")}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("heatmap")) as client:
        r = client.post("/api/captures", files={"file": (XFS.name, XFS.read_bytes(), "application/gzip")})
        assert r.status_code == 201, r.text
        yield client, r.json()["id"]


def reference(text: str, rows: int, comm: str | None = None) -> tuple[Counter, int]:
    """Cells (col, row) -> samples with a stack of the text's first event, and the text's first event."""
    _stacks, table = sample_table(text)
    t0 = min(r[0] for r in table if r[0] is not None)
    first_event = min((r for r in table if r[0] is not None), key=lambda r: r[0])[7]
    cells: Counter = Counter()
    for ts, _cpu, _pid, _tid, c, sid, _w, ev in table:
        if ts is None or sid is None or ev != first_event or (comm is not None and c != comm):
            continue
        off = ts - t0
        cells[(off // S, (off % S) // (S // rows))] += 1
    return cells, first_event


@pytest.mark.parametrize("rows", [50, 10])
def test_counts_match_the_raw_samples(served, rows):
    client, cid = served
    for run, text in run_texts(XFS).items():
        want, event = reference(text, rows)
        r = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": run, "rows": rows})
        assert r.status_code == 200, r.text
        h = r.json()
        assert h["run"] == run and h["rows"] == rows and h["row_ns"] == S // rows
        assert h["filters"]["event"] == event
        got = Counter({(i // rows, i % rows): n for i, n in enumerate(h["counts"]) if n})
        assert got == want, run
        assert h["total_samples"] == sum(want.values()) > 500  # each run: 833-1,269 samples of ~1,340 (2 CPUs, 199 Hz, 3.4 s)
        assert h["max_count"] == max(want.values())
        assert h["cols"] == max(c for c, _ in want) + 1


def test_task_filter_applies(served):
    client, cid = served
    run, text = next(iter(run_texts(XFS).items()))
    want, _ = reference(text, 50, comm="fio")
    h = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": run, "comm": "fio"}).json()
    got = Counter({(i // 50, i % 50): n for i, n in enumerate(h["counts"]) if n})
    assert got == want and 0 < h["total_samples"] < client.get(
        f"/api/captures/{cid}/flame/heatmap", params={"run": run}).json()["total_samples"]


def test_a_range_of_cells_is_the_flame_graph_of_that_range(served):
    client, cid = served
    h = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": "r000"}).json()
    rows, row_ns = h["rows"], h["row_ns"]
    # from cell (0, 10) to cell (1, 24), in time order: FlameScope's selection
    first, last = 0 * rows + 10, 1 * rows + 24
    want = sum(h["counts"][first:last + 1])
    lo, hi = (first // rows) * S + (first % rows) * row_ns, (last // rows) * S + (last % rows + 1) * row_ns
    f = client.get(f"/api/captures/{cid}/flame", params={"runs": "r000", "from_ns": lo, "to_ns": hi}).json()
    assert f["total_samples"] == want > 0


def test_two_ranges_of_one_run(served):
    client, cid = served
    h = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": "r000"}).json()
    ramp = sum(h["counts"][: h["rows"]])                   # second 0
    steady = sum(h["counts"][2 * h["rows"]: 3 * h["rows"]])  # second 2
    d = client.get("/api/compare/flame", params={
        "a": cid, "b": cid, "runs_a": "r000", "runs_b": "r000", "from_ns": 0, "to_ns": S,
        "from_b_ns": 2 * S, "to_b_ns": 3 * S})
    assert d.status_code == 200, d.text
    d = d.json()
    assert d["a"]["total_samples"] == ramp and d["b"]["total_samples"] == steady
    assert ramp != steady or d["functions"]
    assert sum(d["tree"]["samples_a"]) == ramp and sum(d["tree"]["samples_b"]) == steady


def test_bad_requests(served):
    client, cid = served
    r = client.get(f"/api/captures/{cid}/flame/heatmap", params={"rows": 7})
    assert r.status_code == 422 and "divisor" not in r.text and "rows must split a second" in r.text
    assert client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": "r999"}).status_code == 422
    assert client.get("/api/captures/nosuch/flame/heatmap").status_code == 404


def test_the_text_report_gives_the_two_ranges(served):
    from notebook_helpers import save
    client, cid = served
    state = "runs=r000;t=0-1000000000;hm=50;tb=2000000000-3000000000"
    doc = {"format_version": 1, "title": "ramp vs steady", "captures": [cid], "baseline": cid,
           "cells": [{"type": "view", "kind": "flame", "state": state, "full": False}]}
    r = save(client, doc)
    assert r.status_code == 201, r.text
    text = " ".join(client.get(f"/api/notebooks/{r.json()['id']}/export").text.split())
    h = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": "r000"}).json()
    a, b = sum(h["counts"][:50]), sum(h["counts"][100:150])
    assert "two time ranges of one capture, A 0.000 to 1.000 s, B 2.000 to 3.000 s" in text
    assert f"run r000; {a:,} samples" in text and f"run r000; {b:,} samples" in text
    page = client.get(f"/api/notebooks/{r.json()['id']}/export", params={"format": "html"}).text
    assert 'aria-label="Differential flame graph of two time ranges of' in page


def test_the_text_report_says_why_two_ranges_are_grey_as_the_app(served):
    """Two ranges of one run of a capture of 4: grey '?', and the report says the ranges over every run
    colour it (no `--repeat 3` advice: more repeats do not help two ranges of one run); over every run
    the same cell has no '?'. A capture of one run: no noise estimate, and no advice."""
    from notebook_helpers import save

    from iolens.exports.flame import range_few_text
    client, cid = served

    def report(state: str, fmt: str = "text") -> str:
        doc = {"format_version": 1, "title": "ramp vs steady", "captures": [cid], "baseline": cid,
               "cells": [{"type": "view", "kind": "flame", "state": state, "full": False}]}
        r = save(client, doc)
        assert r.status_code in (200, 201), r.text
        got = client.get(f"/api/notebooks/{r.json()['id']}/export", params={"format": fmt}).text
        return " ".join(got.split()) if fmt == "text" else got

    one = report("runs=r000;t=0-1000000000;hm=50;tb=2000000000-3000000000")
    assert ("'?': not judged. Both ranges are of one run of this capture's 4: fewer than 3 repeats are too few to "
            "tell a change from noise") in one
    assert "In the app: 'the ranges over every run (4)'." in one
    assert "--repeat" not in one and "noise needs 3 or more repeats" not in one
    page = report("runs=r000;t=0-1000000000;hm=50;tb=2000000000-3000000000", "html")
    assert "Both ranges are of one run of this capture&#x27;s 4" in page
    every = report("t=0-1000000000;hm=50;tb=2000000000-3000000000")
    assert "runs r000, r001, r002, r003" in every and "not judged" not in every and "Both ranges" not in every
    text, every_run = range_few_text(1, 1)
    assert not every_run and text.startswith("This capture has one run with samples: a difference of two time ranges "
                                             "of it has no noise estimate.") and "repeat 3" not in text
