"""A gzip-compressed member of a kind that is read as plain text (fio JSON, lock_stat, a kernel
config, ...): the ingest refuses it saying the member looks gzip-compressed and naming it, not
that the file is not UTF-8 (formats/gz.py `decode`); nothing is stored, and over HTTP it is a 422.

The cases come from the bundles in datasets/ (the first member of each kind, in the smallest
bundle that has it), gzipped, with the manifest's size and SHA-256 updated: only the compression
is wrong.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tarfile
from pathlib import Path

import pytest
from bundles import write_bundle
from server import running_server

from iolens.bundle import BundleError
from iolens.formats import gz
from iolens.formats.errors import FormatError
from iolens.ingest.pipeline import ingest_file
from iolens.store.db import Store

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
# Every kind whose handler reads the member as plain text (gz.read_plain); a kind no bundle in
# datasets/ holds (fio-terse, folded-stacks, iostat, vmstat) goes through the same function.
PLAIN_KINDS = {"fio-json", "lock-stat", "kernel-config", "fio-log", "cmd-stdout", "cmd-rusage", "diskstats",
               "tracepoint-formats"}
SHOWN_KINDS = {"fio-jobfile", "sweep-plan"}  # shown as they are: a warning, not a refusal
GZIP_SAYS = "looks gzip-compressed (it starts with the gzip magic bytes 1f 8b)"


def _manifest(archive: Path) -> dict:
    with tarfile.open(archive) as tar:
        f = tar.extractfile("manifest.json")
        assert f is not None
        return json.load(f)


def _artifacts(m: dict) -> list[dict]:
    return [a for r in m["runs"] for a in r["artifacts"]] + m.get("artifacts", [])


def _cases(kinds: set[str]) -> list[tuple[str, str, str]]:
    seen: dict[str, tuple[int, str, str, str]] = {}
    for b in sorted(DATASETS.glob("*/*.iolens.tar.gz")):
        size = b.stat().st_size
        for a in _artifacts(_manifest(b)):
            k = a["kind"]
            if k in kinds and (k not in seen or size < seen[k][0]):
                seen[k] = (size, k, str(b.relative_to(DATASETS)), a["path"])
    return sorted(c[1:] for c in seen.values())


CASES = _cases(PLAIN_KINDS)
SHOWN = _cases(SHOWN_KINDS)


def test_every_plain_kind_is_covered():
    assert {k for k, _, _ in CASES} == PLAIN_KINDS
    assert {k for k, _, _ in SHOWN} == SHOWN_KINDS


def gzipped_bundle(tmp: Path, bundle: str, member: str) -> Path:
    files: dict[str, bytes] = {}
    with tarfile.open(DATASETS / bundle) as tar:
        for info in tar:
            if info.isfile():
                f = tar.extractfile(info)
                assert f is not None
                files[info.name.removeprefix("./")] = f.read()
    m = json.loads(files.pop("manifest.json"))
    assert not gz.is_gzip(files[member])
    files[member] = gzip.compress(files[member], mtime=0)
    for a in _artifacts(m):
        if a["path"] == member:
            a.update(size=len(files[member]), sha256=hashlib.sha256(files[member]).hexdigest())
    return write_bundle(tmp / f"gz-{Path(bundle).name}", m, files)


def captures(store: Store) -> int:
    return store.query("SELECT count(*) FROM captures").scalar()


@pytest.mark.parametrize(("kind", "bundle", "member"), CASES, ids=[k for k, _, _ in CASES])
def test_a_gzipped_plain_member_is_refused_as_gzip(tmp_path, kind, bundle, member):
    archive = gzipped_bundle(tmp_path, bundle, member)
    store = Store(tmp_path / "x.duckdb")
    bundles_dir = tmp_path / "bundles"
    with pytest.raises(BundleError) as err:
        ingest_file(store, archive, bundles_dir=bundles_dir)
    e = err.value
    assert e.status == 422, str(e)
    assert str(e).startswith(f"{member}: {GZIP_SAYS}, but this kind of file is read as plain text"), str(e)
    assert "UTF-8" not in str(e)
    assert isinstance(e.detail, dict) and e.detail["file"] == member
    assert isinstance(e.__cause__, FormatError)
    assert captures(store) == 0
    assert not bundles_dir.exists() or not any(bundles_dir.iterdir())
    store.close()


@pytest.mark.parametrize(("kind", "bundle", "member"), SHOWN, ids=[k for k, _, _ in SHOWN])
def test_a_gzipped_text_shown_as_is_is_a_warning(tmp_path, kind, bundle, member):
    archive = gzipped_bundle(tmp_path, bundle, member)
    store = Store(tmp_path / "x.duckdb")
    result = ingest_file(store, archive, bundles_dir=tmp_path / "bundles")
    assert f"{member}: {GZIP_SAYS}, but this kind of file is read as plain text: store it uncompressed; " \
           "kept in the bundle, not shown" in result.warnings, result.warnings
    assert store.query("SELECT count(*) FROM capture_texts WHERE path = ?", [member]).scalar() == 0
    store.close()


def test_an_upload_with_a_gzipped_fio_json_is_a_422_and_stores_nothing(tmp_path):
    kind, bundle, member = next(c for c in CASES if c[0] == "fio-json")
    archive = gzipped_bundle(tmp_path, bundle, member)
    with running_server(tmp_path / "data") as client:
        r = client.post("/api/captures", files={"file": (archive.name, archive.read_bytes(), "application/gzip")})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["error"].startswith(f"{member}: {GZIP_SAYS}"), body
        assert body["detail"]["file"] == member, body
        assert client.get("/api/captures").json() == []


def test_invalid_utf8_names_the_line_and_byte():
    with pytest.raises(FormatError, match=r"^x\.json line 2: not valid UTF-8 text \(at byte offset 6\)$"):
        gz.decode(b"{}\n[1,\xff]\n", "x.json")
    assert gz.decode(b"a\xffb", "x.txt", errors="replace") == "a\ufffdb"
    with pytest.raises(FormatError, match=GZIP_SAYS.replace("(", r"\(").replace(")", r"\)")):
        gz.decode(gzip.compress(b"text"), "x.txt", errors="replace")
