"""The subsecond-offset heatmap of one run's perf samples (FlameScope's view; issue 17 "Time").

Columns are seconds since the run's first sample (any event: the origin of the flame graph's time
range, views/flame.py), rows are fractions of a second (`rows` of them, 1e9 / rows ns each), a
cell's value is the samples in it: the samples with a usable call stack of the selected event and
task filters (CPUs, thread, command), the ones the flame graph of that time range draws. A range of
cells read in time order (column by column, top to bottom) is the flame graph's range
[from_ns, to_ns), so selecting cells on the heatmap and asking the flame API for that range agree
sample for sample (tests/test_flame_heatmap.py counts them against the raw perf script text).
"""

from __future__ import annotations

import time
from dataclasses import replace

from .. import models
from ..store.db import Store
from .flame import BadQuery, Filters, _capture, _resolve, _task_conditions

SECOND_NS = 1_000_000_000
DEFAULT_ROWS = 50
MAX_COLS = 3600      # an hour of samples; a longer run is refused with a clear reason


def row_choices() -> list[int]:
    """Row counts that split a second evenly into whole ns (10, 20, 25, 50, 100, 200, 250, 500, 1000)."""
    return [r for r in range(1, 1001) if SECOND_NS % r == 0 and r >= 10]


def heatmap(store: Store, cid: str, f: Filters = Filters(), run: str | None = None,
            rows: int = DEFAULT_ROWS) -> models.FlameHeatmap:
    """Samples per second and fraction of a second of one run (default: the first run with samples)."""
    started = time.perf_counter()
    if rows not in row_choices():
        raise BadQuery(f"rows must split a second evenly into whole nanoseconds and be 10-1000 "
                       f"({', '.join(map(str, row_choices()))}), not {rows}")
    cap = _capture(store, cid)
    if run is None:
        run = f.runs[0] if f.runs else (cap.runs[0].id if cap.runs else None)
    if run is None:
        raise BadQuery(f"capture {cid} has no run with samples")
    # the heatmap covers the run's whole time: the range filters are what it selects
    f = _resolve(cap, replace(f, runs=(run,), from_ns=None, to_ns=None))
    info = next(r for r in cap.runs if r.id == run)
    row_ns = SECOND_NS // rows
    duration = info.duration_ns or 0
    cols = duration // SECOND_NS + 1
    if cols > MAX_COLS:
        raise BadQuery(f"run {run} lasts {duration / 1e9:.0f} s: the heatmap draws at most {MAX_COLS} s")

    params: dict[str, object] = {"cid": cid, "run": run, "event": f.event, "row_ns": row_ns}
    cond = ["s.capture_id = $cid", "s.run_id = $run", "s.event IS NOT DISTINCT FROM $event",
            "s.stack_id IS NOT NULL", "s.ts_ns IS NOT NULL"]
    _task_conditions(f, cond, params)
    found = store.query(
        f"""WITH o AS (SELECT min(ts_ns) AS t0 FROM perf_samples WHERE capture_id = $cid AND run_id = $run)
            SELECT (s.ts_ns - o.t0) // {SECOND_NS} AS col, ((s.ts_ns - o.t0) % {SECOND_NS}) // $row_ns AS row,
                   count(*)::BIGINT
            FROM perf_samples s, o WHERE {' AND '.join(cond)} GROUP BY ALL""", params).rows
    counts = [0] * (cols * rows)
    for col, row, n in found:
        counts[int(col) * rows + int(row)] = int(n)
    return models.FlameHeatmap(
        capture=cap.ref, run=run, runs=cap.runs, filters=f.public(), rows=rows, row_ns=row_ns, cols=cols,
        duration_ns=duration, counts=counts, max_count=max(counts, default=0), total_samples=sum(counts),
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1))
