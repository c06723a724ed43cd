"""perf script text (kind perf-script) -> perf_stacks and perf_samples, the tables of the flame graphs."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats import perf_script_native
from .parsed import BulkCsv, Parsed


def perf_script_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """perf script text (gzip or not) -> perf_stacks and perf_samples, parsed by the Rust core
    into CSV files beside the unpacked bundle, loaded in bulk by _write."""
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("perf-script artifact must belong to a run", where, 422)
    if any(b.table == "perf_stacks" and ("run_id", run_id) in b.constants for b in out.bulk):
        raise BundleError(f"run {run_id} has more than one perf-script artifact", where, 422)
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-perf-", dir=bundle.root))
    stacks, samples = tmp / "perf_stacks.csv", tmp / "perf_samples.csv"
    summary = perf_script_native.write_tables(bundle.path(art.path), stacks, samples, name=art.path)
    const = (("capture_id", bundle.capture_id), ("run_id", run_id))
    out.bulk.append(BulkCsv("perf_stacks", stacks, perf_script_native.STACK_COLUMNS, const))
    out.bulk.append(BulkCsv("perf_samples", samples, perf_script_native.SAMPLE_COLUMNS, const))
    if summary.samples == 0:
        out.warnings.append(f"{art.path}: no perf samples found (is it the output of `perf script`?)")
    elif summary.stacks == 0:
        out.warnings.append(f"{art.path}: perf samples without call stacks (recorded without -g?)")
    if len(summary.events) > 1:
        names = ", ".join(f"{e or '(none)'} ({n} samples)" for e, (n, _) in summary.events.items())
        out.warnings.append(f"{art.path}: several perf events: {names}; a flame graph shows one at a time")
