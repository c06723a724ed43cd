"""The scheduler (views/sched.py): every answer carries its runs' loss checks."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...store.db import Store
from ...views import sched as sched_view
from ..deps import ERRORS, StoreDep, split_ids

SchedRunQ = Annotated[str | None, Query(description="Run id, or several comma-separated; default: every run with a trace.")]
SchedCpusQ = Annotated[str, Query(description="'all', 'workload' (the CPUs it was pinned to) or a list like '1,3-4'.")]
SchedGroupQ = Annotated[Literal["task", "group"], Query(
    description="task: per thread (pid and comm); group: per task group (kworker/*, ksoftirqd/*, comm).")]
SchedLimitQ = Annotated[int, Query(description="Most rows returned (1-5000).")]
SchedFromQ = Annotated[int | None, Query(description=(
    "Count only the time range [from_ns, to_ns), ns since each run's first sched event (the notebook's timeline "
    "selection); with to_ns. Default: whole runs."))]
SchedToQ = Annotated[int | None, Query(description="End of the time range (exclusive), with from_ns.")]
SchedClockQ = Annotated[Literal["trace", "run"], Query(description=(
    "The clock of from_ns and to_ns. trace: ns since each run's first sched event, the same numbers in every "
    "run. run: ns since each run's start (its clock reading: the timeline's time, the notebook's selection); "
    "each run counts the range on its own trace, moved by its own offset (runs[].from_ns, to_ns say where)."))]


def _span(from_ns: int | None, to_ns: int | None) -> tuple[int, int] | None:
    if from_ns is None and to_ns is None:
        return None
    if from_ns is None or to_ns is None:
        raise HTTPException(422, "from_ns and to_ns: give both (a time range) or neither (whole runs)")
    return from_ns, to_ns

router = APIRouter()


@router.get("/api/captures/{capture_id}/sched", response_model=models.SchedOverview, responses=ERRORS,
         tags=["sched"])
def sched_overview(capture_id: str, s: StoreDep, run: SchedRunQ = None, from_ns: SchedFromQ = None,
                   to_ns: SchedToQ = None, clock: SchedClockQ = "trace"):
    return _sched(sched_view.overview, s, capture_id, run, _span(from_ns, to_ns), clock)


@router.get("/api/captures/{capture_id}/sched/switch-rate", response_model=models.SchedSwitchRate,
         responses=ERRORS, tags=["sched"])
def sched_switch_rate(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all",
                      step_ms: Annotated[int, Query(description="Interval, ms (a multiple of 100).")] = 1000):
    return _sched(sched_view.switch_rate, s, capture_id, run, cpus, step_ms)


@router.get("/api/captures/{capture_id}/sched/tasks", response_model=models.SchedTasks, responses=ERRORS,
         tags=["sched"])
def sched_tasks(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all",
                group_by: SchedGroupQ = "task", limit: SchedLimitQ = sched_view.DEFAULT_LIMIT,
                from_ns: SchedFromQ = None, to_ns: SchedToQ = None,
                clock: SchedClockQ = "trace"):
    return _sched(sched_view.tasks, s, capture_id, run, cpus, group_by, limit, _span(from_ns, to_ns), clock)


@router.get("/api/captures/{capture_id}/sched/pairs", response_model=models.SchedPairs, responses=ERRORS,
         tags=["sched"])
def sched_pairs(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all",
                group_by: SchedGroupQ = "task", limit: SchedLimitQ = sched_view.DEFAULT_LIMIT,
                from_ns: SchedFromQ = None, to_ns: SchedToQ = None,
                clock: SchedClockQ = "trace"):
    return _sched(sched_view.pairs, s, capture_id, run, cpus, group_by, limit, _span(from_ns, to_ns), clock)


@router.get("/api/captures/{capture_id}/sched/pingpong", response_model=models.SchedPingPong, responses=ERRORS,
         tags=["sched"])
def sched_pingpong(
    capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all", group_by: SchedGroupQ = "task",
    window_us: Annotated[int, Query(description="Longest run of the brief task in a round trip, us.")]
    = sched_view.DEFAULT_WINDOW_US,
    limit: SchedLimitQ = 20, from_ns: SchedFromQ = None, to_ns: SchedToQ = None, clock: SchedClockQ = "trace",
):
    return _sched(sched_view.pingpong, s, capture_id, run, cpus, group_by, window_us, limit, _span(from_ns, to_ns),
                  clock)


@router.get("/api/captures/{capture_id}/sched/delays", response_model=models.SchedDelays, responses=ERRORS,
         tags=["sched"])
def sched_delays(
    capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all", group_by: SchedGroupQ = "group",
    reason: Annotated[Literal["all", "woken", "preempted"], Query(
        description="woken: ready since a wakeup; preempted: ready since switched out runnable.")] = "all",
    limit: SchedLimitQ = sched_view.DEFAULT_LIMIT, from_ns: SchedFromQ = None, to_ns: SchedToQ = None,
    clock: SchedClockQ = "trace",
):
    return _sched(sched_view.delays, s, capture_id, run, cpus, group_by, reason, limit, _span(from_ns, to_ns), clock)


@router.get("/api/captures/{capture_id}/sched/runtime", response_model=models.SchedRuntime, responses=ERRORS,
         tags=["sched"])
def sched_runtime(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "workload",
                  group_by: SchedGroupQ = "task", limit: SchedLimitQ = sched_view.DEFAULT_LIMIT,
                  from_ns: SchedFromQ = None, to_ns: SchedToQ = None,
                clock: SchedClockQ = "trace"):
    return _sched(sched_view.runtime, s, capture_id, run, cpus, group_by, limit, _span(from_ns, to_ns), clock)


@router.get("/api/compare/sched", response_model=models.SchedComparison, responses=ERRORS, tags=["compare"])
def compare_sched(
    s: StoreDep,
    captures: Annotated[str, Query(description="Comma-separated capture ids, in column order.")],
    baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
    from_ns: SchedFromQ = None, to_ns: SchedToQ = None, clock: SchedClockQ = "trace",
):
    return _sched(sched_view.compare, s, split_ids(captures), baseline, _span(from_ns, to_ns), clock)


def _sched(fn, store: Store, *args):
    """Call a sched view; unknown capture or no trace -> 404, a bad parameter -> 422."""
    try:
        return fn(store, *args)
    except sched_view.UnknownCapture as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except sched_view.NoSchedData as exc:
        raise HTTPException(404, str(exc)) from exc
    except sched_view.BadQuery as exc:
        raise HTTPException(422, str(exc)) from exc
