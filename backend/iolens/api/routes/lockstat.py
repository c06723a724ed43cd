"""lock_stat: one capture's lock classes, their call sites and perf stacks, and comparisons."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...views import fio_compare
from ...views import lock_stacks as lock_stacks_view
from ...views import lock_stat as lock_stat_view
from ..deps import ERRORS, StoreDep

LockClassQ = Annotated[str, Query(alias="class", description="Class name as printed (lock_class of a row).")]
OccurrenceQ = Annotated[int, Query(ge=0, description="The row's occurrence (default 0).")]

router = APIRouter()


@router.get("/api/compare/lock-stat", response_model=models.LockStatComparison, responses=ERRORS, tags=["compare"])
def compare_lock_stat(
    s: StoreDep,
    captures: Annotated[str, Query(description="Comma-separated capture ids, in column order.")],
    baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
    limit: Annotated[int, Query(ge=1, le=5000, description="Rows to return, largest change first.")] = 200,
) -> models.LockStatComparison:
    ids = [c for c in (x.strip() for x in captures.split(",")) if c]
    if not ids:
        raise HTTPException(422, "captures: give at least one capture id")
    try:
        return lock_stat_view.compare(s, ids, baseline, limit)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc


@router.get("/api/captures/{capture_id}/lock-stat", response_model=models.LockStatTop, responses=ERRORS,
         tags=["captures"])
def lock_stat_top(
    capture_id: str,
    s: StoreDep,
    by: Annotated[lock_stat_view.TopKey, Query(description="Order: total wait, contentions, or average wait.")]
    = "wait_total",
    limit: Annotated[int, Query(ge=1, le=5000, description="Rows to return.")] = 50,
) -> models.LockStatTop:
    try:
        return lock_stat_view.top_classes(s, capture_id, by, limit)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, f"no capture with id {capture_id}") from exc


@router.get("/api/captures/{capture_id}/lock-stat/points", response_model=models.LockStatPoints, responses=ERRORS,
         tags=["captures"])
def lock_stat_points(
    capture_id: str,
    s: StoreDep,
    lock_class: LockClassQ,
    occurrence: OccurrenceQ = 0,
) -> models.LockStatPoints:
    try:
        return lock_stat_view.class_points(s, capture_id, lock_class, occurrence)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, f"no capture with id {capture_id}") from exc


@router.get("/api/captures/{capture_id}/lock-stat/stacks", response_model=models.LockStacks, responses=ERRORS,
         tags=["captures"])
def lock_stat_stacks(
    capture_id: str,
    s: StoreDep,
    lock_class: LockClassQ,
    occurrence: OccurrenceQ = 0,
    with_: Annotated[str | None, Query(
        alias="with", description="Other capture ids, comma-separated, whose perf stacks are searched too (and "
                                  "whose lock_stat call sites of the same class are added).")] = None,
) -> models.LockStacks:
    others = [c for c in (x.strip() for x in (with_ or "").split(",")) if c]
    try:
        return lock_stacks_view.lock_stacks(s, capture_id, lock_class, occurrence, others)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except lock_stacks_view.UnknownLockClass as exc:
        raise HTTPException(404, str(exc)) from exc
