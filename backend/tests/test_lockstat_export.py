"""The lock contention cell in the text and HTML exports: each wait column in one unit, chosen from its
values and said in its head, so that the numbers' decimal points line up (the rule of
testdata/vectors/time-column.json, the app's too). The kernel documentation's two lock_stat examples
(datasets/lockstat-kernel-doc) hold waits of very different sizes in one column: before, each number
chose its own unit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from server import running_server

DATASETS = Path(__file__).resolve().parents[2] / "datasets"


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("lockstat-export")
    with running_server(tmp / "data") as api:
        ids = []
        for n in (1, 2):
            path = DATASETS / "lockstat-kernel-doc" / f"kernel-doc-example{n}.iolens.tar.gz"
            with path.open("rb") as f:
                r = api.post("/api/captures", files={"file": (path.name, f, "application/gzip")})
            assert r.status_code in (200, 201), r.text
            ids.append(r.json()["id"])
        doc = {"format_version": 1, "title": "lock waits", "captures": ids, "baseline": ids[0],
               "cells": [{"type": "view", "kind": "lockstat", "state": "", "full": False}]}
        r = api.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        nb = r.json()["id"]
        out = {}
        for fmt in ("text", "html"):
            r = api.get(f"/api/notebooks/{nb}/export", params={"format": fmt})
            assert r.status_code == 200, r.text
            out[fmt] = r.text
    return out


def _decimals(text: str) -> int:
    return len(text) - text.index(".") - 1 if "." in text else 0


def test_text_export_one_unit_per_wait_column(exports):
    lines = exports["text"].splitlines()
    heads = [ln for ln in lines if ln.lstrip().startswith("capture ") and "contentions" in ln]
    assert heads, exports["text"]
    m = re.search(r"avg wait, (ns|us|ms|s)\s+(wait(?:/IO)?), (ns|us|ms|s)\s+vs base$", heads[0])
    assert m, heads[0]
    assert all(h == heads[0] for h in heads)  # one unit for the whole column, every class's block
    avg_col = heads[0].index(m.group(0)) + len(f"avg wait, {m.group(1)}")  # right edge of the column
    wait_col = heads[0].index(m.group(2)) + len(f"{m.group(2)}, {m.group(3)}")
    avgs, waits = [], []
    for i, ln in enumerate(lines):
        if ln not in heads:
            continue
        for row in lines[i + 1:]:
            if not row.startswith("    ") or row.startswith("    in perf") or not re.search(r"\d", row):
                break
            if len(row) < wait_col:
                continue  # a capture without the class: '-'
            avgs.append(row[:avg_col].split()[-1])
            waits.append(row[:wait_col].split()[-1])
    assert len(avgs) >= 4
    for col in (avgs, waits):
        shown = [v for v in col if v not in ("0", "-")]
        assert all(re.fullmatch(r"[\d,]+(\.\d+)?", v) for v in shown), col  # no unit beside the number
        assert len({_decimals(v) for v in shown}) == 1, col  # the decimal points line up


def test_html_export_one_unit_per_wait_column(exports):
    page = exports["html"]
    table = page[page.index('<table class="lockstat numbers">'):]
    table = table[:table.index("</table>")]
    heads = re.findall(r'<th class="num">([^<]*)</th>', table)
    assert [h for h in heads if "wait" in h][:2] and all(re.fullmatch(r"(avg wait|total wait|wait/I/O) \((ns|µs|ms|s)\)", h)
                                                         for h in heads if "wait" in h), heads
    rows = re.findall(r"<tr><th[^>]*><code>.*?</tr>", table)
    assert len(rows) >= 3
    for k in (1, 2):  # avg wait, then total wait (or wait per I/O), of the baseline's columns
        col = [re.findall(r'<td class="num">([^<]*)</td>', r)[k] for r in rows if len(re.findall(r'<td class="num">', r)) > k]
        shown = [v for v in col if v != "0"]
        assert shown and all(re.fullmatch(r"[\d,]+(\.\d+)?", v) for v in shown), col
        assert len({_decimals(v) for v in shown}) == 1, col
