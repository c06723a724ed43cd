"""Time order of the flame cell (views/flame_time.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .flame import FlameCaptureRef, FlameCpu, FlameFilters, FlameRun, FlameTask


class FlameTrack(BaseModel):
    kind: Literal["thread", "cpu"]
    tid: int | None
    pid: int | None
    comm: str | None = Field(description="The thread's most frequent command name.")
    cpu: int | None
    picked: str = Field(description="Why this track: chosen, or the default (the workload's busiest thread).")


class FlameTimeOrder(BaseModel):
    capture: FlameCaptureRef
    filters: FlameFilters = Field(description="The selection, resolved: one run, and the thread or the CPU.")
    weight_unit: Literal["ns", "count"]
    run: str
    runs: list[FlameRun]
    track: FlameTrack
    threads: list[FlameTask] = Field(description="Threads of the run with samples of the event, most first.")
    cpus: list[FlameCpu] = Field(description="CPUs of the run with samples of the event.")
    t0_ns: int = Field(description="The run's origin: its first sample of any event (perf's clock, ns).")
    duration_ns: int = Field(description="From the run's first sample to its last.")
    interval_ns: int = Field(description="Time one sample stands for: a box of n samples lasts n x interval_ns.")
    interval_from: str = Field(description="How interval_ns was found.")
    samples: int
    stackless_samples: int
    names: list[str] = Field(description="Distinct frame names.")
    stack_frames: list[int] = Field(description="Frames of the distinct stacks, root side first, the command name first.")
    stack_start: list[int] = Field(description="Stack k is stack_frames[stack_start[k]:stack_start[k + 1]].")
    dt_ns: list[int] = Field(description="Per sample in time order: ns since the previous one (the first: since t0_ns).")
    stack: list[int] = Field(description="Per sample: its stack (-1: no usable frame).")
    notes: list[str]
    elapsed_ms: float
