"""The capture library and a capture's detail."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..api import models
from ..store.db import Store

_CAPTURE_COLUMNS = """
    capture_id, label, tags, kernel, hostname, created_at, ingested_at, workload_kind,
    workload_summary, n_runs, n_repeats, bundle_sha256, bundle_bytes, warnings,
    (SELECT list(DISTINCT a.kind ORDER BY a.kind) FROM artifacts a
     WHERE a.capture_id = captures.capture_id) AS artifact_kinds
"""


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat(timespec="seconds") + "Z"


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


def list_captures(store: Store) -> list[models.CapturePublic]:
    rows = store.query(f"SELECT {_CAPTURE_COLUMNS} FROM captures ORDER BY created_at DESC, label").dicts()
    return [_public(r) for r in rows]


def get_capture(store: Store, capture_id: str) -> models.CaptureDetail | None:
    rows = store.query(
        f"SELECT {_CAPTURE_COLUMNS}, manifest FROM captures WHERE capture_id = ?", [capture_id]
    ).dicts()
    if not rows:
        return None
    row = rows[0]
    manifest = json.loads(row["manifest"])
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
    base = _public(row).model_dump()
    return models.CaptureDetail(
        **base,
        collector=manifest.get("collector", {}),
        workload=manifest.get("workload", {}),
        host=[models.HostFact(key=k, value=v) for k, v in facts],
        runs_detail=[
            models.RunPublic(
                id=r["run_id"], index=r["run_index"], repeat=r["repeat"], params=json.loads(r["params"]),
                started_at=iso(r["started_at"]), ended_at=iso(r["ended_at"]), exit_code=r["exit_code"],
                cmdline=json.loads(r["cmdline"]),
            )
            for r in runs
        ],
        artifacts=[models.ArtifactPublic(**a) for a in artifacts],
        notes=manifest.get("notes", []),
    )


def bundle_sha256(store: Store, capture_id: str) -> str | None:
    return store.query("SELECT bundle_sha256 FROM captures WHERE capture_id = ?", [capture_id]).scalar()
