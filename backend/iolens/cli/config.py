"""Configuration of the `iolens` commands, in one place: where the DuckDB file is by default, and
the access token for writes."""

from __future__ import annotations

import os
from pathlib import Path


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(os.environ.get("IOLENS_DB") or Path(base) / "iolens" / "iolens.duckdb")


def read_token(token_file: str | None, what: str) -> str | None:
    """The access token: the first line of --token-file, else $IOLENS_TOKEN, else none."""
    if token_file:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip().splitlines()
        except OSError as exc:
            raise SystemExit(f"iolens {what}: cannot read the token file: {exc}") from None
        if not token or not token[0].strip():
            raise SystemExit(f"iolens {what}: the token file {token_file} is empty")
        return token[0].strip()
    return os.environ.get("IOLENS_TOKEN") or None
