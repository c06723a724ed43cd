"""The timeline cell's text and HTML exports (exports/timeline.py) on a shipped dataset with
scheduler, block and stack traces (datasets/vmlab-lockstat-6.12, one capture), uploaded to the real
app over HTTP: one SVG with a row per CPU and titled tracks, the selection shaded, and the text
table's numbers equal to what the app's /timeline API answers for the same run and range."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from server import running_server

from iolens.exports import textfmt as tf
from iolens.exports import timeline as tx
from iolens.models import TimelineTrack

BUNDLE = Path(__file__).resolve().parents[2] / "datasets" / "vmlab-lockstat-6.12" / "lockstat-plain.iolens.tar.gz"
SEL = (1_000_000_000, 2_000_000_000)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("timeline-export")
    with running_server(tmp / "data", public_url="https://iolens.example.org") as api:
        with BUNDLE.open("rb") as f:
            r = api.post("/api/captures", files={"file": (BUNDLE.name, f, "application/gzip")})
        assert r.status_code in (200, 201), r.text
        cid = r.json()["id"]
        ov = api.get(f"/api/captures/{cid}/timeline").json()
        run = ov["runs"][0]
        sel = f"sel={SEL[0]}-{SEL[1]}"
        doc = {"format_version": 1, "title": "timeline", "captures": [cid], "baseline": cid,
               "cells": [{"type": "view", "kind": "timeline", "state": "", "full": False},
                         {"type": "view", "kind": "timeline", "state": f"run={run['id']};{sel}", "full": False}]}
        r = api.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        nid = r.json()["id"]
        out = {"run": run, "cid": cid}
        for fmt in ("html", "text"):
            r = api.get(f"/api/notebooks/{nid}/export", params={"format": fmt})
            assert r.status_code == 200, r.text
            out[fmt] = r.text
        # a run= the capture does not have, followed by a flame graph and the scheduler cell
        doc = {"format_version": 1, "title": "missing run", "captures": [cid], "baseline": cid,
               "cells": [{"type": "view", "kind": "timeline", "state": f"run=r007;{sel}", "full": False},
                         {"type": "view", "kind": "flame", "state": "", "full": False},
                         {"type": "view", "kind": "sched", "state": "", "full": False}]}
        r = api.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        missing = r.json()["id"]
        for fmt in ("html", "text"):
            r = api.get(f"/api/notebooks/{missing}/export", params={"format": fmt})
            assert r.status_code == 200, r.text
            out[f"missing_{fmt}"] = r.text
        # a cap= the notebook does not have (the app draws the baseline and says so)
        doc = {"format_version": 1, "title": "missing capture", "captures": [cid], "baseline": cid,
               "cells": [{"type": "view", "kind": "timeline", "state": f"cap=gone0;run=r001;{sel}", "full": False}]}
        r = api.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        r = api.get(f"/api/notebooks/{r.json()['id']}/export", params={"format": "text"})
        assert r.status_code == 200, r.text
        out["missing_cap_text"] = r.text
        out["tracks"], out["sel_tracks"] = {}, {}
        for kind in ("cpu", "block", "fio", "samples"):
            for key, params in (("tracks", {}), ("sel_tracks", {"from_ns": SEL[0], "to_ns": SEL[1]})):
                r = api.get(f"/api/captures/{cid}/timeline/{kind}", params={"run": run["id"], "width": tx.WIDTH, **params})
                assert r.status_code == 200, r.text
                out[key][kind] = TimelineTrack.model_validate(r.json())
    return out


def _figures(page: str) -> list[str]:
    return re.findall(r'<figure class="chart" data-chart="timeline">.*?</figure>', page, re.S)


def test_the_dataset_has_every_track_but_fio(exported) -> None:
    run = exported["run"]
    assert run["tracks"]["cpu"] and run["tracks"]["block"] and run["tracks"]["samples"], run
    assert len(run["cpus"]) >= 2


def test_html_draws_one_row_per_cpu_and_titled_tracks(exported) -> None:
    figs = _figures(exported["html"])
    assert len(figs) == 2
    cpus = exported["run"]["cpus"]
    for fig in figs:
        assert fig.count("<svg") == 1
        rows = re.findall(r'<g class="cpu-row" data-cpu="(\d+)"', fig)
        assert sorted(map(int, rows)) == sorted(cpus)
        for title in ("queue depth (I/Os)", "IOPS (IO/s)", "samples (/s)"):
            assert f">{title}</text>" in fig, title
        assert "time since the run&#x27;s start (s)" in fig or "time since the run's start (s)" in fig
        assert re.search(r">max [0-9.,]+", fig)
        if not exported["run"]["tracks"]["fio"]:
            assert exported["run"]["notes"]["fio"].split("(")[0].strip().replace("'", "&#x27;") in fig
    assert 'class="selection"' not in figs[0]
    assert figs[1].count('class="selection"') == 1


def _expected(tracks: dict) -> dict[str, tuple]:
    return {lab: (unit, tx.Series.stats(v)) for _k, lab, unit, _c, v in tx.series_of(tracks)}


def test_text_table_equals_the_api(exported) -> None:
    text = exported["text"]
    assert all(len(line) <= 72 for line in text.splitlines())
    run_stats = _expected(exported["tracks"])
    sel_stats = _expected(exported["sel_tracks"])
    assert {"CPUs busy (sched)", "fio's IOPS log"} & set(run_stats)
    for lab, (unit, (mean, mx)) in run_stats.items():
        lines = [ln for ln in text.splitlines() if ln.startswith("    " + tf.fit(lab, tx.LABEL_TEXT))]
        assert len(lines) == 2, (lab, lines)   # the two cells: without and with a selection
        want = [tf.format_value(v, unit) for v in (mean, mx)]
        sel = [tf.format_value(v, unit) for v in sel_stats[lab][1]]
        assert mean is not None and mx is not None and mx >= mean > 0, lab
        for line, tail in ((lines[0], ["-", "-"]), (lines[1], sel)):
            cells = [line[k:k + tx.VALUE_TEXT].strip() for k in range(4 + tx.LABEL_TEXT, 72, tx.VALUE_TEXT)]
            assert cells == [*want, *tail], (lab, line)
    assert f"run {exported['run']['id']}" in text
    assert "selection 1.000 s - 2.000 s" in text


def test_a_run_the_capture_lacks_draws_the_first_and_says_so(exported) -> None:
    """run=r007 of a capture with one run: as the app (store/rules/timeline_run.py), the first run is
    drawn and the export says so first; the selection stays of r007 and is not applied to the run
    drawn; the flame cell says why, as the app's."""
    first = exported["run"]["id"]
    said = f"run r007 is not in this capture; showing {first}"
    page = exported["missing_html"]
    figs = _figures(page)
    assert len(figs) == 1 and f"<b>Run {first}</b>" in figs[0]
    assert f'<p class="warning" data-testid="timeline-missing-run">{said}</p><figure' in page
    assert 'class="selection"' not in figs[0]  # the selection is of r007
    assert "No timeline" not in page and "has no run" not in page
    text = exported["missing_text"]
    timeline = text[text.index("! " + said):]
    assert timeline.splitlines()[1].strip().startswith("capture ")
    assert f"run {first} (repeat" in timeline
    assert "selection 1.000 s - 2.000 s of run r007: not applied" in timeline
    flat = " ".join(text.split())
    assert ("Time range 1.000-2.000 s of run r007 (timeline selection): run r007 is not in this capture: "
            "not applied.") in flat  # the flame cell, as the app's
    # the scheduler cell counts the range in every run, each on its own clock (not the brushed run's)
    assert "Time range 1.000-2.000 s of run r007 (timeline selection): the figures and pairs below count only" in flat


def test_a_capture_the_notebook_lacks_draws_the_baseline_and_says_so(exported) -> None:
    """cap=gone0, not in the notebook: as the app (store/rules/timeline_run.py shown_capture), the
    baseline's first run is drawn and the export says so first, naming the baseline; the run= and
    the selection are of gone0's run and not applied (was: the export tried gone0 and said only
    'No timeline', while the app drew the baseline silently)."""
    text = exported["missing_cap_text"]
    said = "! capture gone0 is not in this notebook; showing A, its baseline"  # A: the baseline's short name
    flat = " ".join(text.split())
    assert said in flat
    timeline = flat[flat.index(said):]
    assert f"run {exported['run']['id']} (repeat" in timeline and "No timeline" not in timeline
    assert "selection 1.000 s - 2.000 s of run r001 of capture gone0: not applied" in timeline
