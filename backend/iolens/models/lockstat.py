"""lock_stat and lock classes linked to perf call stacks (views/lock_stat.py, views/lock_stacks.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .fio import ComparedCapture

# --- lock_stat (iolens/views/lock_stat.py) ---------------------------------------------------


class LockStatAvailability(BaseModel):
    """Whether a capture has lock_stat, which dumps the figures come from, and why not when it has none."""

    capture: str = Field(description="Capture id.")
    available: bool
    scope: Literal["runs", "capture", "none"] = Field(
        description="'runs': one dump per run (cleared before, read after it) summed over the runs; "
                    "'capture': a dump attached by hand for the whole capture; 'none'."
    )
    runs: list[str] = Field(description="Runs whose dumps the figures add up (empty for a capture-wide dump).")
    paths: list[str] = Field(description="The dumps' paths in the bundle.")
    ops: int | None = Field(
        description="Operations of the workload over the same runs: fio's total I/Os (all jobs and directions); "
                    "null when fio reported none. The denominator of every per-I/O figure."
    )
    reason: str | None = Field(description="Why there is no lock_stat, from the capture's notes; null when available.")
    notes: list[str] = Field(description="The capture's notes about lock_stat (collector messages).")
    warnings: list[str] = Field(description="What the parser noticed in the dumps (lockdep off, numbers cut...).")
    debug_locks_off: bool = Field(description="Lockdep switched itself off during a dump: its figures are partial.")


class LockRunValue(BaseModel):
    run: str | None = Field(description="Run id; null for a capture-wide dump.")
    contentions: int
    wait_total_ns: float | None


class LockClassStat(BaseModel):
    """One lock class (and read/write state) of one capture, summed over its dumps. Times in ns."""

    contentions: int = Field(description="Acquisitions that had to wait.")
    con_bounces: int = Field(description="Contentions that involved cross-CPU data.")
    acquisitions: int
    acq_bounces: int = Field(description="Acquisitions that involved cross-CPU data.")
    wait_total_ns: float | None = Field(description="Time spent waiting (sum over the dumps).")
    wait_min_ns: float | None = Field(description="Shortest wait in any dump; null without contention.")
    wait_max_ns: float | None
    wait_avg_ns: float | None = Field(description="wait_total / contentions; null without contention.")
    hold_total_ns: float | None
    hold_min_ns: float | None
    hold_max_ns: float | None
    hold_avg_ns: float | None = Field(description="hold_total / acquisitions.")
    contentions_per_op: float | None = Field(description="contentions / the capture's ops (I/Os); null without ops.")
    wait_per_op_ns: float | None = Field(description="wait_total / ops: waiting on this lock per I/O, in ns.")
    cut: bool = Field(description="A time of this class was cut by the kernel in some dump: totals are low.")
    per_run: list[LockRunValue] = Field(description="Contentions and wait per dump, in run order.")


class LockClassKey(BaseModel):
    lock_class: str = Field(description="Class name as the kernel printed it (with '#N' and '/N' suffixes).")
    occurrence: int = Field(description="0, or n for the (n+1)th class printed with the same (cut) name.")
    rw: Literal["W", "R"] = Field(description="W: write or exclusive acquisitions; R: read acquisitions.")
    base_name: str
    subclass: int


class LockTopRow(LockClassKey):
    stat: LockClassStat
    points: int = Field(description="Distinct contention and contending call sites recorded for the class.")


class LockStatTop(BaseModel):
    capture: ComparedCapture
    availability: LockStatAvailability
    by: Literal["wait_total", "contentions", "wait_avg"]
    total: int = Field(description="Class rows in the capture (before the limit).")
    contended: int = Field(description="Class rows with at least one contention.")
    rows: list[LockTopRow]
    alternative: str = Field(description="What to use where lock_stat is unavailable.")


class LockPointPublic(BaseModel):
    kind: Literal["contention", "contending"] = Field(
        description="contention: a call site that waited for the lock; contending: one that held it meanwhile."
    )
    symbol: str = Field(description="As printed: 'func+0x57/0x280', ' [module]' for modules.")
    function: str | None
    module: str | None
    count: int = Field(description="Sum over the dumps.")
    runs: list[str] = Field(description="Runs whose dumps list this call site.")
    addresses: list[str] = Field(description="Addresses as printed (hashed since Linux 4.15).")


class LockStatPoints(BaseModel):
    capture: str
    lock_class: str
    occurrence: int
    points: list[LockPointPublic] = Field(description="Contention points first, each kind by count, most first.")


class LockCompareCell(BaseModel):
    stat: LockClassStat | None = Field(description="Null when the class is not in this capture's dumps.")
    status: Literal["baseline", "appeared", "vanished", "changed", "idle"] = Field(
        description="Against the baseline: 'appeared' contended here but not in the baseline; 'vanished' the "
                    "reverse; 'changed' contended in both; 'idle' in neither; 'baseline' for the baseline itself."
    )
    delta_wait: float | None = Field(description="Wait (per op when `per_op`, else total) minus the baseline's, ns.")
    ratio_wait: float | None = Field(description="Wait / the baseline's; null when the baseline's is 0.")
    delta_contentions: float | None = Field(description="Contentions (per op when `per_op`) minus the baseline's.")
    ratio_contentions: float | None


class LockCompareRow(LockClassKey):
    cells: dict[str, LockCompareCell] = Field(description="Keyed by capture id; captures without lock_stat are absent.")
    change: float = Field(description="The sort key: the largest |delta_wait| over the captures.")


class LockStatComparison(BaseModel):
    captures: list[ComparedCapture] = Field(description="In the order asked for.")
    baseline: str
    availability: dict[str, LockStatAvailability] = Field(description="Keyed by capture id.")
    per_op: bool = Field(
        description="True when every capture with lock_stat has fio I/Os: waits and contentions are compared per I/O; "
                    "else as totals."
    )
    sort: str = Field(description="How the rows are ordered, in words.")
    total: int = Field(description="Class rows contended in at least one capture (before the limit).")
    rows: list[LockCompareRow]
    alternative: str = Field(description="What to use where lock_stat is unavailable.")


# --- lock classes linked to perf call stacks (iolens/views/lock_stacks.py) ----------------------


class LockSymbolSource(BaseModel):
    """Where a symbol searched in the stacks comes from."""

    capture: str = Field(description="Capture id whose lock_stat names the symbol.")
    kind: Literal["contention", "contending", "class"] = Field(
        description="contention: a call site that waited; contending: one that held the lock meanwhile; "
                    "class: an identifier of the class name that is a frame name in the stacks."
    )
    symbol: str = Field(description="As lock_stat printed it ('get_page_from_freelist+0xaf0/0x1370'), or the class name.")
    count: int | None = Field(description="Times the call site waited or made others wait (summed over the dumps); "
                                          "null for a class-name identifier.")


class LockStackLine(BaseModel):
    folded: str = Field(description="The whole stack as folded text: 'comm;root;...;leaf' (repeats merged).")
    weight: int = Field(description="Summed sample periods (ns of CPU for cpu-clock/task-clock).")
    samples: int
    slowpath: bool = Field(description="A lock slow-path frame is below (called from) the symbol's frame.")


class LockSymbolCapture(BaseModel):
    """One symbol in one capture's perf stacks (the capture's first sampled event, as the flame graph)."""

    capture: str = Field(description="Capture id.")
    samples: int = Field(description="Samples whose stack has the symbol's frame (once each, where it recurses).")
    weight: int = Field(description="Their summed periods, in the capture's weight_unit.")
    share_pct: float = Field(description="weight / the capture's total weight of the event, in percent.")
    slow_samples: int = Field(description="Of those samples, the ones with a lock slow-path frame below the symbol.")
    slow_weight: int
    slow_pct: float | None = Field(description="slow_weight / weight, in percent; null when weight is 0.")
    frames: list[str] = Field(description="The frame names that matched, as folded (e.g. 'rwsem_wake.isra.0').")
    top: list[LockStackLine] = Field(description="The heaviest stacks with the frame, up to 5, heaviest first.")


class LockSymbol(BaseModel):
    name: str = Field(description="The function name searched (compiler clone suffixes such as '.isra.0' removed).")
    sources: list[LockSymbolSource]
    found: bool = Field(description="In some capture's stacks.")
    stacks: list[LockSymbolCapture] = Field(description="One per capture with stacks, in the captures' order "
                                                        "(zeros included).")


class LockStacksCapture(BaseModel):
    id: str
    label: str
    kernel: str | None
    lock_stat: bool = Field(description="Its lock_stat has this class: its call sites are among the symbols.")
    stacks: bool = Field(description="It has perf call stacks (iolens-collect run --stacks).")
    event: str | None = Field(description="The event counted: the capture's first sampled one, as the flame graph.")
    weight_unit: Literal["ns", "count"] = Field(description="ns of CPU for cpu-clock and task-clock; else events.")
    total_weight: int = Field(description="Weight of every sample of the event with a call stack: the % denominator.")
    total_samples: int
    runs: list[str] = Field(description="Runs with stacks (all counted, repeats summed).")
    reason: str | None = Field(description="Why it has no stacks; null when it has.")


class LockStacks(BaseModel):
    """A lock class's call sites (and class-name identifiers) found in perf call stacks."""

    capture: str = Field(description="The capture whose lock class this is.")
    lock_class: str
    occurrence: int
    captures: list[LockStacksCapture] = Field(description="The class's capture first, then the others asked for.")
    symbols: list[LockSymbol] = Field(description="Contention points first, then contending points, by count; "
                                                  "then class-name identifiers.")
    absent: list[str] = Field(description="Symbols in no capture's stacks.")
    slowpath: list[str] = Field(description="The lock slow-path frames counted ('*' is any text).")
    notes: list[str] = Field(description="What the numbers do not say, and what to record when nothing matched.")
    elapsed_ms: float
