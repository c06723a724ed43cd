"""The off-CPU cell's text and HTML exports (exports/offcpu.py) honour the cell's `r=` (the run), as
the app's cell shows it: the shipped recording of datasets/offcpu-xfs-dio (one run, r000) uploaded
to the real app over HTTP, exported with r=r000 (that run), with r= a run it does not have (a clear
message naming r= and the runs it has, nothing of another run) and with a pair in that run."""

from __future__ import annotations

from pathlib import Path

import pytest
from notebook_helpers import save
from server import running_server

BUNDLE = (Path(__file__).resolve().parents[2] / "datasets" / "offcpu-xfs-dio"
          / "6.18.44-fc-v669-offcpu-xfs-dio.iolens.tar.gz")


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("offcpu-export")
    with running_server(tmp / "data") as api:
        with BUNDLE.open("rb") as f:
            r = api.post("/api/captures", files={"file": (BUNDLE.name, f, "application/gzip")}, timeout=600)
        assert r.status_code in (200, 201), r.text
        cid = r.json()["id"]
        states = {"whole": "", "r000": "r=r000", "r009": "r=r009", "pair_r009": "r=r009;a=fio;b=kworker%2F*"}
        doc = {"format_version": 1, "title": "off-CPU r=", "captures": [cid], "baseline": cid,
               "cells": [{"type": "view", "kind": "offcpu", "state": s, "full": False} for s in states.values()]}
        r = save(api, doc)
        assert r.status_code == 201, r.text
        nid = r.json()["id"]
        text = api.get(f"/api/notebooks/{nid}/export").text
        page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
    # one part per cell: '-- [1] Off-CPU', '-- [2] Off-CPU', ...
    parts = text.split("-- [")[1:]
    assert len(parts) == len(states), text
    return {**dict(zip(states, parts)), "html": page}


def test_a_run_it_has_is_the_run_shown(exports) -> None:
    assert "r000: " in exports["r000"] and "waits weighted" in exports["r000"]
    assert "thread" in exports["r000"]


def test_a_run_it_lacks_is_refused_naming_the_parameter(exports) -> None:
    """r=r009 of a capture whose only run with off-CPU stacks is r000: the export says so, naming r=,
    and shows nothing of r000 (it listed every run as if r= were absent)."""
    for key in ("r009", "pair_r009"):
        flat = " ".join(exports[key].split())
        assert "! r=r009: capture " in flat and "has no off-CPU stacks in run 'r009' (runs with them: r000)" in flat
        assert "waits weighted" not in flat and "pair in" not in flat
    assert "r=r009: capture " in exports["html"]


def test_times_in_sentences_read_in_their_unit_columns_stay_in_ms(exports) -> None:
    """The run's line as the app's cell says it (72.4 s, not 72,369.1 ms); the threads' column keeps
    ms, so that its rows compare at a glance."""
    whole = " ".join(exports["whole"].split())
    assert "9,595 waits weighted, 72.4 s off the CPU over all threads" in whole
    assert "still off at the end (>= 34.1 s)" in whole
    rows = [ln for ln in exports["whole"].splitlines() if ln.startswith("      fio[")]
    assert rows and all(" ms " in ln for ln in rows)
