"""The notebook's time selection (a timeline cell's brush: ns since a run's start, the run's clock
reading) on a track of one run that starts `offset_ns` after the run's start (the flame graph's first
sample, samples_offset_ns; the scheduler trace's first event, sched_offset_ns; negative when perf
started before the clock reading): ns since the track's first event, clamped to it and never empty:
[max(0, from - offset), max(that + 1, to - offset)). Every run of every capture is cut at the
selection mapped onto its own clock, by its own offset, never by the offset of the run that was
brushed. The frontend's copy is `runSpan` (frontend/src/cells/timeline/shared.ts); both are tested
on testdata/vectors/run-span.json.
"""

from __future__ import annotations


def run_span(from_ns: int, to_ns: int, offset_ns: int) -> tuple[int, int]:
    """[from_ns, to_ns) since the run's start as ns since the track's first event."""
    lo = max(0, from_ns - offset_ns)
    return lo, max(lo + 1, to_ns - offset_ns)
