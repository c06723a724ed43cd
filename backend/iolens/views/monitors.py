"""Monitors (ingest/monitors.py): the kernel counters of each capture's runs compared, and one key
over time.

A counter (pgfault, log.writes, ctxt...) is compared as its change per second of run, a level
(Dirty, nr_dirty, a slab's bytes) as its mean over the samples, a /proc/stat share (cpu0.busy%)
as the run's share; each is the mean over a capture's runs (min and max beside it). Rows are ranked
by the largest change against the baseline (|log2 ratio|), so what moved comes first.
"""

from __future__ import annotations

import math

from .. import models
from ..store.db import Store
from .fio_compare import UnknownCaptures


class BadMonitorQuery(ValueError):
    """A source or key the captures do not have: HTTP 422."""


def _unit(unit: str | None, counter: bool) -> str:
    if counter:
        return f"{unit}/s" if unit else "/s"
    return unit or ""


def _labels(store: Store, ids: list[str]) -> dict[str, str]:
    rows = store.query("SELECT capture_id, label FROM captures WHERE list_contains($ids, capture_id)", {"ids": ids}).rows
    found = dict(rows)
    missing = [c for c in ids if c not in found]
    if missing:
        raise UnknownCaptures(missing)
    return found


def compare(store: Store, ids: list[str], baseline: str | None = None, source: str | None = None,
            limit: int = 40) -> models.MonitorComparison:
    labels = _labels(store, ids)
    base = baseline if baseline in ids else ids[0]
    avail: dict[str, list[str]] = {c: [] for c in ids}
    for c, s in store.query("SELECT DISTINCT capture_id, source FROM monitor_keys WHERE list_contains($ids, capture_id) "
                            "ORDER BY source", {"ids": ids}).rows:
        avail[c].append(s)
    rows = store.query(
        """SELECT capture_id, source, key, bool_or(counter), any_value(unit), count(*)::INT,
                  avg(CASE WHEN counter THEN value / nullif(seconds, 0) ELSE value END),
                  min(CASE WHEN counter THEN value / nullif(seconds, 0) ELSE value END),
                  max(CASE WHEN counter THEN value / nullif(seconds, 0) ELSE value END)
           FROM monitor_keys WHERE list_contains($ids, capture_id) AND ($src IS NULL OR source = $src)
           GROUP BY capture_id, source, key""", {"ids": ids, "src": source}).rows
    by_key: dict[tuple[str, str], dict] = {}
    for c, src, key, counter, unit, runs, v, lo, hi in rows:
        if v is None:
            continue
        e = by_key.setdefault((src, key), {"counter": counter, "unit": unit, "cells": {}})
        e["cells"][c] = (v, lo, hi, runs)
    out = []
    for (src, key), e in by_key.items():
        cells = e["cells"]
        if all(abs(x[0]) == 0 for x in cells.values()):
            continue
        b = cells.get(base)
        change = 0.0
        mcells: dict[str, models.MonitorCell | None] = {}
        for c in ids:
            x = cells.get(c)
            if x is None:
                mcells[c] = None
                continue
            ratio = x[0] / b[0] if b and b[0] else None
            if c != base:
                if ratio is not None and ratio > 0:
                    change = max(change, abs(math.log2(ratio)))
                elif b is not None and (b[0] == 0) != (x[0] == 0):
                    change = max(change, 10.0)  # appeared or vanished
            mcells[c] = models.MonitorCell(value=x[0], lo=x[1], hi=x[2], runs=x[3], ratio=ratio)
        out.append(models.MonitorRow(source=src, key=key, counter=e["counter"], unit=_unit(e["unit"], e["counter"]),
                                     cells=mcells, change=change if len(ids) > 1 else None))
    out.sort(key=lambda r: (-(r.change or 0), r.source, r.key))
    return models.MonitorComparison(captures=ids, labels=labels, baseline=base, available=avail, source=source, total=len(out),
                                    rows=out[:limit])


_SERIES_SQL = """
WITH s AS (
    SELECT capture_id, run_id, t_ns, value,
           row_number() OVER (PARTITION BY capture_id, run_id ORDER BY t_ns) AS i,
           lag(value) OVER (PARTITION BY capture_id, run_id ORDER BY t_ns) AS pv,
           lag(t_ns) OVER (PARTITION BY capture_id, run_id ORDER BY t_ns) AS pt
    FROM monitor_samples
    WHERE list_contains($ids, capture_id) AND source = $src AND key = $key
)
SELECT capture_id, i, avg(t_ns) / 1e9, avg(y), min(y), max(y), count(*)::INT FROM (
    SELECT capture_id, i, t_ns,
           CASE WHEN $counter THEN (value - pv) / nullif((t_ns - pt) / 1e9, 0) ELSE value END AS y
    FROM s WHERE NOT $counter OR pv IS NOT NULL
) WHERE y IS NOT NULL GROUP BY capture_id, i ORDER BY capture_id, i
"""


def series(store: Store, ids: list[str], source: str, key: str) -> models.MonitorSeriesSet:
    labels = _labels(store, ids)
    meta = store.query("SELECT bool_or(counter), any_value(unit) FROM monitor_keys WHERE list_contains($ids, capture_id) "
                       "AND source = $src AND key = $key", {"ids": ids, "src": source, "key": key}).rows
    if not meta or meta[0][0] is None:
        raise BadMonitorQuery(f"none of these captures has the monitor {source}/{key}")
    counter, unit = bool(meta[0][0]), meta[0][1]
    if key.endswith("%"):
        raise BadMonitorQuery(f"{key} is a share over the whole run; its counters (cpuN.user...) have a time series")
    rows = store.query(_SERIES_SQL, {"ids": ids, "src": source, "key": key, "counter": counter}).rows
    out = []
    for c in ids:
        pts = [models.MonitorPoint(t_s=t, mean=m, lo=lo, hi=hi, n=n) for cap, _, t, m, lo, hi, n in rows if cap == c]
        out.append(models.MonitorSeries(capture=c, label=labels[c], points=pts))
    return models.MonitorSeriesSet(source=source, key=key, counter=counter, unit=_unit(unit, counter), series=out)
