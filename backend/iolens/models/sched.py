"""The scheduler (views/sched.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .fio import ComparedCapture, MetricRow

# --- Scheduler (iolens/views/sched.py; issue 4) -------------------------------------------------
# Every sched answer starts with SchedViewBase: the capture, the runs it covers with their loss
# checks, and `events_lost` / `warnings` to show above any chart built from it.


class SchedCheck(BaseModel):
    """One ingest check of a run's scheduler trace (table sched_checks)."""

    name: str = Field(
        description="recorded_vs_counted: trace vs perf stat's count of the same tracepoint in the run; "
                    "waking_vs_wakeup: the two wakeup tracepoints' counts; switch_chain: consecutive switches of a "
                    "CPU that chain (the next switches out the task the previous switched in).")
    event: str = Field(description="The tracepoint checked, e.g. 'sched:sched_waking'.")
    recorded: int | None
    expected: int | None = Field(description="What the trace should hold (perf stat's count...).")
    ratio: float | None = Field(description="recorded / expected; null when it could not be checked.")
    threshold: float = Field(description="Below this ratio (and more than 32 events missing) events count as lost.")
    ok: bool | None = Field(description="null: not checked (no perf stat count).")
    detail: str = Field(description="One sentence, for display.")


class SchedRun(BaseModel):
    """A run with a scheduler trace (perf-sched artifact)."""

    id: str
    repeat: int
    params: dict[str, object]
    artifact: str = Field(description="Path of the perf-sched artifact in the bundle.")
    duration_s: float = Field(description="First to last event: the denominator of every rate of the run.")
    first_ts_ns: int = Field(description="perf clock of the first event: t = 0 of the run's series.")
    offset_ns: int | None = Field(default=None, description=(
        "Where the first event lies from the run's start (its clock reading; the timeline's sched_offset_ns, "
        "negative when perf started first; 0 when the run has no clock reading)."))
    from_ns: int | None = Field(default=None, description=(
        "The range counted in this run, ns since its first event (on clock 'run' each run's own); null: whole run."))
    to_ns: int | None = Field(default=None, description="End of this run's range (exclusive); null: whole run.")
    events: dict[str, int] = Field(description="Events recorded: switch, wakeup, waking, wakeup_new, migrate.")
    cpus: list[int] = Field(description="CPUs seen in the trace.")
    workload_cpus: list[int] = Field(description="CPUs the workload was pinned to; empty when not known.")
    workload_cpus_source: str | None = Field(
        description="Where workload_cpus comes from: runs[].params.cpus, workload.cpus or host.cpu.affinity.")
    workload_comm: str | None = Field(description="The workload's task name ('fio'), used to flag its tasks.")
    events_lost: bool = Field(description="A check failed: the trace misses events; figures undercount.")
    checks: list[SchedCheck]
    warnings: list[str]


class SchedViewBase(BaseModel):
    capture_id: str
    label: str
    runs: list[SchedRun] = Field(description="The runs this answer covers, in run order.")
    events_lost: bool = Field(description="Some run lost events: show `warnings` with the figures.")
    warnings: list[str]
    from_ns: int | None = Field(default=None, description=(
        "The time range asked for, [from_ns, to_ns) on `clock` (the notebook's timeline selection); null: whole "
        "runs. Each run's own part is runs[].from_ns, to_ns. Rates divide by the part of it each trace covers."))
    to_ns: int | None = Field(default=None, description="End of the range counted (exclusive); null: whole runs.")
    clock: Literal["trace", "run"] = Field(default="trace", description=(
        "trace: from_ns, to_ns are ns since each run's first sched event; run: since each run's start."))


class SchedTask(BaseModel):
    """A task (pid and comm) or a task group (pid null, comm = group)."""

    pid: int | None = Field(description="Thread id; null for a group. 0 is the idle task.")
    comm: str = Field(description="Task name as the kernel had it, or the group name.")
    group: str = Field(description="'<idle>', 'kworker/*', per-CPU kernel threads as 'name/*' ('ksoftirqd/*'), "
                                   "else the comm.")
    workload: bool = Field(description="The task is the workload's (its comm is the run's workload_comm).")


class SchedSwitchSeries(BaseModel):
    """Per run and CPU, events per second over time, from the trace (columnar: index i of every list
    is the interval starting at t_s[i])."""

    run_id: str
    cpu: int
    workload: bool = Field(description="The CPU is one the workload was pinned to: highlight it.")
    t_s: list[float] = Field(description="Interval start, s since the run's first sched event.")
    switches: list[float] = Field(description="Context switches/s.")
    involuntary: list[float] = Field(description="Switches/s where the task leaving was preempted (R/R+).")
    voluntary: list[float] = Field(description="Switches/s where the task leaving blocked or exited.")
    from_idle: list[float] = Field(description="Switches/s out of the idle task.")
    wakeups: list[float] = Field(description="Wakeups/s targeted at the CPU.")
    migrations: list[float] = Field(description="Tasks migrated to the CPU per s.")


class SchedCountedSeries(BaseModel):
    """perf stat's own intervals (-I) of one counter: counted, never lost."""

    run_id: str
    path: str = Field(description="The perf-stat artifact.")
    scope: str = Field(description="system (perf stat -a) or workload (the workload's processes).")
    cpu: int | None = Field(description="The CPU with -A; null when summed over CPUs.")
    aggr: str | None = Field(description="perf's aggregation id ('CPU1', 'S0-D0-C1'); null when summed.")
    workload: bool
    event: str = Field(description="context-switches, cpu-migrations, task-clock, sched:sched_switch, ...")
    unit: Literal["/s", "CPUs"] = Field(description="'/s' for counts; 'CPUs' for task-clock (msec per ms).")
    start_s: float = Field(description="The first interval's start (perf stat's time 0) on the trace's axis: "
                                       "s since the run's first sched event (negative: before it).")
    t_s: list[float] = Field(description="Interval ends on the trace's axis (s since the run's first sched event): "
                                         "perf_t_s + start_s.")
    perf_t_s: list[float] = Field(description="Interval ends as perf printed them: s since perf stat's own start.")
    values: list[float | None]
    alignment: Literal["clock", "wall", "unknown"] = Field(
        description="How start_s is known: 'clock' perf stat's start recorded on the trace's clock by the collector "
                    "(stat_clock_at_start_ns); 'wall' from wall-clock start times (perf's '# started on', whole "
                    "seconds, and the run's start): within about a second; 'unknown' assumed 0 (drawn as if perf "
                    "stat started with the trace).")
    alignment_note: str = Field(description="The same in a sentence, for the chart.")
    wall_zone: Literal["host", "utc"] | None = Field(
        None, description="How perf's '# started on' (ctime: the host's local time) was read, when there is one and "
                          "the answer is not 'clock': 'host' by the host's UTC offset the collector recorded "
                          "(host.clock.utc_offset_s), 'utc' as UTC, the bundle having no offset (an hour off on a "
                          "host an hour from UTC: then the header does not fit the run, and alignment is 'unknown').")


class SchedSwitchRate(SchedViewBase):
    cpus: str = Field(description="The CPU selection asked for: all, workload, or a list.")
    step_ms: int
    series: list[SchedSwitchSeries]
    counted: list[SchedCountedSeries] = Field(description="perf stat intervals of the same runs, when recorded.")


class SchedTaskRow(BaseModel):
    run_id: str
    cpu: int
    task: SchedTask
    switched_in: int
    switched_out: int
    involuntary: int = Field(description="Switched out while runnable (R/R+): preempted.")
    voluntary: int = Field(description="Switched out blocked or exiting (S, D, I...); 0 for idle.")
    states: dict[str, int] = Field(description="Its state at each switch-out, as perf printed it: count.")
    run_ns: int = Field(description="Time it ran on this CPU.")
    slices: int = Field(description="How many times it ran.")
    mean_slice_ns: float | None
    cpu_share: float | None = Field(description="run_ns / trace duration: fraction of this CPU.")


class SchedTasks(SchedViewBase):
    cpus: str
    group_by: Literal["task", "group"]
    rows: list[SchedTaskRow]


class SchedPairRow(BaseModel):
    run_id: str
    cpu: int
    prev: SchedTask = Field(description="The task leaving the CPU.")
    next: SchedTask = Field(description="The task arriving.")
    switches: int
    involuntary: int = Field(description="prev was preempted (R/R+).")
    voluntary: int
    per_s: float | None
    share: float | None = Field(description="Fraction of the CPU's switches in the run.")


class SchedPairs(SchedViewBase):
    cpus: str
    group_by: Literal["task", "group"]
    rows: list[SchedPairRow]


class SchedPingPongRow(BaseModel):
    """Two tasks switching to each other back and forth on one CPU: Y -> X -> Y with X running at
    most window_us in between is one round trip."""

    run_id: str
    cpu: int
    a: SchedTask
    b: SchedTask
    round_trips: int
    a_inside_b: int = Field(description="Round trips where a ran briefly between two runs of b.")
    b_inside_a: int
    preempting: int = Field(description="Round trips where the brief task preempted the other (R/R+).")
    per_s: float | None = Field(description="round_trips / trace duration.")
    share: float | None = Field(description="round_trips / all switches of the CPU: near 1 when the CPU does "
                                            "nothing but this ping-pong (each switch begins one brief run).")
    median_inside_ns: int | None = Field(description="How long the brief task ran per round trip, median.")
    p90_inside_ns: int | None
    first_s: float = Field(description="First round trip, s since the run's first event.")
    last_s: float


class SchedPingPong(SchedViewBase):
    cpus: str
    group_by: Literal["task", "group"]
    window_us: int
    rows: list[SchedPingPongRow] = Field(description="Most round trips first.")


class DelayBin(BaseModel):
    lo_ns: int
    hi_ns: int
    count: int


class SchedDelayRow(BaseModel):
    run_id: str
    task: SchedTask
    count: int = Field(description="Switch-ins with a known delay.")
    unknown: int = Field(description="Switch-ins after a sleep whose wakeup was not recorded (lost events).")
    reasons: dict[str, int] = Field(description="waking / wakeup / wakeup_new (ready since woken), preempted "
                                                "(ready since switched out runnable): count.")
    mean_ns: float | None
    p50_ns: int | None = Field(description="Percentiles by nearest rank over the delays rounded up to the us.")
    p90_ns: int | None
    p99_ns: int | None
    max_ns: int | None
    histogram: list[DelayBin] = Field(description="Log2 bins of the delay rounded up to the us: [0, 1 us], "
                                                  "(1, 2 us], (2, 4 us] ...; empty bins left out.")


class SchedDelays(SchedViewBase):
    cpus: str = Field(description="CPU selection: where the task was switched in.")
    group_by: Literal["task", "group"]
    reason: Literal["all", "woken", "preempted"]
    rows: list[SchedDelayRow]


class SchedRuntimeRow(BaseModel):
    run_id: str
    task: SchedTask
    run_ns: int = Field(description="Time it ran on the selected CPUs.")
    cpus_used: float | None = Field(description="run_ns / trace duration, in CPUs (like task-clock's CPUs utilized).")
    share: float | None = Field(description="Fraction of the selected CPUs' time.")
    slices: int
    mean_slice_ns: float | None
    preempted: int = Field(description="Slices that ended with the task preempted.")
    cpus: list[int] = Field(description="The selected CPUs it ran on.")


class SchedRuntime(SchedViewBase):
    cpus: str
    group_by: Literal["task", "group"]
    rows: list[SchedRuntimeRow]


class SchedRunMetric(BaseModel):
    key: str
    label: str
    unit: str = Field(description="'/s', 'ns', '%' or 'CPUs'.")
    better: Literal["higher", "lower", "neutral"]
    description: str
    values: dict[str, float | None] = Field(description="Keyed by run id; null when the run lacks the data.")


class SchedOverview(SchedViewBase):
    metrics: list[SchedRunMetric]
    pingpong: list[SchedPingPongRow] = Field(description="Top ping-pong pairs on the workload's CPUs.")
    loss_threshold: float = Field(description="A check ratio below this marks a run as having lost events.")


class SchedCaptureStatus(BaseModel):
    runs: list[str] = Field(description="Runs with a scheduler trace; a metric's cell aggregates these.")
    events_lost: bool
    warnings: list[str]
    workload_cpus: list[int]
    workload_comm: str | None


class SchedComparison(BaseModel):
    captures: list[ComparedCapture] = Field(description="In the order asked for.")
    baseline: str
    metrics: list[MetricRow] = Field(description="Per metric, each capture's statistics over its runs and the "
                                                 "ratio of its mean to the baseline's.")
    status: dict[str, SchedCaptureStatus] = Field(description="Keyed by capture id: runs, loss flag, warnings.")
    pingpong: dict[str, list[SchedPingPongRow]] = Field(
        description="Keyed by capture id: top ping-pong pairs on the workload's CPUs, task groups (kworker/*).")
    loss_threshold: float
    from_ns: int | None = Field(default=None, description=(
        "The time range counted, [from_ns, to_ns) in ns since each run's first sched event; null: whole runs. "
        "Under a range the metrics from perf stat's and fio's own whole-run counts are left out."))
    to_ns: int | None = Field(default=None, description="End of the range counted (exclusive); null: whole runs.")
    clock: Literal["trace", "run"] = Field(default="trace", description=(
        "trace: from_ns, to_ns are ns since each run's first sched event; run: since each run's start, each run "
        "counting the range on its own trace."))
