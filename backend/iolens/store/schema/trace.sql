-- Traced events (kind perf-trace-fields; ingest/trace.py).

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
