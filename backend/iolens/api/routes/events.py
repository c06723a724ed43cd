"""Traced events (--trace): what captures traced, counts per field value, rate over time."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...views import events as events_view
from ...views import fio_compare
from ..deps import ERRORS, StoreDep

router = APIRouter()
CapturesQ = Annotated[str, Query(description="Comma-separated capture ids, in column order.")]


def _ids(captures: str) -> list[str]:
    ids = [c for c in (x.strip() for x in captures.split(",")) if c]
    if not ids:
        raise HTTPException(422, "captures: give at least one capture id")
    return ids


def _run(fn, *args):
    try:
        return fn(*args)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except events_view.BadEventQuery as exc:
        raise HTTPException(422, str(exc)) from exc


@router.get("/api/events", response_model=models.EventsSummary, responses=ERRORS, tags=["compare"])
def events_summary(s: StoreDep, captures: CapturesQ) -> models.EventsSummary:
    return _run(events_view.summary, s, _ids(captures))


@router.get("/api/events/by-field", response_model=models.EventsByField, responses=ERRORS, tags=["compare"])
def events_by_field(
    s: StoreDep, captures: CapturesQ,
    event: Annotated[str, Query(description="sys:name")],
    field: Annotated[str | None, Query(description="A column of the event's table (a field, or cpu/pid/tid/comm).")] = None,
    top: Annotated[int, Query(ge=1, le=1000, description="Values shown; the rest are summed.")] = 20,
) -> models.EventsByField:
    return _run(events_view.by_field, s, _ids(captures), event, field, top)


@router.get("/api/events/rate", response_model=models.EventsRate, responses=ERRORS, tags=["compare"])
def events_rate(
    s: StoreDep, captures: CapturesQ, event: Annotated[str, Query(description="sys:name")],
    buckets: Annotated[int, Query(ge=2, le=2000)] = 60,
) -> models.EventsRate:
    return _run(events_view.rate, s, _ids(captures), event, buckets)
