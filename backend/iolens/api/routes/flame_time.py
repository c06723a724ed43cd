"""Time order of the flame cell (views/flame_time.py): one thread's or one CPU's samples in time."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ... import models
from ...views import flame_time
from ..deps import ERRORS, StoreDep
from .flame import FlameFiltersDep, _flame

router = APIRouter()


@router.get("/api/captures/{capture_id}/flame/time", response_model=models.FlameTimeOrder, responses=ERRORS,
            tags=["flame"])
def flame_time_order(capture_id: str, s: StoreDep, f: FlameFiltersDep,
                     workload: Annotated[str | None, Query(
                         description="Without tid or one CPU: take the busiest thread with this command name "
                                     "(the capture's workload, e.g. fio).")] = None):
    return _flame(flame_time.time_order, s, capture_id, f, workload=workload)
