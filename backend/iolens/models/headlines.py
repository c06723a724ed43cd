"""A capture's headline figures per probe and run (views/headlines.py), for its page.

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class HeadlineFigure(BaseModel):
    label: str = Field(description="What it is: 'IOPS', 'queue depth max', 'top function'.")
    value: float | None = Field(description="The number (null: not measured, or a text figure).")
    unit: str = Field(description="The unit of value, as the frontend's formatter names it: 'IO/s', 'B/s', 'ns', "
                                  "'%', '/s', 'I/Os', 'samples', 'events', '' (a plain number); 'text' for `text`.")
    text: str | None = Field(default=None, description="A figure that is a name (the top function, lock class).")
    source: str = Field(description="Where it came from: the trace or dump and how it was computed.")


class ProbeHeadline(BaseModel):
    probe: Literal["block", "sched", "stacks", "offcpu", "lock_stat", "monitors", "events"]
    run_id: str | None = Field(description="The run; null: the capture as a whole (the probe's figures are not per run).")
    scope: str = Field(description="What the figures cover: 'device 254,0, whole run'.")
    figures: list[HeadlineFigure]
    warnings: list[str] = Field(description="Lost events and other reasons to distrust the figures.")


class CaptureHeadlines(BaseModel):
    capture_id: str
    probes: list[ProbeHeadline] = Field(description="Per probe the capture has (block, sched, stacks, offcpu, lock_stat, "
                                                    "monitors, events, in this order), per run where the probe is.")
    elapsed_ms: float
