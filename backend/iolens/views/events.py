"""Traced events (`iolens-collect --trace`, ingest/trace.py): what each capture traced, counts per
value of a chosen field (the top N, the rest summed) with the first and last time of each value,
and the rate over time, per capture, for comparison.

Every count is over a capture's runs and also given per run (repeats); times are seconds since
each run's start (the artifact's trace_clock_at_start_ns). The seed analysis of the XFS CIL flush
limit thread, `xfs_ail_insert` per LSN with the first and last time, is
`by_field(event='xfs:xfs_ail_insert', field='new_lsn')`.
"""

from __future__ import annotations

import json
from typing import Any

from .. import models
from ..store.db import Store
from .fio_compare import UnknownCaptures


class BadEventQuery(ValueError):
    """An event or field the captures do not have: HTTP 422."""


def _labels(store: Store, ids: list[str]) -> dict[str, str]:
    rows = store.query("SELECT capture_id, label FROM captures WHERE list_contains($ids, capture_id)", {"ids": ids}).rows
    found = {c: lab for c, lab in rows}
    missing = [c for c in ids if c not in found]
    if missing:
        raise UnknownCaptures(missing)
    return found


def summary(store: Store, ids: list[str]) -> models.EventsSummary:
    labels = _labels(store, ids)
    rows = store.query(
        """SELECT capture_id, event, any_value(table_name), count(*)::INT, sum(events)::BIGINT,
                  avg(events / nullif((last_ns - first_ns) / 1e9, 0)),
                  sum(recorded)::BIGINT, sum(counted)::BIGINT, bool_or(lost), any_value(fields)
           FROM trace_events WHERE list_contains($ids, capture_id) GROUP BY capture_id, event
           ORDER BY event, capture_id""", {"ids": ids}).rows
    order = {c: i for i, c in enumerate(ids)}
    out = [models.TracedEvent(capture=c, label=labels[c], event=e, table=t, runs=r, events=n, per_run=n / r,
                              per_s=ps, recorded=rec, counted=cnt, lost=bool(lost), fields=json.loads(f))
           for c, e, t, r, n, ps, rec, cnt, lost, f in rows]
    out.sort(key=lambda x: (x.event, order[x.capture]))
    return models.EventsSummary(captures=ids, events=out)


def _table_and_field(store: Store, ids: list[str], event: str, field: str | None) -> tuple[str, dict[str, int]]:
    rows = store.query("SELECT capture_id, any_value(table_name), count(*)::INT, any_value(fields) FROM trace_events "
                       "WHERE list_contains($ids, capture_id) AND event = $ev GROUP BY capture_id",
                       {"ids": ids, "ev": event}).rows
    if not rows:
        raise BadEventQuery(f"none of these captures traced {event!r}")
    table = rows[0][1]
    if field is not None:
        cols = {r[0] for r in store.query("SELECT column_name FROM information_schema.columns WHERE table_name = ?",
                                          [table]).rows}
        if field not in cols or field in ("capture_id", "run_id"):
            known = sorted(set().union(*(json.loads(r[3]) for r in rows)) | {"cpu", "pid", "tid", "comm"})
            raise BadEventQuery(f"{event} has no field {field!r} (it has: {', '.join(known)})")
    return table, {c: n for c, _, n, _ in rows}


def by_field(store: Store, ids: list[str], event: str, field: str | None, top: int = 20) -> models.EventsByField:
    labels = _labels(store, ids)
    table, runs = _table_and_field(store, ids, event, field)
    value = f'CAST("{field}" AS VARCHAR)' if field else "NULL"
    rows = store.query(
        f"""SELECT capture_id, {value} AS v, count(*)::BIGINT AS n, min(t_ns), max(t_ns)
            FROM "{table}" WHERE list_contains($ids, capture_id) GROUP BY ALL
            ORDER BY capture_id, n DESC, v""", {"ids": ids}).rows
    by_cap: dict[str, list[tuple[Any, ...]]] = {}
    for r in rows:
        by_cap.setdefault(r[0], []).append(r)
    out = []
    for c in ids:
        rs = by_cap.get(c, [])
        nrun = runs.get(c, 0)
        total = sum(r[2] for r in rs)
        vals = [models.FieldValueCount(value=v, rest=False, values=1, count=n, per_run=n / nrun if nrun else 0.0,
                                       first_s=None if f is None else f / 1e9, last_s=None if lst is None else lst / 1e9)
                for _, v, n, f, lst in rs[:top]]
        rest = rs[top:]
        if rest:
            n = sum(r[2] for r in rest)
            firsts = [r[3] for r in rest if r[3] is not None]
            lasts = [r[4] for r in rest if r[4] is not None]
            vals.append(models.FieldValueCount(value=None, rest=True, values=len(rest), count=n,
                                               per_run=n / nrun if nrun else 0.0,
                                               first_s=min(firsts) / 1e9 if firsts else None,
                                               last_s=max(lasts) / 1e9 if lasts else None))
        out.append(models.FieldCounts(capture=c, label=labels[c], runs=nrun, total=total, rows=vals))
    return models.EventsByField(event=event, field=field, top=top, captures=out)


def rate(store: Store, ids: list[str], event: str, buckets: int = 60) -> models.EventsRate:
    labels = _labels(store, ids)
    table, runs = _table_and_field(store, ids, event, None)
    span = store.query(f'SELECT max(t_ns) FROM "{table}" WHERE list_contains($ids, capture_id) AND t_ns >= 0',
                       {"ids": ids}).scalar()
    if not span:
        raise BadEventQuery(f"{event}: no event has a time since its run's start (no trace_clock_at_start_ns)")
    width = max(1, int(span) // buckets + 1)
    rows = store.query(
        f"""SELECT capture_id, (t_ns // $w)::INT AS b, count(*)::BIGINT FROM "{table}"
            WHERE list_contains($ids, capture_id) AND t_ns >= 0 GROUP BY ALL""", {"ids": ids, "w": width}).rows
    series = []
    for c in ids:
        counts = [0.0] * buckets
        for cap, b, n in rows:
            if cap == c and 0 <= b < buckets:
                counts[b] += n
        nrun = runs.get(c) or 1
        series.append(models.RateSeries(capture=c, label=labels[c], per_s=[n / nrun / (width / 1e9) for n in counts]))
    return models.EventsRate(event=event, bucket_s=width / 1e9, series=series)
