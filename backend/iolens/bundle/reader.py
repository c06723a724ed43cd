"""Read and check a capture bundle (docs/bundle-format.md) without trusting it.

`open_bundle` streams the archive's members into a private temporary directory, refusing links,
devices, absolute or `..` names, duplicates, oversized members and archives, then validates the
manifest and checks each listed file's size and SHA-256. Nothing is written to the store here.

A gzip-compressed archive (.iolens.tar.gz) is first inflated by the native core into an unlinked
temporary plain tar (zlib-rs, without the GIL: Python's gzip module took ~0.3 s of one CPU for
the 24 MB bundle of a 344 MB perf script text), which tarfile then reads with the same checks,
each member's bytes copied by the kernel (copy_file_range). When the native core refuses the
stream (damaged, truncated, padded), the archive is read again through Python's gzip module, so
that what is refused and how it is said stay as they were.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from .archive import MANIFEST, Limits, MemberNameError, file_sha256, inflated_limit, member_name
from .manifest import Manifest, capture_id, describe_validation_error

__all__ = ["MANIFEST", "BundleError", "Limits", "OpenBundle", "file_sha256", "open_bundle"]


class BundleError(ValueError):
    """The bundle is unusable. `detail` says where: file, field, line."""

    def __init__(self, message: str, detail: dict[str, Any] | list[Any] | None = None, status: int = 400):
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.status = status

    def __str__(self) -> str:
        if isinstance(self.detail, dict) and self.detail:
            where = ", ".join(f"{k}={v}" for k, v in self.detail.items() if k != "errors")
            errors = self.detail.get("errors")
            extra = ""
            if errors:
                extra = "; " + "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
            return f"{self.message} ({where}){extra}" if where else f"{self.message}{extra}"
        return self.message


@dataclass
class OpenBundle:
    source: str                 # the name the user knows the bundle by (upload name or path)
    root: Path                  # temporary directory holding the checked members
    manifest: Manifest
    raw_manifest: dict[str, Any]
    capture_id: str
    sha256: str                 # of the archive's bytes
    size: int
    unlisted: list[str] = field(default_factory=list)
    # what `iolens ingest` started on this archive before it was checked (ingest/early.py's
    # EarlyIngest: a perf script pass its handler takes), or None
    early: Any = None

    def path(self, member: str) -> Path:
        return self.root / member


def _member_name(name: str) -> str:
    """Normalise 'a/./b', './manifest.json'; refuse absolute and '..' names."""
    try:
        return member_name(name)
    except MemberNameError as exc:
        raise BundleError(str(exc), {"file": name}) from None


@contextmanager
def open_bundle(archive: Path, source: str | None = None, limits: Limits = Limits(),
                sha256: str | None = None, plain: IO[bytes] | None = None) -> Iterator[OpenBundle]:
    """Check `archive` and yield it unpacked in a temporary directory, removed afterwards.
    `sha256`: the archive's digest when the caller computed it already; else it is computed on a
    thread of its own while the archive is unpacked (hashlib and the native inflate both run
    without the GIL). `plain`: the archive's gzip stream inflated already into this file (a plain
    tar, which the caller keeps and closes)."""
    source = source or archive.name
    size = archive.stat().st_size
    hashing = None if sha256 else _Hashing(archive)
    root = Path(tempfile.mkdtemp(prefix="iolens-bundle-"))
    try:
        _extract(archive, source, root, limits, plain)
        bundle = _check(root, source, limits)
        bundle.sha256 = sha256 or hashing.result()  # type: ignore[union-attr]
        bundle.size = size
        yield bundle
    finally:
        if hashing is not None:
            hashing.join()
        shutil.rmtree(root, ignore_errors=True)


class _Hashing:
    """file_sha256(path) on a thread of its own."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._digest: str | None = None
        self._thread = threading.Thread(target=self._main, name="iolens-bundle-sha256", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        with contextlib.suppress(OSError):  # said by result(), on the caller's thread
            self._digest = file_sha256(self._path)

    def join(self) -> None:
        self._thread.join()

    def result(self) -> str:
        self._thread.join()
        return self._digest if self._digest is not None else file_sha256(self._path)


def _tar_mode(archive: Path, source: str) -> str:
    """The compression, from the first bytes: tarfile's "r:*" would try each decompressor over the
    whole file (17 s for 200 MB of zeros) before saying it is not an archive."""
    with archive.open("rb") as f:
        head = f.read(512)
    for magic, mode in ((b"\x1f\x8b", "r:gz"), (b"BZh", "r:bz2"), (b"\xfd7zXZ\x00", "r:xz")):
        if head.startswith(magic):
            return mode
    if head[257:262] == b"ustar":
        return "r:"
    seen = ("zero bytes" if head and not head.strip(b"\0") else "no tar header and no gzip, bzip2 or xz magic"
            if head else "an empty file")
    raise BundleError(
        f"{source} is not a tar archive (plain or gzip-compressed): its first bytes are {seen}; expected an "
        ".iolens.tar.gz bundle written by iolens-collect",
        {"file": source},
        status=415,
    )


def _inflated(archive: Path, limits: Limits) -> IO[bytes] | None:
    """The archive's gzip stream inflated into an unlinked temporary file (read from its start),
    by the native core; None when it cannot (then tarfile inflates it as before)."""
    try:
        import iolens_native
    except ImportError:  # pragma: no cover - the native core is built with the package
        return None
    # a bundle within the limits stays under it
    limit = inflated_limit(limits)
    out = tempfile.TemporaryFile(prefix="iolens-bundle-", suffix=".tar")
    try:
        _, over = iolens_native.gunzip_to_fd(str(archive), out.fileno(), limit)
    except OSError:  # damaged, truncated or padded: tarfile reads it and says what it finds
        out.close()
        return None
    except BaseException:
        out.close()
        raise
    if over:  # a bomb, or a bundle over the limits: tarfile stops it, naming the member
        out.close()
        return None
    out.seek(0)
    return out


def _copy_member(tar: tarfile.TarFile, member: tarfile.TarInfo, plain: IO[bytes] | None, out: IO[bytes]) -> None:
    """A member's bytes into `out`: from the plain tar by the kernel when there is one (and the
    member is not sparse), else through tarfile."""
    if plain is None or member.issparse():
        fileobj = tar.extractfile(member)
        assert fileobj is not None
        with fileobj:
            shutil.copyfileobj(fileobj, out, 1 << 20)
        return
    src, dst = plain.fileno(), out.fileno()
    offset, left = member.offset_data, member.size
    while left > 0:
        try:
            n = os.copy_file_range(src, dst, left, offset)
        except OSError:  # refused (an old kernel, another file system): read and write
            plain.seek(offset)
            while left > 0 and (buf := plain.read(min(left, 1 << 20))):
                out.write(buf)
                left -= len(buf)
            break
        if n == 0:
            break
        offset += n
        left -= n
    if left:
        raise tarfile.ReadError("unexpected end of data")


def _extract(archive: Path, source: str, root: Path, limits: Limits, given: IO[bytes] | None = None) -> None:
    mode = _tar_mode(archive, source)
    if given is not None and mode == "r:gz":
        given.seek(0)
        _extract_from(archive, source, root, limits, "r:", given)
        return
    plain = _inflated(archive, limits) if mode == "r:gz" else archive.open("rb") if mode == "r:" else None
    try:
        _extract_from(archive, source, root, limits, mode, plain)
    finally:
        if plain is not None:
            plain.close()


def _extract_from(archive: Path, source: str, root: Path, limits: Limits, mode: str, plain: IO[bytes] | None) -> None:
    try:
        tar = tarfile.open(fileobj=plain, mode="r:") if plain is not None else tarfile.open(archive, mode=mode)
    except (tarfile.TarError, EOFError, OSError) as exc:
        # tarfile's message lists every compression it tried; the user needs only the verdict.
        raise BundleError(
            f"{source} is not a tar archive (plain or gzip-compressed); expected an .iolens.tar.gz "
            "bundle written by iolens-collect",
            {"file": source},
            status=415,
        ) from exc
    seen: set[str] = set()
    total = 0
    count = 0
    with tar:
        try:
            for member in tar:
                count += 1
                if count > limits.max_members:
                    raise BundleError(f"archive has more than {limits.max_members} members", {"file": source}, 413)
                name = _member_name(member.name)
                if member.issym() or member.islnk():
                    raise BundleError("archive member is a link; bundles hold regular files only", {"file": member.name})
                if member.isdir():
                    if name:
                        (root / name).mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isreg():
                    raise BundleError("archive member is not a regular file (device, FIFO...)", {"file": member.name})
                if not name:
                    raise BundleError("archive member has an empty name", {"file": member.name})
                if name in seen:
                    raise BundleError("archive holds the same member twice", {"file": name})
                seen.add(name)
                if member.size > limits.max_member_bytes:
                    raise BundleError(
                        f"archive member is larger than the limit of {limits.max_member_bytes} bytes",
                        {"file": name, "size": member.size, "limit": limits.max_member_bytes},
                        413,
                    )
                total += member.size
                if total > limits.max_total_bytes:
                    raise BundleError(
                        f"archive unpacks to more than {limits.max_total_bytes} bytes", {"file": source}, 413
                    )
                target = root / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with target.open("xb") as out:
                    _copy_member(tar, member, plain, out)
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            if isinstance(exc, BundleError):
                raise
            raise BundleError(
                f"{source} is truncated or corrupt: {exc}", {"file": source, "after_member": count}
            ) from exc


def _check(root: Path, source: str, limits: Limits) -> OpenBundle:
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise BundleError("bundle has no manifest.json at its root", {"file": source})
    if manifest_path.stat().st_size > limits.max_manifest_bytes:
        raise BundleError("manifest.json is too large", {"file": MANIFEST}, 413)
    text = manifest_path.read_bytes().decode("utf-8", errors="replace")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"manifest.json is not valid JSON: {exc.msg}",
            {"file": MANIFEST, "line": exc.lineno, "column": exc.colno},
        ) from exc
    if not isinstance(raw, dict):
        raise BundleError("manifest.json must hold a JSON object", {"file": MANIFEST, "field": "(root)"})
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as exc:
        errors = describe_validation_error(exc)
        first = errors[0]
        raise BundleError(
            f"manifest.json: field {first['field']}: {first['message']}",
            {"file": MANIFEST, "field": first["field"], "errors": errors},
            422,
        ) from exc

    listed: set[str] = set()
    run_ids: set[str] = set()
    for i, run in enumerate(manifest.runs):
        if run.id in run_ids:
            raise BundleError("two runs have the same id", {"file": MANIFEST, "field": f"runs[{i}].id"}, 422)
        run_ids.add(run.id)
    for run_id, art in manifest.all_artifacts():
        name = _member_name(art.path)
        where = {"file": name, "field": "artifacts", "run": run_id}
        if name in listed:
            raise BundleError("manifest lists the same file twice", where, 422)
        listed.add(name)
        path = root / name
        if not path.is_file():
            raise BundleError("file listed in manifest.json is missing from the archive", where, 422)
        actual = path.stat().st_size
        if actual != art.size:
            raise BundleError(
                f"file size {actual} does not match manifest.json ({art.size})", {**where, "field": "size"}, 422
            )
        if file_sha256(path) != art.sha256:
            raise BundleError("file SHA-256 does not match manifest.json", {**where, "field": "sha256"}, 422)

    unlisted = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix() not in listed | {MANIFEST}
    )
    return OpenBundle(
        source=source,
        root=root,
        manifest=manifest,
        raw_manifest=raw,
        capture_id=capture_id(raw),
        sha256="",
        size=0,
        unlisted=unlisted,
    )
