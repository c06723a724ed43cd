"""Time views of one run (views/flame_heatmap.py, views/timeline.py): the subsecond-offset heatmap
of perf samples and the timeline's tracks.

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .flame import FlameCaptureRef, FlameFilters, FlameRun


class FlameHeatmap(BaseModel):
    """Samples of one run counted per second (columns) and fraction of a second (rows), FlameScope's
    subsecond-offset heatmap. Time 0 is the run's first sample of any event: the origin of the flame
    graph's time range, so cell (col, row) is from_ns = col x 1e9 + row x row_ns, to_ns = from_ns + row_ns."""

    capture: FlameCaptureRef
    run: str = Field(description="The run counted.")
    runs: list[FlameRun] = Field(description="Runs with samples, to pick another.")
    filters: FlameFilters = Field(description="Event and task filters applied (the run's whole time).")
    rows: int = Field(description="Rows per column: fractions of a second.")
    row_ns: int = Field(description="Height of a row, ns (1e9 / rows).")
    cols: int = Field(description="Columns: whole or partial seconds from the first sample to the last.")
    duration_ns: int = Field(description="From the run's first sample (any event) to its last.")
    counts: list[int] = Field(description="Samples with a usable call stack per cell, column-major: counts[col x rows + row].")
    max_count: int = Field(description="The largest cell.")
    total_samples: int = Field(description="Sum of counts: the samples the flame graph of the whole run draws.")
    elapsed_ms: float


# --- The timeline of one run (views/timeline.py) ---------------------------------------------------
# Times are ns since the run's start (its trace_clock_at_start_ns), the block views' time 0.


class TimelineRun(BaseModel):
    id: str
    index: int
    repeat: int
    t0_ns: int | None = Field(description="The clock reading (CLOCK_MONOTONIC ns) at the run's start; null: not recorded.")
    duration_ns: int = Field(description="The latest end of any track, ns since the run's start.")
    aligned: bool = Field(description="False: no clock reading, each track counts from its own first event.")
    cpus: list[int] = Field(description="CPUs of the scheduler trace.")
    samples_offset_ns: int | None = Field(
        description="The run's first perf sample, ns since the run's start: the flame graph's time 0 on this axis.")
    sched_offset_ns: int | None = Field(
        description="The scheduler trace's first event, ns since the run's start: the scheduler views' time 0.")
    tracks: dict[str, bool] = Field(description="cpu, block, fio, samples: whether the run has data for the track.")
    notes: dict[str, str] = Field(description="Per track without data (or not drawable): why.")


class TimelineOverview(BaseModel):
    capture: FlameCaptureRef
    runs: list[TimelineRun]
    notes: list[str]


class TimelineCpu(BaseModel):
    cpu: int
    busy: list[float] = Field(description="Per column: the share of the column a task (not idle) ran, 0-1.")
    task: list[int] = Field(description="Per column: the task group that ran longest (index into names; -1: idle).")


class TimelineFioDdir(BaseModel):
    ddir: str
    iops: list[float | None] = Field(description="fio's IO/s per column, summed over jobs; null: not covered.")


class TimelineTrack(BaseModel):
    """One track of one run over [from_ns, to_ns), in `buckets` columns of `bucket_ns` from grid_lo_ns."""

    kind: str = Field(description="cpu | block | fio | samples")
    run: str
    available: bool = Field(description="False: the run has no data for this track; note says why.")
    note: str | None
    aligned: bool
    from_ns: int
    to_ns: int
    grid_lo_ns: int = Field(description="Start of the first column, ns since the run's start (aligned to bucket_ns).")
    bucket_ns: int = Field(description="Column width, ns (1, 2 or 5 x 10^k).")
    buckets: int
    level_ns: int | None = Field(default=None, description="cpu: the tile level read (1 ms to 1 s).")
    names: list[str] | None = Field(default=None, description="cpu: task groups, busiest first.")
    cpus: list[TimelineCpu] | None = None
    device: str | None = Field(default=None, description="block: the device (major,minor).")
    depth: list[float] | None = Field(default=None, description="block: time-weighted mean I/Os in flight per column.")
    iops: list[float] | None = Field(default=None, description="block: I/Os completed per second per column, all operations.")
    events_lost: bool | None = None
    warnings: list[str] | None = None
    ddirs: list[TimelineFioDdir] | None = Field(default=None, description="fio: per data direction.")
    event: str | None = Field(default=None, description="samples: the perf event counted.")
    counts: list[int] | None = Field(default=None, description="samples: perf samples per column.")
    elapsed_ms: float
