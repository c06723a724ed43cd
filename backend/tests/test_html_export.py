"""The HTML export draws every view cell as inline SVG (exports/html.py, svgplot.py, svg_*.py,
flame.py): the shipped datasets (datasets/) uploaded to the real app over HTTP, one notebook with a
cell of every kind, exported; per cell kind its charts are counted, every chart's axes are titled
with a unit, each chart has its key numbers below it, and the file asks nothing of any server (no
http(s) URL outside the links of <a> elements; no external style, script, font or image)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from server import running_server

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
PUBLIC = "https://iolens.example.org"

# (folder, file name part) of the captures, in notebook order: the first is the baseline
BUNDLES = {
    "probes": [("vmlab-deb61-vs-deb612", "dio-probes-deb61-xfs"), ("vmlab-deb61-vs-deb612", "dio-probes-deb612-xfs")],
    "sweep": [("sweep-fs-dio", "ext4-dio-sweep"), ("sweep-fs-dio", "xfs-dio-sweep")],
    "lock": [("lockstat-kernel-doc", "example1"), ("lockstat-kernel-doc", "example2")],
    "trace": [("xfs-ail-trace", "logbsize-32k"), ("xfs-ail-trace", "logbsize-256k")],
}
# notebook -> cells (kind, state) and the charts each draws (figure data-chart names, in order)
CELLS = {
    "probes": [("flame", "", ["flame"]), ("flame", "v=diff", ["flame-diff"]),
               ("block", "", ["block-qd", "block-iops", "block-bw", "block-lat", "block-hist", "block-size"]),
               ("block", "c=iops,lat;lat=p50,p99,max;split=1", ["block-iops", "block-lat"]),
               ("sched", "", ["sched-rate"])],
    "sweep": [("fio", "", []), ("fio", "strip=0", []), ("sweep", "", []), ("sweepline", "", ["sweepline"]),
              ("sweepline", "x=bs;f=rw:randwrite,iodepth:*;band=0", ["sweepline"]), ("fiolog", "", ["fiolog"])],
    "lock": [("lockstat", "", ["lockstat"])],
    "trace": [("events", "", ["events-rate", "events-field"]), ("monitors", "", ["monitors"]),
              ("monitors", "k=vmstat%2Fpgfault", ["monitors"])],
}


SQL = "SELECT r.run_index, f.iops FROM fio_results f JOIN runs r USING (capture_id, run_id) ORDER BY 1, 2"


def _bundle(folder: str, part: str) -> Path:
    found = sorted((DATASETS / folder).glob(f"*{part}*.iolens.tar.gz"))
    if not found:
        pytest.fail(f"datasets/{folder}: no bundle named like *{part}*")
    return found[0]


class Page(HTMLParser):
    """What the test reads of the file: per section (cell) its kind and figures, every URL in an
    attribute, and the axis titles of every plot."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict] = []
        self.urls: list[tuple[str, str, str]] = []
        self.stack: list[str] = []
        self.text_of: str | None = None
        self.svg_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append({"kind": a.get("data-kind"), "figures": [], "numbers": 0, "svgs": 0, "strips": 0})
        for k, v in attrs:
            if v and re.search(r"(?i)\b(https?:)?//", v):
                self.urls.append((tag, k, v))
        sec = self.sections[-1] if self.sections else None
        if tag == "figure" and "chart" in (a.get("class") or "").split() and sec is not None:
            sec["figures"].append({"name": a.get("data-chart"), "axis_titles": [], "plots": 0})
        if tag == "svg" and sec is not None:
            if self.svg_depth == 0 and "strip" in (a.get("class") or "").split():
                sec["strips"] += 1
            elif self.svg_depth == 0:
                sec["svgs"] += 1
                if sec["figures"] and "plot" in (a.get("class") or "").split():
                    sec["figures"][-1]["plots"] += 1
            self.svg_depth += 1
        if tag == "table" and "numbers" in (a.get("class") or "").split() and sec is not None:
            sec["numbers"] += 1
        if tag == "text" and "axis-title" in (a.get("class") or "").split():
            self.text_of = ""

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg_depth -= 1
        if tag == "text" and self.text_of is not None:
            self.sections[-1]["figures"][-1]["axis_titles"].append(self.text_of)
            self.text_of = None

    def handle_data(self, data):
        if self.text_of is not None:
            self.text_of += data


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("html-export")
    pages: dict[str, str] = {}
    with running_server(tmp / "data", public_url=PUBLIC) as api:
        for name, cells in CELLS.items():
            ids = []
            for folder, part in BUNDLES[name]:
                path = _bundle(folder, part)
                with path.open("rb") as f:
                    r = api.post("/api/captures", files={"file": (path.name, f, "application/gzip")})
                assert r.status_code in (200, 201), r.text
                ids.append(r.json()["id"])
            doc = {"format_version": 1, "title": f"{name}: every chart", "captures": ids, "baseline": ids[0],
                   "cells": [{"type": "markdown", "text": "See [the list](https://lore.kernel.org/linux-block/)."}]
                   + [{"type": "view", "kind": k, "state": s, "full": False} for k, s, _ in cells]
                   + ([{"type": "sql", "sql": SQL, "chart": {"mark": "line", "x": "run_index", "y": ["iops"]}}]
                      if name == "sweep" else [])}
            r = api.post("/api/notebooks", json={"document": doc, "parent": None})
            assert r.status_code == 201, r.text
            r = api.get(f"/api/notebooks/{r.json()['id']}/export", params={"format": "html"})
            assert r.status_code == 200, r.text
            pages[name] = r.text
            if out := __import__("os").environ.get("IOLENS_HTML_EXPORT_DIR"):  # for the browser test and a look
                Path(out).mkdir(parents=True, exist_ok=True)
                (Path(out) / f"{name}.html").write_text(r.text)
    return pages


@pytest.mark.parametrize("name", list(CELLS))
def test_every_view_cell_is_drawn_as_svg(exported, name) -> None:
    page = Page()
    page.feed(exported[name])
    views = [s for s in page.sections if s["kind"] not in (None, "markdown", "sql")]
    assert [s["kind"] for s in views] == [k for k, _, _ in CELLS[name]]
    for sec, (kind, state, charts) in zip(views, CELLS[name]):
        where = f"{kind} cell {state!r}"
        assert [f["name"] for f in sec["figures"]] == charts, where
        # one SVG per chart, no other (no SVG used as decoration); the fio table's dot strips of the repeats
        assert sec["svgs"] == len(charts), where
        assert (sec["strips"] > 0) == (kind == "fio" and "strip=0" not in state), where
        # every chart's key numbers are below it
        assert sec["numbers"] >= len(charts), where
        for f in sec["figures"]:
            if f["plots"]:  # the charts of svgplot.py: both axes titled, with a unit in parentheses
                assert len(f["axis_titles"]) >= 1, (where, f)
                for t in f["axis_titles"]:
                    assert re.search(r"\(.+\)$", t), (where, f["name"], t)
    # a SQL cell's chart: as wide as the others, both axes titled (with the result's column names)
    sql = [s for s in page.sections if s["kind"] == "sql"]
    assert len(sql) == (name == "sweep")
    if sql:
        assert len(sql) == 1 and [f["name"] for f in sql[0]["figures"]] == ["sql"] and sql[0]["svgs"] == 1
        assert sql[0]["figures"][0]["axis_titles"] == ["run_index", "iops"]
    assert "not part of the static export" not in exported[name]
    assert "could not be exported" not in exported[name]


@pytest.mark.parametrize("name", list(CELLS))
def test_the_file_asks_no_server(exported, name) -> None:
    text = exported[name]
    page = Page()
    page.feed(text)
    # URLs only where a reader clicks: the permalinks iolens prints, and the links the user wrote
    for tag, attr, url in page.urls:
        assert (tag, attr) == ("a", "href"), (tag, attr, url)
        assert url.startswith(PUBLIC) or url == "https://lore.kernel.org/linux-block/", url
    for bad in ("<link", "<img", "<iframe", "<object", "<embed", "@import", "url(http", "url(//", "src="):
        assert bad not in text, bad
    assert "default-src 'none'" in text  # and the browser is told so (Content-Security-Policy)
    # the only script is the embedded data
    assert text.count("<script") == 1 and '<script type="application/json" id="iolens-notebook">' in text
