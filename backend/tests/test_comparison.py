"""Comparisons of two kernels: the .config and the lab's facts the collector records
(--kernel-config, --lab-facts), ingested and lined up by /api/compare/facts, /api/compare/fio and
/api/compare/kernel-config, over real HTTP and a real DuckDB file; the bundles are made by the real
collector running real fio."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from server import running_server

REPO = Path(__file__).resolve().parents[2]

BASE_CONFIG = """\
#
# Automatically generated file; DO NOT EDIT.
# Linux/x86 6.1.0 Kernel Configuration
#
CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"
CONFIG_LOCALVERSION=""
CONFIG_PREEMPT_VOLUNTARY=y
# CONFIG_PREEMPT is not set
CONFIG_HZ_250=y
CONFIG_HZ=250
CONFIG_BLK_DEV_IO_TRACE=y
# CONFIG_LOCK_STAT is not set
CONFIG_BLK_DEBUG_FS=y
CONFIG_BLK_DEBUG_FS_ZONED=y
CONFIG_XFS_FS=m
CONFIG_EXT4_FS=y
"""
OTHER_CONFIG = """\
CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"
CONFIG_LOCALVERSION=""
# CONFIG_PREEMPT_VOLUNTARY is not set
CONFIG_PREEMPT=y
CONFIG_HZ_1000=y
CONFIG_HZ=1000
CONFIG_BLK_DEV_IO_TRACE=y
CONFIG_LOCK_STAT=y
CONFIG_LOCKDEP=y
CONFIG_DEBUG_RT_MUTEXES=y
CONFIG_BLK_DEBUG_FS=y
CONFIG_XFS_FS=y
CONFIG_EXT4_FS=y
CONFIG_NEW_ONLY_HERE=y
"""


def collect(tmp: Path, name: str, config: str, accel: str, rw: str) -> Path:
    if not shutil.which("fio"):
        if os.environ.get("CI") == "true":
            pytest.fail("fio is not installed (scripts/install-system-deps.sh installs it)")
        pytest.skip("fio is not installed")
    (tmp / f"{name}.config").write_text(config)
    # a lab's qemu command line: a host fact longer than a line (listed by name in the text export)
    qemu = ["/usr/bin/qemu-system-x86_64", "-accel", accel, *(["-device", "virtio-serial-pci"] * 8)]
    (tmp / f"{name}.lab.json").write_text(json.dumps({"accelerator": accel, "emulated": accel == "tcg",
                                                      "qemu_cmdline": qemu}))
    work = tmp / f"{name}-files"
    work.mkdir()
    out = tmp / f"{name}.iolens.tar.gz"
    args = f"--name=j --directory={work} --size=1m --rw={rw} --bs=4k --runtime=1 --time_based --ioengine=psync"
    r = subprocess.run(
        [sys.executable, "-m", "iolens_collect", "run", "--label", name, "--fio-args", args,
         "--kernel-config", str(tmp / f"{name}.config"), "--lab-facts", str(tmp / f"{name}.lab.json"), "-o", str(out)],
        cwd=REPO / "collectors", capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO / "collectors")})
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def trio(tmp_path_factory):
    """Two kernels with different workloads, and a third capture with deb61's kernel and workload whose
    files were in another directory (a mount point per file system)."""
    tmp = tmp_path_factory.mktemp("kernels")
    a = collect(tmp, "deb61", BASE_CONFIG, "kvm", "randwrite")
    b = collect(tmp, "deb612", OTHER_CONFIG, "tcg", "randread")
    c = collect(tmp, "deb61-elsewhere", BASE_CONFIG, "kvm", "randwrite")
    with running_server(tmp / "data") as api:
        ids = []
        for p in (a, b, c):
            with p.open("rb") as f:
                r = api.post("/api/captures", files={"file": (p.name, f, "application/gzip")})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        yield api, ids


@pytest.fixture(scope="module")
def pair(trio):
    api, ids = trio
    return api, ids[:2]


def test_where_the_files_were_is_listed_but_no_workload_warning(trio):
    api, (a, _b, c) = trio
    facts = api.get("/api/compare/facts", params={"captures": f"{a},{c}"}).json()
    assert [d["key"] for d in facts["workload_diff"]] == ["fio.j.directory"]
    assert facts["warnings"] == []


def test_facts_name_kernel_options_and_incomparable_setups(pair):
    api, (a, b) = pair
    facts = api.get("/api/compare/facts", params={"captures": f"{a},{b}"}).json()
    assert facts["has_config"] == {a: True, b: True}
    opts = {o["option"]: o["values"] for o in facts["kernel_options"]}
    assert opts["preempt model"] == {a: "voluntary", b: "full"}
    assert opts["CONFIG_HZ"] == {a: "250", b: "1000"}
    assert opts["CONFIG_LOCK_STAT"] == {a: "n", b: "y"}
    assert opts["CONFIG_LOCKDEP"] == {a: "n", b: "y"}
    assert opts["CONFIG_DEBUG_RT_MUTEXES"] == {a: "n", b: "y"}
    # Debian 6.1 vs 6.12: a debug option that only adds debugfs files is listed, with why ...
    assert opts["CONFIG_BLK_DEBUG_FS_ZONED"] == {a: "y", b: "n"}
    why = {o["option"]: o["why"] for o in facts["kernel_options"]}
    assert "no cost on the I/O path" in why["CONFIG_BLK_DEBUG_FS_ZONED"]
    assert "CONFIG_BLK_DEV_IO_TRACE" not in opts and "CONFIG_BLK_DEBUG_FS" not in opts  # the same in both
    # the whole .config: PREEMPT*, HZ*, LOCK_STAT, LOCKDEP, DEBUG_RT_MUTEXES, BLK_DEBUG_FS_ZONED, XFS_FS, NEW_ONLY_HERE
    assert facts["config_diff_count"] == 11
    what = [w["what"] for w in facts["warnings"]]
    assert what[:1] == ["accelerator"] and "workload" in what and "kernel-config" in what
    # ... but is not among the debug options that make the kernels incomparable
    [kc] = [w for w in facts["warnings"] if w["what"] == "kernel-config"]
    assert kc["values"] == {a: "none", b: "LOCK_STAT,LOCKDEP,DEBUG_RT_MUTEXES"}
    assert "BLK_DEBUG_FS_ZONED" not in kc["message"]
    acc = facts["warnings"][0]
    assert acc["values"][a].startswith("kvm") and acc["values"][b].startswith("tcg")
    work = {d["key"]: d["values"] for d in facts["workload_diff"]}
    assert work == {"fio.j.rw": {a: "randwrite", b: "randread"}, "fio.j.directory": work["fio.j.directory"]}


def test_fio_comparison_carries_the_facts_first(pair):
    api, (a, b) = pair
    cmp = api.get("/api/compare/fio", params={"captures": f"{a},{b}"}).json()
    assert cmp["facts"]["workload_diff"][0]["key"].startswith("fio.j.")
    assert [w["what"] for w in cmp["facts"]["warnings"]][0] == "accelerator"


def test_whole_config_diff_on_demand(pair):
    api, (a, b) = pair
    d = api.get("/api/compare/kernel-config", params={"captures": f"{a},{b}"}).json()
    got = {o["key"]: o["values"] for o in d["options"]}
    assert got["CONFIG_XFS_FS"] == {a: "m", b: "y"}
    assert got["CONFIG_NEW_ONLY_HERE"] == {a: "n", b: "y"}
    assert "CONFIG_EXT4_FS" not in got and "CONFIG_CC_VERSION_TEXT" not in got
    assert d["total_options"] == 16
    assert api.get("/api/compare/kernel-config", params={"captures": f"{a},nope"}).status_code == 404


def test_same_workload_no_warning(pair):
    api, (a, _b) = pair
    facts = api.get("/api/compare/facts", params={"captures": a}).json()
    assert facts["warnings"] == [] and facts["workload_diff"] == [] and facts["kernel_options"] == []


def test_text_and_html_exports_carry_the_kernel_and_workload_facts(pair):
    api, (a, b) = pair
    doc = {"format_version": 1, "title": "6.1 vs 6.12", "captures": [a, b], "baseline": a,
           "cells": [{"type": "markdown", "text": "Two kernels."}]}
    r = api.post("/api/notebooks", json={"document": doc, "parent": None})
    assert r.status_code == 201, r.text
    nid = r.json()["id"]
    text = api.get(f"/api/notebooks/{nid}/export", params={"format": "text"}).text
    assert "WARNING (accelerator)" in text and "WARNING (workload)" in text
    head = text[:text.index("Host facts that differ:")] if "Host facts that differ:" in text else text
    for fact in ("Kernel release", "preempt model", "CONFIG_HZ", "CONFIG_LOCK_STAT", "fio.j.rw", "randread"):
        assert fact in head, fact
    assert "11 options of the whole .config differ" in text
    # a command line is named after the short facts, not printed: the link has it
    assert "Command lines that differ (whole at the link): lab.qemu_cmdline" in text
    assert "virtio-serial-pci" not in text
    assert text.index("Host facts that differ:") < text.index("Command lines that differ")
    html = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
    assert "Not comparable as a kernel change (accelerator)" in html
    assert "<code title=\"workload\">fio.j.rw</code>" in html and "CONFIG_LOCK_STAT" in html


def test_one_plus_minus_formatter_for_html():
    """The HTML export shows a ratio of 1 as the app does ('\u00b10.0 %'), never the text report's '+-'."""
    from iolens import models
    from iolens.exports import metric_table
    from iolens.exports import textfmt as tf

    def cell(mean: float, ratio: float | None) -> models.StatCell:
        return models.StatCell(n=3, mean=mean, stddev=10.0, min=mean - 10, max=mean + 10, cv=0.01,
                               values=[mean - 10, mean, mean + 10], runs=["r0", "r1", "r2"], ratio=ratio)

    row = models.MetricRow(metric="iops", label="IOPS", unit="IO/s", better="higher", description="IOPS",
                           cells={"a": cell(1000.0, None), "b": cell(1000.0, 1.0)})
    caps = [models.ComparedCapture(id=i, label=i, kernel=None, runs=3, repeats=3, tags={}) for i in ("a", "b")]
    html = metric_table.html_table([row], caps, "a")
    assert "\u00b10.0 %" in html and "+-" not in html
    assert tf.format_ratio(1.0) == "+-0.0 %"  # the text report stays ASCII for mail
    assert tf.for_html(tf.format_spread(3, 14186, 1013, 13542, 15354, "/s")).startswith("\u00b1")


def test_the_legends_explain_the_grey_question_mark_only_when_a_change_shows_it():
    """'?' (too few repeats to judge a change) is in the HTML and text legends only when a change
    in the table is marked with it, as the app's Legend (frontend/src/logic/compareTable.ts)."""
    from iolens import models
    from iolens.exports import metric_table
    from iolens.store.stats import MIN_REPEATS

    def cell(n: int, mean: float, ratio: float | None) -> models.StatCell:
        values = [mean - 10 + 20 * i / max(n - 1, 1) for i in range(n)]
        return models.StatCell(n=n, mean=mean, stddev=10.0 if n > 1 else None, min=min(values), max=max(values),
                               cv=0.01, values=values, runs=[f"r{i}" for i in range(n)], ratio=ratio)

    def row(n: int) -> models.MetricRow:
        return models.MetricRow(metric="iops", label="IOPS", unit="IO/s", better="higher", description="IOPS",
                                cells={"a": cell(n, 1000.0, None), "b": cell(n, 2000.0, 2.0)})

    caps = [models.ComparedCapture(id=i, label=i, kernel=None, runs=3, repeats=3, tags={}) for i in ("a", "b")]
    for n, few in ((MIN_REPEATS, False), (MIN_REPEATS - 1, True)):
        table = metric_table.html_table([row(n)], caps, "a")
        assert ("2.00x?" in table or "+100.0 %?" in table) is few, table
        assert metric_table.few_shown([row(n)], "a") is few
        legend = metric_table.html_legend(caps, metric_table.few_shown([row(n)], "a"))
        assert ("?" in legend) is few and ("too few repeats" in legend) is few and "green" in legend
        assert ("'?'" in metric_table.text_legend(few)) is few
    # the baseline's own cells are never marked: one repeat there alone does not bring the '?' in
    assert metric_table.few_shown([models.MetricRow(metric="iops", label="IOPS", unit="IO/s", better="higher",
                                                    description="IOPS", cells={"a": cell(1, 1000.0, None)})], "a") is False
    assert metric_table.html_legend(caps[:1], True) == metric_table.NO_BASELINE_HTML
