"""Write a capture bundle (docs/bundle-format.md, version 1).

Files are staged in a directory first; ``artifact()`` measures one (size, SHA-256) for the
manifest; ``write_bundle()`` writes a gzip-compressed POSIX (pax) tar with manifest.json as
the first member and then the listed files in manifest order, and moves it into place
atomically. The archive holds only regular files, relative names, no links; member metadata
(owner, mode, time) is fixed so the same stage gives the same bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
import tempfile
from typing import Iterator, List, Optional

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "BundleError",
    "artifact",
    "manifest_members",
    "manifest_bytes",
    "write_bundle",
    "check_output_path",
    "replace_manifest",
]

FORMAT = "iolens-bundle"
FORMAT_VERSION = 1
_CHUNK = 1 << 20


class BundleError(Exception):
    """The bundle cannot be written where asked; the message names the path."""


def artifact(stage: str, rel: str, kind: str) -> dict:
    """The manifest entry for the staged file ``stage/rel``."""
    h = hashlib.sha256()
    size = 0
    with open(os.path.join(stage, rel), "rb") as f:
        while True:
            block = f.read(_CHUNK)
            if not block:
                break
            h.update(block)
            size += len(block)
    return {"kind": kind, "path": rel, "size": size, "sha256": h.hexdigest()}


def manifest_members(manifest: dict) -> Iterator[str]:
    """Archive member names after manifest.json: capture artifacts, then each run's, in
    manifest order."""
    for a in manifest.get("artifacts", []):
        yield a["path"]
    for run in manifest.get("runs", []):
        for a in run.get("artifacts", []):
            yield a["path"]


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def check_output_path(out_path: str, force: bool) -> str:
    """Absolute output path, or BundleError if it cannot (or may not) be written."""
    out = os.path.abspath(out_path)
    parent = os.path.dirname(out)
    if not os.path.isdir(parent):
        raise BundleError(f"-o {out_path}: directory {parent} does not exist")
    if os.path.isdir(out):
        raise BundleError(f"-o {out_path} is a directory; give a file name such as run.iolens.tar.gz")
    if os.path.lexists(out) and not force:
        raise BundleError(f"-o {out_path} already exists; pass --force to overwrite it")
    if not os.access(parent, os.W_OK):
        raise BundleError(f"-o {out_path}: directory {parent} is not writable")
    return out


def _tarinfo(name: str, size: int, mtime: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = mtime
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def write_bundle(stage: str, manifest: dict, out_path: str, force: bool = False,
                 mtime: Optional[int] = None) -> str:
    """Write the bundle to ``out_path``: into a temporary file beside it, then link (no
    --force: fails if something appeared there meanwhile) or rename (--force) it into place.
    Returns the absolute path."""
    out = check_output_path(out_path, force)
    names: List[str] = list(manifest_members(manifest))
    seen = set()
    for name in names:
        if name in seen or name == "manifest.json":
            raise BundleError(f"bundle member {name} listed twice in the manifest")
        seen.add(name)
        if name.startswith("/") or ".." in name.split("/"):
            raise BundleError(f"bundle member {name} is not a relative path inside the bundle")
    mtime = int(mtime if mtime is not None else 0)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(out) + ".", suffix=".tmp",
                               dir=os.path.dirname(out))
    try:
        with os.fdopen(fd, "wb") as raw:
            # filename="" and a fixed mtime keep the gzip header free of local details
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as gz:
                with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                    data = manifest_bytes(manifest)
                    tar.addfile(_tarinfo("manifest.json", len(data), mtime), io.BytesIO(data))
                    for name in names:
                        path = os.path.join(stage, name)
                        size = os.path.getsize(path)
                        with open(path, "rb") as f:
                            tar.addfile(_tarinfo(name, size, mtime), f)
            raw.flush()
            os.fsync(raw.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        if force:
            os.replace(tmp, out)
        else:
            try:
                os.link(tmp, out)
            except FileExistsError:
                raise BundleError(f"-o {out_path} appeared while capturing; pass --force to overwrite it") from None
            except OSError:
                # file systems without hard links: check-then-rename, a small race
                if os.path.lexists(out):
                    raise BundleError(f"-o {out_path} already exists; pass --force to overwrite it") from None
                os.replace(tmp, out)
            else:
                os.unlink(tmp)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def replace_manifest(path: str, manifest: dict) -> str:
    """Write ``manifest`` into the finished bundle at ``path`` in place of its own, every other
    member copied as it is (same names, order, bytes and times); a temporary file beside it, then a
    rename. For facts that only name the bundle (its label, its tags): the members' sizes and
    checksums in the manifest must still hold, and they are not checked here."""
    out = os.path.abspath(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(out) + ".", suffix=".tmp", dir=os.path.dirname(out))
    try:
        with tarfile.open(out, "r:gz") as src, os.fdopen(fd, "wb") as raw:
            first = src.next()
            if first is None or first.name != "manifest.json":
                raise BundleError(f"{path}: not a bundle (manifest.json is not its first member)")
            mtime = int(first.mtime)
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as gz:
                with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                    data = manifest_bytes(manifest)
                    tar.addfile(_tarinfo("manifest.json", len(data), mtime), io.BytesIO(data))
                    for member in src:  # from the first member again: the manifest is skipped
                        if member.name == "manifest.json":
                            continue
                        if not member.isreg():
                            raise BundleError(f"{path}: member {member.name} is not a regular file")
                        tar.addfile(_tarinfo(member.name, member.size, int(member.mtime)), src.extractfile(member))
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(tmp, os.stat(out).st_mode & 0o777)
        os.replace(tmp, out)
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise BundleError(f"{path}: cannot rewrite its manifest: {exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out
