"""Errors and server health.

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer of the API. Nothing was changed when this is returned."""

    error: str = Field(description="What went wrong, in one sentence.")
    detail: object | None = Field(
        default=None,
        description="Where: the file, line and field when known (e.g. {'file': 'manifest.json', 'field': 'runs[0].id'}).",
    )


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    captures: int = Field(description="Number of captures in the store.")
    writes_need_token: bool = Field(
        default=False, description="Uploads and saves need `Authorization: Bearer TOKEN` (server started with a token)."
    )


def iso(dt: datetime | None) -> str | None:
    """A stored (naive UTC) timestamp as the API writes it: '2026-11-25T13:49:36Z'."""
    return None if dt is None else dt.isoformat(timespec="seconds") + "Z"
