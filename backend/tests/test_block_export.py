"""The block layer cell in text and HTML exports (iolens/exports/block.py): key numbers per
run from the real perf sample (which lost events) and the blkparse corpus trace, the loss warning,
the window and operation of the cell's state, and a link to the charts."""

from __future__ import annotations

from pathlib import Path

import pytest
from bundles import block_capture, fio_capture, write_bundle
from server import running_server

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"


def _upload(api, tmp: Path, name: str, m: dict, files: dict) -> str:
    with write_bundle(tmp / f"{name}.tar.gz", m, files).open("rb") as f:
        r = api.post("/api/captures", files={"file": (f"{name}.tar.gz", f, "application/gzip")})
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.mark.parametrize("block_path", ["native", "python"], indirect=True)
def test_block_cell_in_text_and_html_exports(tmp_path, corpus, block_path) -> None:
    perf, pfiles = block_capture("perf-6.18", [[
        ("perf-block", "block.txt.gz", (SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes(), {}),
        ("perf-stat-block", "block.stat.csv", (SAMPLES / "perf-6.1-block-randrw.stat.csv").read_bytes(), {})]])
    blkp, bfiles = block_capture("nvme-blkparse", [[
        ("blkparse", "blkparse.txt", (corpus / "blktrace" / "sample.blktrace.0.blkparse-default.txt").read_bytes(), {})]])
    plain, ffiles = fio_capture("no-block", [[{"name": "j", "iops": 1000}]])
    with running_server(tmp_path / "data", public_url="https://iolens.example.org") as api:
        ids = [_upload(api, tmp_path, n, m, f) for n, (m, f) in
               {"p": (perf, pfiles), "b": (blkp, bfiles), "n": (plain, ffiles)}.items()]
        doc = {"format_version": 1, "title": "block", "captures": ids, "baseline": ids[0], "cells": [
            {"type": "markdown", "text": "intro"},
            {"type": "view", "kind": "block", "state": "", "full": False},
            {"type": "view", "kind": "block", "state": "op=read;t=0-200000000", "full": False},
        ]}
        r = api.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        nid = r.json()["id"]
        text = api.get(f"/api/notebooks/{nid}/export", params={"format": "text"}).text
        for line in text.split("\n"):
            assert len(line) <= 72 and all(" " <= ch <= "~" for ch in line), line
        cell2, cell3 = text.split("[2] Block layer")[1].split("[3] Block layer")
        # the perf sample lost completions (perf stat counted 2077, the recording has 1200)
        assert "perf-6.18 (r000, device 254,0)" in cell2
        assert "! LOST EVENTS" in cell2
        assert "nvme-blkparse (r000, device 259,0)" in cell2
        assert "Without block data: no-block." in cell2
        assert ("from its block layer trace (blktrace, or perf's block:block_rq_* events): whole runs; all "
                "operations; each run's busiest device") in " ".join(cell2.split())
        assert f"https://iolens.example.org/n/{nid}#cell-2" in cell2
        # the nvme trace does one read at a time: its mean depth is at most 1
        nvme = cell2.split("nvme-blkparse")[1]
        depth = float(nvme.split("queue depth mean ")[1].split(",")[0])
        assert 0 < depth <= 1.0
        assert "latency p50 " in nvme and " us, p99 " in nvme
        assert "0 s to 0.2 s since run start; read only" in " ".join(cell3.split())
        assert "#cell-3" in cell3
        page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
        assert "events lost" in page and f"/n/{nid}#cell-2" in page
        # the charts, each with its key numbers (test_html_export.py counts them on the datasets)
        cell = page.split('id="cell-2"')[1].split('id="cell-3"')[0]
        assert cell.count('<figure class="chart"') == 6 and cell.count('<table class="numbers">') == 6
        assert "Queue depth" in cell and "Latency histogram" in cell and "Request sizes" in cell
