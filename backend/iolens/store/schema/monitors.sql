-- The kernel's counters sampled during each run (kinds monitor, iostat, vmstat; ingest/monitors.py).

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
