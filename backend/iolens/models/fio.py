"""fio results compared across captures (views/fio_compare.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .captures import CaptureBase
from .comparison import ComparisonFacts, HostDiff


class StatCell(BaseModel):
    """One metric of one job/direction of one capture, over its repeats."""

    n: int = Field(description="Number of repeats that reported the metric.")
    mean: float | None
    stddev: float | None = Field(description="Sample standard deviation (n-1); null when n < 2.")
    min: float | None
    max: float | None
    cv: float | None = Field(description="Coefficient of variation: stddev / mean.")
    values: list[float] = Field(description="The value of each repeat, in run order.")
    runs: list[str] = Field(description="Run ids the values come from.")
    ratio: float | None = Field(description="mean / baseline mean; null for the baseline or when missing.")


class MetricRow(BaseModel):
    metric: str
    label: str
    unit: str = Field(description="'IO/s', 'B/s', 'ns' or '%'.")
    better: Literal["higher", "lower", "neutral"] = Field(
        description="Which direction is an improvement; 'neutral' when neither is (CPU % of a fixed-time run)."
    )
    description: str = Field(description="What the metric is and how it is computed, for tooltips.")
    cells: dict[str, StatCell] = Field(description="Keyed by capture id; a capture without this job is absent.")


class FioGroup(BaseModel):
    job: str
    ddir: str
    metrics: list[MetricRow]


class ComparedCapture(CaptureBase):
    kernel: str | None
    runs: int
    repeats: int
    tags: dict[str, str]


class FioComparison(BaseModel):
    captures: list[ComparedCapture] = Field(description="In the order asked for.")
    baseline: str
    host_diff: list[HostDiff] = Field(description="Host facts whose values differ between the captures.")
    groups: list[FioGroup]
    fio_commands: dict[str, list[str]] = Field(description="The fio command line of each capture's first run.")
    facts: ComparisonFacts = Field(description="Kernel release and .config, workload differences, and what makes the numbers incomparable.")
