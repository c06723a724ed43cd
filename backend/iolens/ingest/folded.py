"""Folded stacks (kind folded-stacks: FlameGraph / inferno "frame;frame;... COUNT" lines) ->
perf_stacks and perf_samples, the tables of the flame graphs, as perf script text is.

Folded stacks have no time, CPU or task: each distinct stack is one perf_samples row whose weight is
its count, with no time, CPU, pid or tid, the first frame as comm (inferno and stackcollapse-perf
put the command name there), and the event named by the artifact's optional `event` field (None
otherwise). So the flame cell and its difference read them like any other stacks; the time, CPU
and task filters have nothing to offer for them.
"""

from __future__ import annotations

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats.folded import parse_folded
from ..formats.gz import read_plain
from .parsed import Parsed

KIND = "folded-stacks"
SAMPLE_COLUMNS = ("capture_id", "run_id", "ts_ns", "cpu", "pid", "tid", "comm", "stack_id", "weight", "event")


def folded_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("folded-stacks artifact must belong to a run", where, 422)
    if any(r[1] == run_id and r[0] == bundle.capture_id for r in out.rows.get("perf_stacks", [])) or \
            out.bulk_loads("perf_stacks", run_id):
        raise BundleError(f"run {run_id} has more than one source of stacks (perf-script, folded-stacks)", where, 422)
    event = art.event  # a string or None: the manifest model checks it
    f = parse_folded(read_plain(bundle.path(art.path), art.path), art.path)
    cid = bundle.capture_id
    out.add("perf_stacks", [(cid, run_id, i, stack) for i, (stack, _) in enumerate(f.stacks)])
    out.add("perf_samples", [(cid, run_id, None, None, None, None, stack.split(";", 1)[0], i, count, event)
                             for i, (stack, count) in enumerate(f.stacks)])


TABLE_COLUMNS = {"perf_stacks": ("capture_id", "run_id", "stack_id", "folded_stack"), "perf_samples": SAMPLE_COLUMNS}
