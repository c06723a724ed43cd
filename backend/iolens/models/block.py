"""The block layer (views/block.py; docs/block.md).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from pydantic import BaseModel, Field

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
