"""Flame graphs (views/flame.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# --- Flame graphs (iolens/views/flame.py; issue 3) ----------------------------------------------
# Trees are columns in pre-order: a node's children follow it, sorted by name. Weights are perf's
# sample periods summed, as folded stacks count them (ns of CPU for cpu-clock and task-clock).


class FlameCaptureRef(BaseModel):
    id: str
    label: str
    kernel: str | None


class FlameEvent(BaseModel):
    event: str | None = Field(description="Event name without modifiers ('cpu-clock'); null when perf printed none.")
    samples: int
    weight: int = Field(description="Summed sample periods.")
    with_stack: int = Field(description="Samples with a usable call stack.")


class FlameRun(BaseModel):
    id: str
    index: int
    repeat: int
    params: dict[str, object] = Field(description="The run's parameter point ({} for a plain run).")
    samples: int = Field(description="Samples of every event in this run.")
    duration_ns: int | None = Field(description="From the run's first sample to its last.")


class FlameCpu(BaseModel):
    cpu: int | None
    samples: int


class FlameTask(BaseModel):
    tid: int | None
    pid: int | None
    comm: str = Field(description="Its most frequent command name.")
    samples: int


class FlameComm(BaseModel):
    comm: str
    samples: int


class FlameFilters(BaseModel):
    """The selection an answer covers (null: everything); `event` is always resolved."""

    event: str | None
    runs: list[str] | None
    cpus: list[int] | None
    tid: int | None
    comm: str | None
    from_ns: int | None = Field(description="ns since each run's first sample (inclusive).")
    to_ns: int | None = Field(description="ns since each run's first sample (exclusive).")


class FlameTree(BaseModel):
    names: list[str] = Field(description="Distinct frame names; names[0] = 'all', the root's.")
    name: list[int] = Field(description="Per node, pre-order: index into names.")
    depth: list[int] = Field(description="Per node: 0 for the root, 1 for the command name, then the frames.")
    self_weight: list[int] = Field(description="Per node: weight of the samples whose stack ends here.")
    self_samples: list[int] = Field(description="Per node: number of those samples.")


class FlameGraphHead(BaseModel):
    """A flame graph without its tree: the `head` section of the columns answer
    (`Accept: application/vnd.iolens.flame-columns`, views/flame_wire.py)."""

    capture: FlameCaptureRef
    filters: FlameFilters
    weight_unit: Literal["ns", "count"] = Field(description="ns: weights are CPU time (cpu-clock, task-clock).")
    total_weight: int = Field(description="The root's total: every selected sample with a stack.")
    total_samples: int
    stackless_samples: int = Field(description="Selected samples without a usable frame (not in the tree).")
    events: list[FlameEvent] = Field(description="The capture's events, the default (first sampled) first.")
    runs: list[FlameRun] = Field(description="Runs with perf samples.")
    cpus: list[FlameCpu] = Field(description="CPUs with samples of the event in the selected runs.")
    tasks: list[FlameTask] = Field(description="Threads with samples of the event in the selected runs, most first.")
    comms: list[FlameComm] = Field(description="Command names, most samples first.")
    notes: list[str]
    elapsed_ms: float


class FlameGraph(FlameGraphHead):
    tree: FlameTree


class FlameFunction(BaseModel):
    name: str
    self_weight: int = Field(description="Weight of the samples whose stack ends in this function.")
    total_weight: int = Field(description="Weight of the samples with this function anywhere in the stack (once each).")
    self_samples: int
    total_samples: int
    self_pct: float = Field(description="self_weight, % of the selection's total weight.")
    total_pct: float


class FlameTop(BaseModel):
    capture: FlameCaptureRef
    filters: FlameFilters
    weight_unit: Literal["ns", "count"]
    total_weight: int
    total_samples: int
    by: Literal["self", "total"]
    functions_count: int = Field(description="Distinct functions in the selection (command names excluded).")
    functions: list[FlameFunction]


class FlameDiffSide(BaseModel):
    capture: FlameCaptureRef
    runs: list[str] = Field(description="Runs with selected samples, in run order.")
    run_weights: dict[str, int] = Field(description="Selected weight per run (the per-run shares' denominators).")
    total_weight: int = Field(description="This side's total: its shares are of this.")
    total_samples: int
    stackless_samples: int
    events: list[FlameEvent]
    all_runs: list[FlameRun] = Field(description="Every run of the capture with perf samples (to choose from).")


class FlameDiffTree(BaseModel):
    names: list[str]
    name: list[int]
    depth: list[int]
    self_a: list[int] = Field(description="Per node: self weight in the first capture.")
    self_b: list[int] = Field(description="Per node: self weight in the second capture.")
    samples_a: list[int]
    samples_b: list[int]
    noise_self: list[bool] | None = Field(
        description="Per node: the change of its self share lies within the spread between repeats (null: no repeats).")
    noise_total: list[bool] | None = Field(description="The same for its total share.")


class FlameDiffFunction(BaseModel):
    name: str
    self_a: float = Field(description="Self share in the first capture, %.")
    self_b: float
    total_a: float = Field(description="Total share in the first capture, %.")
    total_b: float
    delta_self: float = Field(description="self_b - self_a, percentage points.")
    delta_total: float = Field(description="total_b - total_a, percentage points.")
    samples_a: int = Field(description="Samples with this function in the stack, first capture.")
    samples_b: int
    noise_self: bool | None = None
    noise_total: bool | None = None


class FlameDiff(BaseModel):
    a: FlameDiffSide = Field(description="The first capture (before).")
    b: FlameDiffSide = Field(description="The second capture (after): the graph's widths.")
    filters: FlameFilters = Field(description="Applied to both sides (runs: see each side).")
    weight_unit: Literal["ns", "count"]
    noise_available: bool = Field(description="Both sides have 3 or more repeats of one parameter point "
                                                 "(fewer are too few to judge a change).")
    noise_reason: str | None = Field(description="Why noise is not marked, when it is not.")
    tree: FlameDiffTree
    functions: list[FlameDiffFunction] = Field(
        description="The largest changes of self and of total share (up to `limit` of each), largest first.")
    functions_count: int
    notes: list[str]
    elapsed_ms: float
