-- Off-CPU and wakeup stacks (kind perf-offcpu; ingest/offcpu.py).

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
