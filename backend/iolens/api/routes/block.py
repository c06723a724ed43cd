"""The block layer (docs/block.md): every view takes the same series, range and device."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ... import models
from ...store.db import Store
from ...views import block as block_view
from ..deps import ERRORS, StoreDep, split_ids

BlockCapturesQ = Annotated[str, Query(description="Comma-separated capture ids.")]
BlockSeriesQ = Annotated[str, Query(
    description="Comma-separated series: CAPTURE (each of its runs with block data) or CAPTURE:RUN, drawn in this order.")]
FromQ = Annotated[int | None, Query(description="Range start, ns since run start (default 0).")]
ToQ = Annotated[int | None, Query(description="Range end, ns since run start (default: end of the longest series).")]
BucketsQ = Annotated[int, Query(description="Buckets wanted over the range (1-2000); the server rounds the interval "
                                            "up to 1, 2 or 5 x 10^k ns and returns the grid it used.")]
DeviceQ = Annotated[str | None, Query(description="'MAJ,MIN', or 'all' to sum every device; default: each run's busiest device.")]

router = APIRouter()


@router.get("/api/block/runs", response_model=list[models.BlockRunPublic], responses=ERRORS, tags=["block"])
def block_runs(s: StoreDep, captures: BlockCapturesQ) -> list[models.BlockRunPublic]:
    return block_view.runs(s, split_ids(captures))


@router.get("/api/block/queue-depth", response_model=models.BlockQueueDepth, responses=ERRORS, tags=["block"])
def block_queue_depth(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                      buckets: BucketsQ = block_view.DEFAULT_BUCKETS, device: DeviceQ = None):
    return _block(block_view.queue_depth, s, split_ids(series), from_ns, to_ns, buckets, device)


@router.get("/api/block/iops", response_model=models.BlockIops, responses=ERRORS, tags=["block"])
def block_iops(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
               buckets: BucketsQ = block_view.DEFAULT_BUCKETS, device: DeviceQ = None):
    return _block(block_view.iops, s, split_ids(series), from_ns, to_ns, buckets, device)


@router.get("/api/block/latency", response_model=models.BlockLatency, responses=ERRORS, tags=["block"])
def block_latency(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                  buckets: BucketsQ = block_view.DEFAULT_BUCKETS, device: DeviceQ = None,
                  op: Annotated[str | None, Query(description="Only this operation (read, write, ...).")] = None):
    return _block(block_view.latency, s, split_ids(series), from_ns, to_ns, buckets, device, op=op)


@router.get("/api/block/latency-histogram", response_model=models.BlockLatencyHistogram, responses=ERRORS,
         tags=["block"])
def block_latency_histogram(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                            device: DeviceQ = None):
    return _block(block_view.latency_histogram, s, split_ids(series), from_ns, to_ns, device=device)


@router.get("/api/block/sizes", response_model=models.BlockSizes, responses=ERRORS, tags=["block"])
def block_sizes(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                device: DeviceQ = None):
    return _block(block_view.sizes, s, split_ids(series), from_ns, to_ns, device=device)


@router.get("/api/block/scatter", response_model=models.BlockScatter, responses=ERRORS, tags=["block"])
def block_scatter(
    s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None, device: DeviceQ = None,
    max_points: Annotated[int, Query(description="Most points per series (a sample beyond).")] = block_view.DEFAULT_POINTS,
    sector_from: Annotated[int | None, Query(description="Lowest sector shown (y zoom).")] = None,
    sector_to: Annotated[int | None, Query(description="Sector after the highest shown.")] = None,
):
    return _block(block_view.scatter, s, split_ids(series), from_ns, to_ns, max_points=max_points,
                  sector_from=sector_from, sector_to=sector_to, device=device)


def _block(fn, store: Store, ids: list[str], *args, **kwargs):
    """Call a block view; unknown series -> 404, a bad range or size -> 422."""
    try:
        return fn(store, ids, *args, **kwargs)
    except block_view.UnknownSeries as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except block_view.BadRange as exc:
        raise HTTPException(422, str(exc)) from exc
