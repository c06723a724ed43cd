-- Captures: what every bundle has, written by ingest/pipeline.py (and ingest/workload.py's facts).
-- Times are UTC. Durations in ns, rates per second. Raw rows come from the bundle's artifacts
-- through the pure parsers in iolens/formats; derived tables are computed once at ingest, in the
-- same transaction. Every domain's file follows the same conventions (store/schema/__init__.py).

-- The store's own facts: schema_version. Not a capture table: SQL cells do not see it.
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

-- What the workload was, as flat facts a comparison lines up (views/comparison.py): workload.kind,
-- fio.JOB.OPTION (fio's own record of the first run's options, global options merged into each
-- job), cmd.command (the command of a cmd capture), sweep.params.
CREATE TABLE IF NOT EXISTS workload_facts (
    capture_id VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    value      VARCHAR,
    PRIMARY KEY (capture_id, key)
);
