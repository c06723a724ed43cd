"""When a trace lost events: the one lost-events rule (docs/lost-events.md) and the thresholds of
the loss checks that ingest runs and the views report (docs/block.md "Lost events", docs/sched.md).
The scheduler checks (ingest/sched.py) and the block checks (ingest/block.py) use them here; the
frontend's copy is frontend/src/logic/lostEvents.ts and the collector's perfrec.recorded_short, all
three tested on testdata/vectors/lost-events.json.
"""

from __future__ import annotations

# A run lost events when a check's ratio is below this. perf stat wrapping perf record counts
# perf record's own start and stop too: on this project's VMs recorded/counted was 0.967-0.997
# without loss, and 0.015 for sched_waking with loss (DESIGN). 0.90 separates the two.
LOSS_THRESHOLD = 0.90
# ... and when more than this many events are missing: perf stat also counts the start and stop
# of perf record around the trace, which for a rare event (a few dozen migrations) is a large
# fraction but no loss (the block checks use the same floor).
MIN_MISSING = 32

# Loss rules (docs/block.md "Lost events"). An event is "interior" when it is more than
# BOUNDARY_NS from both ends of the trace: an issue that far from the end must have completed,
# a completion that far from the start must have been issued inside the trace.
BOUNDARY_NS = 1_000_000_000
INTERIOR_UNMATCHED_ABS = 16       # ... flagged when more than this many
INTERIOR_UNMATCHED_REL = 0.001    # ... and more than this fraction of the I/Os


def recorded_short(recorded: int, expected: int | None) -> bool:
    """Whether a recording lost events: perf stat (or another count of the same events) expected
    more than MIN_MISSING more than were recorded, and the recording holds less than LOSS_THRESHOLD
    of them (10 x recorded < 9 x expected: exact in integers). Nothing is checked without a count."""
    if not expected:
        return False
    return expected - recorded > MIN_MISSING and 10 * recorded < 9 * expected
