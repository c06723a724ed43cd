"""`iolens ingest`'s early start (issue 17: ingest's speed): the first bundle's gzip is inflated,
its SHA-256 computed and the pass over its perf script text started on threads of their own from
the first milliseconds, while the main thread imports DuckDB, the store, pydantic and the ingest
modules (~0.45 s of one CPU) and the store opens. Nothing here decides anything about the bundle:

- `EarlyIngest` inflates the archive into a temporary plain tar (the native core, as
  bundle/reader.py does), lists its members with tarfile, reads manifest.json as plain JSON and
  starts the native pass of the first perf-script artifact it names on that member's bytes in the
  plain tar (`EarlyPass`: rows into a TableStream, which holds a few batches until the load reads
  them; the pass waits then).
- The ingest then goes its usual way on the same plain tar (`open_bundle(plain=...)`): every check
  of the archive, the manifest's validation, each member's size and SHA-256 against it, the store's
  lookup of the bundle. The perf-script handler takes the pass (`take`) instead of starting one, and
  its rows are loaded in the write transaction as any streamed parse's (ingest/streamed.py); its
  error is reported as that parse's would be (naming the file and line) and rolls everything back.
- A bundle refused, already stored, or whose pass was not taken: `close()` stops the pass (its
  next batch fails) and removes the plain tar. Nothing is written before the checks pass.
- A bundle whose SHA-256 names a bundle the store keeps already (`known`: pipeline's kept copy,
  bundles/<sha256>.iolens.tar) starts no pass: its ingest answers "already present" without
  reading it. The SHA-256 is computed beside the inflate (24 MB: ~0.02 s against ~0.1 s), so the
  pass of a new bundle does not start later for it; the inflate of a known one is still done (the
  store's own lookup, which decides, needs DuckDB imported: ~0.2 s).

Anything unexpected here (not gzip, over the limits, a damaged stream, an odd manifest) only
means no early start: the ingest then reads the archive as it always did, and says what is wrong.
"""

from __future__ import annotations

import json
import os
import tarfile
import tempfile
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import iolens_native

from ..bundle.archive import MANIFEST, Limits, MemberNameError, file_sha256, inflated_limit, member_name

PERF_SCRIPT = "perf-script"


def kept_bundle(bundles_dir: Path, sha256: str) -> Path:
    """Where the ingest keeps a stored bundle's archive (pipeline._keep_bundle)."""
    return bundles_dir / f"{sha256}.iolens.tar"


def _member_name(name: str) -> str | None:
    """bundle/reader.py's normalisation ('a/./b' -> 'a/b'); None for a name it refuses."""
    try:
        return member_name(name) or None
    except MemberNameError:
        return None


class EarlyPass:
    """The native pass over `size` bytes at `offset` of the plain tar at `path` (one member),
    filling `stream` on a thread of its own."""

    def __init__(self, path: str, offset: int, size: int, name: str) -> None:
        # imported here, on the early thread, not before it starts (the parsers' module and the
        # Python reference it shares rules with: ~50 ms of the main thread's start)
        from ..formats import perf_script_native

        self._native = perf_script_native
        self.name = name
        self.stream = perf_script_native.TableStream()
        self._source = (path, offset, size)
        self._result: dict[str, Any] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="iolens-early-pass", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        try:
            self._result = self._native.write_tables_arrow_raw(self._source, self.stream)
        except BaseException as exc:  # noqa: BLE001 - raised by wait(), on the ingest's thread
            self._error = exc
        finally:
            self.stream.close()

    def wait(self) -> dict[str, Any]:
        """The pass's summary (iolens_native's dict); raises its error."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def abort(self) -> None:
        """Stops the pass (its next batch fails) and waits for it to end."""
        self.stream.cancel()
        self._thread.join()


class EarlyIngest:
    """The early start of one bundle (see the module's comment). `limits`: the reader's (an archive
    inflating beyond them: no early start). `known(sha256)`: whether the store keeps that bundle
    already (then no pass starts)."""

    def __init__(self, archive: Path, limits: Limits, known: Callable[[str], bool] | None = None) -> None:
        self.archive = archive
        self._limit = inflated_limit(limits)
        self._max_members = limits.max_members
        self._max_manifest_bytes = limits.max_manifest_bytes
        self._known = known
        self._plain: IO[bytes] | None = None
        self._plain_path: str | None = None
        self._sha256: str | None = None
        self._passes: dict[str, EarlyPass] = {}
        self._started: list[EarlyPass] = []
        self._thread = threading.Thread(target=self._main, name="iolens-early-ingest", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        hashing = threading.Thread(target=self._hash, name="iolens-early-sha256", daemon=True)
        hashing.start()
        try:
            with self.archive.open("rb") as f:
                gzipped = f.read(2) == b"\x1f\x8b"
            if gzipped and self._inflate():
                hashing.join()
                if not self._stored():
                    self._start_pass()
        except Exception:  # noqa: BLE001 - no early start; the ingest reads the archive as always
            self._drop_plain()
        hashing.join()

    def _hash(self) -> None:
        try:
            self._sha256 = file_sha256(self.archive)
        except OSError:
            self._sha256 = None

    def _stored(self) -> bool:
        """Whether the store keeps this bundle already (by `known`); False when unsure."""
        return self._known is not None and self._sha256 is not None and self._known(self._sha256)

    def _inflate(self) -> bool:
        fd, path = tempfile.mkstemp(prefix="iolens-bundle-", suffix=".tar")
        self._plain, self._plain_path = os.fdopen(fd, "w+b"), path
        try:
            _, over = iolens_native.gunzip_to_fd(str(self.archive), fd, self._limit)
        except OSError:
            over = True  # damaged, truncated, padded: bundle/reader.py reads it and says so
        if over:
            self._drop_plain()
            return False
        return True

    def _start_pass(self) -> None:
        """The first perf-script artifact of manifest.json whose member is a regular file."""
        assert self._plain is not None and self._plain_path is not None
        self._plain.seek(0)
        members: dict[str, tarfile.TarInfo] = {}
        with tarfile.open(fileobj=self._plain, mode="r:") as tar:
            for i, m in enumerate(tar):
                if i >= self._max_members:
                    return
                name = _member_name(m.name)
                if name is None or name in members:
                    return  # refused by the reader, or ambiguous: no early start
                members[name] = m
        manifest = members.get(MANIFEST)
        if manifest is None or not manifest.isreg() or manifest.size > self._max_manifest_bytes:
            return
        raw = json.loads(os.pread(self._plain.fileno(), manifest.size, manifest.offset_data))
        for run in raw.get("runs") or []:
            for art in (run.get("artifacts") or []) if isinstance(run, dict) else []:
                if not isinstance(art, dict) or art.get("kind") != PERF_SCRIPT or not isinstance(art.get("path"), str):
                    continue
                name = _member_name(art["path"])
                m = members.get(name) if name is not None else None
                if m is None or not m.isreg() or m.issparse() or self._perf_data(m):
                    return
                p = EarlyPass(self._plain_path, m.offset_data, m.size, name)  # type: ignore[arg-type]
                self._started.append(p)
                self._passes[p.name] = p
                return

    def _perf_data(self, m: tarfile.TarInfo) -> bool:
        """Whether the member is a perf.data file (refused by the handler, with what to do)."""
        assert self._plain is not None
        head = os.pread(self._plain.fileno(), min(m.size, 4096), m.offset_data)
        if head[:2] == b"\x1f\x8b":
            try:
                head = zlib.decompressobj(31).decompress(head, 8)
            except zlib.error:
                return False
        return head.startswith(b"PERFILE2")

    def _drop_plain(self) -> None:
        if self._plain is not None:
            self._plain.close()
            self._plain = None
        if self._plain_path is not None:
            Path(self._plain_path).unlink(missing_ok=True)
            self._plain_path = None

    def ready(self) -> None:
        self._thread.join()

    def plain(self) -> IO[bytes] | None:
        """The archive inflated into a plain tar (owned by this object; read it from offset 0),
        or None (not gzip, over the limits, damaged)."""
        self.ready()
        return self._plain

    def sha256(self) -> str | None:
        self.ready()
        return self._sha256

    def take(self, member: str) -> EarlyPass | None:
        """The pass started on `member` (as bundle/reader.py names it), once; None if none was."""
        self.ready()
        return self._passes.pop(member, None)

    def close(self) -> None:
        """Stops every pass still running (a bundle refused or already stored: its rows are never
        read), and removes the plain tar."""
        self.ready()
        for p in self._started:
            p.abort()
        self._started.clear()
        self._passes.clear()
        self._drop_plain()
