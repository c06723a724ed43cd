"""The data of the mailing-list report of a sweep comparison (exports/report.py draws it): the
captures resolved, the sweep matrices of the metrics asked for, the workloads and job files.

Reading only: saving the report's notebook (the short permalink) is the caller's write
(POST /api/report, `iolens report --db`): `notebook` gives the document, `with_saved_link` the
report with its link.
"""

from __future__ import annotations

import dataclasses
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any

from .. import models
from ..bundle import stored_manifest
from ..store import notebooks
from ..store.db import Store
from . import sweep as sweep_view


class ReportError(ValueError):
    """Bad request for a report (unknown label, no shared points); the message says what."""


def permalink(base_url: str, captures: list[str], baseline: str, metric: str, title: str) -> str:
    """The notebook URL of the matrix view (the frontend's state/url.ts form, version 1)."""
    def q(v: str) -> str:
        return urllib.parse.quote(v, safe=",:;=/@!*'()")
    state = f"m={metric}" if metric else ""
    cells = [f"sweep{':' + state if state else ''}"]
    pairs = [("v", "1"), ("captures", ",".join(captures)), ("baseline", baseline)] + [("cell", c) for c in cells]
    pairs.append(("title", title))
    return base_url.rstrip("/") + "/compare?" + "&".join(f"{k}={q(v)}" for k, v in pairs)


def resolve(store: Store, names: list[str]) -> list[str]:
    """Capture labels or ids -> ids. An ambiguous label is an error naming the ids."""
    rows = store.query("SELECT capture_id, label FROM captures ORDER BY created_at").rows
    out = []
    for n in names:
        by_id = [c for c, _ in rows if c == n]
        by_label = [c for c, lbl in rows if lbl == n]
        hit = by_id or by_label
        if not hit:
            raise ReportError(f"no capture with the id or label {n!r}")
        if len(hit) > 1:
            raise ReportError(f"label {n!r} names {len(hit)} captures ({', '.join(hit)}); give an id")
        if hit[0] not in out:
            out.append(hit[0])
    return out


def default_captures(store: Store, baseline: str) -> list[str]:
    """Every capture that shares a parameter point with the baseline (same swept names and values)."""
    rows = store.query("SELECT capture_id, params FROM runs").rows
    points: dict[str, set[str]] = {}
    for cid, params in rows:
        points.setdefault(cid, set()).add(json.dumps({k: sweep_view.param_text(v) for k, v in json.loads(params).items()},
                                                     sort_keys=True))
    base = points.get(baseline, set())
    order = [c for c, in store.query("SELECT capture_id FROM captures ORDER BY created_at, label").rows]
    return [baseline] + [c for c in order if c != baseline and points.get(c, set()) & base]


@dataclass
class ReportData:
    captures: list[str]
    baseline: str
    matrices: list[models.SweepMatrix]
    permalink: str
    title: str
    workloads: dict[str, dict[str, Any]]
    texts: dict[str, str]  # capture -> its base job file text (capture_texts), if any
    metric_keys: list[str] = dataclasses.field(default_factory=list)


def build(store: Store, captures: list[str], baseline: str, metrics: list[str] | None, base_url: str) -> ReportData:
    ids = [baseline] + [c for c in captures if c != baseline]
    first = sweep_view.sweep_matrix(store, ids, baseline, metrics[0] if metrics else None)
    keys = metrics or [first.metric.key]
    known = {m.key for m in first.metrics}
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ReportError(f"no metric {', '.join(unknown)} in these captures (they have: {', '.join(sorted(known))})")
    matrices = [first] + [sweep_view.sweep_matrix(store, ids, baseline, k) for k in keys[1:]]
    base_label = next(r.label for r in first.rows if r.capture == baseline)
    title = f"{' / '.join(m.metric.label for m in matrices)} relative to {base_label}"
    workloads = {cid: stored_manifest(m).section("workload") for cid, m in store.query(
        "SELECT capture_id, manifest FROM captures WHERE list_contains($ids, capture_id)", {"ids": ids}).rows}
    texts = {}
    try:
        texts = {cid: text for cid, text in store.query(
            """SELECT capture_id, text FROM capture_texts
               WHERE list_contains($ids, capture_id) AND path = 'workload/job.fio'""", {"ids": ids}).rows}
    except Exception:  # noqa: BLE001 - a store without the table: no job file text
        texts = {}
    link = permalink(base_url, ids, baseline, keys[0], title)
    return ReportData(ids, baseline, matrices, link, title, workloads, texts, keys)


def notebook(data: ReportData) -> models.NotebookDocument:
    """The report's view as a notebook document; saved (store/notebooks.py), its id is the short
    permalink /n/ID, which fits a 72-column line (`with_saved_link`)."""
    title, metric = data.title, data.metric_keys[0]
    cells: list[Any] = [
        models.MarkdownCell(type="markdown", text=f"**{title}**, from `iolens report`: the mean of each point's repeats, "
                                                  "the change against the baseline and Welch's t-test (p < 0.05 marked *)."),
        models.ViewCell(type="view", kind="sweep", state=f"m={metric}"),
    ]
    if data.matrices[0].params:
        cells.append(models.ViewCell(type="view", kind="sweepline", state=f"m={metric}"))
    return models.NotebookDocument(format_version=1, title=title[:300], captures=data.captures, baseline=data.baseline,
                                   cells=cells)


def with_saved_link(data: ReportData, base_url: str, notebook_id: str) -> ReportData:
    """The same report with the short permalink of its saved notebook."""
    return dataclasses.replace(data, permalink=f"{base_url.rstrip('/')}/n/{notebook_id}")


def save(store: Store, data: ReportData, base_url: str) -> ReportData:
    """Save the report's view as a notebook version (content-addressed: the same report twice is one
    version) and return the report with its short permalink. A write: POST /api/report and
    `iolens report --db` call it, GET /api/report never does."""
    saved = notebooks.save(store, models.NotebookCreate(document=notebook(data)))
    return with_saved_link(data, base_url, saved.id)
