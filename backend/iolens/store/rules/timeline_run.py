"""The run a timeline cell shows, and so the run of the notebook's shared time selection: the cell's
`run=`, else the capture's first run; none when the capture has no runs. A `run=` that the capture
does not have is kept as named (the selection is of that run, and applied to none), while the view
draws the capture's first run and says so (`shown_run`, `missing_run_notice`). The frontend's copies
are `timelineRun`, `shownRun` and `missingRunNotice` (frontend/src/cells/timeline/shared.ts), all
tested on testdata/vectors/timeline-run.json.

The capture a timeline cell shows follows the same pattern: its `cap=` when the notebook has that
capture, else the notebook's baseline, said in words (`shown_capture`, `missing_capture_notice`;
`shownCapture`, `missingCaptureNotice` in the frontend; the vectors' `captures`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def timeline_run(named: str | None, runs: Iterable[str]) -> str | None:
    """`named` when given, else the first of `runs` (in run order), else None."""
    if named is not None:
        return named
    return next(iter(runs), None)


def shown_run(named: str | None, runs: Iterable[str]) -> str | None:
    """The run a timeline view draws: `named` when the capture has it, else its first run, else None."""
    ids = list(runs)
    if named is not None and named in ids:
        return named
    return ids[0] if ids else None


def missing_run_notice(named: str | None, runs: Iterable[str]) -> str | None:
    """What a view says when its `run=` is not among the capture's runs (None: nothing to say)."""
    ids = list(runs)
    if named is None or named in ids:
        return None
    if not ids:
        return f"run {named} is not in this capture, which has no runs"
    return f"run {named} is not in this capture; showing {ids[0]}"


def shown_capture(named: str | None, captures: Iterable[str], baseline: str) -> str:
    """The capture a timeline view draws: `named` when the notebook has it, else its baseline."""
    return named if named is not None and named in list(captures) else baseline


def missing_capture_notice(named: str | None, captures: Iterable[str], baseline: str,
                           name: Callable[[str], str] = str) -> str | None:
    """What a view says when its `cap=` is not one of the notebook's captures (None: nothing to say);
    `name` gives a capture's name (its label)."""
    if named is None or named in list(captures):
        return None
    return f"capture {named} is not in this notebook; showing {name(baseline)}, its baseline"
