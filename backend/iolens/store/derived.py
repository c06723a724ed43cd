"""Sizes of the derived tables that ingest writes and the views read (store/schema.sql)."""

from __future__ import annotations

# Size of the sched_cpu_rate buckets; views sum them to any multiple.
BUCKET_NS = 100_000_000
MAX_WINDOW_US = 10_000  # longest brief run kept in sched_roundtrips (the ping-pong window's maximum)
