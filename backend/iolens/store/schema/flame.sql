-- perf call stacks for flame graphs (kinds perf-script and folded-stacks; ingest/perf_script.py, ingest/folded.py).

-- perf call stacks (artifact kind perf-script: `perf script` text of `perf record -g`, per run).
-- One row per distinct folded stack of a run. Folding follows inferno-collapse-perf 0.12.8's
-- default rules (iolens/formats/perf_script.py), so for one event
--   SELECT folded_stack, sum(weight) ... GROUP BY folded_stack
-- is exactly what `inferno-collapse-perf` (and `iolens convert perf-script`) prints.
CREATE TABLE IF NOT EXISTS perf_stacks (
    capture_id   VARCHAR NOT NULL,
    run_id       VARCHAR NOT NULL,   -- the run whose perf-script artifact this stack comes from
    stack_id     INTEGER NOT NULL,   -- 0.. per run, in order of first appearance in the text
    folded_stack VARCHAR USING COMPRESSION zstd NOT NULL,  -- "comm;caller;...;leaf": comm with spaces as '_', then frames root first
    PRIMARY KEY (capture_id, run_id, stack_id)
);
-- folded_stack is zstd-compressed (issue 17): the stacks of a run share long prefixes, which
-- zstd's window finds and DuckDB's default (dictionary + FSST, per string) does not. At 218k
-- distinct stacks (34.5 MB of text) the column took 5.8 MB instead of 17.3 MB, and its insert
-- (the serial tail of an ingest, after the parse) 0.47 s of CPU instead of 0.70 s; a full read
-- of the run's stacks is as fast. A database made before keeps its column's default.

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
