"""Time views of one run: the subsecond-offset heatmap of perf samples (views/flame_heatmap.py) and the
timeline's tracks (views/timeline.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...views import block as block_view
from ...views import flame_heatmap, timeline
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


def _timeline(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except timeline.UnknownRun as exc:
        raise HTTPException(404, str(exc)) from exc
    except (timeline.BadTimeline, block_view.BadRange) as exc:
        raise HTTPException(422, str(exc)) from exc


@router.get("/api/captures/{capture_id}/timeline", response_model=models.TimelineOverview, responses=ERRORS,
            tags=["timeline"])
def timeline_overview(capture_id: str, s: StoreDep):
    """The capture's runs on their time axis (ns since each run's start), the tracks each has data for
    (or why not) and the origins of the flame graph's and the scheduler views' times on it."""
    return _timeline(timeline.overview, s, capture_id)


@router.get("/api/captures/{capture_id}/timeline/{track}", response_model=models.TimelineTrack, responses=ERRORS,
            tags=["timeline"])
def timeline_track(
    capture_id: str, track: timeline.TrackKind, s: StoreDep,
    run: Annotated[str | None, Query(description="The run (default: the first).")] = None,
    from_ns: Annotated[int | None, Query(ge=0, description="Start, ns since the run's start (default 0).")] = None,
    to_ns: Annotated[int | None, Query(ge=1, description="End (exclusive; default: the run's end).")] = None,
    width: Annotated[int, Query(ge=1, le=timeline.MAX_WIDTH, description="Columns wanted (pixels).")] = 1000,
):
    """One track (cpu, block, fio, samples) of one run over a range, one column per pixel or so."""
    return _timeline(timeline.track, s, capture_id, run, track, from_ns, to_ns, width)
