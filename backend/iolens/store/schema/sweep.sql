-- Sweeps and commands: fio's logs, the command's disks, every run's metrics, small text files
-- (kinds fio-log, fio-terse, cmd-stdout, cmd-rusage, diskstats, fio-jobfile, sweep-plan; ingest/sweep.py).

-- fio time-series logs (artifact kind fio-log: the write_bw_log / write_iops_log / write_lat_log
-- files of a run; iolens-collect --fio-logs MSEC, or `logs = MSEC` in a sweep plan). One row per
-- log entry: with log_avg_msec, the average over that window for one direction; else one I/O.
-- Logs written on CLOCK_MONOTONIC (artifact field clock, fio's log_alternate_epoch) also have
-- run_ms, their time on the run's axis (the block and sched views' time 0); see ingest/sweep.py.
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
