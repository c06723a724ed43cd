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
