"""Checks a bundle against docs/bundle-format.md (used by the collector tests)."""

import hashlib
import json
import re
import tarfile

RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
RUN_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


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
    assert m["format"] == "iolens-bundle"
    assert m["format_version"] == 1
    assert m["collector"]["name"] == "iolens-collect"
    assert isinstance(m["collector"]["version"], str)
    assert all(isinstance(a, str) for a in m["collector"]["argv"])
    assert isinstance(m["label"], str) and 1 <= len(m["label"]) <= 200
    assert isinstance(m["tags"], dict)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in m["tags"].items())
    assert RFC3339_UTC.match(m["created_at"]), m["created_at"]
    assert isinstance(m["host"], dict)
    w = m["workload"]
    assert w["kind"] in ("fio", "cmd")
    assert w["fio_version"] is None or isinstance(w["fio_version"], str)
    assert w["jobfile"] is None or w["jobfile"] in files
    assert w["fio_args"] is None or all(isinstance(a, str) for a in w["fio_args"])
    assert isinstance(w["targets"], list)
    assert len(m["runs"]) >= 1
    ids = set()
    for i, run in enumerate(m["runs"]):
        assert RUN_ID.match(run["id"]) and run["id"] not in ids
        ids.add(run["id"])
        assert run["index"] == i
        assert isinstance(run["repeat"], int) and run["repeat"] >= 0
        assert isinstance(run["params"], dict)
        assert RFC3339_UTC.match(run["started_at"]) and RFC3339_UTC.match(run["ended_at"])
        assert run["started_at"] <= run["ended_at"]
        assert run["exit_code"] is None or isinstance(run["exit_code"], int)
        assert run["cmdline"] and all(isinstance(a, str) for a in run["cmdline"])
        check_artifacts(run["artifacts"], files)
    check_artifacts(m["artifacts"], files)
    assert all(isinstance(n, str) for n in m["notes"])


def check_artifacts(artifacts, files):
    for a in artifacts:
        assert set(a) >= {"kind", "path", "size", "sha256"}
        assert a["path"] in files, f"{a['path']} listed but not in the archive"
        data = files[a["path"]]
        assert a["size"] == len(data), a["path"]
        assert re.match(r"^[0-9a-f]{64}$", a["sha256"])
        assert a["sha256"] == hashlib.sha256(data).hexdigest(), a["path"]
