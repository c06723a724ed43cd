"""perf script text (kind perf-script) -> perf_stacks and perf_samples, the tables of the flame graphs."""

from __future__ import annotations

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats import perf_script_native
from .parsed import BulkStream, Parsed
from .streamed import Streamed


def perf_script_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """perf script text (gzip or not) -> perf_stacks and perf_samples, parsed by the Rust core.
    The parse runs in the write transaction (ingest/streamed.py): its samples and its distinct
    stacks go to DuckDB as Arrow batches while the text is parsed."""
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("perf-script artifact must belong to a run", where, 422)
    if out.bulk_loads("perf_stacks", run_id):
        raise BundleError(f"run {run_id} has more than one perf-script artifact", where, 422)
    source = bundle.path(art.path)
    # `iolens ingest` may have started this pass already, on the same bytes, before the bundle
    # was unpacked (ingest/early.py): taken here, with the same checks and errors
    early = bundle.early.take(art.path) if bundle.early is not None else None
    if early is not None:
        stream = early.stream

        def parse() -> perf_script_native.TablesSummary:
            return perf_script_native.tables_summary(early.wait, source, name=art.path)
    else:
        stream = perf_script_native.TableStream()

        def parse() -> perf_script_native.TablesSummary:
            return perf_script_native.write_tables_arrow(source, stream, name=art.path)

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

    job = Streamed(parse, stream, warnings, art_path=art.path, kind=art.kind, run_id=run_id)
    const = (("capture_id", bundle.capture_id), ("run_id", run_id))
    tables = {"samples": ("perf_samples", perf_script_native.SAMPLE_COLUMNS),
              "stacks": ("perf_stacks", perf_script_native.STACK_COLUMNS)}
    out.bulk.append(BulkStream(tables, const, job))
