"""blktrace's binary per-CPU files (kind blktrace) -> block_ios and block_runs, as blkparse text is.

A run's trace is every `blktrace` artifact of the run (one per CPU, `DEV.blktrace.N`): the first one
the pipeline hands here reads them all (formats/blktrace_bin.py merges them in time order, as
blkparse does) and the others are skipped. The I/Os are matched by the same IoMatcher as blkparse
text, and lost events are blktrace's own sequence gaps (blkparse's "Skips") beside the usual checks.
"""

from __future__ import annotations

import csv
import mmap
import tempfile
from contextlib import ExitStack
from pathlib import Path

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats.blktrace_bin import BlktraceReader
from ..formats.errors import FormatError
from .block import ROW_COLUMNS, STAT_KINDS, BlockRun, IoMatcher, assess, block_run_row, derive_tiles, read_counted
from .parsed import BulkCsv, Parsed

KIND = "blktrace"


def blktrace_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("blktrace artifact must belong to a run", where, 422)
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    arts = [a for a in run.artifacts if a.kind == KIND]
    if art.path != arts[0].path:
        return  # read with the run's first blktrace file
    if any(a.kind in ("blkparse", "perf-block") for a in run.artifacts):
        raise BundleError(f"run {run_id} has blktrace files and another block trace (one per run)", where, 422)
    t0 = art.trace_clock_at_start_ns
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-blktrace-", dir=bundle.root))
    csv_path = tmp / "block_ios.csv"
    matcher = IoMatcher(t0 if isinstance(t0, int) else None)
    with ExitStack() as stack:
        maps = []  # the files mapped, not read into memory: a trace of millions of events streams through
        for a in arts:
            fh = stack.enter_context(bundle.path(a.path).open("rb"))
            size = bundle.path(a.path).stat().st_size
            maps.append((a.path, stack.enter_context(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)) if size else b""))
        res = BlktraceReader(maps)
        with csv_path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerows(matcher.feed(res.events()))
            w.writerows(matcher.finish())
    if not sum(matcher.actions.values()):
        raise FormatError(art.path, "no block events in the blktrace files")
    paths = ", ".join(a.path for a in arts)
    block = BlockRun(KIND, paths, csv_path, matcher)
    block.tool = {"lost": sum(res.lost.values()), "lost_by_cpu": dict(sorted(res.lost.items())),
                  "passthrough": res.passthrough, "lines": dict(sorted(res.actions.items())),
                  "files": [a.path for a in arts], "genesis_ns": res.genesis_ns, "processes": len(res.comm),
                  "messages": res.messages[:20]}
    counted = None
    for a in run.artifacts:
        if a.kind in STAT_KINDS:
            counted = {**(counted or {}), **read_counted(bundle.path(a.path), a.path)}
    assess(block, counted)
    if res.lost:
        block.warnings.append(f"{paths}: blktrace lost {sum(res.lost.values())} events (gaps in the sequence numbers "
                              f"of {', '.join(res.lost)})")
        block.events_lost = True
    out.warnings.extend(block.warnings)
    out.add("block_runs", [block_run_row(bundle.capture_id, run_id, block)])
    out.bulk.append(BulkCsv("block_ios", csv_path, ROW_COLUMNS, (("capture_id", bundle.capture_id), ("run_id", run_id))))
    cid = bundle.capture_id
    out.derive.append(lambda w: derive_tiles(w, cid, run_id))
