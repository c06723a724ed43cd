"""/proc/lock_stat text (kind lock-stat) -> lock_stat_dumps, lock_stat_classes, lock_stat_points."""

from __future__ import annotations

import json

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats.gz import read_plain
from ..formats.lock_stat import parse_lock_stat
from .parsed import Parsed

TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "lock_stat_dumps": ("capture_id", "run_id", "path", "version", "debug_locks_off", "classes", "warnings"),
    "lock_stat_classes": (
        "capture_id", "run_id", "path", "class", "occurrence", "rw", "base_name", "subclass", "seq", "con_bounces",
        "contentions", "wait_min_ns", "wait_max_ns", "wait_total_ns", "wait_avg_ns", "acq_bounces", "acquisitions",
        "hold_min_ns", "hold_max_ns", "hold_total_ns", "hold_avg_ns",
    ),
    "lock_stat_points": ("capture_id", "run_id", "path", "class", "occurrence", "kind", "idx", "count", "address",
                         "symbol", "function_name", "module"),
}


def lock_stat_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """/proc/lock_stat text -> lock_stat_dumps, lock_stat_classes, lock_stat_points. At most one dump
    per run, and one for the capture (run_id NULL), so that no count is added twice."""
    if any(r[0] == bundle.capture_id and r[1] == run_id for r in out.rows.get("lock_stat_dumps", [])):
        where = f"run {run_id}" if run_id else "the capture"
        raise BundleError(f"{where} has more than one lock-stat artifact", {"file": art.path, "field": "kind"}, 422)
    dump = parse_lock_stat(read_plain(bundle.path(art.path), art.path), source=art.path)
    cid = bundle.capture_id
    out.warnings.extend(f"{art.path}: {w}" for w in dump.warnings)
    out.add("lock_stat_dumps", [(cid, run_id, art.path, dump.version, dump.debug_locks_off, len(dump.classes),
                                 json.dumps(dump.warnings))])
    for seq, c in enumerate(dump.classes):
        out.add("lock_stat_classes", [(
            cid, run_id, art.path, c.name, c.occurrence, r.rw, c.base_name, c.subclass, seq, r.con_bounces,
            r.contentions, r.wait_min_ns, r.wait_max_ns, r.wait_total_ns, r.wait_avg_ns, r.acq_bounces,
            r.acquisitions, r.hold_min_ns, r.hold_max_ns, r.hold_total_ns, r.hold_avg_ns,
        ) for r in c.rows])
        out.add("lock_stat_points", [
            (cid, run_id, art.path, c.name, c.occurrence, p.kind, p.index, p.count, p.address, p.symbol, p.function,
             p.module) for p in c.contention_points + c.contending_points
        ])
