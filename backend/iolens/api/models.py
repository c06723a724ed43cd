"""Response and request models of the HTTP API.

They are the single source of the OpenAPI schema, from which the frontend's TypeScript client is
generated (frontend/src/api/schema.d.ts): change a model here, run `make api-client`.
Names follow XBase / XPublic / XDetail.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer of the API. Nothing was changed when this is returned."""

    error: str = Field(description="What went wrong, in one sentence.")
    detail: object | None = Field(
        default=None,
        description="Where: the file, line and field when known (e.g. {'file': 'manifest.json', 'field': 'runs[0].id'}).",
    )


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    captures: int = Field(description="Number of captures in the store.")


class CaptureBase(BaseModel):
    id: str = Field(description="Capture id: first 16 hex digits of the SHA-256 of the canonical manifest.")
    label: str


class CaptureCreated(CaptureBase):
    created: bool = Field(description="False when the same bundle had already been ingested.")
    runs: int
    warnings: list[str] = Field(default_factory=list, description="Things ingest noticed but accepted.")


class CapturePublic(CaptureBase):
    tags: dict[str, str]
    kernel: str | None = Field(description="host.kernel.release")
    hostname: str | None
    created_at: str = Field(description="When the capture started (RFC 3339, UTC).")
    ingested_at: str
    workload_kind: str
    workload_summary: str | None = Field(description="e.g. 'randwrite bs=4k iodepth=32 libaio direct=1'.")
    runs: int = Field(description="Number of runs (workload executions).")
    repeats: int = Field(description="Largest number of repeats of one parameter point.")
    bundle_sha256: str
    bundle_bytes: int
    warnings: list[str]


class RunPublic(BaseModel):
    id: str
    index: int
    repeat: int
    params: dict[str, object]
    started_at: str | None
    ended_at: str | None
    exit_code: int | None
    cmdline: list[str]


class ArtifactPublic(BaseModel):
    run_id: str | None
    kind: str
    path: str
    size: int
    sha256: str


class HostFact(BaseModel):
    key: str = Field(description="Dotted key of the flattened host facts, e.g. 'targets.0.device.scheduler'.")
    value: str | None


class CaptureDetail(CapturePublic):
    collector: dict[str, object]
    workload: dict[str, object]
    host: list[HostFact]
    runs_detail: list[RunPublic]
    artifacts: list[ArtifactPublic]
    notes: list[str]


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


class HostDiff(BaseModel):
    key: str
    values: dict[str, str | None] = Field(description="Keyed by capture id.")


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
