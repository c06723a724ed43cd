"""What every route module shares: the server's settings, the store, the SQL sandbox, the write
token check, the error bodies, and the parsing of comma-separated query values."""

from __future__ import annotations

import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from .. import models
from ..bundle import Limits
from ..formats.cpulist import parse_cpu_list
from ..store.db import DEFAULT_SQL_MEMORY, Store
from ..store.sandbox import DEFAULT_MAX_BYTES, Sandbox

ERRORS = {400: {"model": models.ErrorBody}, 404: {"model": models.ErrorBody}, 413: {"model": models.ErrorBody},
          415: {"model": models.ErrorBody}, 422: {"model": models.ErrorBody}}


@dataclass
class Settings:
    db_path: Path
    data_dir: Path
    frontend_dist: Path | None = None
    max_upload_bytes: int = int(os.environ.get("IOLENS_MAX_UPLOAD_BYTES", 8 << 30))
    # any other request body (a notebook save, a report): checked before it is read
    max_body_bytes: int = int(os.environ.get("IOLENS_MAX_BODY_BYTES", 16 << 20))
    limits: Limits = field(default_factory=Limits)
    # Writes (uploads, notebook saves) need `Authorization: Bearer <token>` when set; reads never do.
    token: str | None = field(default_factory=lambda: os.environ.get("IOLENS_TOKEN") or None)
    # Base of the permalinks printed in exports (default: the URL the request came to).
    public_url: str | None = field(default_factory=lambda: os.environ.get("IOLENS_PUBLIC_URL") or None)
    sql_time_limit_s: float = float(os.environ.get("IOLENS_SQL_TIME_LIMIT", 5))
    sql_max_rows: int = int(os.environ.get("IOLENS_SQL_MAX_ROWS", 5000))
    # JSON bytes of a SQL cell's answer; DuckDB memory of its sorts and hash tables; DuckDB's memory
    # for the whole server (None: $IOLENS_DB_MEMORY_LIMIT, else DuckDB's default of 80% of RAM).
    sql_max_bytes: int = int(os.environ.get("IOLENS_SQL_MAX_BYTES", DEFAULT_MAX_BYTES))
    sql_memory_limit: str = os.environ.get("IOLENS_SQL_MEMORY_LIMIT") or DEFAULT_SQL_MEMORY
    db_memory_limit: str | None = os.environ.get("IOLENS_DB_MEMORY_LIMIT") or None
    # seconds between checkpoints of the WAL into the database file (and one at every clean stop)
    checkpoint_interval_s: float = float(os.environ.get("IOLENS_CHECKPOINT_INTERVAL", 60))
    # make the whole-capture flame answers at start, in the background (views/flame_answer.py warm)
    warm_flame: bool = os.environ.get("IOLENS_FLAME_WARM", "1") != "0"

    @property
    def bundles_dir(self) -> Path:
        return self.data_dir / "bundles"


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


async def get_store(request: Request) -> Store:
    return request.app.state.store


StoreDep = Annotated[Store, Depends(get_store)]


async def require_write_token(request: Request) -> None:
    """Uploads and saves: when the server has a token, the request must carry it."""
    token = request.app.state.settings.token
    if not token:
        return
    sent = request.headers.get("authorization", "")
    scheme, _, value = sent.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
        raise HTTPException(
            401,
            {"error": "this server needs an access token for uploads and saves: send 'Authorization: Bearer TOKEN' "
                      "(iolens ingest --token-file FILE, or enter the token in the app)"
                      + ("; the token sent is not the right one" if sent else ""),
             "detail": {"header": "Authorization"}},
            headers={"WWW-Authenticate": "Bearer"},
        )


WriteDep = Annotated[None, Depends(require_write_token)]


async def get_sandbox(request: Request) -> Sandbox:
    return request.app.state.sandbox


SandboxDep = Annotated[Sandbox, Depends(get_sandbox)]


def split_ids(csv: str) -> list[str]:
    ids = [c for c in (x.strip() for x in csv.split(",")) if c]
    if not ids:
        raise HTTPException(422, "give at least one capture id")
    return ids


def runs_param(csv: str | None) -> tuple[str, ...] | None:
    if csv is None or not csv.strip():
        return None
    return tuple(dict.fromkeys(r for r in (x.strip() for x in csv.split(",")) if r))


def cpus_param(text: str | None) -> tuple[int, ...] | None:
    if text is None or not text.strip() or text.strip() == "all":
        return None
    try:
        return tuple(parse_cpu_list(text))
    except ValueError as exc:
        raise HTTPException(422, f"cpus: {text!r} is not a CPU list like '1,3-4'") from exc


def disposition(name: str, download: bool) -> dict[str, str]:
    return {"Content-Disposition": f'{"attachment" if download else "inline"}; filename="{name}"'}
