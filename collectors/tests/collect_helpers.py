"""Checks a bundle against docs/bundle-format.md, and what the probe tests share (not a test module)."""

import gzip
import hashlib
import json
import os
import re
import tarfile
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from iolens_collect import host
from iolens_collect.probes import KINDS as COLLECTOR_KINDS

RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
# The server's schema of manifest.json (make bundle-schema writes it from backend/iolens/bundle/manifest.py).
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "bundle-manifest.schema.json"
MANIFEST_SCHEMA = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def open_bundle(path):
    """Check a bundle against docs/bundle-format.md and return (manifest, {name: bytes})."""
    with tarfile.open(path, "r:*") as tar:
        members = tar.getmembers()
        assert members, "empty archive"
        assert members[0].name == "manifest.json", "manifest.json must be the first member"
        names = [m.name for m in members]
        assert len(names) == len(set(names)), "duplicate members"
        files = {}
        for m in members:
            assert m.isfile() or m.isdir(), f"{m.name}: only files and directories allowed"
            assert not m.name.startswith("/") and ".." not in m.name.split("/"), m.name
            if m.isfile():
                files[m.name] = tar.extractfile(m).read()
    manifest = json.loads(files["manifest.json"].decode("utf-8"))
    check_manifest(manifest, files)
    return manifest, files


def check_manifest(m, files):
    """Every field's type against the server's JSON Schema of the manifest (generated from its model,
    backend/iolens/bundle/manifest.py), then what a schema cannot say: the files, ids and times."""
    errors = sorted(MANIFEST_SCHEMA.iter_errors(m), key=lambda e: list(e.absolute_path))
    assert not errors, "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5])
    assert m["collector"]["name"] == "iolens-collect"
    assert RFC3339_UTC.match(m["created_at"]), m["created_at"]
    w = m["workload"]
    assert w["jobfile"] is None or w["jobfile"] in files
    ids = set()
    for i, run in enumerate(m["runs"]):
        assert run["id"] not in ids
        ids.add(run["id"])
        assert run["index"] == i
        assert RFC3339_UTC.match(run["started_at"]) and RFC3339_UTC.match(run["ended_at"])
        assert run["started_at"] <= run["ended_at"]
        assert run["cmdline"]
        check_artifacts(run["artifacts"], files)
    check_artifacts(m["artifacts"], files)


def check_artifacts(artifacts, files):
    for a in artifacts:
        assert set(a) >= {"kind", "path", "size", "sha256"}
        assert a["kind"] in COLLECTOR_KINDS, f"{a['path']}: kind {a['kind']} is not declared in probes.py"
        assert a["path"] in files, f"{a['path']} listed but not in the archive"
        data = files[a["path"]]
        assert a["size"] == len(data), a["path"]
        assert re.match(r"^[0-9a-f]{64}$", a["sha256"])
        assert a["sha256"] == hashlib.sha256(data).hexdigest(), a["path"]


# Shared by the probe capture tests (not a test module).
def need(ok, why):
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why}, and CI=true: the probe capture tests must run in CI")
        pytest.skip(why)


def gz_text(files, path):
    return gzip.decompress(files[path]).decode("utf-8", "replace")


def device_of(path):
    facts = host.Facts("/")
    mounts = host.parse_mountinfo(open("/proc/self/mountinfo").read())
    d = host.describe_target(facts, str(path), mounts)
    return d["device"]
