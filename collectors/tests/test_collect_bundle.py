"""Bundle writing: layout, checksums, determinism, no overwrite (no fio needed)."""

import os
import tarfile

import pytest
from collect_helpers import check_artifacts

from iolens_collect import bundle


def _stage(tmp_path):
    stage = tmp_path / "stage"
    (stage / "workload").mkdir(parents=True)
    (stage / "runs" / "r000").mkdir(parents=True)
    (stage / "workload" / "job.fio").write_text("[w]\nrw=write\n")
    (stage / "runs" / "r000" / "fio.json").write_text('{"jobs": []}\n')
    (stage / "runs" / "r000" / "fio.stderr").write_bytes(b"")
    (stage / "stray.txt").write_text("not listed, not archived")
    s = str(stage)
    manifest = {
        "format": bundle.FORMAT,
        "format_version": bundle.FORMAT_VERSION,
        "label": "t",
        "runs": [{"id": "r000", "artifacts": [
            bundle.artifact(s, "runs/r000/fio.json", "fio-json"),
            bundle.artifact(s, "runs/r000/fio.stderr", "fio-stderr"),
        ]}],
        "artifacts": [bundle.artifact(s, "workload/job.fio", "fio-jobfile")],
        "notes": ["é"],
    }
    return s, manifest


def test_layout_and_checksums(tmp_path):
    stage, manifest = _stage(tmp_path)
    out = bundle.write_bundle(stage, manifest, str(tmp_path / "b.iolens.tar.gz"), mtime=1700000000)
    assert manifest["artifacts"][0]["size"] == len("[w]\nrw=write\n")
    assert manifest["runs"][0]["artifacts"][1]["sha256"] == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    with open(out, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"  # gzip
    with tarfile.open(out, "r:gz") as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == [
            "manifest.json", "workload/job.fio", "runs/r000/fio.json", "runs/r000/fio.stderr"]
        assert all(m.isfile() and m.uid == 0 and m.mtime == 1700000000 for m in members)
        files = {m.name: tar.extractfile(m).read() for m in members}
    assert files["manifest.json"] == bundle.manifest_bytes(manifest)
    assert "é".encode("utf-8") in files["manifest.json"]  # UTF-8, not \u escapes
    check_artifacts(manifest["artifacts"] + manifest["runs"][0]["artifacts"], files)
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def test_same_input_same_bytes(tmp_path):
    stage, manifest = _stage(tmp_path)
    a = bundle.write_bundle(stage, manifest, str(tmp_path / "a.tar.gz"), mtime=1)
    b = bundle.write_bundle(stage, manifest, str(tmp_path / "b.tar.gz"), mtime=1)
    with open(a, "rb") as fa, open(b, "rb") as fb:
        assert fa.read() == fb.read()


def test_refuses_overwrite_unless_force(tmp_path):
    stage, manifest = _stage(tmp_path)
    out = tmp_path / "b.tar.gz"
    out.write_text("precious")
    with pytest.raises(bundle.BundleError, match="already exists; pass --force"):
        bundle.write_bundle(stage, manifest, str(out))
    assert out.read_text() == "precious"
    bundle.write_bundle(stage, manifest, str(out), force=True)
    assert tarfile.is_tarfile(str(out))


def test_bad_output_paths(tmp_path):
    with pytest.raises(bundle.BundleError, match="does not exist"):
        bundle.check_output_path(str(tmp_path / "no" / "b.tar.gz"), False)
    with pytest.raises(bundle.BundleError, match="is a directory"):
        bundle.check_output_path(str(tmp_path), True)


def test_rejects_unsafe_member_names(tmp_path):
    stage, manifest = _stage(tmp_path)
    manifest["artifacts"].append({"kind": "x", "path": "../evil", "size": 0, "sha256": "0" * 64})
    with pytest.raises(bundle.BundleError, match="not a relative path"):
        bundle.write_bundle(stage, manifest, str(tmp_path / "b.tar.gz"))
