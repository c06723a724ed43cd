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
