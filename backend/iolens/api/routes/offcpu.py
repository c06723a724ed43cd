"""Off-CPU and wakeup stacks (views/offcpu.py; docs/offcpu.md). The off-CPU flame graph itself is
the flame routes' with `event=offcpu`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...store.db import Store
from ...views import flame as flame_view
from ...views import offcpu as offcpu_view
from ..deps import ERRORS, StoreDep

SideQ = Query(min_length=1, max_length=64,
              description="A thread id ('7894') or a task group as the sched views name them ('kworker/*', 'fio').")

router = APIRouter()


@router.get("/api/captures/{capture_id}/offcpu", response_model=models.OffcpuSummary, responses=ERRORS,
            tags=["offcpu"])
def offcpu_summary(capture_id: str, s: StoreDep,
                   run: Annotated[str | None, Query(description="One run (default: every run with off-CPU stacks).")] = None,
                   limit: Annotated[int, Query(ge=1, le=5000, description="Threads to list per run (the workload's first).")] = offcpu_view.TASK_LIMIT):
    return _call(offcpu_view.summary, s, capture_id, run, limit)


@router.get("/api/captures/{capture_id}/offcpu/pair", response_model=models.OffcpuPair, responses=ERRORS,
            tags=["offcpu"])
def offcpu_pair(capture_id: str, s: StoreDep, run: Annotated[str, Query(description="The run.")],
                a: Annotated[str, SideQ], b: Annotated[str, SideQ]):
    return _call(offcpu_view.pair, s, capture_id, run, a, b)


def _call(fn, store: Store, *args):
    """Unknown capture or no off-CPU stacks -> 404, a bad parameter -> 422."""
    try:
        return fn(store, *args)
    except flame_view.UnknownCapture as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except flame_view.NoStacks as exc:
        raise HTTPException(404, str(exc)) from exc
    except offcpu_view.BadQuery as exc:
        raise HTTPException(422, str(exc)) from exc
