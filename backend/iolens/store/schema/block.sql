-- The block layer (kinds blkparse, perf-block, perf-stat-block, blktrace; ingest/block.py, ingest/blktrace.py).

-- Block layer (issue 8; docs/block.md). Derived at ingest from `blkparse` / `perf-block`
-- artifacts by iolens/ingest/block.py: events matched once into one row per I/O request.
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
