-- The scheduler (kinds perf-sched and perf-stat; ingest/sched.py).

-- Scheduler trace of a run (artifact kind perf-sched: `perf script` / `perf sched script` text of
-- the sched tracepoints, iolens/formats/perf_sched.py; iolens/ingest/sched.py): one row per run,
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
-- missing (iolens/store/rules/lost_events.py LOSS_THRESHOLD and MIN_MISSING, docs/sched.md).
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

-- One row per perf-stat artifact: where its interval times' 0 is, so that a view can place them on the
-- trace's time axis (views/sched.py, switch_rate). perf stat counts from its own start, not the trace's.
CREATE TABLE IF NOT EXISTS perf_stat_files (
    capture_id        VARCHAR NOT NULL,
    run_id            VARCHAR NOT NULL,
    path              VARCHAR NOT NULL,  -- the artifact's path in the bundle
    clock_at_start_ns BIGINT,            -- the artifact's stat_clock_at_start_ns: CLOCK_MONOTONIC (the perf trace clock) at perf stat's time 0; NULL when the collector did not record it
    started_on        VARCHAR,           -- perf's own "# started on" header (ctime: the host's local time, whole seconds); NULL without it
    PRIMARY KEY (capture_id, path)
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
