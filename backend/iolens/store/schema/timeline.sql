-- The timeline's per-CPU tracks (ingest/timeline.py, from the scheduler's tables).

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
