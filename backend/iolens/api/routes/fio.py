"""fio results compared across captures."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...views import fio_compare
from ..deps import ERRORS, StoreDep

router = APIRouter()


@router.get("/api/compare/fio", response_model=models.FioComparison, responses=ERRORS, tags=["compare"])
def compare(
    s: StoreDep,
    captures: Annotated[str, Query(description="Comma-separated capture ids, in column order.")],
    baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
) -> models.FioComparison:
    ids = [c for c in (x.strip() for x in captures.split(",")) if c]
    if not ids:
        raise HTTPException(422, "captures: give at least one capture id")
    try:
        return fio_compare.compare_fio(s, ids, baseline)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
