"""The run a timeline cell shows, and so the run of the notebook's shared time selection: the cell's
`run=`, else the capture's first run; none when the capture has no runs. The frontend's copy is
`timelineRun` (frontend/src/cells/timeline/shared.ts), both tested on
testdata/vectors/timeline-run.json.
"""

from __future__ import annotations

from collections.abc import Iterable


def timeline_run(named: str | None, runs: Iterable[str]) -> str | None:
    """`named` when given, else the first of `runs` (in run order), else None."""
    if named is not None:
        return named
    return next(iter(runs), None)
