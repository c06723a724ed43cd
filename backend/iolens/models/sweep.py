"""Sweeps, repeat statistics and the report (views/sweep.py, exports/report.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .fio import HostDiff

# --- Sweeps, repeat statistics and the report (views/sweep.py, store/stats.py, views/report.py, exports/report.py) ----------------


class SweepMetric(BaseModel):
    key: str = Field(description="run_metrics.metric: 'iops', 'read.clat_p99', 'wall_s', 'disk.read_iops', 'm.NAME'...")
    label: str
    unit: str = Field(description="'IO/s', 'B/s', 'B', 'ns', '%', 's', 'KiB', 'count' or the command's own unit.")
    better: Literal["higher", "lower", "neutral"]
    description: str
    source: str = Field(description="fio | rusage | diskstats | command")


class SweepParam(BaseModel):
    name: str = Field(description="A swept parameter: a fio option, 'scheduler', or a {NAME} of a command.")
    values: list[str] = Field(description="Its values in the plan's order (then in order of appearance).")


class SweepPoint(BaseModel):
    key: str = Field(description="'rw=randread bs=4k iodepth=1' (parameters in order); 'all' for a capture without sweep.")
    params: dict[str, str]


class SweepCell(BaseModel):
    """One metric at one point of one capture, over its repeats, and against the baseline capture."""

    n: int = Field(description="Repeats that reported the metric.")
    mean: float | None
    stddev: float | None = Field(description="Sample standard deviation (n-1); null when n < 2.")
    cv: float | None = Field(description="Coefficient of variation, stddev / mean.")
    ci_low: float | None = Field(description="95% confidence interval of the mean (Student t, n-1 df); null when n < 2.")
    ci_high: float | None
    min: float | None
    max: float | None
    values: list[float] = Field(description="Each repeat's value, in run order.")
    runs: list[str] = Field(description="The run ids of the values.")
    ratio: float | None = Field(description="mean / the baseline's mean at this point; null for the baseline.")
    delta_low: float | None = Field(
        description="95% confidence interval of (mean - baseline mean) / baseline mean (Welch); null without a test.")
    delta_high: float | None
    t: float | None = Field(description="Welch's t statistic against the baseline.")
    df: float | None = Field(description="Welch-Satterthwaite degrees of freedom.")
    p: float | None = Field(description="Two-sided p-value of Welch's t-test.")
    significant: bool = Field(description="p < alpha and both sides have at least min_repeats repeats.")
    too_few: bool = Field(description="This capture or the baseline has fewer than min_repeats repeats here.")
    note: str | None = Field(description="Why there is no test, when there is none.")


class SweepRow(BaseModel):
    capture: str
    label: str
    kernel: str | None
    tags: dict[str, str]
    repeats: int = Field(description="Largest number of repeats of one point.")
    workload_kind: str
    cells: dict[str, SweepCell] = Field(description="Keyed by point key; a point the capture lacks is absent.")


class SweepMatrix(BaseModel):
    baseline: str
    metric: SweepMetric
    metrics: list[SweepMetric] = Field(description="Every metric these captures have, for the metric menu.")
    params: list[SweepParam]
    points: list[SweepPoint] = Field(description="The columns, in sweep order.")
    rows: list[SweepRow] = Field(description="The captures, baseline first, then in the order asked for.")
    alpha: float = Field(description="Significance level of the marks (0.05).")
    min_repeats: int = Field(description="Repeats needed on both sides before a difference is marked (3).")
    host_diff: list[HostDiff]
    commands: dict[str, list[str]] = Field(description="Each capture's first run's command line.")


class LogSeriesPoint(BaseModel):
    t_s: float = Field(description="Seconds since the job started (the end of the averaging window).")
    mean: float = Field(description="Mean over the runs at this time.")
    min: float
    max: float
    n: int = Field(description="Runs with a value at this time.")


class LogSeries(BaseModel):
    capture: str
    label: str
    point: str | None = Field(description="The sweep point the runs belong to.")
    runs: list[str]
    step_ms: int = Field(description="Averaging window (fio's log_avg_msec).")
    points: list[LogSeriesPoint]


class FioLogSeries(BaseModel):
    log: str = Field(description="bw | iops | lat | clat | slat")
    unit: str = Field(description="B/s, IO/s or ns")
    ddir: str = Field(description="read | write | trim | all (bw and iops added up, latencies averaged)")
    logs: list[str] = Field(description="Log kinds these captures have.")
    ddirs: list[str] = Field(description="Directions in these logs.")
    points: dict[str, list[str]] = Field(description="Per capture, the sweep points that have logs.")
    series: list[LogSeries]
