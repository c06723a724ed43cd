"""The scheduler cell in exports (exports/sched.py): a notebook with a `sched` view cell over
the hand-written trace (baseline), the real fio <-> kworker recording, the same hand trace with
sched_waking lost, and a capture without a trace. Golden text in tests/golden/sched-export.txt."""

from __future__ import annotations

import pytest
from bundles import fio_capture, write_bundle
from goldens import check_golden
from notebook_helpers import check_mail_safe, save, stable
from sched_traces import HAND, SAMPLES, sched_bundle, stat_text, upload
from server import running_server

PUBLIC = "https://iolens.example.org"


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sched-export")
    with running_server(tmp / "data", public_url=PUBLIC) as client:
        ids = {}
        for label, trace, stat in (("hand", HAND, stat_text()),
                                   ("real", (SAMPLES / "fio-pinned.perf-script.txt.gz").read_bytes(),
                                    (SAMPLES / "fio-pinned.perf-stat.csv").read_text()),
                                   ("lost", HAND, stat_text(397))):
            r = upload(client, sched_bundle(tmp, label, trace, stat))
            assert r.status_code == 201, r.text
            ids[label] = r.json()["id"]
        m, files = fio_capture("no-sched", [[{"name": "t", "iops": 1}]])
        ids["none"] = upload(client, write_bundle(tmp / "none.iolens.tar.gz", m, files)).json()["id"]
        client.ids = ids  # type: ignore[attr-defined]
        yield client


def _doc(ids: list[str], state: str = "") -> dict:
    return {"format_version": 1, "title": "cgroup context-switch storm", "captures": ids, "baseline": ids[0],
            "cells": [{"type": "view", "kind": "sched", "state": state, "full": False}]}


def test_text_export_has_the_key_numbers(api):
    ids = [api.ids[k] for k in ("hand", "real", "lost", "none")]
    nid = save(api, _doc(ids, "v=pingpong;w=1000;run=r000;cpus=0-3")).json()["id"]
    text = api.get(f"/api/notebooks/{nid}/export").text
    check_mail_safe(text)
    assert "-- [1] Scheduler " in text
    # per capture: workload and CPU, runs, loss
    assert "fio on CPU 1" in text and "LOST in r000" in text and "no scheduler trace" in text
    # what the figures are of, and that the cell's own run and CPU choice is not applied to them
    flat = " ".join(text.split())
    assert "of each capture's workload CPUs (listed below with the workload's command; every task on them counts)" in flat
    assert "The cell's choice of run r000 and CPUs 0-3 applies to its charts and tables in the app, not to these" in flat
    # the key figures, in the fio table's form, with units and the change vs the baseline
    for label in ("Context switches/s, workload CPUs (lower is better)", "Top ping-pong pair, round trips/s",
                  "Workload wakeup-to-run delay p99 (lower is better)"):
        assert label in text
    assert "53.3/s" in text  # the hand trace: 8 switches on CPU 1 in 0.150010 s
    # the storm: fio and the kworker ping-pong on the workload's CPU, marked
    assert "fio <-> kworker/*" in text and "[workload <-> kworker]" in text
    assert "! Events lost in lost (run r000)" in text and "recorded 4 of 400" in text
    check_golden("sched-export.txt", stable(text))


def test_html_export_and_no_trace_at_all(api):
    ids = [api.ids["hand"], api.ids["real"]]
    nid = save(api, _doc(ids)).json()["id"]
    page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
    assert '<table class="fio">' in page and "workload &#8644; kworker" in page and "fio on CPU 1" in page
    assert "<script>" not in page.replace('<script type="application/json"', "")
    only = save(api, _doc([api.ids["none"]])).json()["id"]
    text = api.get(f"/api/notebooks/{only}/export").text
    assert "No scheduler trace in these captures" in text and "--sched" in text


def test_one_capture_names_no_baseline(api):
    """A single capture compares with nothing: no 'vs the baseline' and no colours' legend."""
    only = save(api, _doc([api.ids["real"]])).json()["id"]
    text = " ".join(api.get(f"/api/notebooks/{only}/export").text.split())
    assert "one capture: no baseline to compare with." in text
    assert "change vs the baseline" not in text and "'~' means" not in text
    page = api.get(f"/api/notebooks/{only}/export", params={"format": "html"}).text
    assert "One capture: no baseline to compare with, so no colours." in page
    assert "worse than the baseline" not in page
    both = save(api, _doc([api.ids["hand"], api.ids["real"]])).json()["id"]
    page = api.get(f"/api/notebooks/{both}/export", params={"format": "html"}).text
    assert "worse than the baseline" in page
