"""The capture library and a capture's detail."""

from __future__ import annotations

import json
from typing import Any

from .. import models
from ..bundle import stored_manifest
from ..models.common import iso
from ..store.db import Store

_CAPTURE_COLUMNS = """
    capture_id, label, tags, kernel, hostname, created_at, ingested_at, workload_kind,
    workload_summary, n_runs, n_repeats, bundle_sha256, bundle_bytes, warnings,
    (SELECT list(DISTINCT a.kind ORDER BY a.kind) FROM artifacts a
     WHERE a.capture_id = captures.capture_id) AS artifact_kinds
"""


def _public(row: dict[str, Any]) -> models.CapturePublic:
    return models.CapturePublic(
        id=row["capture_id"],
        label=row["label"],
        tags=json.loads(row["tags"]),
        kernel=row["kernel"],
        hostname=row["hostname"],
        created_at=iso(row["created_at"]) or "",
        ingested_at=iso(row["ingested_at"]) or "",
        workload_kind=row["workload_kind"],
        workload_summary=row["workload_summary"],
        runs=row["n_runs"],
        repeats=row["n_repeats"],
        bundle_sha256=row["bundle_sha256"],
        bundle_bytes=row["bundle_bytes"],
        warnings=json.loads(row["warnings"]),
        artifact_kinds=list(row["artifact_kinds"] or []),
    )


def count(store: Store) -> int:
    """How many captures the store holds (kept until the store's next write: Store.kept)."""
    return store.kept(_COUNT, lambda: store.query("SELECT count(*) FROM captures").scalar())


def list_captures(store: Store) -> list[models.CapturePublic]:
    """Every capture, newest first (kept until the store's next write: Store.kept; shared, not to be changed)."""
    return store.kept(_LIST, lambda: [_public(r) for r in store.query(
        f"SELECT {_CAPTURE_COLUMNS} FROM captures ORDER BY created_at DESC, label").dicts()])


_COUNT, _LIST = "captures.count", "captures.list"


def kept_count(store: Store) -> int | None:
    """count(store) if it is kept (no query), else None."""
    return store.kept_now(_COUNT)


def kept_list(store: Store) -> list[models.CapturePublic] | None:
    """list_captures(store) if it is kept (no query), else None."""
    return store.kept_now(_LIST)


def _num(v: object, kind: type = float) -> Any:
    """A number of the manifest's probe objects, or None (free-form: old or hand-made bundles)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return int(v) if kind is int else float(v)


def probe_summaries(probes: dict[str, Any]) -> list[models.ProbePublic]:
    """The perf probes of one manifest run (`runs[].probes`, docs/bundle-format.md), in the order
    stacks, sched, block, then any other; `workload` (where fio ran) is not a recording."""
    order = {"stacks": 0, "sched": 1, "block": 2}
    out = []
    for name in sorted((k for k, v in probes.items() if k != "workload" and isinstance(v, dict)),
                       key=lambda k: (order.get(k, 9), k)):
        p = probes[name]
        recorded = p.get("recorded") if isinstance(p.get("recorded"), dict) else {}
        counted = p.get("counted") if isinstance(p.get("counted"), dict) else {}
        counts = [models.ProbeCount(event=e, recorded=_num(recorded.get(e), int), counted=_num(counted.get(e), int))
                  for e in sorted(set(recorded) | set(counted))
                  if ":" in e and (_num(recorded.get(e)) or _num(counted.get(e)))]
        out.append(models.ProbePublic(
            probe=name,
            source=str(p["source"]) if isinstance(p.get("source"), str) else None,
            tool=str(p["tool"]) if isinstance(p.get("tool"), str) else None,
            duration_s=_num(p.get("duration_s")),
            events=_num(p.get("samples", p.get("events")), int),
            events_per_s=_num(p.get("events_per_s")),
            perf_cpu_s=_num(p.get("perf_cpu_s")),
            perf_cpu_pct=_num(p.get("perf_cpu_pct")),
            stat_perf_cpu_s=_num(p.get("stat_perf_cpu_s")),
            data_bytes=_num(p.get("perf_data_bytes", p.get("trace_bytes")), int),
            artifact_bytes=_num(p.get("bytes"), int),
            size_cap_mb=_num(p.get("size_cap_mb"), int),
            size_cap_reached=p.get("size_cap_reached") is True,
            counts=counts,
            lost=[str(x) for x in p["lost"] if isinstance(x, str)] if isinstance(p.get("lost"), (dict, list)) else [],
        ))
    return out


def get_capture(store: Store, capture_id: str) -> models.CaptureDetail | None:
    rows = store.query(
        f"SELECT {_CAPTURE_COLUMNS}, manifest FROM captures WHERE capture_id = ?", [capture_id]
    ).dicts()
    if not rows:
        return None
    row = rows[0]
    stored = stored_manifest(row["manifest"])
    facts = store.query(
        "SELECT key, value FROM host_facts WHERE capture_id = ? ORDER BY key", [capture_id]
    ).rows
    runs = store.query(
        """SELECT run_id, run_index, repeat, params, started_at, ended_at, exit_code, cmdline
           FROM runs WHERE capture_id = ? ORDER BY run_index""",
        [capture_id],
    ).dicts()
    artifacts = store.query(
        "SELECT run_id, kind, path, size, sha256 FROM artifacts WHERE capture_id = ? ORDER BY path",
        [capture_id],
    ).dicts()
    probes = {r.id: r.probes for r in stored.manifest.runs}
    base = _public(row).model_dump()
    return models.CaptureDetail(
        **base,
        collector=stored.section("collector"),
        workload=stored.section("workload"),
        host=[models.HostFact(key=k, value=v) for k, v in facts],
        runs_detail=[
            models.RunPublic(
                id=r["run_id"], index=r["run_index"], repeat=r["repeat"], params=json.loads(r["params"]),
                started_at=iso(r["started_at"]), ended_at=iso(r["ended_at"]), exit_code=r["exit_code"],
                cmdline=json.loads(r["cmdline"]), probes=probe_summaries(probes.get(r["run_id"], {})),
            )
            for r in runs
        ],
        artifacts=[models.ArtifactPublic(**a) for a in artifacts],
        notes=stored.manifest.notes,
    )


def bundle_sha256(store: Store, capture_id: str) -> str | None:
    return store.query("SELECT bundle_sha256 FROM captures WHERE capture_id = ?", [capture_id]).scalar()
