"""A consistent backup of a running server: the database (checkpointed and copied while no write
can start) and every kept bundle, as one streamed tar. `iolens backup DIR --server URL` reads it."""

from __future__ import annotations

import json
import tarfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from ... import __version__, models
from ..deps import SettingsDep, StoreDep, WriteDep

router = APIRouter()

DB_NAME = "iolens.duckdb"


def backup_files(store, db_copy: Path, bundles_dir: Path) -> tuple[list[tuple[str, Path]], dict]:
    """What a backup holds, given a snapshot of the database: (name in the backup, file) pairs and
    the backup.json summary."""
    shas = [str(r[0]) for r in store.query("SELECT bundle_sha256 FROM captures ORDER BY 1").rows]
    notebooks = store.query("SELECT count(*) FROM notebook_versions").scalar()
    files = [(DB_NAME, db_copy)]
    missing = []
    for sha in shas:
        p = bundles_dir / f"{sha}.iolens.tar"
        (files.append((f"bundles/{p.name}", p)) if p.is_file() else missing.append(p.name))
    summary = {"iolens_version": __version__, "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "captures": len(shas), "notebook_versions": notebooks, "bundles": len(files) - 1,
               "bundles_missing": missing}
    return files, summary


def tar_stream(files: list[tuple[str, Path]], summary: dict, cleanup: Path | None = None) -> Iterator[bytes]:
    """A tar written as it is sent: headers, then each file in 1 MiB reads (any size, little memory)."""
    try:
        for name, path in [("backup.json", None), *files]:
            data = json.dumps(summary, indent=2).encode() + b"\n" if path is None else None
            info = tarfile.TarInfo(name)
            info.size = len(data) if data is not None else path.stat().st_size
            info.mtime = int(time.time())
            info.mode = 0o644
            yield info.tobuf(format=tarfile.PAX_FORMAT)
            if data is not None:
                yield data
            else:
                sent = 0
                with path.open("rb") as f:
                    while sent < info.size and (chunk := f.read(min(1 << 20, info.size - sent))):
                        sent += len(chunk)
                        yield chunk
            if info.size % 512:
                yield b"\0" * (512 - info.size % 512)
        yield b"\0" * 1024
    finally:
        if cleanup is not None:
            cleanup.unlink(missing_ok=True)


@router.get("/api/backup", tags=["meta"], responses={401: {"model": models.ErrorBody}},
            response_class=StreamingResponse)
def backup(s: StoreDep, settings: SettingsDep, _: WriteDep) -> StreamingResponse:
    """The database and every kept bundle as a tar (`iolens backup DIR --server URL` unpacks it)."""
    copy = settings.data_dir / f".backup-{uuid.uuid4().hex}.duckdb.partial"
    s.snapshot(copy)
    files, summary = backup_files(s, copy, settings.bundles_dir)
    size = sum(p.stat().st_size for _, p in files)
    return StreamingResponse(tar_stream(files, summary, cleanup=copy), media_type="application/x-tar",
                             headers={"Content-Disposition": "attachment; filename=iolens-backup.tar",
                                      "X-Iolens-Backup-Bytes": str(size), "Cache-Control": "no-store"})
