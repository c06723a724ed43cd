"""What sets captures apart: kernel release and .config, workload, incomparable set-ups."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...views import comparison
from ..deps import ERRORS, StoreDep

router = APIRouter()

_IDS = Annotated[str, Query(description="Comma-separated capture ids, in column order.")]


def _ids(s: StoreDep, captures: str) -> list[str]:
    ids = list(dict.fromkeys(c for c in (x.strip() for x in captures.split(",")) if c))
    if not ids:
        raise HTTPException(422, "captures: give at least one capture id")
    known = {r[0] for r in s.query("SELECT capture_id FROM captures WHERE list_contains($ids, capture_id)", {"ids": ids}).rows}
    missing = [i for i in ids if i not in known]
    if missing:
        raise HTTPException(404, {"error": f"unknown capture id(s): {', '.join(missing)}", "detail": {"missing": missing}})
    return ids


@router.get("/api/compare/facts", response_model=models.ComparisonFacts, responses=ERRORS, tags=["compare"])
def facts(s: StoreDep, captures: _IDS) -> models.ComparisonFacts:
    """Kernel releases, the .config options that matter and differ, workload differences, and
    warnings when the numbers are not comparable (accelerator, CPUs, workload, debug options)."""
    ids = _ids(s, captures)
    labels = dict(s.query("SELECT capture_id, label FROM captures WHERE list_contains($ids, capture_id)", {"ids": ids}).rows)
    return comparison.comparison_facts(s, ids, labels)


@router.get("/api/compare/kernel-config", response_model=models.KernelConfigDiff, responses=ERRORS, tags=["compare"])
def kernel_config(s: StoreDep, captures: _IDS) -> models.KernelConfigDiff:
    """Every option of the captures' whole .config files whose value differs ('n': not set)."""
    return comparison.kernel_config_diff(s, _ids(s, captures))
