"""Monitors (--monitors): the kernel counters of captures compared, and one over time."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...views import fio_compare
from ...views import monitors as monitors_view
from ..deps import ERRORS, StoreDep

router = APIRouter()
CapturesQ = Annotated[str, Query(description="Comma-separated capture ids, in column order.")]


def _ids(captures: str) -> list[str]:
    ids = [c for c in (x.strip() for x in captures.split(",")) if c]
    if not ids:
        raise HTTPException(422, "captures: give at least one capture id")
    return ids


@router.get("/api/monitors", response_model=models.MonitorComparison, responses=ERRORS, tags=["compare"])
def monitors_compare(
    s: StoreDep, captures: CapturesQ,
    baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
    source: Annotated[str | None, Query(description="vmstat, meminfo, stat, xfs, ext4, slabinfo (default: all).")] = None,
    limit: Annotated[int, Query(ge=1, le=5000, description="Rows, largest change first.")] = 40,
) -> models.MonitorComparison:
    try:
        return monitors_view.compare(s, _ids(captures), baseline, source, limit)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc


@router.get("/api/monitors/series", response_model=models.MonitorSeriesSet, responses=ERRORS, tags=["compare"])
def monitors_series(
    s: StoreDep, captures: CapturesQ, source: Annotated[str, Query()], key: Annotated[str, Query()],
) -> models.MonitorSeriesSet:
    try:
        return monitors_view.series(s, _ids(captures), source, key)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except monitors_view.BadMonitorQuery as exc:
        raise HTTPException(422, str(exc)) from exc
