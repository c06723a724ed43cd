"""Derived at ingest for the timeline (views/timeline.py): sched_slices cut into tiles per CPU and
task group (table sched_cpu_tiles), so that the timeline's per-CPU tracks answer from a few thousand
rows at any zoom. The finest level (1 ms) splits every slice at the tile boundaries it crosses;
each coarser level regroups the one below it."""

from __future__ import annotations

from typing import Any

LEVELS_NS = (1_000_000, 10_000_000, 100_000_000, 1_000_000_000)

_FINEST = f"""
INSERT INTO sched_cpu_tiles
WITH s AS (
    SELECT l.run_id, l.cpu, l.grp, l.start_ns - t.first_ts_ns AS a, l.end_ns - t.first_ts_ns AS b
    FROM sched_slices l JOIN sched_traces t ON t.capture_id = l.capture_id AND t.run_id = l.run_id
    WHERE l.capture_id = $cid AND l.end_ns > l.start_ns
),
one AS (   -- slices inside one tile: most of them
    SELECT run_id, cpu, grp, a // {LEVELS_NS[0]} AS k, b - a AS ns FROM s WHERE a // {LEVELS_NS[0]} = (b - 1) // {LEVELS_NS[0]}
),
many AS (  -- slices across tiles: one row per tile they touch
    SELECT run_id, cpu, grp, k,
           least(b, (k + 1) * {LEVELS_NS[0]}) - greatest(a, k * {LEVELS_NS[0]}) AS ns
    FROM (SELECT *, unnest(range(a // {LEVELS_NS[0]}, (b - 1) // {LEVELS_NS[0]} + 1)) AS k
          FROM s WHERE a // {LEVELS_NS[0]} <> (b - 1) // {LEVELS_NS[0]})
)
SELECT $cid, run_id, cpu, {LEVELS_NS[0]}, k, grp, sum(ns)::BIGINT
FROM (SELECT * FROM one UNION ALL SELECT * FROM many) GROUP BY run_id, cpu, k, grp
ORDER BY run_id, k   -- stored in time order per level: a window reads the row groups it overlaps
"""


def derive_cpu_tiles(w: Any, cid: str) -> None:
    """Fill sched_cpu_tiles for one capture (after sched_slices, in the ingest transaction)."""
    w.execute(_FINEST, {"cid": cid})
    for finer, level in zip(LEVELS_NS, LEVELS_NS[1:]):
        w.execute(
            f"""INSERT INTO sched_cpu_tiles
                SELECT capture_id, run_id, cpu, {level}, k // {level // finer}, grp, sum(run_ns)::BIGINT
                FROM sched_cpu_tiles WHERE capture_id = $cid AND level_ns = {finer} GROUP BY ALL
                ORDER BY run_id, 5""",
            {"cid": cid})
