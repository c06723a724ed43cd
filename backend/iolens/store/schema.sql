-- The iolens store: every table, in one place. Times are UTC. Durations in ns, rates per second.
-- Raw rows come from the bundle's artifacts through the pure parsers in iolens/formats; derived
-- tables (fio_results) are computed once at ingest, in the same transaction.

CREATE TABLE IF NOT EXISTS meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

-- One row per ingested bundle. Immutable once written.
CREATE TABLE IF NOT EXISTS captures (
    capture_id        VARCHAR PRIMARY KEY,  -- sha256(canonical manifest)[:16]
    label             VARCHAR NOT NULL,
    tags              JSON NOT NULL,        -- {"fs": "ext4", ...}
    kernel            VARCHAR,              -- host.kernel.release
    hostname          VARCHAR,
    created_at        TIMESTAMP NOT NULL,   -- capture start (manifest created_at)
    ingested_at       TIMESTAMP NOT NULL,
    format_version    INTEGER NOT NULL,
    collector_version VARCHAR,
    workload_kind     VARCHAR NOT NULL,     -- fio | cmd
    workload_summary  VARCHAR,              -- "randwrite bs=4k iodepth=32 libaio direct=1"
    n_runs            INTEGER NOT NULL,
    n_repeats         INTEGER NOT NULL,     -- largest repeat count of one parameter point
    bundle_sha256     VARCHAR NOT NULL,     -- of the uploaded file's bytes; the kept copy's name
    bundle_bytes      BIGINT NOT NULL,
    warnings          JSON NOT NULL,        -- ["..."] what ingest noticed and accepted
    manifest          JSON NOT NULL         -- the manifest as uploaded
);

-- Host facts flattened to dotted keys ("kernel.release", "targets.0.device.scheduler").
CREATE TABLE IF NOT EXISTS host_facts (
    capture_id VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    value      VARCHAR,
    PRIMARY KEY (capture_id, key)
);

-- One row per execution of the workload.
CREATE TABLE IF NOT EXISTS runs (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    run_index  INTEGER NOT NULL,
    repeat     INTEGER NOT NULL,
    params     JSON NOT NULL,       -- the sweep point ({} for a plain run)
    started_at TIMESTAMP,
    ended_at   TIMESTAMP,
    exit_code  INTEGER,
    cmdline    JSON NOT NULL,       -- ["fio", "--output-format=json+", ...]
    PRIMARY KEY (capture_id, run_id)
);

-- Every file of the bundle that the manifest lists (run_id NULL for capture-wide files).
CREATE TABLE IF NOT EXISTS artifacts (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR,
    kind       VARCHAR NOT NULL,
    path       VARCHAR NOT NULL,
    size       BIGINT NOT NULL,
    sha256     VARCHAR NOT NULL,
    PRIMARY KEY (capture_id, path)
);

-- fio: one row per job entry of fio's JSON and data direction (read/write/trim) that did I/O.
CREATE TABLE IF NOT EXISTS fio_jobs (
    capture_id     VARCHAR NOT NULL,
    run_id         VARCHAR NOT NULL,
    job_index      INTEGER NOT NULL,   -- position in fio's "jobs" array
    jobname        VARCHAR NOT NULL,
    groupid        INTEGER,
    ddir           VARCHAR NOT NULL,   -- read | write | trim
    error          INTEGER,
    io_bytes       BIGINT,
    bw_bytes       DOUBLE,             -- bytes/s
    iops           DOUBLE,             -- IO/s
    runtime_ms     DOUBLE,
    total_ios      BIGINT,
    slat_mean_ns   DOUBLE,
    clat_min_ns    DOUBLE,
    clat_max_ns    DOUBLE,
    clat_mean_ns   DOUBLE,
    clat_stddev_ns DOUBLE,
    clat_p50_ns    DOUBLE,
    clat_p90_ns    DOUBLE,
    clat_p99_ns    DOUBLE,
    clat_p99_9_ns  DOUBLE,
    clat_p99_99_ns DOUBLE,
    lat_mean_ns    DOUBLE,
    usr_cpu        DOUBLE,             -- % of one CPU
    sys_cpu        DOUBLE,
    ctx            BIGINT,             -- context switches of the job
    majf           BIGINT,
    minf           BIGINT,
    PRIMARY KEY (capture_id, run_id, job_index, ddir)
);

-- fio's completion latency percentiles, all of them (fio's own computation).
CREATE TABLE IF NOT EXISTS fio_clat_percentiles (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    job_index  INTEGER NOT NULL,
    ddir       VARCHAR NOT NULL,
    percentile DOUBLE NOT NULL,
    value_ns   DOUBLE NOT NULL
);

-- json+ only: fio's completion latency histogram (bin value in ns -> I/O count).
CREATE TABLE IF NOT EXISTS fio_clat_bins (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    job_index  INTEGER NOT NULL,
    ddir       VARCHAR NOT NULL,
    bin_ns     BIGINT NOT NULL,
    count      BIGINT NOT NULL
);

-- Derived at ingest: one row per run x job name x direction. Jobs that fio reports as several
-- entries with one name (numjobs=N without group_reporting) are merged: IOPS, bandwidth, bytes and
-- CPU summed; mean latencies weighted by I/O count; percentiles recomputed from the merged json+
-- histogram the way fio computes them (NULL when the runs have no histogram). A single entry keeps
-- fio's own figures.
CREATE TABLE IF NOT EXISTS fio_results (
    capture_id    VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    jobname       VARCHAR NOT NULL,
    ddir          VARCHAR NOT NULL,
    entries       INTEGER NOT NULL,    -- fio job entries merged into this row
    iops          DOUBLE,
    bw_bytes      DOUBLE,
    io_bytes      BIGINT,
    total_ios     BIGINT,
    clat_mean_ns  DOUBLE,
    clat_p50_ns   DOUBLE,
    clat_p99_ns   DOUBLE,
    clat_p99_9_ns DOUBLE,
    lat_mean_ns   DOUBLE,
    usr_cpu       DOUBLE,
    sys_cpu       DOUBLE,
    ctx           BIGINT,
    PRIMARY KEY (capture_id, run_id, jobname, ddir)
);

-- Notebooks (iolens/notebook): each row is one saved version, immutable once written. The id is
-- content-addressed (see notebook/store.py); editing a saved notebook and saving again writes a
-- new row whose parent_id is the version it was edited from. Not queryable from SQL cells.
CREATE TABLE IF NOT EXISTS notebook_versions (
    notebook_id    VARCHAR PRIMARY KEY,  -- 10 base32 chars of sha256(canonical {document, parent})
    sha256         VARCHAR NOT NULL,     -- full hash of the same bytes (detects an id collision)
    parent_id      VARCHAR,              -- the version this one was edited from; NULL for a first save
    format_version INTEGER NOT NULL,     -- the document's format_version as saved
    title          VARCHAR NOT NULL,
    captures       VARCHAR[] NOT NULL,   -- capture ids of the document, baseline first
    document       JSON NOT NULL,        -- as saved, never rewritten (upgraded when read)
    search_text    VARCHAR NOT NULL,     -- lower-case title, text, SQL, capture labels/tags/kernels
    created_at     TIMESTAMP NOT NULL
);

-- perf call stacks (artifact kind perf-script: `perf script` text of `perf record -g`, per run).
-- One row per distinct folded stack of a run. Folding follows inferno-collapse-perf 0.12.8's
-- default rules (iolens/formats/perf_script.py), so for one event
--   SELECT folded_stack, sum(weight) ... GROUP BY folded_stack
-- is exactly what `inferno-collapse-perf` (and `iolens convert perf-script`) prints.
CREATE TABLE IF NOT EXISTS perf_stacks (
    capture_id   VARCHAR NOT NULL,
    run_id       VARCHAR NOT NULL,   -- the run whose perf-script artifact this stack comes from
    stack_id     INTEGER NOT NULL,   -- 0.. per run, in order of first appearance in the text
    folded_stack VARCHAR NOT NULL,   -- "comm;caller;...;leaf": comm with spaces as '_', then frames root first
    PRIMARY KEY (capture_id, run_id, stack_id)
);

-- perf call stacks: one row per sample of every event in the run's perf script text (also the
-- samples that folding drops: other events, and samples without a usable frame), with what
-- folding throws away, so a flame graph can be drawn per time range, CPU or task.
CREATE TABLE IF NOT EXISTS perf_samples (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    ts_ns      BIGINT,             -- perf's timestamp (seconds since boot as printed, to ns); NULL if absent
    cpu        INTEGER,            -- the "[003]" field; NULL when perf script printed no CPU
    pid        INTEGER,            -- process id; NULL when perf printed only a thread id
    tid        INTEGER,            -- thread id
    comm       VARCHAR NOT NULL,   -- the task's command name as printed (spaces kept)
    stack_id   INTEGER,            -- perf_stacks.stack_id of the same run; NULL when no frame was usable
    weight     BIGINT NOT NULL,    -- the sample period printed on the event line (1 when absent): what folding sums
    event      VARCHAR             -- event name without modifiers ("cycles" for cycles:ppp); inferno keeps the first one seen
);

-- lock_stat (artifact kind lock-stat: the text of /proc/lock_stat, version 0.4). A dump per run
-- when the collector cleared the counters before the run and read them after (--lock-stat); one
-- per capture when attached by hand (--lock-stat-snapshot). One row per dump.
CREATE TABLE IF NOT EXISTS lock_stat_dumps (
    capture_id      VARCHAR NOT NULL,
    run_id          VARCHAR,            -- the run the dump covers; NULL for a capture-wide dump
    path            VARCHAR NOT NULL,   -- the artifact's path in the bundle
    version         VARCHAR,            -- "0.4"; NULL for an excerpt without its version line
    debug_locks_off BOOLEAN NOT NULL,   -- lockdep had switched itself off: the figures cover part of the run
    classes         INTEGER NOT NULL,   -- lock classes in the dump
    warnings        JSON NOT NULL,      -- what the parser noticed: names or numbers cut by the kernel...
    PRIMARY KEY (capture_id, path)
);

-- lock_stat: one row per lock class and read/write state of a dump; times in ns (the kernel prints
-- microseconds with two decimals). A class missing from a dump had no acquisition while it counted.
CREATE TABLE IF NOT EXISTS lock_stat_classes (
    capture_id    VARCHAR NOT NULL,
    run_id        VARCHAR,            -- as in lock_stat_dumps
    path          VARCHAR NOT NULL,   -- lock_stat_dumps.path
    class         VARCHAR NOT NULL,   -- class name as printed, "#N" and "/N" suffixes included (cut at 37 characters by the kernel)
    occurrence    INTEGER NOT NULL,   -- 0, or n for the (n+1)th class printed with this name in the dump
    rw            VARCHAR NOT NULL,   -- W: write or exclusive acquisitions (spinlocks, mutexes); R: read acquisitions
    base_name     VARCHAR NOT NULL,   -- class without its "#N" and "/N" suffixes
    subclass      INTEGER NOT NULL,   -- the "/N" suffix (lock nesting subclass); 0 when absent
    seq           INTEGER NOT NULL,   -- position of the class in the dump (the kernel sorts by contentions, most first)
    con_bounces   BIGINT NOT NULL,    -- contentions that involved cross-CPU data
    contentions   BIGINT NOT NULL,    -- acquisitions that had to wait
    wait_min_ns   BIGINT,             -- shortest wait; 0 without contention; NULL when the kernel cut the number
    wait_max_ns   BIGINT,             -- longest wait
    wait_total_ns BIGINT,             -- time spent waiting, all contentions
    wait_avg_ns   BIGINT,             -- wait_total / contentions, as printed
    acq_bounces   BIGINT NOT NULL,    -- acquisitions that involved cross-CPU data
    acquisitions  BIGINT NOT NULL,    -- times the lock was taken
    hold_min_ns   BIGINT,             -- shortest hold
    hold_max_ns   BIGINT,             -- longest hold
    hold_total_ns BIGINT,             -- time the lock was held, all acquisitions
    hold_avg_ns   BIGINT,             -- hold_total / acquisitions, as printed
    PRIMARY KEY (capture_id, path, class, occurrence, rw)
);

-- lock_stat: the call sites of a class (up to 4 of each kind), as the kernel recorded them.
CREATE TABLE IF NOT EXISTS lock_stat_points (
    capture_id    VARCHAR NOT NULL,
    run_id        VARCHAR,            -- as in lock_stat_dumps
    path          VARCHAR NOT NULL,   -- lock_stat_dumps.path
    class         VARCHAR NOT NULL,   -- lock_stat_classes.class
    occurrence    INTEGER NOT NULL,   -- lock_stat_classes.occurrence
    kind          VARCHAR NOT NULL,   -- contention: a call site that waited; contending: one that held the lock meanwhile
    idx           INTEGER NOT NULL,   -- 0-3: the kernel's slot (first seen first)
    count         BIGINT NOT NULL,    -- times this call site waited (contention) or made others wait (contending)
    address       VARCHAR NOT NULL,   -- as printed in [<...>]: hashed since Linux 4.15
    symbol        VARCHAR NOT NULL,   -- as printed: "func+0x57/0x280", with " [module]" for modules, or an address
    function_name VARCHAR,            -- the function of symbol; NULL when the kernel printed no symbol
    module        VARCHAR             -- the module of symbol; NULL for the kernel itself
);

-- Block layer (issue 8; docs/block.md). Derived at ingest from `blkparse` / `perf-block`
-- artifacts by iolens/ingest_block.py: events matched once into one row per I/O request.
-- Times are ns since the run's start (block_runs.t0_ns on the trace's clock). Rows are stored in
-- completion order, which keeps DuckDB's per-row-group min/max useful for time windows.
CREATE TABLE IF NOT EXISTS block_ios (
    capture_id  VARCHAR NOT NULL,   -- captures.capture_id
    run_id      VARCHAR NOT NULL,   -- runs.run_id: the run whose block artifact this I/O comes from
    dev         VARCHAR NOT NULL,   -- "major,minor" of the device (the disk, after a partition remap)
    sector      BIGINT,             -- first 512-byte sector of the request when issued
    bytes       BIGINT,             -- request size when issued (perf: the tracepoint's bytes; blkparse: sectors x 512)
    op          VARCHAR NOT NULL,   -- read | write | discard | flush | none | other, from the RWBS letters
    rwbs        VARCHAR NOT NULL,   -- the kernel's RWBS string: op letter and flags (S sync, M meta, A readahead, F fua/preflush)
    insert_ns   BIGINT,             -- inserted in the scheduler/dispatch queue (I); NULL when issued directly or not recorded
    issue_ns    BIGINT,             -- issued to the driver (D), the last issue after a requeue; NULL when not recorded
    complete_ns BIGINT,             -- completed (C); NULL when not recorded (in flight at the end of the trace, or lost)
    latency_ns  BIGINT,             -- complete_ns - issue_ns: device (D2C) latency; NULL when either is missing
    lat_bin     SMALLINT,           -- log-scale latency bucket: floor(8 x log2(latency_ns)), 8 per octave; 0 for <= 1 ns
    cpu         SMALLINT,           -- CPU of the issue event
    pid         INTEGER,            -- thread in whose context it was issued (0: interrupt/idle); NULL without an issue
    comm        VARCHAR,            -- that thread's name when the tool printed one
    error       INTEGER,            -- completion status (0 ok, a negative errno); NULL without a completion
    requeues    SMALLINT NOT NULL   -- times the driver gave it back (R) before it completed
);

-- One row per block artifact of a run: where its clock starts, what was read, what did not match,
-- and whether events were lost. Every block view returns events_lost and warnings.
CREATE TABLE IF NOT EXISTS block_runs (
    capture_id             VARCHAR NOT NULL,  -- captures.capture_id
    run_id                 VARCHAR NOT NULL,  -- runs.run_id
    kind                   VARCHAR NOT NULL,  -- artifact kind: blkparse | perf-block
    path                   VARCHAR NOT NULL,  -- artifact path in the bundle
    t0_ns                  BIGINT,            -- trace-clock time taken as the run's start (the artifact's trace_clock_at_start_ns, else the first event)
    first_ns               BIGINT,            -- first event, ns since t0
    last_ns                BIGINT,            -- last event, ns since t0
    events                 BIGINT NOT NULL,   -- block events read
    actions                JSON NOT NULL,     -- {"issue": n, "complete": n, "insert": n, "requeue": n, ...}
    ios                    BIGINT NOT NULL,   -- rows in block_ios
    matched                BIGINT NOT NULL,   -- of which with both issue and completion
    issue_without_complete BIGINT NOT NULL,   -- issued, completion not recorded (in flight at the end, or lost)
    complete_without_issue BIGINT NOT NULL,   -- completed, issue not recorded (issued before the start, or lost)
    issue_duplicate        BIGINT NOT NULL,   -- a second issue at a sector still in flight: the first one's completion was lost
    insert_without_issue   BIGINT NOT NULL,   -- inserted, never issued (merged away or lost)
    partial_complete       BIGINT NOT NULL,   -- completions of part of a request
    requeues               BIGINT NOT NULL,   -- requeue (R) events
    negative_latency       BIGINT NOT NULL,   -- completions timed before their issue (clock skew between CPUs)
    counted                JSON,              -- perf-stat-block counts {"block:block_rq_issue": n, ...}; NULL without one
    tool_lost              BIGINT NOT NULL,   -- events the tracer itself said it lost (blkparse skips, perf LOST records)
    main_dev               VARCHAR,           -- device with the most I/Os: the views' default device
    devices                JSON NOT NULL,     -- [{"dev": "254,0", "ios": n}, ...] most I/Os first
    events_lost            BOOLEAN NOT NULL,  -- a loss check failed (docs/block.md "Lost events"): views show a warning
    warnings               JSON NOT NULL,     -- ["..."] why, and everything unmatched
    tool                   JSON NOT NULL,     -- the reader's own facts (blkparse summary, perf tracepoint counts)
    PRIMARY KEY (capture_id, run_id, path)
);

-- Scheduler trace of a run (artifact kind perf-sched: `perf script` / `perf sched script` text of
-- the sched tracepoints, iolens/formats/perf_sched.py; iolens/ingest_sched.py): one row per run,
-- with the counts ingest compared against perf stat (sched_checks). t = 0 of every sched series
-- is first_ts_ns.
CREATE TABLE IF NOT EXISTS sched_traces (
    capture_id           VARCHAR NOT NULL,
    run_id               VARCHAR NOT NULL,
    path                 VARCHAR NOT NULL,  -- the perf-sched artifact's path in the bundle
    lines                BIGINT NOT NULL,   -- lines read from the text
    n_switch             BIGINT NOT NULL,   -- sched:sched_switch events recorded
    n_wakeup             BIGINT NOT NULL,   -- sched:sched_wakeup events recorded
    n_waking             BIGINT NOT NULL,   -- sched:sched_waking events recorded
    n_wakeup_new         BIGINT NOT NULL,   -- sched:sched_wakeup_new events recorded
    n_migrate            BIGINT NOT NULL,   -- sched:sched_migrate_task events recorded
    skipped              JSON NOT NULL,     -- {"sched:sched_stat_runtime": 2580}: other events in the text, not loaded
    first_ts_ns          BIGINT,            -- perf clock (ns since boot) of the first event: t = 0
    last_ts_ns           BIGINT,            -- perf clock of the last event
    duration_ns          BIGINT,            -- last_ts_ns - first_ts_ns: the denominator of every per-second rate
    cpus                 INTEGER[] NOT NULL, -- CPUs that recorded at least one event
    workload_cpus        INTEGER[],         -- CPUs the workload was pinned to; NULL when not known
    workload_cpus_source VARCHAR,           -- where workload_cpus came from: runs[].params.cpus, workload.cpus or host.cpu.affinity
    workload_comm        VARCHAR,           -- the workload's task name ("fio"), used to pick its tasks; NULL when not known
    events_lost          BOOLEAN NOT NULL,  -- a check of sched_checks failed: every sched view shows a warning
    warnings             JSON NOT NULL,     -- ["..."] what the checks found, one sentence each
    PRIMARY KEY (capture_id, run_id)
);

-- Checks of a scheduler trace made at ingest: recorded vs counted by perf stat in the same run
-- (perf record silently loses tracepoints raised in interrupt context, see ../shared/DESIGN.md),
-- and two checks the trace makes on itself. ok = ratio >= threshold, or at most 32 events
-- missing (iolens/ingest_sched.py LOSS_THRESHOLD and MIN_MISSING, docs/sched.md).
CREATE TABLE IF NOT EXISTS sched_checks (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,  -- recorded_vs_counted | waking_vs_wakeup | switch_chain
    event      VARCHAR NOT NULL,  -- the event checked ("sched:sched_switch", "sched:sched_waking", ...)
    recorded   BIGINT,            -- how many the trace holds (for switch_chain: consecutive switches of a CPU that chain)
    expected   BIGINT,            -- what it should hold: perf stat's count, the other wakeup tracepoint's count, or all consecutive switch pairs
    ratio      DOUBLE,            -- recorded / expected (min/max for waking_vs_wakeup); NULL when it could not be checked
    threshold  DOUBLE NOT NULL,   -- the ratio below which events count as lost
    ok         BOOLEAN,           -- NULL when it could not be checked (nothing counted)
    detail     VARCHAR NOT NULL   -- one sentence, shown as is
);

-- sched:sched_switch events (perf-sched artifacts): one row per event, in file order.
CREATE TABLE IF NOT EXISTS sched_switch (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    line       BIGINT NOT NULL,    -- line of the event in the artifact: its identity and its order
    ts_ns      BIGINT NOT NULL,    -- perf clock, ns since boot (microsecond resolution without perf script --ns)
    cpu        INTEGER NOT NULL,   -- the CPU that switched
    prev_comm  VARCHAR NOT NULL,   -- task leaving the CPU (its comm, spaces kept)
    prev_pid   INTEGER NOT NULL,   -- its thread id; 0 = the idle task (swapper/N)
    prev_prio  INTEGER NOT NULL,   -- its kernel priority (120 = nice 0)
    prev_state VARCHAR NOT NULL,   -- R or R+ = preempted while runnable (involuntary); S, D, I, T, X, Z... = blocked or exiting (voluntary)
    next_comm  VARCHAR NOT NULL,   -- task starting to run
    next_pid   INTEGER NOT NULL,   -- its thread id; 0 = idle
    next_prio  INTEGER NOT NULL    -- its kernel priority
);

-- sched:sched_waking, sched:sched_wakeup and sched:sched_wakeup_new events (perf-sched artifacts).
CREATE TABLE IF NOT EXISTS sched_wakeup (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    line       BIGINT NOT NULL,    -- line of the event in the artifact
    ts_ns      BIGINT NOT NULL,    -- perf clock, ns
    cpu        INTEGER NOT NULL,   -- CPU that recorded the event (the waker's for waking)
    kind       VARCHAR NOT NULL,   -- waking (start of a wakeup) | wakeup (task runnable) | wakeup_new (new task)
    comm       VARCHAR NOT NULL,   -- the task woken
    pid        INTEGER NOT NULL,   -- its thread id
    prio       INTEGER NOT NULL,   -- its kernel priority
    target_cpu INTEGER,            -- CPU the task will run on; NULL on kernels whose event has no target_cpu
    waker_comm VARCHAR NOT NULL,   -- task running when the event fired (":-1" when perf did not know it)
    waker_pid  INTEGER NOT NULL    -- its thread id (0: idle, e.g. woken from an interrupt on an idle CPU)
);

-- sched:sched_migrate_task events (perf-sched artifacts).
CREATE TABLE IF NOT EXISTS sched_migrate (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    line       BIGINT NOT NULL,    -- line of the event in the artifact
    ts_ns      BIGINT NOT NULL,    -- perf clock, ns
    cpu        INTEGER NOT NULL,   -- CPU that recorded the event
    comm       VARCHAR NOT NULL,   -- the task moved
    pid        INTEGER NOT NULL,   -- its thread id
    prio       INTEGER NOT NULL,   -- its kernel priority
    orig_cpu   INTEGER NOT NULL,   -- CPU it leaves
    dest_cpu   INTEGER NOT NULL    -- CPU it moves to
);

-- Derived at ingest from sched_switch: one row per time a task ran on a CPU (a "slice": from the
-- switch that put it on the CPU to the next switch of that CPU). Slices whose next switch does
-- not take this task off (events lost) and the last slice of each CPU are left out.
CREATE TABLE IF NOT EXISTS sched_slices (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    cpu        INTEGER NOT NULL,   -- where it ran
    pid        INTEGER NOT NULL,   -- the task's thread id (0 = idle)
    comm       VARCHAR NOT NULL,   -- its comm when it was switched in
    grp        VARCHAR NOT NULL,   -- task group: '<idle>', 'kworker/*', per-CPU kernel threads as 'name/*' (ksoftirqd/*), else the comm
    start_ns   BIGINT NOT NULL,    -- perf clock when it was switched in
    end_ns     BIGINT NOT NULL,    -- perf clock when it was switched out
    dur_ns     BIGINT NOT NULL,    -- end_ns - start_ns: run time of the slice
    prev_pid   INTEGER NOT NULL,   -- the task it replaced
    prev_comm  VARCHAR NOT NULL,
    prev_state VARCHAR NOT NULL,   -- the replaced task's state: R/R+ = this task preempted it
    next_pid   INTEGER NOT NULL,   -- the task that replaced it
    next_comm  VARCHAR NOT NULL,
    end_state  VARCHAR NOT NULL,   -- its own state when switched out: R/R+ = it was preempted
    line       BIGINT NOT NULL     -- line of the switch that began the slice
);

-- Derived at ingest: one row per switch-in of a task that had been waiting, with how long it
-- waited to run (scheduling delay, as perf sched timehist's "sch delay"). Ready since: the first
-- sched_waking/sched_wakeup of the task after its last switch-out (waking when recorded, the
-- earlier one), or the switch-out itself when it was preempted (state R/R+).
CREATE TABLE IF NOT EXISTS sched_delays (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    pid        INTEGER NOT NULL,   -- the task's thread id
    comm       VARCHAR NOT NULL,   -- its comm when switched in
    grp        VARCHAR NOT NULL,   -- task group, as sched_slices.grp
    cpu        INTEGER NOT NULL,   -- CPU it was switched in on
    ready_ns   BIGINT,             -- perf clock when it became runnable; NULL when no wakeup was recorded (reason unknown)
    start_ns   BIGINT NOT NULL,    -- perf clock when it started to run
    delay_ns   BIGINT,             -- start_ns - ready_ns; NULL when unknown
    reason     VARCHAR NOT NULL,   -- waking | wakeup | wakeup_new (woken), preempted (runnable since switched out), unknown (slept, wakeup not recorded)
    line       BIGINT NOT NULL     -- line of the switch-in
);

-- Derived at ingest: per run, CPU and 100 ms bucket of the trace (t = sched_traces.first_ts_ns),
-- the events of that CPU. Views add buckets up to any multiple of 100 ms.
CREATE TABLE IF NOT EXISTS sched_cpu_rate (
    capture_id  VARCHAR NOT NULL,
    run_id      VARCHAR NOT NULL,
    cpu         INTEGER NOT NULL,
    bucket      INTEGER NOT NULL,  -- (ts_ns - first_ts_ns) // 100 ms
    switches    BIGINT NOT NULL,   -- sched_switch events on the CPU (what perf's context-switches counts)
    involuntary BIGINT NOT NULL,   -- of which a task was preempted (prev_state R/R+, not idle)
    voluntary   BIGINT NOT NULL,   -- of which a task blocked or exited (other states, not idle)
    from_idle   BIGINT NOT NULL,   -- of which the CPU left idle
    wakeups     BIGINT NOT NULL,   -- sched_wakeup/wakeup_new events with this CPU as target_cpu
    migrations  BIGINT NOT NULL    -- sched_migrate_task events with this CPU as dest_cpu
);

-- perf stat counters (artifact kind perf-stat: `perf stat -x,` output, per run,
-- iolens/formats/perf_stat.py): one row per counter line.
CREATE TABLE IF NOT EXISTS perf_stat (
    capture_id   VARCHAR NOT NULL,
    run_id       VARCHAR NOT NULL,
    path         VARCHAR NOT NULL,  -- the artifact's path in the bundle
    scope        VARCHAR NOT NULL,  -- system (perf stat -a, the default) | workload (the workload's processes only): the artifact's "scope" field
    line         INTEGER NOT NULL,  -- line in the artifact
    start_s      DOUBLE,            -- interval start, seconds since perf stat started; NULL for totals
    end_s        DOUBLE,            -- interval end (the time perf printed with -I); NULL for totals
    summary      BOOLEAN NOT NULL,  -- a total over the whole run (no -I, or --summary)
    cpu          INTEGER,           -- the CPU with -A; NULL when not per CPU
    aggr         VARCHAR,           -- aggregation id as printed: "CPU1", "S0-D0-C1" (--per-core), "fio-1234" (--per-thread); NULL = all
    event        VARCHAR NOT NULL,  -- "context-switches", "cpu-migrations", "task-clock", "sched:sched_switch"...
    value        DOUBLE,            -- the count (msec for task-clock); NULL when not counted or not supported
    status       VARCHAR NOT NULL,  -- counted | not counted | not supported
    unit         VARCHAR NOT NULL,  -- "" for counts, "msec" for task-clock
    run_ns       BIGINT,            -- how long the counter ran
    running_pct  DOUBLE,            -- % of the time the counter was on the PMU (below 100: multiplexed, perf scaled the value)
    metric_value DOUBLE,            -- perf's derived metric ("1.001" CPUs utilized), NULL when none
    metric_unit  VARCHAR            -- its unit ("CPUs utilized", "/sec", "K/sec")
);

-- Block layer, pre-aggregated at ingest so that a view over a 10M-I/O capture reads thousands of
-- rows, not millions (docs/block.md "Downsampling"). Tiles are [k x level_ns, (k+1) x level_ns)
-- in ns since run start, level_ns a power of ten; a query bucket of 1, 2 or 5 x 10^j ns is a
-- whole number of tiles of any level <= it. Each level is the next finer one regrouped.
CREATE TABLE IF NOT EXISTS block_tile_levels (
    capture_id VARCHAR NOT NULL,   -- captures.capture_id
    run_id     VARCHAR NOT NULL,   -- runs.run_id
    dev        VARCHAR NOT NULL,   -- "major,minor"
    kind       VARCHAR NOT NULL,   -- rate (block_tiles) | hist (block_hist_tiles)
    level_ns   BIGINT NOT NULL,    -- tile width of a level that exists for this run and device
    PRIMARY KEY (capture_id, run_id, dev, kind, level_ns)
);

-- Rates, latency sums and in-flight time per tile and operation (finest level: ~16 I/Os a tile).
CREATE TABLE IF NOT EXISTS block_tiles (
    capture_id  VARCHAR NOT NULL,  -- captures.capture_id
    run_id      VARCHAR NOT NULL,  -- runs.run_id
    dev         VARCHAR NOT NULL,  -- "major,minor" (block_ios.dev)
    level_ns    BIGINT NOT NULL,   -- tile width
    k           BIGINT NOT NULL,   -- tile index: the tile starts at k x level_ns ns after run start
    op          VARCHAR NOT NULL,  -- read | write | discard | flush | none | other
    completed   BIGINT NOT NULL,   -- I/Os completed in the tile
    bytes       BIGINT NOT NULL,   -- their bytes
    lat_n       BIGINT NOT NULL,   -- of which with a known issue time (latency)
    lat_sum_ns  DOUBLE NOT NULL,   -- sum of their issue-to-complete latencies
    lat_max_ns  BIGINT,            -- the largest (NULL when lat_n = 0)
    inflight_ns DOUBLE NOT NULL    -- integral over the tile of the number of I/Os in flight (issued, not completed), ns
);

-- Histograms per tile and operation (finest level: ~64 I/Os a tile): latency bins by completion
-- time, request sizes by issue time.
CREATE TABLE IF NOT EXISTS block_hist_tiles (
    capture_id VARCHAR NOT NULL,   -- captures.capture_id
    run_id     VARCHAR NOT NULL,   -- runs.run_id
    dev        VARCHAR NOT NULL,   -- "major,minor" (block_ios.dev)
    level_ns   BIGINT NOT NULL,    -- tile width, ns (block_tile_levels kind hist)
    k          BIGINT NOT NULL,    -- tile index: the tile starts at k x level_ns ns after run start
    op         VARCHAR NOT NULL,   -- read | write | discard | flush | none | other
    kind       VARCHAR NOT NULL,   -- lat: latency bins by completion tile | size: request sizes by issue tile
    value      BIGINT NOT NULL,    -- the latency bin (block_ios.lat_bin) or the size in bytes
    n          BIGINT NOT NULL     -- I/Os in the tile with that value
);

-- Deterministic random samples of the I/Os for the sector-vs-time scatter: level L keeps about
-- 1 I/O in 8^L (hash of issue time and sector), so a wide window draws from a sparse level.
CREATE TABLE IF NOT EXISTS block_scatter_sample (
    capture_id VARCHAR NOT NULL,   -- captures.capture_id
    run_id     VARCHAR NOT NULL,   -- runs.run_id
    dev        VARCHAR NOT NULL,   -- "major,minor" (block_ios.dev)
    level      TINYINT NOT NULL,   -- 1..4: sampling 1 in 8, 64, 512, 4096
    issue_ns   BIGINT NOT NULL,    -- as in block_ios
    sector     BIGINT NOT NULL,    -- first sector (512 B) of the request
    bytes      BIGINT,             -- request size
    op         VARCHAR NOT NULL    -- read | write | discard | flush | none | other
);

-- Derived at ingest: sched_switch counted per run, CPU, pair of tasks and state of the task
-- leaving (the per-task and per-pair views read this, not the events).
CREATE TABLE IF NOT EXISTS sched_pair_counts (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    cpu        INTEGER NOT NULL,
    prev_pid   INTEGER NOT NULL,   -- task leaving (0 = idle)
    prev_comm  VARCHAR NOT NULL,
    prev_grp   VARCHAR NOT NULL,   -- its task group, as sched_slices.grp
    prev_state VARCHAR NOT NULL,   -- its state: R/R+ = preempted
    next_pid   INTEGER NOT NULL,   -- task arriving
    next_comm  VARCHAR NOT NULL,
    next_grp   VARCHAR NOT NULL,
    switches   BIGINT NOT NULL     -- sched_switch events with these values
);

-- Derived at ingest: sched_slices summed per run, CPU and task.
CREATE TABLE IF NOT EXISTS sched_task_runtime (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    cpu        INTEGER NOT NULL,
    pid        INTEGER NOT NULL,   -- 0 = idle
    comm       VARCHAR NOT NULL,
    grp        VARCHAR NOT NULL,
    run_ns     BIGINT NOT NULL,    -- time it ran on the CPU (sum of its slices)
    slices     BIGINT NOT NULL,    -- times it ran there
    preempted  BIGINT NOT NULL     -- slices that ended with it preempted (end_state R/R+; never idle)
);

-- Derived at ingest: ping-pong round trips. A round trip is a slice of task X on a CPU that began
-- by switching from Y and ended by switching back to Y (sched_slices with prev_pid = next_pid, X
-- and Y not idle, X != Y), at most 10 ms long; counted per run, CPU, X, Y, whether X preempted Y,
-- and X's run time rounded up to the microsecond (so a window of W us selects dur_us <= W exactly).
CREATE TABLE IF NOT EXISTS sched_roundtrips (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    cpu        INTEGER NOT NULL,
    pid        INTEGER NOT NULL,   -- X: the task that ran briefly
    comm       VARCHAR NOT NULL,
    grp        VARCHAR NOT NULL,
    prev_pid   INTEGER NOT NULL,   -- Y: the task it ran between two runs of
    prev_comm  VARCHAR NOT NULL,
    prev_grp   VARCHAR NOT NULL,
    preempting BOOLEAN NOT NULL,   -- Y was switched out runnable (R/R+): X preempted it
    dur_us     INTEGER NOT NULL,   -- X's run time, us, rounded up
    n          BIGINT NOT NULL,    -- round trips with these values
    first_ns   BIGINT NOT NULL,    -- perf clock of the first one (its start)
    last_ns    BIGINT NOT NULL     -- perf clock of the last one
);

-- Derived at ingest: sched_delays counted per run, CPU, task, reason and delay rounded up to the
-- microsecond (percentiles over this are exact to the microsecond, the resolution of perf script
-- times without --ns).
CREATE TABLE IF NOT EXISTS sched_delay_hist (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    cpu        INTEGER NOT NULL,   -- where the task was switched in
    pid        INTEGER NOT NULL,
    comm       VARCHAR NOT NULL,
    grp        VARCHAR NOT NULL,
    reason     VARCHAR NOT NULL,   -- as sched_delays.reason
    delay_us   BIGINT,             -- delay, us, rounded up (0 for negative delays from clock skew); NULL when unknown
    n          BIGINT NOT NULL,    -- switch-ins with these values
    sum_ns     BIGINT              -- sum of their exact delays, ns (for the mean)
);

-- fio time-series logs (artifact kind fio-log: the write_bw_log / write_iops_log / write_lat_log
-- files of a run; iolens-collect --fio-logs MSEC, or `logs = MSEC` in a sweep plan). One row per
-- log entry: with log_avg_msec, the average over that window for one direction; else one I/O.
-- Logs written on CLOCK_MONOTONIC (artifact field clock, fio's log_alternate_epoch) also have
-- run_ms, their time on the run's axis (the block and sched views' time 0); see ingest_sweep.py.
CREATE TABLE IF NOT EXISTS fio_log_samples (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    log        VARCHAR NOT NULL,   -- bw | iops | lat | clat | slat
    jobname    VARCHAR NOT NULL,   -- the fio job that wrote the log (artifact field job, else the file name)
    job_index  INTEGER,            -- the job's position in the job file (the collector's log prefix); NULL if unknown
    clone      INTEGER NOT NULL,   -- N of PREFIX_kind.N.log: which clone of the job (numjobs), from 1
    avg_msec   INTEGER,            -- fio's log_avg_msec when the log was written; NULL when not recorded
    t_ms       BIGINT NOT NULL,    -- ms since the job started (end of the averaging window)
    value      DOUBLE NOT NULL,    -- bytes/s (bw), IO/s (iops) or ns (lat, clat, slat)
    ddir       VARCHAR NOT NULL,   -- read | write | trim | other
    bs         BIGINT,             -- block size, bytes (0 in averaged logs)
    path       VARCHAR NOT NULL,   -- the log's path in the bundle
    run_ms     BIGINT,             -- ms since the run's start (trace_clock_at_start_ns, CLOCK_MONOTONIC); NULL: zero-based log, not aligned
    t0_ns      BIGINT              -- the run's start on CLOCK_MONOTONIC that run_ms counts from (the artifact's trace_clock_at_start_ns); NULL with run_ms
);
-- Databases made before run_ms and t0_ns existed get them here (NULL for the rows they hold: those
-- logs were zero-based). Columns are only ever added at the end, so both layouts are the same.
ALTER TABLE fio_log_samples ADD COLUMN IF NOT EXISTS run_ms BIGINT;
ALTER TABLE fio_log_samples ADD COLUMN IF NOT EXISTS t0_ns BIGINT;

-- iolens-collect cmd: each device's /proc/diskstats counters over a run (artifact kind diskstats,
-- read just before and just after the command). One row per run and device present in both reads.
CREATE TABLE IF NOT EXISTS cmd_disk (
    capture_id  VARCHAR NOT NULL,
    run_id      VARCHAR NOT NULL,
    device      VARCHAR NOT NULL,   -- as /proc/diskstats names it: loop0, vda, nvme0n1p1
    major       INTEGER NOT NULL,
    minor       INTEGER NOT NULL,
    chosen      BOOLEAN NOT NULL,   -- one of the capture's workload.devices: what the disk.* run_metrics add up
    seconds     DOUBLE NOT NULL,    -- time between the two reads (their clock_ns), else the command's wall time
    reads       BIGINT NOT NULL,    -- reads completed during the run
    writes      BIGINT NOT NULL,    -- writes completed during the run
    read_bytes  BIGINT NOT NULL,    -- sectors read x 512
    write_bytes BIGINT NOT NULL,    -- sectors written x 512
    read_ms     BIGINT NOT NULL,    -- time spent by all reads, ms (added up over reads in flight)
    write_ms    BIGINT NOT NULL,    -- time spent by all writes, ms
    io_ms       BIGINT NOT NULL,    -- time the device had I/O in flight, ms (io_ms / seconds / 10 = busy %)
    PRIMARY KEY (capture_id, run_id, device)
);

-- Derived at ingest: every number a sweep cell can show (views/sweep.py), one row per run and
-- metric: fio's figures per direction and in total (from fio_results), and for `iolens-collect cmd`
-- the command's rusage, its devices' diskstats and the metrics it printed.
CREATE TABLE IF NOT EXISTS run_metrics (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    metric     VARCHAR NOT NULL,   -- 'iops', 'bw', 'clat_p99', 'cpu_per_io' (all directions), 'read.iops',
                                   -- 'write.clat_mean'..., 'wall_s', 'sys_s', 'disk.read_iops', 'm.NAME' (the command's)
    value      DOUBLE NOT NULL,    -- in unit
    unit       VARCHAR NOT NULL,   -- 'IO/s', 'B/s', 'B', 'ns', '%', 's', 'KiB', 'count', or the command's own unit
    source     VARCHAR NOT NULL,   -- fio | rusage | diskstats | command
    PRIMARY KEY (capture_id, run_id, metric)
);

-- Small text artifacts shown as they are (kinds fio-jobfile and sweep-plan, up to 64 KiB): the job
-- file that ran, each sweep point's job file, the sweep plan. The bundle keeps them byte for byte.
CREATE TABLE IF NOT EXISTS capture_texts (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR,            -- NULL for files of the whole capture
    path       VARCHAR NOT NULL,   -- the artifact's path in the bundle: workload/job.fio, workload/plan.toml...
    kind       VARCHAR NOT NULL,   -- fio-jobfile | sweep-plan
    text       VARCHAR NOT NULL,   -- the file, decoded as UTF-8 (invalid bytes replaced)
    PRIMARY KEY (capture_id, path)
);

-- Traced events (`iolens-collect --trace`, kind perf-trace-fields; docs/loose-files.md): one row per
-- capture, run and event. The events themselves are in the event's own table, named here
-- (trace_SYS__NAME, e.g. trace_xfs__xfs_ail_insert): capture_id, run_id, ts_ns (perf's clock),
-- t_ns (ns since the run started), cpu, pid, tid, comm, then every field of the event's tracefs
-- format as a typed column (field_NAME where a field is named like one of those).
CREATE TABLE IF NOT EXISTS trace_events (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    event      VARCHAR NOT NULL,   -- sys:name
    table_name VARCHAR NOT NULL,   -- the table holding the events
    events     BIGINT NOT NULL,    -- events recorded in the run
    first_ns   BIGINT,             -- perf's clock of the first and last event
    last_ns    BIGINT,
    recorded   BIGINT,             -- what perf record kept, as the collector counted it (NULL: unknown)
    counted    BIGINT,             -- what perf stat counted over the run (NULL: unknown)
    lost       BOOLEAN NOT NULL,   -- recorded below 90% of counted
    fields     JSON NOT NULL,      -- column -> type of the event's fields
    PRIMARY KEY (capture_id, run_id, event)
);

-- Monitors (`iolens-collect --monitors`, kind monitor): the kernel's counters sampled during each run.
-- Every sampled value: source vmstat | meminfo | stat | xfs | ext4 | slabinfo, key as in
-- formats/monitors.py (pgfault, Dirty, cpu0.system, log.writes, vda/lifetime_write_kbytes,
-- kmalloc-64.bytes...).
CREATE TABLE IF NOT EXISTS monitor_samples (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    source     VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    t_ns       BIGINT NOT NULL,    -- ns since the run started (the collector's CLOCK_MONOTONIC)
    value      DOUBLE NOT NULL     -- as the kernel printed it (meminfo kB as bytes)
);

-- Monitors per run and key: for a counter its change over the run, for a level its mean over the
-- samples; from /proc/stat also each CPU's share of time per state and busy% (mpstat's figures).
CREATE TABLE IF NOT EXISTS monitor_keys (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    source     VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    counter    BOOLEAN NOT NULL,   -- true: value is the change over the run; false: a level (mean) or a share
    unit       VARCHAR,            -- bytes, KiB, USER_HZ, %, or NULL (a count)
    value      DOUBLE NOT NULL,
    seconds    DOUBLE NOT NULL,    -- between the run's first and last sample
    samples    INTEGER NOT NULL,
    PRIMARY KEY (capture_id, run_id, source, key)
);

-- The kernel's .config (artifact kind kernel-config, --kernel-config): every option, "n" for
-- "is not set". A comparison lists the options that differ (views/comparison.py).
CREATE TABLE IF NOT EXISTS kernel_config (
    capture_id VARCHAR NOT NULL,
    option     VARCHAR NOT NULL,   -- CONFIG_LOCK_STAT
    value      VARCHAR NOT NULL,   -- y | m | n | 1000 | a string without its quotes
    PRIMARY KEY (capture_id, option)
);

-- What the workload was, as flat facts a comparison lines up (views/comparison.py): workload.kind,
-- fio.JOB.OPTION (fio's own record of the first run's options, global options merged into each
-- job), cmd.command (the command of a cmd capture), sweep.params.
CREATE TABLE IF NOT EXISTS workload_facts (
    capture_id VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    value      VARCHAR,
    PRIMARY KEY (capture_id, key)
);

-- Derived at ingest from sched_slices (ingest/timeline.py; the timeline cell's per-CPU tracks,
-- views/timeline.py): per run, CPU, tile and task group, the time the group ran on the CPU within
-- the tile, so that a track of any zoom reads thousands of rows, not millions. Tiles are
-- [k x level_ns, (k+1) x level_ns) in ns since the trace's first event (sched_traces.first_ts_ns);
-- levels 1 ms, 10 ms, 100 ms and 1 s, each the finer one regrouped.
CREATE TABLE IF NOT EXISTS sched_cpu_tiles (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    cpu        INTEGER NOT NULL,
    level_ns   BIGINT NOT NULL,    -- tile width
    k          BIGINT NOT NULL,    -- tile index: the tile starts k x level_ns ns after first_ts_ns
    grp        VARCHAR NOT NULL,   -- task group, as sched_slices.grp ('<idle>' for the idle task)
    run_ns     BIGINT NOT NULL     -- time the group ran on the CPU within the tile
);

-- Off-CPU and wakeup stacks (artifact kind perf-offcpu, `iolens-collect run --offcpu`: perf
-- script text of sched_switch and sched_waking recorded with call chains on every CPU;
-- iolens/formats/perf_offcpu.py, iolens/ingest/offcpu.py, docs/offcpu.md). Each switch-out of a
-- thread is paired with the same thread's next switch-in: the time between is how long it was off
-- the CPU, the weight of its stack. The stacks are also in perf_stacks and perf_samples (event
-- 'offcpu', weight = ns off the CPU; event 'wakeup', weight 1 per sched_waking), so the flame
-- graph draws them like any other event. One row per run.
CREATE TABLE IF NOT EXISTS offcpu_runs (
    capture_id     VARCHAR NOT NULL,
    run_id         VARCHAR NOT NULL,
    path           VARCHAR NOT NULL,   -- the perf-offcpu artifact's path in the bundle
    first_ts_ns    BIGINT,             -- perf clock of the first event of the recording
    last_ts_ns     BIGINT,             -- perf clock of the last event: where open intervals are cut
    switches       BIGINT NOT NULL,    -- sched:sched_switch events recorded
    wakings        BIGINT NOT NULL,    -- sched:sched_waking events recorded
    intervals      BIGINT NOT NULL,    -- switch-outs paired with the thread's next switch-in: the weighted stacks
    blocked_ns     BIGINT NOT NULL,    -- their summed time off the CPU
    open_at_end    BIGINT NOT NULL,    -- switch-outs with no switch-in before the last event: not weighted (how long is not known)
    open_at_end_ns BIGINT NOT NULL,    -- their time from the switch-out to the last event: a lower bound of what they add
    in_at_start    BIGINT NOT NULL,    -- switch-ins of threads never seen before (off the CPU since before the recording): no stack, not weighted
    unpaired       BIGINT NOT NULL,    -- a switch-out followed by another switch-out of the thread, or a switch-in with no switch-out before it after the thread was seen: an event was lost; not weighted
    chainless      BIGINT NOT NULL,    -- events without a usable frame (drawn as the task and state only)
    workload_comm  VARCHAR,            -- the workload's task name ("fio"), listed first by the views; NULL when not known
    events_lost    BOOLEAN NOT NULL,   -- a check of offcpu_checks failed: the views show a warning
    warnings       JSON NOT NULL,      -- ["..."] what the checks found, one sentence each
    PRIMARY KEY (capture_id, run_id)
);

-- Checks of an off-CPU recording at ingest, by the one lost-events rule (docs/lost-events.md):
-- recorded vs counted by perf stat (kind perf-stat-offcpu) for sched_switch and sched_waking,
-- and switch-ins that follow the thread's own switch-out vs all switch-ins of threads seen before.
CREATE TABLE IF NOT EXISTS offcpu_checks (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,  -- recorded_vs_counted | pairing
    event      VARCHAR NOT NULL,  -- sched:sched_switch | sched:sched_waking
    recorded   BIGINT,            -- events recorded (pairing: switch-ins paired with a switch-out)
    expected   BIGINT,            -- perf stat's count (pairing: all switch-ins of threads seen before)
    ratio      DOUBLE,            -- recorded / expected; NULL when not checked
    threshold  DOUBLE NOT NULL,   -- the ratio below which events count as lost (0.9)
    ok         BOOLEAN,           -- NULL when it could not be checked (no perf stat)
    detail     VARCHAR NOT NULL   -- one sentence, shown as is
);

-- One row per time a thread was off the CPU: from its switch-out (with the stack it blocked in)
-- to its next switch-in, with who woke it.
CREATE TABLE IF NOT EXISTS offcpu_intervals (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    tid        INTEGER NOT NULL,   -- thread id (prev_pid of the switch-out)
    pid        INTEGER,            -- its process id, as perf printed it; NULL when unknown
    comm       VARCHAR NOT NULL,   -- prev_comm of the switch-out
    grp        VARCHAR NOT NULL,   -- task group as the sched views group: 'kworker/*', per-CPU threads as 'name/*', else the comm
    state      VARCHAR NOT NULL,   -- prev_state: S (sleeping), D (uninterruptible), R / R+ (preempted, runnable), I (idle kthread), ...
    cpu_out    INTEGER NOT NULL,   -- CPU it left
    t_out_ns   BIGINT NOT NULL,    -- perf clock of the switch-out
    cpu_in     INTEGER NOT NULL,   -- CPU it ran on next
    t_in_ns    BIGINT NOT NULL,    -- perf clock of the switch-in
    blocked_ns BIGINT NOT NULL,    -- t_in_ns - t_out_ns: the weight of the stack
    stack_id   INTEGER,            -- perf_stacks.stack_id ("comm;[state X];frames..."); NULL without a usable frame
    waker_tid  INTEGER,            -- the thread running when the first sched_waking of this thread after the switch-out fired (0: idle/interrupt); NULL when none was recorded (preempted, or lost)
    waker_comm VARCHAR,            -- its comm as perf printed it
    waker_grp  VARCHAR             -- its group
);

-- One row per sched_waking: who (the running thread, or an interrupt on top of it) woke whom,
-- from which stack.
CREATE TABLE IF NOT EXISTS offcpu_wakings (
    capture_id VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    ts_ns      BIGINT NOT NULL,    -- perf clock
    cpu        INTEGER NOT NULL,   -- CPU the event fired on (the waker's)
    waker_tid  INTEGER NOT NULL,   -- thread running there (0: the idle task: an interrupt on an idle CPU)
    waker_pid  INTEGER,
    waker_comm VARCHAR NOT NULL,
    waker_grp  VARCHAR NOT NULL,
    wakee_tid  INTEGER NOT NULL,   -- the thread woken (pid field of the event)
    wakee_comm VARCHAR NOT NULL,
    wakee_grp  VARCHAR NOT NULL,
    target_cpu INTEGER,            -- where the wakee is to run
    stack_id   INTEGER             -- perf_stacks.stack_id ("waker comm;frames...;[wakes WAKEE]"); NULL without a usable frame
);
