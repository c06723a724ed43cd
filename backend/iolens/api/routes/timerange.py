"""Time views of one run: the subsecond-offset heatmap of perf samples (views/flame_heatmap.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ... import models
from ...views import flame_heatmap
from ..deps import ERRORS, StoreDep
from .flame import FlameFiltersDep, _flame

router = APIRouter()


@router.get("/api/captures/{capture_id}/flame/heatmap", response_model=models.FlameHeatmap, responses=ERRORS,
            tags=["flame"])
def flame_heatmap_route(
    capture_id: str, s: StoreDep, f: FlameFiltersDep,
    run: Annotated[str | None, Query(description="The run counted (default: the first of `runs`, else the first run).")] = None,
    rows: Annotated[int, Query(description="Rows per second: 10-1000, a divisor of 1e9 (50: 20 ms rows).")]
    = flame_heatmap.DEFAULT_ROWS,
):
    """Samples with a call stack per second (columns) and fraction of a second (rows) of one run; the
    time range filters are ignored (the heatmap is the whole run), the event, CPU and task ones apply."""
    return _flame(flame_heatmap.heatmap, s, capture_id, f, run, rows)
