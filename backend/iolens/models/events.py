"""Traced events (`iolens-collect --trace`): views/events.py.

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from pydantic import BaseModel, Field


class TracedEvent(BaseModel):
    capture: str = Field(description="Capture id.")
    label: str
    event: str = Field(description="sys:name, e.g. xfs:xfs_ail_insert.")
    table: str = Field(description="The event's table for SQL cells (trace_SYS__NAME).")
    runs: int = Field(description="Runs that recorded it.")
    events: int = Field(description="Events recorded over those runs.")
    per_run: float = Field(description="Events per run (mean).")
    per_s: float | None = Field(description="Events per second between the first and the last event of each run, averaged.")
    recorded: int | None = Field(description="What perf record kept, as the collector counted (null: not known).")
    counted: int | None = Field(description="What perf stat counted over the same runs (null: not known).")
    lost: bool = Field(description="perf record kept fewer than 90% of what perf stat counted in some run.")
    fields: dict[str, str] = Field(description="Column -> type of the event's fields.")


class EventsSummary(BaseModel):
    captures: list[str]
    events: list[TracedEvent]


class FieldValueCount(BaseModel):
    value: str | None = Field(description="The field's value as text; null for the rest (values beyond the top N, summed).")
    rest: bool = Field(description="True for the row that sums the values beyond the top N.")
    values: int = Field(description="Distinct values in the row (1, or how many the rest sums).")
    count: int = Field(description="Events over the capture's runs.")
    per_run: float = Field(description="Events per run.")
    first_s: float | None = Field(description="First event with this value, seconds since its run started (earliest run).")
    last_s: float | None = Field(description="Last event with this value, seconds since its run started (latest).")


class FieldCounts(BaseModel):
    capture: str
    label: str
    runs: int
    total: int
    rows: list[FieldValueCount]


class EventsByField(BaseModel):
    event: str
    field: str | None = Field(description="The field counted by; null: counts of the event alone.")
    top: int
    captures: list[FieldCounts]


class RateSeries(BaseModel):
    capture: str
    label: str
    per_s: list[float] = Field(description="Events per second in each bucket, averaged over the runs.")


class EventsRate(BaseModel):
    event: str
    bucket_s: float = Field(description="Bucket width, seconds since each run's start.")
    series: list[RateSeries]
