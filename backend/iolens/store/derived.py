"""Sizes of the derived tables that ingest writes and the views read (store/schema/)."""

from __future__ import annotations

# Size of the sched_cpu_rate buckets; views sum them to any multiple.
BUCKET_NS = 100_000_000
MAX_WINDOW_US = 10_000  # longest brief run kept in sched_roundtrips (the ping-pong window's maximum)

# Off-CPU stacks (ingest/offcpu.py) go into perf_stacks and perf_samples beside a run's sampled
# stacks under these event names, weighted by ns off the CPU ('offcpu') or 1 per sched_waking
# ('wakeup'); their stack ids start here so that they never meet a perf-script artifact's (0..).
OFFCPU_EVENT = "offcpu"
WAKEUP_EVENT = "wakeup"
OFFCPU_EVENTS = (OFFCPU_EVENT, WAKEUP_EVENT)
OFFCPU_STACK_BASE = 1_000_000_000
