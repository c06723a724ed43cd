"""Ingest: a bundle checked (bundle/), every artifact read by its kind's handler (registry.py, one
module per domain), then written in one transaction (pipeline.py).

`ingest_file` and `IngestResult` are imported from pipeline.py when first asked for (pipeline
imports DuckDB, the store and the bundle's models): `iolens ingest` starts its early pass
(early.py) before those imports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pipeline import IngestResult, ingest_file

__all__ = ["IngestResult", "ingest_file"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
