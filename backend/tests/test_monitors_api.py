"""Monitors over real HTTP: the collector's real monitor files (tests/formats/samples/monitors, one
run of --monitors during fio) in two captures, the second with its page faults doubled by hand so the
change is known: the comparison ranks what moved, mpstat's per-CPU shares from /proc/stat, one key
over time, and the text report of a saved notebook carries the differences."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from server import running_server

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples" / "monitors"
SOURCES = ("vmstat", "meminfo", "stat", "xfs", "ext4", "slabinfo")


def _text(source: str) -> str:
    return gzip.decompress((SAMPLES / f"6.18-fio-randwrite-{source}.txt.gz").read_bytes()).decode()


def _double_pgfault(text: str) -> str:
    return re.sub(r"^pgfault (\d+)$", lambda m: f"pgfault {2 * int(m.group(1))}", text, flags=re.M)


def monitor_bundle(tmp: Path, label: str, edit=lambda s, t: t) -> Path:
    m, files = fio_capture(label, [[{"iops": 1000}], [{"iops": 1000}]])
    for i in range(2):
        for s in SOURCES:
            add_file(m, files, f"runs/r{i:03d}/monitors/{s}.txt.gz", gzip.compress(edit(s, _text(s)).encode(), mtime=0),
                     "monitor", run=i)
            m["runs"][i]["artifacts"][-1].update(source=s, interval_ms=250)
    return write_bundle(tmp / f"{label}.iolens.tar.gz", m, files)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mon")
    a = monitor_bundle(tmp, "base")
    b = monitor_bundle(tmp, "faulty", lambda s, t: _double_pgfault(t) if s == "vmstat" else t)
    with running_server(tmp / "data") as client:
        ids = []
        for p in (a, b):
            r = client.post("/api/captures", files={"file": (p.name, p.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        yield client, ids


def test_comparison_ranks_what_moved(served):
    client, (a, b) = served
    r = client.get("/api/monitors", params={"captures": f"{a},{b}"}).json()
    assert r["available"][a] == sorted(SOURCES) and r["baseline"] == a
    top = r["rows"][0]
    assert (top["source"], top["key"], top["unit"]) == ("vmstat", "pgfault", "/s")
    assert top["cells"][b]["ratio"] == pytest.approx(2.0) and top["cells"][a]["runs"] == 2
    assert all(row["change"] == 0 for row in r["rows"][1:])


def test_cpu_shares_like_mpstat(served):
    client, (a, _) = served
    r = client.get("/api/monitors", params={"captures": a, "source": "stat", "limit": 500}).json()
    keys = {row["key"]: row for row in r["rows"]}
    assert {"cpu.busy%", "cpu0.busy%", "cpu1.busy%", "cpu0.system%"} <= set(keys)  # all-zero shares are left out
    shares = [keys[f"cpu0.{s}%"]["cells"][a]["value"] for s in ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
              if f"cpu0.{s}%" in keys]
    assert sum(shares) == pytest.approx(100.0)


def test_one_key_over_time(served):
    client, (a, b) = served
    s = client.get("/api/monitors/series", params={"captures": f"{a},{b}", "source": "vmstat", "key": "pgfault"}).json()
    assert s["counter"] and s["unit"] == "/s"
    pa, pb = (x["points"] for x in s["series"])
    assert len(pa) == 6 and [p["mean"] * 2 for p in pa] == pytest.approx([p["mean"] for p in pb])
    level = client.get("/api/monitors/series", params={"captures": a, "source": "meminfo", "key": "Dirty"}).json()
    assert level["unit"] == "bytes" and len(level["series"][0]["points"]) == 7
    bad = client.get("/api/monitors/series", params={"captures": a, "source": "vmstat", "key": "nope"})
    assert bad.status_code == 422


def test_text_report_carries_the_differences(served):
    client, (a, b) = served
    doc = {"format_version": 1, "title": "monitors", "captures": [a, b], "baseline": a,
           "cells": [{"type": "view", "kind": "monitors", "state": "", "full": False}]}
    r = client.post("/api/notebooks", json={"document": doc})
    assert r.status_code == 201, r.text
    text = client.get(f"/api/notebooks/{r.json()['id']}/export").text
    assert "Kernel counters that moved more than 7 % against base" in text
    line = next(ln for ln in text.splitlines() if "vmstat/pgfault" in ln)
    assert "+100.0%" in line and "ext4/" not in text and all(len(ln) <= 72 for ln in text.splitlines())
