-- The kernel's configuration (kind kernel-config; ingest/kconfig.py).

-- The kernel's .config (artifact kind kernel-config, --kernel-config): every option, "n" for
-- "is not set". A comparison lists the options that differ (views/comparison.py).
CREATE TABLE IF NOT EXISTS kernel_config (
    capture_id VARCHAR NOT NULL,
    option     VARCHAR NOT NULL,   -- CONFIG_LOCK_STAT
    value      VARCHAR NOT NULL,   -- y | m | n | 1000 | a string without its quotes
    PRIMARY KEY (capture_id, option)
);
