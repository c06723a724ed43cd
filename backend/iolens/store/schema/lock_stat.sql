-- lock_stat (kind lock-stat; ingest/lock_stat.py).

-- lock_stat (artifact kind lock-stat: the text of /proc/lock_stat, version 0.4). A dump per run
-- when the collector cleared the counters before the run and read them after (--lock-stat); one
-- per capture when attached by hand (--lock-stat-snapshot). One row per dump.
CREATE TABLE IF NOT EXISTS lock_stat_dumps (
    capture_id      VARCHAR NOT NULL,
    run_id          VARCHAR,            -- the run the dump covers; NULL for a capture-wide dump
    path            VARCHAR NOT NULL,   -- the artifact's path in the bundle
    version         VARCHAR,            -- "0.4"; NULL for an excerpt without its version line
    debug_locks_off BOOLEAN NOT NULL,   -- lockdep had switched itself off: the figures cover part of the run
    classes         INTEGER NOT NULL,   -- lock classes in the dump
    warnings        JSON NOT NULL,      -- what the parser noticed: names or numbers cut by the kernel...
    PRIMARY KEY (capture_id, path)
);

-- lock_stat: one row per lock class and read/write state of a dump; times in ns (the kernel prints
-- microseconds with two decimals). A class missing from a dump had no acquisition while it counted.
CREATE TABLE IF NOT EXISTS lock_stat_classes (
    capture_id    VARCHAR NOT NULL,
    run_id        VARCHAR,            -- as in lock_stat_dumps
    path          VARCHAR NOT NULL,   -- lock_stat_dumps.path
    class         VARCHAR NOT NULL,   -- class name as printed, "#N" and "/N" suffixes included (cut at 37 characters by the kernel)
    occurrence    INTEGER NOT NULL,   -- 0, or n for the (n+1)th class printed with this name in the dump
    rw            VARCHAR NOT NULL,   -- W: write or exclusive acquisitions (spinlocks, mutexes); R: read acquisitions
    base_name     VARCHAR NOT NULL,   -- class without its "#N" and "/N" suffixes
    subclass      INTEGER NOT NULL,   -- the "/N" suffix (lock nesting subclass); 0 when absent
    seq           INTEGER NOT NULL,   -- position of the class in the dump (the kernel sorts by contentions, most first)
    con_bounces   BIGINT NOT NULL,    -- contentions that involved cross-CPU data
    contentions   BIGINT NOT NULL,    -- acquisitions that had to wait
    wait_min_ns   BIGINT,             -- shortest wait; 0 without contention; NULL when the kernel cut the number
    wait_max_ns   BIGINT,             -- longest wait
    wait_total_ns BIGINT,             -- time spent waiting, all contentions
    wait_avg_ns   BIGINT,             -- wait_total / contentions, as printed
    acq_bounces   BIGINT NOT NULL,    -- acquisitions that involved cross-CPU data
    acquisitions  BIGINT NOT NULL,    -- times the lock was taken
    hold_min_ns   BIGINT,             -- shortest hold
    hold_max_ns   BIGINT,             -- longest hold
    hold_total_ns BIGINT,             -- time the lock was held, all acquisitions
    hold_avg_ns   BIGINT,             -- hold_total / acquisitions, as printed
    PRIMARY KEY (capture_id, path, class, occurrence, rw)
);

-- lock_stat: the call sites of a class (up to 4 of each kind), as the kernel recorded them.
CREATE TABLE IF NOT EXISTS lock_stat_points (
    capture_id    VARCHAR NOT NULL,
    run_id        VARCHAR,            -- as in lock_stat_dumps
    path          VARCHAR NOT NULL,   -- lock_stat_dumps.path
    class         VARCHAR NOT NULL,   -- lock_stat_classes.class
    occurrence    INTEGER NOT NULL,   -- lock_stat_classes.occurrence
    kind          VARCHAR NOT NULL,   -- contention: a call site that waited; contending: one that held the lock meanwhile
    idx           INTEGER NOT NULL,   -- 0-3: the kernel's slot (first seen first)
    count         BIGINT NOT NULL,    -- times this call site waited (contention) or made others wait (contending)
    address       VARCHAR NOT NULL,   -- as printed in [<...>]: hashed since Linux 4.15
    symbol        VARCHAR NOT NULL,   -- as printed: "func+0x57/0x280", with " [module]" for modules, or an address
    function_name VARCHAR,            -- the function of symbol; NULL when the kernel printed no symbol
    module        VARCHAR             -- the module of symbol; NULL for the kernel itself
);
