"""The capture bundle, the contract between the collector and the server (docs/bundle-format.md):
the manifest model (manifest.py), the reader that checks an archive (reader.py), and the list of
artifact kinds (kinds.py). The JSON Schema of the manifest (schema.py) is generated from the model;
the collector's tests validate the bundles they write against it."""

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

__all__ = [
    "KEPT_KINDS", "KINDS", "PARSED_KINDS", "Kind", "Artifact", "Manifest", "Run", "StoredManifest", "Workload",
    "capture_id", "stored_manifest",
    "describe_validation_error", "field_path", "MANIFEST", "BundleError", "Limits", "OpenBundle", "file_sha256",
    "open_bundle",
]
