"""Off-CPU and wakeup stacks (views/offcpu.py; docs/offcpu.md).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .flame import FlameCaptureRef, FlameTree


class OffcpuCheck(BaseModel):
    name: Literal["recorded_vs_counted", "pairing"]
    event: str
    recorded: int | None
    expected: int | None
    ratio: float | None
    ok: bool | None = Field(description="Null when not checked (no perf stat in the run).")
    detail: str


class OffcpuRun(BaseModel):
    """One run's recording: what was weighted and what was not (the ends, lost events)."""

    run_id: str
    switches: int = Field(description="sched_switch events recorded.")
    wakings: int = Field(description="sched_waking events recorded.")
    intervals: int = Field(description="Switch-outs paired with the thread's next switch-in: the weighted stacks.")
    blocked_ns: int = Field(description="Their summed time off the CPU, ns.")
    open_at_end: int = Field(description="Switch-outs with no switch-in before the recording's last event: not weighted.")
    open_at_end_ns: int = Field(description="Their time from the switch-out to the last event (a lower bound), ns.")
    in_at_start: int = Field(description="Switch-ins of threads off the CPU since before the recording: no stack.")
    unpaired: int = Field(description="Switch-outs or switch-ins whose partner was lost: not weighted.")
    duration_ns: int | None = Field(description="First to last event of the recording.")
    threads: int = Field(description="Threads with at least one weighted wait: intervals and blocked_ns are their "
                                     "totals (the summary lists at most its limit of them).")
    events_lost: bool
    warnings: list[str]
    checks: list[OffcpuCheck]


class OffcpuTaskRow(BaseModel):
    """A thread's time off the CPU in one run, by the state it left in."""

    run_id: str
    tid: int
    pid: int | None
    comm: str
    group: str = Field(description="'kworker/*', per-CPU kernel threads as 'name/*', else the comm (the sched views' groups).")
    workload: bool = Field(description="Its comm is the run's workload's ('fio'): listed first.")
    intervals: int
    blocked_ns: int
    states: dict[str, int] = Field(description="prev_state -> ns off the CPU after leaving in that state "
                                               "(S sleeping, D uninterruptible, R/R+ preempted, I idle kthread).")
    max_ns: int = Field(description="The longest single time off the CPU.")
    top_waker: str | None = Field(description="The group that woke it most often (first sched_waking after its switch-out).")


class OffcpuSummary(BaseModel):
    capture: FlameCaptureRef
    runs: list[OffcpuRun]
    events_lost: bool
    warnings: list[str]
    workload_comm: str | None = Field(description="The workload's task name ('fio'), when known.")
    tasks: list[OffcpuTaskRow] = Field(description="Per run at most `limit` threads: the workload's first, then most "
                                                   "time off the CPU first (each run's totals: its row in runs).")


class OffcpuSide(BaseModel):
    """One task (or task group) of a pair: where it blocked, and what woke it."""

    selector: str = Field(description="As asked: a thread id ('7894') or a task group ('kworker/*').")
    label: str = Field(description="The comm(s) of the threads selected.")
    tids: list[int]
    intervals: int
    blocked_ns: int = Field(description="Time off the CPU of the selected threads, ns (the blocked tree's total).")
    states: dict[str, int] = Field(description="prev_state -> ns off the CPU.")
    woken_by_partner: int = Field(description="Intervals that ended after a wakeup raised by the other side.")
    woken_by_partner_ns: int = Field(description="Their time off the CPU, ns.")
    wakeups: int = Field(description="sched_waking events of these threads (the woken-by tree's total).")
    wakeups_by_partner: int
    blocked: FlameTree = Field(description="Stacks it switched out with, 'comm;[state X];frames', weighted by ns "
                                           "off the CPU until it ran again (self_samples: intervals).")
    woken_by: FlameTree = Field(description="Stacks of the wakeups aimed at it, 'waker comm;frames;[wakes COMM]', one "
                                            "per sched_waking (self_weight = self_samples = wakeups).")


class OffcpuPair(BaseModel):
    capture: FlameCaptureRef
    run_id: str
    a: OffcpuSide
    b: OffcpuSide
    events_lost: bool
    warnings: list[str]
    notes: list[str]
