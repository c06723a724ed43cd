"""Ingest one bundle: check it, parse every artifact, then write everything in one transaction.

Parsing happens before the transaction opens, so a bad file leaves the store as it was; except
a streamed parse (perf script text, ingest/streamed.py), which runs inside the transaction while
DuckDB loads its rows, and whose error rolls the transaction back: the store is left as it was
all the same. The bulk loads run before the transaction takes the store's write lock (other
writes go on meanwhile); the rest of it, and the commit, under the lock. The original bundle is kept under the SHA-256 of its bytes. Each artifact kind is
read by its handler (ingest/registry.py: one module per domain, one line per kind).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import duckdb

from ..bundle import KEPT_KINDS, BundleError, Limits, OpenBundle, open_bundle
from ..bundle.reader import file_sha256
from ..formats import gz
from ..formats.errors import FormatError
from ..store.db import Store, StoreOpening, Writer
from . import fio, sweep, workload
from .early import kept_bundle
from .parsed import BulkCsv, BulkStream, Parsed
from .registry import FINISHERS, handler, table_columns
from .streamed import Streamed

if TYPE_CHECKING:
    from .early import EarlyIngest

log = logging.getLogger("iolens.ingest")

@dataclass
class IngestResult:
    capture_id: str
    label: str
    created: bool
    runs: int
    warnings: list[str] = field(default_factory=list)


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


# What a parser raises on bad input (FormatError), or by a bug on input it did not expect.
_PARSE_ERRORS = (FormatError, ValueError, ArithmeticError, IndexError, KeyError, RecursionError, UnicodeError)


def _refusal(bundle: OpenBundle, run_id: str | None, path: str, kind: str, exc: BaseException) -> BundleError:
    """A parser's error as the refusal of the bundle, naming the file (and line or field); its
    cause is the error it tells (for a damaged gzip stream, the damage's)."""
    if isinstance(exc, FormatError):
        if exc.file == path:  # garbage that a damaged gzip stream decoded to: the damage
            exc = gz.explain(exc, bundle.path(path))
        err = BundleError(str(exc), {"file": exc.file, "line": exc.line, "field": exc.field, "run": run_id}, 422)
    else:
        # A parser bug, not a FormatError: still a clear refusal naming the file, never a 500.
        log.error("%s: the %s parser failed", path, kind, exc_info=exc)
        err = BundleError(
            f"{path}: cannot read this {kind} file ({type(exc).__name__}: {str(exc)[:200]})",
            {"file": path, "line": None, "field": None, "run": run_id}, 422,
        )
    err.__cause__ = exc
    return err


def parse_bundle(bundle: OpenBundle) -> Parsed:
    out = Parsed()
    for name in bundle.unlisted:
        out.warnings.append(f"{name}: in the archive but not in manifest.json; ignored")
    for run_id, art in bundle.manifest.all_artifacts():
        parser = handler(art.kind)
        if parser is None:
            if art.kind not in KEPT_KINDS:
                out.warnings.append(f"{art.path}: artifact kind {art.kind!r} is not known to this server; kept, not parsed")
            continue
        try:
            parser(bundle, run_id, art, out)
        except BundleError:
            raise  # the handler's own refusal, naming the file and field (a ValueError: not a parser bug)
        except _PARSE_ERRORS as exc:
            raise _refusal(bundle, run_id, art.path, art.kind, exc)  # noqa: B904 - its cause is set
    for finish in FINISHERS:
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
        dt = dt.astimezone(UTC).replace(tzinfo=None)
    return dt


def _keep_bundle(archive: Path, sha256: str, bundles_dir: Path) -> Path | None:
    """Copy the archive to bundles_dir/<sha256>.iolens.tar; return the path if this call created it."""
    bundles_dir.mkdir(parents=True, exist_ok=True)
    target = kept_bundle(bundles_dir, sha256)
    if target.exists():
        return None
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    shutil.copyfile(archive, tmp)
    os.replace(tmp, target)
    return target


def ingest_file(
    store: Store | StoreOpening,
    archive: Path,
    *,
    bundles_dir: Path,
    source: str | None = None,
    limits: Limits = Limits(),
    early: EarlyIngest | None = None,
) -> IngestResult:
    """Check, parse and store one bundle (or fio terse text). `store` may still be opening
    (StoreOpening, `iolens ingest` on a new database): the bundle is then parsed meanwhile, and
    checked against the captures already stored once the store is open. `early`: what `iolens
    ingest` started on this archive before its imports (early.py: the plain tar, the SHA-256, a
    perf script pass); the caller closes it."""
    # The store, resolved once: `ready` is None while it is still opening; it is then waited for
    # when first needed, after the bundle is parsed (the database's DDL runs meanwhile).
    if isinstance(store, StoreOpening):
        opening: StoreOpening | None = store
        ready = store.result() if store.done() else None
    else:
        opening, ready = None, store

    def resolved() -> Store:
        if ready is not None:
            return ready
        assert opening is not None
        return opening.result()

    terse = sweep.sniff_terse(archive)  # fio terse text instead of a bundle: wrapped into one
    if terse is not None:
        import hashlib

        opened = resolved()
        found = sweep.existing_terse(opened, hashlib.sha256(terse.encode("utf-8")).hexdigest())
        if found is not None:
            runs = opened.query("SELECT n_runs FROM captures WHERE capture_id = ?", [found[0]]).scalar()
            return IngestResult(found[0], found[1], created=False, runs=runs)
        wrapped = sweep.wrap_terse(terse, source, archive.parent)
        try:
            return ingest_file(opened, wrapped, bundles_dir=bundles_dir, source=source, limits=limits)
        finally:
            wrapped.unlink(missing_ok=True)
    if early is not None and early.archive != archive:
        early = None
    plain = early.plain() if early is not None else None
    if ready is None:
        # the archive's SHA-256 is computed while it is unpacked (open_bundle), the store opening
        with open_bundle(archive, source, limits, sha256=early.sha256() if early else None, plain=plain) as bundle:
            bundle.early = early
            digest = bundle.sha256
            parsed = parse_bundle(bundle)
            opened = resolved()
            with _one_at_a_time(digest):
                found = opened.query("SELECT capture_id, label, n_runs FROM captures WHERE bundle_sha256 = ?",
                                     [digest]).rows
                if found:
                    return IngestResult(found[0][0], found[0][1], created=False, runs=found[0][2])
                return _store_parsed(opened, archive, bundle, parsed, bundles_dir)
    # The same bytes again (a re-upload, five people uploading one bundle at once): answered from
    # the content hash before anything is unpacked or parsed; concurrent copies wait for the first.
    digest = (early.sha256() if early else None) or file_sha256(archive)
    with _one_at_a_time(digest):
        found = ready.query("SELECT capture_id, label, n_runs FROM captures WHERE bundle_sha256 = ?", [digest]).rows
        if found:
            return IngestResult(found[0][0], found[0][1], created=False, runs=found[0][2])
        return _ingest_bundle(ready, archive, digest, bundles_dir=bundles_dir, source=source, limits=limits,
                              early=early, plain=plain)


_INFLIGHT: dict[str, tuple[threading.Lock, int]] = {}
_INFLIGHT_GUARD = threading.Lock()


@contextmanager
def _one_at_a_time(digest: str) -> Iterator[None]:
    with _INFLIGHT_GUARD:
        lock, users = _INFLIGHT.get(digest, (threading.Lock(), 0))
        _INFLIGHT[digest] = (lock, users + 1)
    try:
        with lock:
            yield
    finally:
        with _INFLIGHT_GUARD:
            lock, users = _INFLIGHT[digest]
            if users == 1:
                del _INFLIGHT[digest]
            else:
                _INFLIGHT[digest] = (lock, users - 1)


def _ingest_bundle(store: Store, archive: Path, digest: str, *, bundles_dir: Path, source: str | None,
                   limits: Limits, early: EarlyIngest | None = None, plain: IO[bytes] | None = None) -> IngestResult:
    with open_bundle(archive, source, limits, sha256=digest, plain=plain) as bundle:
        bundle.early = early
        existing = store.query("SELECT label FROM captures WHERE capture_id = ?", [bundle.capture_id]).scalar()
        if existing is not None:
            return IngestResult(bundle.capture_id, existing, created=False, runs=len(bundle.manifest.runs))
        return _store_parsed(store, archive, bundle, parse_bundle(bundle), bundles_dir)


def _store_parsed(store: Store, archive: Path, bundle: OpenBundle, parsed: Parsed, bundles_dir: Path) -> IngestResult:
    """Keep the archive and write the parsed bundle in one transaction (unless its capture is stored already)."""
    m = bundle.manifest
    existing = store.query("SELECT label FROM captures WHERE capture_id = ?", [bundle.capture_id]).scalar()
    if existing is not None:
        return IngestResult(bundle.capture_id, existing, created=False, runs=len(m.runs))
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
    host = m.host
    kernel = host.kernel.release if host.kernel is not None else None
    repeats: dict[str, int] = {}
    for run in m.runs:
        key = json.dumps(run.params, sort_keys=True)
        repeats[key] = repeats.get(key, 0) + 1
    now = datetime.now(UTC).replace(tzinfo=None)
    # The bulk loads (a streamed parse runs now: ingest/streamed.py) go in without the store's
    # write lock: a large ingest does not keep notebook saves and other uploads waiting while its
    # text is parsed. Its rows are seen by no one before the commit, and its failure rolls them
    # back. The lock is taken for the rest: from the captures row (whose key a concurrent upload
    # of the same capture writes too) to the commit.
    with store.write(locked=False) as w:
        # First the bulk loads: their warnings (a streamed parse's) belong in the captures row.
        for b in parsed.bulk:
            _load_bulk(w, bundle, b, parsed)
        w.lock()
        w.insert(
            "captures",
            ("capture_id", "label", "tags", "kernel", "hostname", "created_at", "ingested_at",
             "format_version", "collector_version", "workload_kind", "workload_summary", "n_runs",
             "n_repeats", "bundle_sha256", "bundle_bytes", "warnings", "manifest"),
            [(cid, m.label, json.dumps(m.tags), kernel, host.hostname, _utc(m.created_at), now,
              m.format_version, m.collector.version, m.workload.kind, sweep.summary(m.workload, fio.workload_summary(parsed.fio)),
              len(m.runs), max(repeats.values()), bundle.sha256, bundle.size,
              json.dumps(parsed.warnings), json.dumps(bundle.raw_manifest))],
        )
        w.insert("host_facts", ("capture_id", "key", "value"),
                 [(cid, k, v) for k, v in flatten_facts(m.host_facts())])
        w.insert("workload_facts", ("capture_id", "key", "value"),
                 [(cid, k, v) for k, v in workload.workload_facts(bundle, parsed)])
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
            w.insert(table, table_columns(table), rows)
        for step in parsed.derive:
            step(w)
        w.execute(fio.DERIVE_FIO_RESULTS, {"cid": cid})
        w.execute(sweep.DERIVE_RUN_METRICS, {"cid": cid})


def _load_bulk(w: Writer, bundle: OpenBundle, b: BulkCsv | BulkStream, parsed: Parsed) -> None:
    """Loads one bulk file or stream. A stream's parse starts now: each run of its stream (the
    batches of one table) is loaded while the parse fills it; its error (the parse's, not the
    load's that it caused) refuses the bundle and rolls the transaction back."""
    if isinstance(b, BulkCsv):
        _insert(w, b)
        return
    job = b.streamed
    job.start()
    try:
        try:
            while (name := job.stream.next_table()) is not None:
                table, columns = b.tables[name]
                w.insert_arrow(table, job.stream, columns, b.constants)
        except BaseException:
            _raise_parse_error_first(job)
            raise
        parsed.warnings.extend(job.wait())
    except _PARSE_ERRORS as exc:
        if isinstance(exc, (duckdb.Error, BundleError)):
            raise
        raise _refusal(bundle, job.run_id, job.art_path, job.kind, exc)  # noqa: B904 - its cause is set


def _raise_parse_error_first(job: Streamed) -> None:
    """The load of a streamed parse's rows failed: stop the parse; when the parse had failed
    first (the load saw its stream end early), its error is the one raised."""
    job.abort()
    cause = job.error()
    if cause is not None and not isinstance(cause, BrokenPipeError):
        raise cause from None


def _insert(w: Writer, b: BulkCsv) -> None:
    w.insert_csv(b.table, b.path, b.columns, b.constants, max_line_bytes=b.max_line_bytes,
                 buffer_bytes=b.buffer_bytes)
