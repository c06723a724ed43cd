"""Response and request models of the HTTP API.

They are the single source of the OpenAPI schema, from which the frontend's TypeScript client is
generated (frontend/src/api/schema.d.ts): change a model here, run `make api-client`.
Names follow XBase / XPublic / XDetail.
"""

from __future__ import annotations

from typing import Annotated, Literal

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
    writes_need_token: bool = Field(
        default=False, description="Uploads and saves need `Authorization: Bearer TOKEN` (server started with a token)."
    )


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
    artifact_kinds: list[str] = Field(default_factory=list,
                                      description="Kinds of the bundle's artifacts ('fio-json', ...): what data it holds.")


class ProbeCount(BaseModel):
    event: str = Field(description="Tracepoint, e.g. 'block:block_rq_complete'.")
    recorded: int | None = Field(description="Events in the recording's text.")
    counted: int | None = Field(description="perf stat's count of the same event over the run.")


class ProbePublic(BaseModel):
    """What one perf probe of a run recorded and what it cost (the manifest's runs[].probes.NAME)."""

    probe: str = Field(description="stacks | sched | block (the collector flag: --stacks, --sched, --block).")
    source: str | None = Field(description="perf or blktrace (block); perf otherwise.")
    tool: str | None = Field(description="The recorder's version, e.g. 'perf version 6.1.187'.")
    duration_s: float | None = Field(description="Seconds the events were enabled (the workload's run).")
    events: int | None = Field(description="Samples or events recorded.")
    events_per_s: float | None
    perf_cpu_s: float | None = Field(description="CPU seconds of the perf record process over the run.")
    perf_cpu_pct: float | None = Field(
        description="perf_cpu_s / duration_s, in % of one CPU: the recorder's overhead in user space "
        "(the kernel's cost of the tracepoints or sampling is not in it).")
    stat_perf_cpu_s: float | None = Field(description="CPU seconds of the perf stat that counted the same events.")
    data_bytes: int | None = Field(description="perf.data (or the blktrace files) as recorded, before conversion.")
    artifact_bytes: int | None = Field(description="The compressed text kept in the bundle.")
    size_cap_mb: int | None = Field(description="--probe-max-mb: perf record --max-size.")
    size_cap_reached: bool = Field(description="The recording stopped at the cap: it covers only part of the run.")
    counts: list[ProbeCount] = Field(description="Recorded vs counted, per tracepoint (sched, block).")
    lost: list[str] = Field(description="Tracepoints recorded below 90% of their count (and more than 32 short).")


class RunPublic(BaseModel):
    id: str
    index: int
    repeat: int
    params: dict[str, object]
    started_at: str | None
    ended_at: str | None
    exit_code: int | None
    cmdline: list[str]
    probes: list[ProbePublic] = Field(default_factory=list, description="The perf probes of the run, if any.")


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


# --- Notebooks (iolens/notebook) -------------------------------------------------------------
# The notebook document is the saved form of a notebook: these models are its schema (the
# frontend's NotebookDocument type is generated from them). Changing its shape means a new
# format_version and an upgrader in iolens/notebook/document.py (and src/state/document.ts).

NOTEBOOK_FORMAT_VERSION = 1


class MarkdownCell(BaseModel):
    """Text written by the author, in Markdown. Rendered without raw HTML, scripts or images."""

    type: Literal["markdown"]
    text: str = Field(max_length=100_000)


class ViewCell(BaseModel):
    """One view of iolens (a cell kind of the frontend's registry) with its state."""

    type: Literal["view"]
    kind: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$", description="Cell kind, e.g. 'fio'.")
    state: str = Field(default="", max_length=20_000,
                       description="The kind's encoded state (its part of the compare URL); '' is the default.")
    full: bool = Field(default=False, description="Shown at the full width of the window.")


class SqlChart(BaseModel):
    mark: Literal["line", "bar", "scatter"]
    x: str = Field(max_length=200, description="Result column on the x axis.")
    y: list[str] = Field(min_length=1, max_length=8, description="Result columns drawn against x.")


class SqlCell(BaseModel):
    """A read-only query over the notebook's captures, shown as a table and optionally a chart."""

    type: Literal["sql"]
    sql: str = Field(max_length=20_000)
    chart: SqlChart | None = None
    full: bool = False


class NotebookDocument(BaseModel):
    """A notebook: an ordered list of cells over a set of captures, one of them the baseline."""

    format_version: Literal[1] = Field(description="Version of this document format.")
    title: str = Field(max_length=300)
    captures: list[str] = Field(min_length=1, max_length=64, description="Capture ids, in colour order.")
    baseline: str
    cells: list[Annotated[MarkdownCell | ViewCell | SqlCell, Field(discriminator="type")]] = Field(max_length=200)


class NotebookCreate(BaseModel):
    document: NotebookDocument
    parent: str | None = Field(default=None, description="Id of the version this one was edited from.")


class NotebookSaved(BaseModel):
    id: str = Field(description="The version's id: /n/{id} opens exactly this version.")
    parent: str | None
    created: bool = Field(description="False when this exact document (with this parent) was already saved.")
    created_at: str
    url: str = Field(description="Path of the permalink, '/n/{id}'.")


class NotebookCapture(CaptureBase):
    kernel: str | None
    tags: dict[str, str]


class NotebookSummary(BaseModel):
    id: str
    parent: str | None
    title: str
    created_at: str
    format_version: int = Field(description="The document's format_version as saved.")
    captures: list[NotebookCapture] = Field(description="Captures still in the store, in document order.")
    cells: int
    kinds: list[str] = Field(description="Cell kinds, in order: 'markdown', 'sql' or the view kind.")
    children: list[str] = Field(description="Versions saved from this one (newest first).")


class NotebookVersion(NotebookSummary):
    document: NotebookDocument = Field(description="Upgraded to the current format_version.")


class NotebookList(BaseModel):
    notebooks: list[NotebookSummary]
    total: int = Field(description="Matching versions, before the limit.")


# --- SQL cells (iolens/store/sandbox.py) -----------------------------------------------------


class SqlColumn(BaseModel):
    name: str
    type: str = Field(description="DuckDB type, e.g. 'DOUBLE', 'VARCHAR', 'TIMESTAMP'.")


class SqlResult(BaseModel):
    columns: list[SqlColumn]
    rows: list[list[object | None]] = Field(description="At most max_rows rows; values as JSON (timestamps as text).")
    truncated: bool = Field(description="True when the query had more rows than were returned.")
    truncated_by: Literal["rows", "bytes"] | None = Field(
        None, description="What cut the answer: max_rows, or max_bytes of JSON (the rows that fit are returned).")
    elapsed_ms: float
    max_rows: int
    max_bytes: int = Field(description="At most this many bytes of rows as JSON.")
    time_limit_ms: int


class SqlColumnDoc(BaseModel):
    name: str
    type: str
    description: str


class SqlTableDoc(BaseModel):
    name: str
    description: str
    columns: list[SqlColumnDoc]


class SqlTables(BaseModel):
    tables: list[SqlTableDoc]
    max_rows: int
    time_limit_ms: int
    notes: list[str] = Field(description="What SQL cells can and cannot do, one sentence each.")


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


# --- Block layer (issue 8; docs/block.md) ------------------------------------------------------
# Time series are columnar: one `t_ns` array (bucket starts, ns since run start) shared by every
# series of a response, and one value array per series, aligned with it.


class BlockGrid(BaseModel):
    """The time buckets the server chose for the range asked: round interval, aligned range."""

    from_ns: int = Field(description="Start of the first bucket, ns since run start (a multiple of interval_ns).")
    to_ns: int = Field(description="End of the last bucket (from_ns + buckets x interval_ns).")
    interval_ns: int = Field(description="Bucket width: 1, 2 or 5 x 10^k ns, at least (to - from) / buckets asked.")
    buckets: int


class BlockSeriesInfo(BaseModel):
    """One run of one capture, drawn as one series."""

    capture_id: str
    run_id: str
    label: str = Field(description="Capture label, with ' / RUN' when the capture has several runs with block data.")
    device: str | None = Field(description="'major,minor' of the device shown; null when all devices are summed.")
    events_lost: bool = Field(description="The capture lost block events (docs/block.md 'Lost events'): show a warning.")
    warnings: list[str] = Field(description="Why, and the counts of unmatched events.")
    source: str = Field(description="What the values were computed from: 'tiles N ns' (pre-aggregated at ingest), "
                                    "'rows' (the I/O rows of a narrow window) or 'sample 1 in N'.")


class BlockDepthSeries(BlockSeriesInfo):
    depth: list[float] = Field(description="Time-weighted average number of I/Os issued and not completed, per bucket.")


class BlockQueueDepth(BaseModel):
    grid: BlockGrid
    t_ns: list[int] = Field(description="Bucket starts, ns since run start.")
    series: list[BlockDepthSeries]


class BlockOpRate(BaseModel):
    op: str = Field(description="read | write | discard | flush | none | other")
    iops: list[float] = Field(description="I/Os completed per second, per bucket.")
    bytes_per_s: list[float] = Field(description="Bytes completed per second, per bucket.")


class BlockFioLog(BaseModel):
    """One fio iops log (a job's clone) of the run, as read for `fio_iops`."""

    path: str = Field(description="The log's path in the bundle (runs/r000/logs/0-JOB_iops.1.log).")
    job: str
    job_index: int | None = Field(description="The job's position in the job file.")
    clone: int = Field(description="Which clone of the job (numjobs), from 1.")
    avg_msec: int | None = Field(description="fio's log_avg_msec: each entry is the IOPS averaged over that window; "
                                             "null or 0: one entry per I/O.")
    from_ns: int | None = Field(description="Start of what the log covers, ns since run start (null when not aligned).")
    to_ns: int | None = Field(description="End of what the log covers: its last entry (an averaged log writes none "
                                          "for the job's last, unfinished window).")


class BlockFioDdir(BaseModel):
    ddir: str = Field(description="read | write | trim (fio's data direction: block ops read, write, discard)")
    iops: list[float | None] = Field(
        description="fio's IO/s per bucket, summed over the run's jobs and clones: per log, the time-weighted average "
                    "of the entries covering the bucket (an averaged entry covers the time since the log's previous "
                    "one), over the part of the bucket the log covers; null where no log covers the bucket.")
    mean_iops: float | None = Field(description="The same over the whole range asked (null: not covered).")


class BlockFioIops(BaseModel):
    """fio's own IOPS log (write_iops_log, iolens-collect --fio-logs) on the block view's buckets."""

    aligned: bool = Field(description="True when the logs are on the run's time axis (fio wrote CLOCK_MONOTONIC "
                                      "times and the block events count from the same start). False: ddirs is "
                                      "empty and note says why; do not draw.")
    note: str | None = Field(description="Why the log is not aligned, or what to know about it.")
    logs: list[BlockFioLog]
    ddirs: list[BlockFioDdir] = Field(description="One per data direction the logs have entries for.")


class BlockIopsSeries(BlockSeriesInfo):
    ops: list[BlockOpRate]
    fio_iops: BlockFioIops | None = Field(
        description="fio's own IOPS log on the same buckets, per data direction; null when the run wrote no iops log "
                    "(captured without --fio-logs).")


class BlockIops(BaseModel):
    grid: BlockGrid
    t_ns: list[int]
    series: list[BlockIopsSeries]


class BlockLatencySeries(BlockSeriesInfo):
    count: list[int] = Field(description="I/Os completed in the bucket (with a known issue time).")
    mean_ns: list[float | None] = Field(description="Exact mean issue-to-complete latency; null for an empty bucket.")
    max_ns: list[float | None]
    p50_ns: list[float | None] = Field(description="From the log histogram (8 bins per doubling): within ~4.4%.")
    p90_ns: list[float | None]
    p99_ns: list[float | None]
    p99_9_ns: list[float | None]


class BlockLatency(BaseModel):
    grid: BlockGrid
    t_ns: list[int]
    op: str | None = Field(description="Operation filter asked (null: all).")
    series: list[BlockLatencySeries]


class BlockHistBin(BaseModel):
    bin: int
    low_ns: float = Field(description="2^(bin/8)")
    high_ns: float = Field(description="2^((bin+1)/8)")
    count: int


class BlockOpHistogram(BaseModel):
    op: str
    bins: list[BlockHistBin] = Field(description="Non-empty bins, in increasing latency.")


class BlockHistSeries(BlockSeriesInfo):
    ops: list[BlockOpHistogram]


class BlockLatencyHistogram(BaseModel):
    grid: BlockGrid = Field(description="One bucket: the range the histogram covers.")
    bins_per_octave: int
    series: list[BlockHistSeries]


class BlockSizeCount(BaseModel):
    bytes: int
    count: int


class BlockOpSizes(BaseModel):
    op: str
    sizes: list[BlockSizeCount] = Field(description="Each distinct request size, ascending.")


class BlockSizeSeries(BlockSeriesInfo):
    ops: list[BlockOpSizes]


class BlockSizes(BaseModel):
    grid: BlockGrid
    series: list[BlockSizeSeries]


class BlockScatterSeries(BlockSeriesInfo):
    """Points, one per I/O drawn (columnar): a deterministic sample when the window has more I/Os
    than max_points."""

    weight: int = Field(description="I/Os each point stands for (8^level of the sample; 1 = every I/O).")
    t_ns: list[int] = Field(description="Issue time, ns since run start.")
    sector: list[int] = Field(description="First sector (512 B).")
    bytes: list[int | None]
    op: list[str]


class BlockScatter(BaseModel):
    from_ns: int
    to_ns: int
    series: list[BlockScatterSeries]


class BlockRunPublic(BaseModel):
    """A run's block artifact: what was read, what matched, and whether events were lost."""

    capture_id: str
    run_id: str
    label: str
    kind: str = Field(description="blkparse | perf-block")
    path: str
    first_ns: int | None = Field(description="First event, ns since run start.")
    last_ns: int | None
    events: int
    ios: int = Field(description="I/O rows (one per request).")
    matched: int = Field(description="I/Os with both issue and completion.")
    issue_without_complete: int
    complete_without_issue: int
    issue_duplicate: int
    insert_without_issue: int
    partial_complete: int
    requeues: int
    tool_lost: int = Field(description="Events the tracer said it lost (blkparse skips, perf LOST records).")
    counted: dict[str, int | None] | None = Field(description="perf stat counts of the block tracepoints, when captured.")
    actions: dict[str, int] = Field(description="Events recorded per action (issue, complete, insert, ...).")
    main_device: str | None = Field(description="Device with the most I/Os: the views' default.")
    devices: list[dict[str, object]] = Field(description="[{'dev': '254,0', 'ios': n}], most I/Os first.")
    events_lost: bool
    warnings: list[str]


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
    t_s: list[float] = Field(description="Interval end, s since perf stat started (it starts just before the trace).")
    values: list[float | None]


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


class FlameGraph(BaseModel):
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
    tree: FlameTree
    notes: list[str]
    elapsed_ms: float


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
    noise_available: bool = Field(description="Both sides have two or more repeats of one parameter point.")
    noise_reason: str | None = Field(description="Why noise is not marked, when it is not.")
    tree: FlameDiffTree
    functions: list[FlameDiffFunction] = Field(
        description="The largest changes of self and of total share (up to `limit` of each), largest first.")
    functions_count: int
    notes: list[str]
    elapsed_ms: float


# --- Sweeps, repeat statistics and the report (views/sweep.py, stats.py, report.py) ----------------


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
