"""What reading a bundle archive needs besides the manifest's model: the limits, member names, the
SHA-256 of a file, the bound on an inflated archive. Without pydantic (no model is imported here),
so that `iolens ingest`'s early start (ingest/early.py) shares these with the reader (reader.py)
before the models are imported; the package's __init__ imports the models lazily for the same
reason."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Limits:
    max_member_bytes: int = int(os.environ.get("IOLENS_MAX_MEMBER_BYTES", 2 << 30))
    max_total_bytes: int = int(os.environ.get("IOLENS_MAX_BUNDLE_BYTES", 8 << 30))
    max_members: int = 10_000
    max_manifest_bytes: int = 16 << 20


def inflated_limit(limits: Limits) -> int:
    """The most bytes a bundle within `limits` inflates to: the members' bytes, plus their headers
    (and long names) and the end-of-archive blocks."""
    return limits.max_total_bytes + 3 * 512 * (limits.max_members + 2) + (1 << 20)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class MemberNameError(ValueError):
    """An archive member's name that the reader refuses (the message says why)."""


def member_name(name: str) -> str:
    """Normalise 'a/./b', './manifest.json'; refuse absolute and '..' names (MemberNameError)."""
    if name.startswith("/") or "\x00" in name:
        raise MemberNameError("archive member has an absolute path")
    parts = [p for p in PurePosixPath(name).parts if p not in (".", "")]
    if any(p == ".." for p in parts):
        raise MemberNameError("archive member points outside the archive root ('..')")
    return "/".join(parts)
