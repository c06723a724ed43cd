"""perf script text (kind perf-script) -> perf_stacks and perf_samples, the tables of the flame graphs."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats import perf_script_native
from .parsed import BulkCsv, Parsed
from .streamed import Streamed

# A samples line holds numbers, a command and an event name: far below 1 MiB (a longer one is
# refused, naming the sample). DuckDB parses the FIFO a buffer at a time: 4 MiB buffers, so that
# it loads as the parse writes (its default, 16 x the line limit, read most of the text first).
SAMPLE_LINE_BYTES = 1 << 20
SAMPLE_BUFFER_BYTES = 4 << 20


def perf_script_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """perf script text (gzip or not) -> perf_stacks and perf_samples, parsed by the Rust core
    into CSV files beside the unpacked bundle. The parse runs in the write transaction
    (ingest/streamed.py): the samples go through a FIFO that DuckDB loads while the text is
    parsed, the stacks (a regular file) are loaded once the parse is over."""
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("perf-script artifact must belong to a run", where, 422)
    if any(b.table == "perf_stacks" and ("run_id", run_id) in b.constants for b in out.bulk):
        raise BundleError(f"run {run_id} has more than one perf-script artifact", where, 422)
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-perf-", dir=bundle.root))
    stacks = tmp / "perf_stacks.csv"
    samples = Streamed.make_fifo(tmp / "perf_samples.fifo")
    source = bundle.path(art.path)

    def parse() -> perf_script_native.TablesSummary:
        return perf_script_native.write_tables(source, stacks, samples, name=art.path)

    def warnings(summary: perf_script_native.TablesSummary) -> list[str]:
        if summary.samples == 0:
            return [f"{art.path}: no perf samples found (is it the output of `perf script`?)"]
        found = []
        if summary.stacks == 0:
            found.append(f"{art.path}: perf samples without call stacks (recorded without -g?)")
        if len(summary.events) > 1:
            names = ", ".join(f"{e or '(none)'} ({n} samples)" for e, (n, _) in summary.events.items())
            found.append(f"{art.path}: several perf events: {names}; a flame graph shows one at a time")
        return found

    job = Streamed(parse, samples, warnings, art_path=art.path, kind=art.kind, run_id=run_id)
    const = (("capture_id", bundle.capture_id), ("run_id", run_id))
    out.bulk.append(BulkCsv("perf_samples", samples, perf_script_native.SAMPLE_COLUMNS, const, job,
                            max_line_bytes=SAMPLE_LINE_BYTES, buffer_bytes=SAMPLE_BUFFER_BYTES))
    out.bulk.append(BulkCsv("perf_stacks", stacks, perf_script_native.STACK_COLUMNS, const, job))
