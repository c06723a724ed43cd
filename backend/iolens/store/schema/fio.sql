-- fio's results (artifact kind fio-json; ingest/fio.py).

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
