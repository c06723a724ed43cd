"""Lock contention from /proc/lock_stat: the top classes of a capture, the call sites of a class,
and the comparison of two or more captures.

Which dumps make a capture's figures: its per-run dumps (the collector clears the counters before
each run and reads them after), added up over the runs; when it has none, its capture-wide dump
(attached by hand). Counts and total times add up; min and max are the smallest and largest of
any dump; averages are recomputed as total / count.

Per operation: the workload's operations are fio's I/Os over the same runs (`fio_results.total_ios`,
all jobs and directions; every run's for a capture-wide dump). A comparison is made per I/O when
every capture with lock_stat has I/Os, so that a faster run with more lock traffic is not called
worse for doing more work; otherwise totals are compared, and the answer says so (`per_op`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from .. import models
from ..bundle import stored_manifest
from ..store.db import Store
from .fio_compare import UnknownCaptures

ALTERNATIVE = (
    "lock_stat needs a kernel built with CONFIG_LOCK_STAT=y (a debug option: it also enables lockdep and "
    "slows locking down). On other kernels, `perf lock contention -a -b -- COMMAND` (perf 6.x, BPF; root) "
    "measures lock contention by caller while COMMAND runs; iolens does not capture its output yet."
)

TopKey = Literal["wait_total", "contentions", "wait_avg"]

# The dumps that make each capture's figures: per-run dumps, or else the capture-wide one.
CHOSEN_DUMPS = """
chosen AS (
    SELECT d.capture_id, d.path, d.run_id
    FROM lock_stat_dumps d
    WHERE list_contains($ids, d.capture_id)
      AND (d.run_id IS NOT NULL OR NOT EXISTS (
          SELECT 1 FROM lock_stat_dumps x WHERE x.capture_id = d.capture_id AND x.run_id IS NOT NULL))
)"""

# One row per capture x class x rw, summed over the chosen dumps.
_CLASSES_SQL = f"""
WITH {CHOSEN_DUMPS}
SELECT c.capture_id, c.class, c.occurrence, c.rw,
       any_value(c.base_name) AS base_name, any_value(c.subclass) AS subclass,
       sum(c.contentions)::BIGINT AS contentions, sum(c.con_bounces)::BIGINT AS con_bounces,
       sum(c.acquisitions)::BIGINT AS acquisitions, sum(c.acq_bounces)::BIGINT AS acq_bounces,
       sum(c.wait_total_ns)::DOUBLE AS wait_total_ns,
       min(c.wait_min_ns) FILTER (WHERE c.contentions > 0)::DOUBLE AS wait_min_ns,
       max(c.wait_max_ns)::DOUBLE AS wait_max_ns,
       sum(c.hold_total_ns)::DOUBLE AS hold_total_ns,
       min(c.hold_min_ns) FILTER (WHERE c.acquisitions > 0)::DOUBLE AS hold_min_ns,
       max(c.hold_max_ns)::DOUBLE AS hold_max_ns,
       bool_or(c.wait_total_ns IS NULL OR c.hold_total_ns IS NULL OR c.wait_max_ns IS NULL
               OR c.hold_max_ns IS NULL) AS cut,
       list(struct_pack(run := c.run_id, contentions := c.contentions, wait := c.wait_total_ns)
            ORDER BY c.run_id) AS per_run,
       min(c.seq) AS seq
FROM lock_stat_classes c JOIN chosen USING (capture_id, path)
GROUP BY c.capture_id, c.class, c.occurrence, c.rw
"""


def capture_meta(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    meta = store.query(
        """SELECT capture_id, label, kernel, n_runs, n_repeats, tags, manifest
           FROM captures WHERE list_contains($ids, capture_id)""",
        {"ids": ids},
    ).dicts()
    found = {r["capture_id"]: r for r in meta}
    missing = [i for i in ids if i not in found]
    if missing:
        raise UnknownCaptures(missing)
    return found


def _compared(row: dict[str, Any]) -> models.ComparedCapture:
    return models.ComparedCapture(id=row["capture_id"], label=row["label"], kernel=row["kernel"],
                                  runs=row["n_runs"], repeats=row["n_repeats"], tags=json.loads(row["tags"]))


def _lock_notes(manifest_json: str) -> list[str]:
    return [n for n in stored_manifest(manifest_json).manifest.notes if "lock_stat" in n.lower().replace("-", "_")]


def availability(store: Store, found: dict[str, dict[str, Any]]) -> dict[str, models.LockStatAvailability]:
    ids = list(found)
    dumps = store.query(
        f"""WITH {CHOSEN_DUMPS}
            SELECT d.capture_id, list(d.path ORDER BY d.path) AS paths,
                   list(d.run_id ORDER BY d.run_id) FILTER (WHERE d.run_id IS NOT NULL) AS runs,
                   bool_or(d.debug_locks_off) AS off,
                   flatten(list(d.warnings::VARCHAR[] ORDER BY d.path)) AS warnings
            FROM lock_stat_dumps d JOIN chosen USING (capture_id, path)
            GROUP BY d.capture_id""",
        {"ids": ids},
    ).dicts()
    by_capture = {d["capture_id"]: d for d in dumps}
    # I/Os of the runs whose dumps are used (every run for a capture-wide dump).
    ops = dict(store.query(
        f"""WITH {CHOSEN_DUMPS},
                 scope AS (SELECT capture_id, bool_or(run_id IS NULL) AS whole, list(run_id) AS runs
                           FROM chosen GROUP BY capture_id)
            SELECT f.capture_id, sum(f.total_ios)::BIGINT
            FROM fio_results f JOIN scope s USING (capture_id)
            WHERE s.whole OR list_contains(s.runs, f.run_id)
            GROUP BY f.capture_id""",
        {"ids": ids},
    ).rows)
    out: dict[str, models.LockStatAvailability] = {}
    for cid, meta in found.items():
        notes = _lock_notes(meta["manifest"])
        d = by_capture.get(cid)
        if d is None:
            reason = "; ".join(notes) if notes else (
                "this capture has no lock_stat dump: it was made without `iolens-collect run --lock-stat` "
                "(or --lock-stat-snapshot FILE)"
            )
            out[cid] = models.LockStatAvailability(
                capture=cid, available=False, scope="none", runs=[], paths=[], ops=None, reason=reason,
                notes=notes, warnings=[], debug_locks_off=False)
            continue
        runs = list(d["runs"] or [])
        n_ops = ops.get(cid)
        out[cid] = models.LockStatAvailability(
            capture=cid, available=True, scope="runs" if runs else "capture", runs=runs, paths=list(d["paths"]),
            ops=int(n_ops) if n_ops else None, reason=None, notes=notes,
            warnings=[str(w) for w in (d["warnings"] or [])], debug_locks_off=bool(d["off"]))
    return out


def _stat(r: dict[str, Any], ops: int | None) -> models.LockClassStat:
    n, acq = r["contentions"], r["acquisitions"]
    wait, hold = r["wait_total_ns"], r["hold_total_ns"]
    return models.LockClassStat(
        contentions=n, con_bounces=r["con_bounces"], acquisitions=acq, acq_bounces=r["acq_bounces"],
        wait_total_ns=wait, wait_min_ns=r["wait_min_ns"], wait_max_ns=r["wait_max_ns"] if n else None,
        wait_avg_ns=wait / n if n and wait is not None else None,
        hold_total_ns=hold, hold_min_ns=r["hold_min_ns"], hold_max_ns=r["hold_max_ns"] if acq else None,
        hold_avg_ns=hold / acq if acq and hold is not None else None,
        contentions_per_op=n / ops if ops else None,
        wait_per_op_ns=wait / ops if ops and wait is not None else None,
        cut=bool(r["cut"]),
        per_run=[models.LockRunValue(run=p["run"], contentions=p["contentions"], wait_total_ns=p["wait"])
                 for p in r["per_run"]],
    )


def _key(r: dict[str, Any]) -> dict[str, Any]:
    return {"lock_class": r["class"], "occurrence": r["occurrence"], "rw": r["rw"], "base_name": r["base_name"],
            "subclass": r["subclass"]}


_TOP_ORDER = {
    "wait_total": "coalesce(wait_total_ns, 0) DESC, contentions DESC",
    "contentions": "contentions DESC, coalesce(wait_total_ns, 0) DESC",
    "wait_avg": "coalesce(wait_total_ns / nullif(contentions, 0), 0) DESC, contentions DESC",
}


def top_classes(store: Store, capture_id: str, by: TopKey = "wait_total", limit: int = 50) -> models.LockStatTop:
    found = capture_meta(store, [capture_id])
    avail = availability(store, found)[capture_id]
    rows = store.query(
        f"""WITH agg AS ({_CLASSES_SQL}),
                 pts AS (SELECT class, occurrence, count(DISTINCT (kind, symbol)) AS n
                         FROM lock_stat_points
                         WHERE capture_id = $ids[1] AND list_contains($paths, path)
                         GROUP BY class, occurrence)
            SELECT agg.*, coalesce(pts.n, 0) AS points,
                   count(*) OVER () AS total, count(*) FILTER (WHERE contentions > 0) OVER () AS contended
            FROM agg LEFT JOIN pts USING (class, occurrence)
            ORDER BY {_TOP_ORDER[by]}, class, occurrence, rw
            LIMIT $limit""",
        {"ids": [capture_id], "paths": avail.paths, "limit": limit},
    ).dicts()
    return models.LockStatTop(
        capture=_compared(found[capture_id]),
        availability=avail,
        by=by,
        total=rows[0]["total"] if rows else 0,
        contended=rows[0]["contended"] if rows else 0,
        rows=[models.LockTopRow(**_key(r), stat=_stat(r, avail.ops), points=r["points"]) for r in rows],
        alternative=ALTERNATIVE,
    )


def class_points(store: Store, capture_id: str, lock_class: str, occurrence: int = 0) -> models.LockStatPoints:
    found = capture_meta(store, [capture_id])
    avail = availability(store, found)[capture_id]
    rows = store.query(
        """SELECT kind, symbol, any_value(function_name) AS function, any_value(module) AS module,
                  sum(count)::BIGINT AS count,
                  list(DISTINCT run_id ORDER BY run_id) FILTER (WHERE run_id IS NOT NULL) AS runs,
                  list(DISTINCT address ORDER BY address) AS addresses
           FROM lock_stat_points
           WHERE capture_id = $cid AND list_contains($paths, path) AND class = $class AND occurrence = $occ
           GROUP BY kind, symbol
           ORDER BY kind = 'contending', count DESC, symbol""",
        {"cid": capture_id, "paths": avail.paths, "class": lock_class, "occ": occurrence},
    ).dicts()
    return models.LockStatPoints(
        capture=capture_id, lock_class=lock_class, occurrence=occurrence,
        points=[models.LockPointPublic(kind=r["kind"], symbol=r["symbol"], function=r["function"], module=r["module"],
                                       count=r["count"], runs=list(r["runs"] or []), addresses=list(r["addresses"]))
                for r in rows],
    )


def _delta(value: float | None, base: float | None) -> tuple[float | None, float | None]:
    if value is None and base is None:
        return None, None
    v, b = value or 0.0, base or 0.0
    return v - b, (v / b if b else None)


def compare(store: Store, capture_ids: list[str], baseline: str | None = None,
            limit: int = 200) -> models.LockStatComparison:
    ids = list(dict.fromkeys(capture_ids))
    baseline = baseline or ids[0]
    if baseline not in ids:
        ids.insert(0, baseline)
    found = capture_meta(store, ids)
    avail = availability(store, found)
    with_lock = [i for i in ids if avail[i].available]
    per_op = bool(with_lock) and all(avail[i].ops for i in with_lock)

    stats: dict[tuple[str, int, str], dict[str, models.LockClassStat]] = {}
    keys: dict[tuple[str, int, str], dict[str, Any]] = {}
    for r in store.query(_CLASSES_SQL, {"ids": with_lock}).dicts():
        k = (r["class"], r["occurrence"], r["rw"])
        keys.setdefault(k, _key(r))
        stats.setdefault(k, {})[r["capture_id"]] = _stat(r, avail[r["capture_id"]].ops if per_op else None)

    def wait(s: models.LockClassStat | None) -> float | None:
        if s is None:
            return None
        return s.wait_per_op_ns if per_op else s.wait_total_ns

    def cont(s: models.LockClassStat | None) -> float | None:
        if s is None:
            return None
        return s.contentions_per_op if per_op else float(s.contentions)

    base_has = avail[baseline].available
    rows: list[models.LockCompareRow] = []
    for k, by_cap in stats.items():
        if not any(s.contentions > 0 for s in by_cap.values()):
            continue  # uncontended everywhere: not part of a contention comparison
        base = by_cap.get(baseline)
        base_contended = base is not None and base.contentions > 0
        cells: dict[str, models.LockCompareCell] = {}
        change = 0.0
        for cid in with_lock:
            s = by_cap.get(cid)
            if cid == baseline:
                cells[cid] = models.LockCompareCell(stat=s, status="baseline", delta_wait=None, ratio_wait=None,
                                                    delta_contentions=None, ratio_contentions=None)
                continue
            contended = s is not None and s.contentions > 0
            status: Literal["appeared", "vanished", "changed", "idle"] = (
                "changed" if contended and base_contended else "appeared" if contended
                else "vanished" if base_contended else "idle"
            )
            dw = rw_ = dc = rc = None
            if base_has:
                dw, rw_ = _delta(wait(s), wait(base))
                dc, rc = _delta(cont(s), cont(base))
                change = max(change, abs(dw or 0.0))
            cells[cid] = models.LockCompareCell(stat=s, status=status, delta_wait=dw, ratio_wait=rw_,
                                                delta_contentions=dc, ratio_contentions=rc)
        if not base_has:  # nothing to take a difference from: order by the largest wait
            change = max((wait(s) or 0.0) for s in by_cap.values())
        rows.append(models.LockCompareRow(**keys[k], cells=cells, change=change))

    rows.sort(key=lambda r: (-r.change, r.lock_class, r.occurrence, r.rw))
    unit = "wait per I/O" if per_op else "total wait"
    sort = (f"by the largest change in {unit} against the baseline, most first" if base_has
            else f"by {unit}, most first (the baseline has no lock_stat: no differences)")
    return models.LockStatComparison(
        captures=[_compared(found[i]) for i in ids],
        baseline=baseline,
        availability=avail,
        per_op=per_op,
        sort=sort,
        total=len(rows),
        rows=rows[:limit],
        alternative=ALTERNATIVE,
    )
