"""Writing a capture bundle: the manifest checked against the one model the server reads with
(manifest.py), then a gzip tar with manifest.json first and every member after it, written to a
temporary file beside the target and renamed into place, so nothing half-written is left."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .manifest import Manifest


def artifact(kind: str, path: str, data: bytes, **extra: Any) -> dict[str, Any]:
    """A manifest artifact entry for `data` stored at `path`."""
    return {"kind": kind, "path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(), **extra}


def write_bundle(manifest: dict[str, Any], members: Iterable[tuple[str, bytes]], out: Path) -> Path:
    """Check `manifest` (pydantic ValidationError when it does not fit the format), then write the
    bundle to `out` atomically. Every member the manifest lists must be among `members`."""
    Manifest.model_validate(manifest)
    files = dict(members)
    listed = [a["path"] for a in manifest.get("artifacts", [])] + \
        [a["path"] for r in manifest.get("runs", []) for a in r.get("artifacts", [])]
    missing = [p for p in listed if p not in files]
    if missing:
        raise ValueError(f"the manifest lists files that are not given: {', '.join(missing)}")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".iolens-bundle-", suffix=".tmp", dir=out.parent)
    try:
        with open(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for name, content in [("manifest.json", json.dumps(manifest, indent=1).encode())] + list(files.items()):
                info = tarfile.TarInfo(name)
                info.size = len(content)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(content))
        Path(tmp).replace(out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
