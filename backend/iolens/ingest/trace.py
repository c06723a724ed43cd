"""Any tracepoint, every field a typed column (kinds perf-trace-fields and tracepoint-formats from
`iolens-collect --trace`; docs/loose-files.md "Events").

Each traced event gets its own table, `trace_SYS__NAME` (trace_xfs__xfs_ail_insert), created at the
first capture that has it, with the columns

    capture_id, run_id, ts_ns (perf's clock), t_ns (ns since the run started: ts_ns minus the
    artifact's trace_clock_at_start_ns; NULL without it), cpu, pid, tid, comm,
    then one column per field of the event's format, typed from the tracefs format
    (BIGINT / UBIGINT / VARCHAR, formats/trace_fields.py). A field named like one of the
    columns before it is stored as field_NAME. A char array (`char rwbs[10]`) is stored as its
    text up to the first NUL, also when perf handed it over as hex bytes (field_value).

A later capture whose kernel prints more fields adds columns (older rows read NULL there); a field
whose type changed is stored as text. `trace_events` has one row per capture, run and event
(count, first and last time, recorded/counted by the collector and whether events were lost) and
names the event's table: the events cell and SQL cells start there. The rows go through a CSV file
per event and one bulk load, like the block I/Os.
"""

from __future__ import annotations

import csv
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats import gz
from ..formats.trace_fields import TraceField, TraceFormat, coerce, field_value, iter_events, parse_formats
from .parsed import Parsed

FIXED = (("ts_ns", "BIGINT"), ("t_ns", "BIGINT"), ("cpu", "INTEGER"), ("pid", "INTEGER"), ("tid", "INTEGER"),
         ("comm", "VARCHAR"))
RESERVED = {"capture_id", "run_id", *(c for c, _ in FIXED)}
TRACE_EVENT_COLUMNS = ("capture_id", "run_id", "event", "table_name", "events", "first_ns", "last_ns",
                       "recorded", "counted", "lost", "fields")


def table_name(event: str) -> str:
    sys_, _, name = event.partition(":")
    clean = lambda s: re.sub(r"[^a-z0-9_]", "_", s.lower())  # noqa: E731
    return f"trace_{clean(sys_)}__{clean(name)}"


def _infer(value: Any) -> str:
    if isinstance(value, bool) or isinstance(value, int):
        return "BIGINT" if -(1 << 63) <= int(value) < (1 << 63) else "UBIGINT"
    return "VARCHAR"


def trace_fields_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("perf-trace-fields artifact must belong to a run", where, 422)
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    formats: dict[str, TraceFormat] = {}
    for a in run.artifacts:
        if a.kind == "tracepoint-formats":
            formats.update(parse_formats(gz.read_plain(bundle.path(a.path), a.path), a.path))
    t0 = art.trace_clock_at_start_ns  # an integer: the manifest model checks it
    probe = run.probes.get("trace") or {}
    recorded = probe.get("recorded") or {}
    counted = probe.get("counted") or {}
    lost = probe.get("lost") or {}
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-trace-", dir=bundle.root))
    # event -> (file, csv writer, [(field, column, type)], the format's fields or None)
    writers: dict[str, tuple[Any, Any, list[tuple[str, str, str]], list[TraceField] | None]] = {}
    stats: dict[str, list[Any]] = {}  # event -> [count, first, last]
    try:
        with gz.open_text(bundle.path(art.path), art.path) as f:
            for ev in iter_events(f, art.path):
                w = writers.get(ev.event)
                if w is None:
                    fmt = formats.get(ev.event)
                    fields = fmt.fields if fmt is not None else None
                    if fmt is not None:
                        cols = [(x.name, x.name if x.name not in RESERVED else f"field_{x.name}", x.column_type)
                                for x in fmt.fields]
                    else:
                        cols = [(k, k if k not in RESERVED else f"field_{k}", _infer(v)) for k, v in ev.fields.items()]
                    fh = (tmp / f"{len(writers)}.csv").open("w", newline="", encoding="utf-8")
                    w = writers[ev.event] = (fh, csv.writer(fh, lineterminator="\n"), cols, fields)
                    stats[ev.event] = [0, None, None]
                _, cw, cols, fields = w
                t = None if ev.time_ns is None or t0 is None else ev.time_ns - t0
                values = ([field_value(ev.fields.get(x.name), x) for x in fields] if fields is not None
                          else [coerce(ev.fields.get(name), ty) for name, _, ty in cols])
                cw.writerow([ev.time_ns, t, ev.cpu, ev.pid, ev.tid, ev.comm, *values])
                s = stats[ev.event]
                s[0] += 1
                if ev.time_ns is not None:
                    s[1] = ev.time_ns if s[1] is None else min(s[1], ev.time_ns)
                    s[2] = ev.time_ns if s[2] is None else max(s[2], ev.time_ns)
    finally:
        for fh, _, _, _ in writers.values():
            fh.close()
    if not writers:
        out.warnings.append(f"{art.path}: no traced events in run {run_id}")
        return
    cid = bundle.capture_id
    rows = []
    for event, (_, _, cols, _) in writers.items():
        n, first, last = stats[event]
        ev_lost = event in lost
        if ev_lost:
            out.warnings.append(f"{art.path}: {event}: perf record kept {lost[event].get('recorded')} of "
                                f"{lost[event].get('counted')} events perf stat counted (run {run_id})")
        rows.append((cid, run_id, event, table_name(event), n, first, last, recorded.get(event), counted.get(event),
                     ev_lost, json.dumps({c: ty for _, c, ty in cols})))
    out.add("trace_events", rows)
    plan = [(table_name(ev), Path(fh.name), cols) for ev, (fh, _, cols, _) in writers.items()]

    def load(w: Any) -> None:
        for table, path, cols in plan:
            w.execute(f'CREATE TABLE IF NOT EXISTS "{table}" (capture_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, '
                      + ", ".join(f'"{c}" {t}' for c, t in FIXED) + ")")
            have = {r[0]: r[1] for r in w.query(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?", [table]).rows}
            spec = []
            for _, col, ty in cols:
                if col not in have:
                    w.execute(f'ALTER TABLE "{table}" ADD COLUMN "{col}" {ty}')
                    have[col] = ty
                spec.append((col, ty if have[col] == ty else "VARCHAR"))
            names = [c for c, _ in FIXED] + [c for c, _ in spec]
            types = "{" + ", ".join(f"'c{i}': '{t}'" for i, (_, t) in enumerate(list(FIXED) + spec)) + "}"
            literal = "'" + str(path).replace("'", "''") + "'"
            w.execute(
                f'INSERT INTO "{table}" (capture_id, run_id, {", ".join(chr(34) + n + chr(34) for n in names)}) '
                f"SELECT ?, ?, * FROM read_csv({literal}, header = false, columns = {types}, delim = ',', "
                "quote = '\"', escape = '\"', allow_quoted_nulls = false, auto_detect = false, "
                "max_line_size = 67108864)", [cid, run_id])
    out.derive.append(load)


TABLE_COLUMNS = {"trace_events": TRACE_EVENT_COLUMNS}
