"""The capture bundle, the contract between the collector and the server (docs/bundle-format.md):
the manifest model (manifest.py), the reader that checks an archive (reader.py), and the list of
artifact kinds (kinds.py). The JSON Schema of the manifest (schema.py) is generated from the model;
the collector's tests validate the bundles they write against it.

The names below are imported from their modules when first asked for: the model imports pydantic
(~0.15 s), which `iolens ingest`'s early start (ingest/early.py) must not wait for; it imports
archive.py, the reader's parts without the model, alone."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .kinds import KEPT_KINDS, KINDS, PARSED_KINDS, Kind
    from .manifest import (
        Artifact,
        Manifest,
        Run,
        StoredManifest,
        Workload,
        capture_id,
        describe_validation_error,
        field_path,
        stored_manifest,
    )
    from .reader import MANIFEST, BundleError, Limits, OpenBundle, file_sha256, open_bundle

_MODULES = {
    "kinds": ("KEPT_KINDS", "KINDS", "PARSED_KINDS", "Kind"),
    "manifest": ("Artifact", "Manifest", "Run", "StoredManifest", "Workload", "capture_id", "describe_validation_error",
                 "field_path", "stored_manifest"),
    "reader": ("MANIFEST", "BundleError", "Limits", "OpenBundle", "file_sha256", "open_bundle"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [
    "KEPT_KINDS", "KINDS", "PARSED_KINDS", "Kind", "Artifact", "Manifest", "Run", "StoredManifest", "Workload",
    "capture_id", "stored_manifest",
    "describe_validation_error", "field_path", "MANIFEST", "BundleError", "Limits", "OpenBundle", "file_sha256",
    "open_bundle",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
