"""Ingest one bundle: check it, parse every artifact, then write everything in one transaction.

Parsing happens before the transaction opens, so a bad file leaves the store as it was. The
original bundle is kept under the SHA-256 of its bytes. Adding a format means adding one entry to
ARTIFACT_PARSERS (kind -> function returning rows per table).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from .bundle import BundleError, Limits, OpenBundle, open_bundle
from .formats.errors import FormatError
from .formats.fio_json import FioResult, parse_fio_json
from .ingest_block import BLOCK_RUN_COLUMNS, block_artifact, perf_stat_block_artifact
from .ingest_sched import TABLE_COLUMNS as SCHED_TABLE_COLUMNS, perf_stat_artifact, sched_artifact
from . import ingest_sweep
from .formats.lock_stat import parse_lock_stat
from .formats import perf_script_native
from .manifest import Artifact
from .store.db import Store

log = logging.getLogger("iolens.ingest")

Rows = dict[str, list[tuple[Any, ...]]]

COLUMNS: dict[str, tuple[str, ...]] = {
    "fio_jobs": (
        "capture_id", "run_id", "job_index", "jobname", "groupid", "ddir", "error", "io_bytes",
        "bw_bytes", "iops", "runtime_ms", "total_ios", "slat_mean_ns", "clat_min_ns", "clat_max_ns",
        "clat_mean_ns", "clat_stddev_ns", "clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99_9_ns",
        "clat_p99_99_ns", "lat_mean_ns", "usr_cpu", "sys_cpu", "ctx", "majf", "minf",
    ),
    "fio_clat_percentiles": ("capture_id", "run_id", "job_index", "ddir", "percentile", "value_ns"),
    "fio_clat_bins": ("capture_id", "run_id", "job_index", "ddir", "bin_ns", "count"),
    "lock_stat_dumps": ("capture_id", "run_id", "path", "version", "debug_locks_off", "classes", "warnings"),
    "lock_stat_classes": (
        "capture_id", "run_id", "path", "class", "occurrence", "rw", "base_name", "subclass", "seq", "con_bounces",
        "contentions", "wait_min_ns", "wait_max_ns", "wait_total_ns", "wait_avg_ns", "acq_bounces", "acquisitions",
        "hold_min_ns", "hold_max_ns", "hold_total_ns", "hold_avg_ns",
    ),
    "lock_stat_points": ("capture_id", "run_id", "path", "class", "occurrence", "kind", "idx", "count", "address",
                         "symbol", "function_name", "module"),
    "block_runs": BLOCK_RUN_COLUMNS,
    **SCHED_TABLE_COLUMNS,  # sched_traces, sched_checks, perf_stat
    **ingest_sweep.TABLE_COLUMNS,  # fio_log_samples, cmd_disk, run_metrics
}


@dataclass
class IngestResult:
    capture_id: str
    label: str
    created: bool
    runs: int
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BulkCsv:
    """Rows too many for executemany: a headerless CSV file loaded by `Writer.insert_csv`."""

    table: str
    path: Path                               # inside the bundle's temporary directory
    columns: tuple[tuple[str, str], ...]     # (name, DuckDB type) in file order
    constants: tuple[tuple[str, Any], ...]   # (name, value) for every row: capture_id, run_id


@dataclass
class Parsed:
    rows: Rows = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    fio: list[FioResult] = field(default_factory=list)
    bulk: list[BulkCsv] = field(default_factory=list)
    # derived tables computed in the write transaction after the bulk loads (block tiles)
    derive: list[Callable[[Any], None]] = field(default_factory=list)
    # state of parsers that pair artifacts (diskstats before/after), used by ARTIFACT_FINISHERS
    pending: dict[str, Any] = field(default_factory=dict)

    def add(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        self.rows.setdefault(table, []).extend(rows)


def _fio_json(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    if run_id is None:
        raise BundleError("fio-json artifact must belong to a run", {"file": art.path, "field": "kind"}, 422)
    _fio_rows(bundle, run_id, art, out, parse_fio_json(bundle.read_text(art.path), source=art.path))


def _fio_rows(bundle: OpenBundle, run_id: str, art: Artifact, out: Parsed, result: FioResult) -> None:
    """fio's results (JSON or terse: ingest_sweep.py) -> fio_jobs, fio_clat_percentiles, fio_clat_bins."""
    out.fio.append(result)
    cid = bundle.capture_id
    for line in result.preamble:
        out.warnings.append(f"{art.path}: fio printed: {line.strip()}")
    for j in result.jobs:
        if j.error:
            out.warnings.append(f"{art.path}: job {j.jobname} ({j.ddir}) ended with error {j.error}")
        out.add("fio_jobs", [(
            cid, run_id, j.job_index, j.jobname, j.groupid, j.ddir, j.error, j.io_bytes, j.bw_bytes,
            j.iops, j.runtime_ms, j.total_ios, j.slat_mean_ns, j.clat_min_ns, j.clat_max_ns,
            j.clat_mean_ns, j.clat_stddev_ns, j.percentile(50.0), j.percentile(90.0),
            j.percentile(99.0), j.percentile(99.9), j.percentile(99.99), j.lat_mean_ns,
            j.usr_cpu, j.sys_cpu, j.ctx, j.majf, j.minf,
        )])
        out.add("fio_clat_percentiles", [
            (cid, run_id, j.job_index, j.ddir, p, v) for p, v in sorted(j.clat_percentiles_ns.items())
        ])
        if j.clat_bins_ns:
            out.add("fio_clat_bins", [
                (cid, run_id, j.job_index, j.ddir, b, c) for b, c in sorted(j.clat_bins_ns.items())
            ])


def _perf_script(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
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


def _lock_stat(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """/proc/lock_stat text -> lock_stat_dumps, lock_stat_classes, lock_stat_points. At most one dump
    per run, and one for the capture (run_id NULL), so that no count is added twice."""
    if any(r[0] == bundle.capture_id and r[1] == run_id for r in out.rows.get("lock_stat_dumps", [])):
        where = f"run {run_id}" if run_id else "the capture"
        raise BundleError(f"{where} has more than one lock-stat artifact", {"file": art.path, "field": "kind"}, 422)
    dump = parse_lock_stat(bundle.read_text(art.path), source=art.path)
    cid = bundle.capture_id
    out.warnings.extend(f"{art.path}: {w}" for w in dump.warnings)
    out.add("lock_stat_dumps", [(cid, run_id, art.path, dump.version, dump.debug_locks_off, len(dump.classes),
                                 json.dumps(dump.warnings))])
    for seq, c in enumerate(dump.classes):
        out.add("lock_stat_classes", [(
            cid, run_id, art.path, c.name, c.occurrence, r.rw, c.base_name, c.subclass, seq, r.con_bounces,
            r.contentions, r.wait_min_ns, r.wait_max_ns, r.wait_total_ns, r.wait_avg_ns, r.acq_bounces,
            r.acquisitions, r.hold_min_ns, r.hold_max_ns, r.hold_total_ns, r.hold_avg_ns,
        ) for r in c.rows])
        out.add("lock_stat_points", [
            (cid, run_id, art.path, c.name, c.occurrence, p.kind, p.index, p.count, p.address, p.symbol, p.function,
             p.module) for p in c.contention_points + c.contending_points
        ])


# kind -> parser. Kinds not listed are kept in the bundle and listed, not parsed.
ARTIFACT_PARSERS: dict[str, Callable[[OpenBundle, str | None, Artifact, Parsed], None]] = {
    "fio-json": _fio_json,
    "perf-script": _perf_script,
    "lock-stat": _lock_stat,
    "blkparse": block_artifact,
    "perf-block": block_artifact,
    "perf-stat-block": perf_stat_block_artifact,
    "perf-sched": sched_artifact,
    "perf-stat": perf_stat_artifact,
    "fio-log": ingest_sweep.fio_log_artifact,
    "fio-terse": ingest_sweep.fio_terse_artifact,
    "cmd-stdout": ingest_sweep.cmd_stdout_artifact,
    "cmd-rusage": ingest_sweep.cmd_rusage_artifact,
    "diskstats": ingest_sweep.diskstats_artifact,
    "fio-jobfile": ingest_sweep.text_artifact,
    "sweep-plan": ingest_sweep.text_artifact,
}
# Run after every artifact is parsed, for kinds that pair artifacts.
ARTIFACT_FINISHERS: list[Callable[[OpenBundle, Parsed], None]] = [ingest_sweep.finish]
KEPT_KINDS = {"fio-stderr", "fio-jobfile", "stdout", "stderr", "sweep-plan", "fio-terse-upload"}


def flatten_facts(value: Any, prefix: str = "") -> list[tuple[str, str | None]]:
    """{'kernel': {'release': '6.1'}, 'targets': [{'path': '/x'}]} -> [('kernel.release', '6.1'), ('targets.0.path', '/x')]"""
    if isinstance(value, dict):
        out: list[tuple[str, str | None]] = []
        for k in sorted(value):
            out.extend(flatten_facts(value[k], f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list):
        if value and all(not isinstance(v, (dict, list)) for v in value):
            return [(prefix, ",".join(_fact_str(v) or "" for v in value))]
        out = []
        for i, v in enumerate(value):
            out.extend(flatten_facts(v, f"{prefix}.{i}"))
        return out
    return [(prefix, _fact_str(value))]


def _fact_str(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def workload_summary(fio: list[FioResult]) -> str | None:
    """'randwrite bs=4k iodepth=32 libaio direct=1', from fio's own record of the options."""
    if not fio or not fio[0].jobs:
        return None
    first = fio[0]
    names = list(dict.fromkeys(j.jobname for j in first.jobs))
    opts = {**first.global_options, **first.jobs[0].job_options}
    parts = [opts["rw"]] if "rw" in opts else (["readwrite"] if "readwrite" in opts else [])
    for key in ("bs", "iodepth", "numjobs", "direct", "fallocate"):
        if key in opts:
            parts.append(f"{key}={opts[key]}")
    if "ioengine" in opts:
        parts.insert(1 if parts else 0, opts["ioengine"])
    if len(names) > 1:
        parts.append(f"(+{len(names) - 1} more job{'s' if len(names) > 2 else ''})")
    return " ".join(parts) or names[0]


def parse_bundle(bundle: OpenBundle) -> Parsed:
    out = Parsed()
    for name in bundle.unlisted:
        out.warnings.append(f"{name}: in the archive but not in manifest.json; ignored")
    for run_id, art in bundle.manifest.all_artifacts():
        parser = ARTIFACT_PARSERS.get(art.kind)
        if parser is None:
            if art.kind not in KEPT_KINDS:
                out.warnings.append(f"{art.path}: artifact kind {art.kind!r} is not known to this server; kept, not parsed")
            continue
        try:
            parser(bundle, run_id, art, out)
        except FormatError as exc:
            raise BundleError(
                str(exc), {"file": exc.file, "line": exc.line, "field": exc.field, "run": run_id}, 422
            ) from exc
    for finish in ARTIFACT_FINISHERS:
        finish(bundle, out)
    for run in bundle.manifest.runs:
        if run.exit_code not in (0, None):
            out.warnings.append(f"run {run.id}: the workload exited with status {run.exit_code}")
    if bundle.manifest.workload.kind == "fio" and not out.rows.get("fio_jobs"):
        out.warnings.append("no fio results in this bundle")
    return out


def _utc(dt: datetime | None) -> datetime | None:
    if dt is None:
        return None
    if dt.tzinfo is not None:
        dt = dt.astimezone(timezone.utc).replace(tzinfo=None)
    return dt


DERIVE_FIO_RESULTS = """
INSERT INTO fio_results
WITH j AS (
    SELECT capture_id, run_id, jobname, ddir,
           count(*) AS entries,
           sum(iops) AS iops, sum(bw_bytes) AS bw_bytes, sum(io_bytes) AS io_bytes,
           sum(total_ios) AS total_ios,
           CASE WHEN count(*) = 1 THEN any_value(clat_mean_ns)
                ELSE sum(clat_mean_ns * total_ios) / nullif(sum(total_ios), 0) END AS clat_mean_ns,
           CASE WHEN count(*) = 1 THEN any_value(clat_p50_ns) END AS p50,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_ns) END AS p99,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_9_ns) END AS p999,
           CASE WHEN count(*) = 1 THEN any_value(lat_mean_ns)
                ELSE sum(lat_mean_ns * total_ios) / nullif(sum(total_ios), 0) END AS lat_mean_ns,
           sum(usr_cpu) AS usr_cpu, sum(sys_cpu) AS sys_cpu, sum(ctx) AS ctx
    FROM fio_jobs WHERE capture_id = $cid
    GROUP BY capture_id, run_id, jobname, ddir
),
merged_bins AS (
    SELECT f.run_id, f.jobname, f.ddir, b.bin_ns, sum(b.count) AS c
    FROM fio_clat_bins b
    JOIN fio_jobs f USING (capture_id, run_id, job_index, ddir)
    WHERE b.capture_id = $cid
    GROUP BY ALL
),
cumulative AS (
    SELECT run_id, jobname, ddir, bin_ns,
           sum(c) OVER (PARTITION BY run_id, jobname, ddir ORDER BY bin_ns) AS cum,
           sum(c) OVER (PARTITION BY run_id, jobname, ddir) AS total
    FROM merged_bins
),
-- fio's rule (stat.c, calc_clat_percentiles): the first bin whose running count reaches p% of all.
from_bins AS (
    SELECT run_id, jobname, ddir,
           min(bin_ns) FILTER (WHERE cum >= total * 0.50) AS p50,
           min(bin_ns) FILTER (WHERE cum >= total * 0.99) AS p99,
           min(bin_ns) FILTER (WHERE cum >= total * 0.999) AS p999
    FROM cumulative GROUP BY ALL
)
SELECT j.capture_id, j.run_id, j.jobname, j.ddir, j.entries, j.iops, j.bw_bytes, j.io_bytes,
       j.total_ios, j.clat_mean_ns,
       coalesce(j.p50, b.p50), coalesce(j.p99, b.p99), coalesce(j.p999, b.p999),
       j.lat_mean_ns, j.usr_cpu, j.sys_cpu, j.ctx
FROM j LEFT JOIN from_bins b USING (run_id, jobname, ddir)
"""


def _keep_bundle(archive: Path, sha256: str, bundles_dir: Path) -> Path | None:
    """Copy the archive to bundles_dir/<sha256>.iolens.tar; return the path if this call created it."""
    bundles_dir.mkdir(parents=True, exist_ok=True)
    target = bundles_dir / f"{sha256}.iolens.tar"
    if target.exists():
        return None
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    shutil.copyfile(archive, tmp)
    os.replace(tmp, target)
    return target


def ingest_file(
    store: Store,
    archive: Path,
    *,
    bundles_dir: Path,
    source: str | None = None,
    limits: Limits = Limits(),
) -> IngestResult:
    terse = ingest_sweep.sniff_terse(archive)  # fio terse text instead of a bundle: wrapped into one
    if terse is not None:
        import hashlib

        found = ingest_sweep.existing_terse(store, hashlib.sha256(terse.encode("utf-8")).hexdigest())
        if found is not None:
            runs = store.query("SELECT n_runs FROM captures WHERE capture_id = ?", [found[0]]).scalar()
            return IngestResult(found[0], found[1], created=False, runs=runs)
        wrapped = ingest_sweep.wrap_terse(terse, source, archive.parent)
        try:
            return ingest_file(store, wrapped, bundles_dir=bundles_dir, source=source, limits=limits)
        finally:
            wrapped.unlink(missing_ok=True)
    with open_bundle(archive, source, limits) as bundle:
        m = bundle.manifest
        existing = store.query("SELECT label FROM captures WHERE capture_id = ?", [bundle.capture_id]).scalar()
        if existing is not None:
            return IngestResult(bundle.capture_id, existing, created=False, runs=len(m.runs))
        parsed = parse_bundle(bundle)
        kept = _keep_bundle(archive, bundle.sha256, bundles_dir)
        try:
            _write(store, bundle, parsed)
        except duckdb.ConstraintException:
            # A concurrent upload of the same bundle won the race: one capture, as promised.
            if kept is not None and not _bundle_referenced(store, bundle.sha256):
                kept.unlink(missing_ok=True)
            label = store.query("SELECT label FROM captures WHERE capture_id = ?", [bundle.capture_id]).scalar()
            if label is None:
                raise
            return IngestResult(bundle.capture_id, label, created=False, runs=len(m.runs))
        except BaseException:
            if kept is not None:
                kept.unlink(missing_ok=True)
            raise
        return IngestResult(bundle.capture_id, m.label, created=True, runs=len(m.runs), warnings=parsed.warnings)


def _bundle_referenced(store: Store, sha256: str) -> bool:
    return bool(store.query("SELECT count(*) FROM captures WHERE bundle_sha256 = ?", [sha256]).scalar())


def _write(store: Store, bundle: OpenBundle, parsed: Parsed) -> None:
    m = bundle.manifest
    cid = bundle.capture_id
    host = m.host or {}
    kernel = (host.get("kernel") or {}).get("release") if isinstance(host.get("kernel"), dict) else None
    repeats: dict[str, int] = {}
    for run in m.runs:
        key = json.dumps(run.params, sort_keys=True)
        repeats[key] = repeats.get(key, 0) + 1
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    with store.write() as w:
        w.insert(
            "captures",
            ("capture_id", "label", "tags", "kernel", "hostname", "created_at", "ingested_at",
             "format_version", "collector_version", "workload_kind", "workload_summary", "n_runs",
             "n_repeats", "bundle_sha256", "bundle_bytes", "warnings", "manifest"),
            [(cid, m.label, json.dumps(m.tags), kernel, host.get("hostname"), _utc(m.created_at), now,
              m.format_version, m.collector.version, m.workload.kind, ingest_sweep.summary(bundle.raw_manifest, workload_summary(parsed.fio)),
              len(m.runs), max(repeats.values()), bundle.sha256, bundle.size,
              json.dumps(parsed.warnings), json.dumps(bundle.raw_manifest))],
        )
        w.insert("host_facts", ("capture_id", "key", "value"),
                 [(cid, k, v) for k, v in flatten_facts(host)])
        w.insert(
            "runs",
            ("capture_id", "run_id", "run_index", "repeat", "params", "started_at", "ended_at",
             "exit_code", "cmdline"),
            [(cid, r.id, r.index, r.repeat, json.dumps(r.params), _utc(r.started_at), _utc(r.ended_at),
              r.exit_code, json.dumps(r.cmdline)) for r in m.runs],
        )
        w.insert(
            "artifacts", ("capture_id", "run_id", "kind", "path", "size", "sha256"),
            [(cid, run_id, a.kind, a.path, a.size, a.sha256) for run_id, a in m.all_artifacts()],
        )
        for table, rows in parsed.rows.items():
            w.insert(table, COLUMNS[table], rows)
        for b in parsed.bulk:
            w.insert_csv(b.table, b.path, b.columns, b.constants)
        for step in parsed.derive:
            step(w)
        w.execute(DERIVE_FIO_RESULTS, {"cid": cid})
        w.execute(ingest_sweep.DERIVE_RUN_METRICS, {"cid": cid})
