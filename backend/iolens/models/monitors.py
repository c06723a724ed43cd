"""Monitors (`iolens-collect --monitors`): views/monitors.py.

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from pydantic import BaseModel, Field


class MonitorCell(BaseModel):
    value: float = Field(description="Mean over the capture's runs: per second for a counter, the level (mean) otherwise.")
    lo: float = Field(description="Smallest run's value.")
    hi: float = Field(description="Largest run's value.")
    runs: int
    ratio: float | None = Field(description="value / the baseline's value; null when the baseline's is 0 or missing.")


class MonitorRow(BaseModel):
    source: str = Field(description="vmstat, meminfo, stat, xfs, ext4, slabinfo.")
    key: str
    counter: bool = Field(description="True: a rate (the counter's change per second of run).")
    unit: str = Field(description="Unit of the values: 'bytes', 'bytes/s', '/s', '%', 'USER_HZ/s'...")
    cells: dict[str, MonitorCell | None] = Field(description="Capture id -> its value; null when it has no such key.")
    change: float | None = Field(description="Largest |log2 ratio| against the baseline: the row's rank.")


class MonitorComparison(BaseModel):
    captures: list[str]
    labels: dict[str, str] = Field(description="Capture id -> label.")
    baseline: str
    available: dict[str, list[str]] = Field(description="Capture id -> the sources it has (empty: no monitors).")
    source: str | None = Field(description="The source shown; null: all.")
    total: int = Field(description="Keys that differ or are non-zero, before the limit.")
    rows: list[MonitorRow]


class MonitorPoint(BaseModel):
    t_s: float = Field(description="Seconds since the run started (mean over the runs at this sample).")
    mean: float
    lo: float
    hi: float
    n: int = Field(description="Runs with this sample.")


class MonitorSeries(BaseModel):
    capture: str
    label: str
    points: list[MonitorPoint]


class MonitorSeriesSet(BaseModel):
    source: str
    key: str
    counter: bool
    unit: str
    series: list[MonitorSeries]
