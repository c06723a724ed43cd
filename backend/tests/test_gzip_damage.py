"""A gzip member cut short or with a flipped byte, in every artifact kind that real bundles gzip:
the ingest fails with an error naming the member (and the line reached), nothing is stored, and
over HTTP it is a 422, never a 500.

The cases come from the bundles in datasets/ (the first gzip member of each kind), rebuilt with
the damaged member and the manifest's size and SHA-256 updated, so only the gzip stream is bad;
the perf-script corpus file (shared/corpus) goes in as a loose file.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from bundles import write_bundle
from server import running_server

from iolens.bundle import PARSED_KINDS, BundleError
from iolens.formats import gz
from iolens.formats.errors import FormatError
from iolens.ingest import loose
from iolens.ingest.pipeline import ingest_file
from iolens.store.db import Store

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
BUNDLES = [
    "vmlab-deb61-vs-deb612/dio-probes-deb61-ext4.iolens.tar.gz",  # perf-script, perf-sched, blkparse
    "block-vda/6.18.44-fc-v669-block-vda.iolens.tar.gz",  # perf-block
    "offcpu-xfs-dio/6.18.44-fc-v669-offcpu-xfs-dio.iolens.tar.gz",  # perf-offcpu
    "xfs-ail-trace/6.18.44-fc-v669-xfs-fsmark-logbsize-32k.iolens.tar.gz",  # perf-trace, monitor
]
BASELINE = "fs-xfs/6.18.44-fc-v669-xfs.iolens.tar.gz"  # in the store before every damaged ingest
# Every parsed kind the bundles above gzip: a bundle that stops gzipping one fails here, not
# silently. (perf-trace is kept as it is, not read; its fields come from perf-trace-fields.)
KINDS = {"perf-script", "perf-sched", "blkparse", "perf-block", "perf-offcpu", "perf-trace-fields", "monitor"}


def _members(archive: Path) -> tuple[dict, dict[str, bytes]]:
    files: dict[str, bytes] = {}
    with tarfile.open(archive) as tar:
        for info in tar:
            if info.isfile():
                f = tar.extractfile(info)
                assert f is not None
                files[info.name.removeprefix("./")] = f.read()
    return json.loads(files.pop("manifest.json")), files


def _cases() -> list[tuple[str, str, str]]:
    seen: dict[str, tuple[str, str, str]] = {}
    for b in BUNDLES:
        with tarfile.open(DATASETS / b) as tar:
            f = tar.extractfile("manifest.json")
            assert f is not None
            m = json.load(f)
        for run in m["runs"]:
            for a in run["artifacts"]:
                if a["path"].endswith(".gz") and a["kind"] in PARSED_KINDS:
                    seen.setdefault(a["kind"], (a["kind"], b, a["path"]))
    return sorted(seen.values())


CASES = _cases()


def test_every_gzipped_kind_is_covered():
    assert {k for k, _, _ in CASES} == KINDS


def cut(data: bytes) -> bytes:
    return data[: len(data) // 2]


def flip(data: bytes) -> bytes:
    b = bytearray(data)
    b[len(b) // 2] ^= 0xFF
    return bytes(b)


def damaged_bundle(tmp: Path, bundle: str, member: str, damage) -> Path:
    m, files = _members(DATASETS / bundle)
    files[member] = damage(files[member])
    for a in [a for r in m["runs"] for a in r["artifacts"]] + m.get("artifacts", []):
        if a["path"] == member:
            a.update(size=len(files[member]), sha256=hashlib.sha256(files[member]).hexdigest())
    return write_bundle(tmp / f"{damage.__name__}-{Path(bundle).name}", m, files)


def row_counts(store: Store) -> dict[str, int]:
    tables = store.query("SELECT table_name FROM information_schema.tables "
                         "WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1").rows
    return {t: store.query(f'SELECT count(*) FROM "{t}"').scalar() for (t,) in tables}


@pytest.fixture(scope="module")
def baseline_db(tmp_path_factory) -> Path:
    """A DuckDB file holding one good capture, copied for each case."""
    d = tmp_path_factory.mktemp("baseline")
    store = Store(d / "x.duckdb")
    ingest_file(store, DATASETS / BASELINE, bundles_dir=d / "bundles")
    store.close()
    return d / "x.duckdb"


@pytest.mark.parametrize("damage", [cut, flip])
@pytest.mark.parametrize(("kind", "bundle", "member"), CASES, ids=[k for k, _, _ in CASES])
def test_a_damaged_gzip_member_fails_the_ingest_and_stores_nothing(tmp_path, baseline_db, kind, bundle, member,
                                                                   damage):
    archive = damaged_bundle(tmp_path, bundle, member, damage)
    db = tmp_path / "x.duckdb"
    db.write_bytes(baseline_db.read_bytes())
    store = Store(db)
    before = row_counts(store)
    assert before["captures"] == 1
    bundles_dir = tmp_path / "bundles"
    with pytest.raises(BundleError) as err:
        ingest_file(store, archive, bundles_dir=bundles_dir)
    e = err.value
    assert e.status == 422, str(e)
    assert isinstance(e.detail, dict) and e.detail["file"] == member, str(e)
    assert str(e).startswith(f"{member} line "), str(e)  # the file and the line reached
    # a flipped byte may decode to garbage a parser refuses first: the damage is still what is named
    assert str(e).startswith(f"{member} line {e.detail['line']}: damaged gzip stream: "), str(e)
    if damage is cut:
        assert f"cannot read past line {e.detail['line'] - 1} (EOFError" in str(e), str(e)
    assert isinstance(e.__cause__, FormatError) and e.__cause__.line == e.detail["line"] >= 1
    assert row_counts(store) == before
    assert not bundles_dir.exists() or not any(bundles_dir.iterdir())
    store.close()


def test_the_line_reached_is_the_last_whole_line(tmp_path):
    text = b"".join(b"line %d\n" % i for i in range(200_000))
    data = gzip.compress(text, mtime=0)
    path = tmp_path / "x.gz"
    path.write_bytes(cut(data))
    got: list[str] = []
    with pytest.raises(FormatError) as err, gz.open_text(path, "x.gz") as f:
        got.extend(f)
    e = err.value
    assert e.file == "x.gz" and "EOFError" in e.message
    # every line before the one named came out whole and in order
    lines = e.line - 1
    with gzip.open(io.BytesIO(cut(data))) as g:
        good = bytearray()
        try:
            while chunk := g.read1(1 << 16):
                good += chunk
        except EOFError:
            pass
    assert 0 < lines <= good.count(b"\n") < 200_000
    assert len(got) <= lines and got == [f"line {i}\n" for i in range(len(got))]
    found = gz.find_damage(path, "x.gz")
    assert found is not None and found.line == e.line
    whole = tmp_path / "whole.gz"
    whole.write_bytes(data)
    assert gz.find_damage(whole) is None
    with gz.open_text(whole) as f:
        assert sum(1 for _ in f) == 200_000
    with pytest.raises(FormatError, match=r"^y\.gz line \d+: damaged gzip stream: cannot read past line \d+ \(error"):
        gz.gunzip(flip(data), "y.gz")  # the deflate decoder stops at the flipped byte
    bad_crc = bytearray(data)
    bad_crc[-8] ^= 1  # the CRC-32 in the trailer: every line decodes, the check fails
    with pytest.raises(FormatError, match=r"^y\.gz line 200001: damaged gzip stream: its check fails at the end, "
                                          r"after line 200000"):
        gz.gunzip(bytes(bad_crc), "y.gz")
    assert gz.gunzip(data, "y.gz") == text and gz.gunzip(text, "y.txt") == text


def test_a_cut_corpus_file_uploaded_loose(tmp_path, corpus):
    """The perf-script corpus file, cut, as a loose upload made into a bundle: the same error."""
    data = (corpus / "perf-script" / "input" / "example-perf-stacks.txt.gz").read_bytes()
    p = loose.plan([("perf.script.gz", cut(data))], "cut perf script", find_perf=False)
    archive = tmp_path / "cut.iolens.tar.gz"
    loose.write(p, archive)
    store = Store(tmp_path / "x.duckdb")
    before = row_counts(store)
    with pytest.raises(BundleError, match=r"perf\.script\.gz line \d+: damaged gzip stream: cannot read past line"):
        ingest_file(store, archive, bundles_dir=tmp_path / "bundles")
    assert row_counts(store) == before
    store.close()


def test_a_cut_sched_script_over_http_is_a_422_and_the_database_is_unchanged(tmp_path):
    """The case found: a half-cut sched.script.gz, uploaded to the real app over HTTP."""
    kind, bundle, member = next(c for c in CASES if c[0] == "perf-sched")
    archive = damaged_bundle(tmp_path, bundle, member, cut)
    data = tmp_path / "data"
    with running_server(data) as client:
        good = DATASETS / BASELINE
        r = client.post("/api/captures", files={"file": (good.name, good.read_bytes(), "application/gzip")})
        assert r.status_code == 201, r.text
        listed = client.get("/api/captures").json()
    store = Store(data / "iolens.duckdb")
    before = row_counts(store)
    store.close()
    with running_server(data) as client:
        r = client.post("/api/captures", files={"file": (archive.name, archive.read_bytes(), "application/gzip")})
        assert r.status_code == 422, r.text
        body = r.text
        assert member in body and "damaged gzip stream" in body, body
        assert client.get("/api/captures").json() == listed
    store = Store(data / "iolens.duckdb")
    assert row_counts(store) == before
    store.close()


@pytest.mark.parametrize(("fmt", "kind"), [("perf-script", "perf-script"), ("blkparse", "blkparse")])
def test_convert_names_the_file_and_line_of_a_cut_gzip(tmp_path, fmt, kind):
    """`iolens convert` reads the same way: the native perf-script path and the Python one."""
    _, bundle, member = next(c for c in CASES if c[0] == kind)
    _, files = _members(DATASETS / bundle)
    path = tmp_path / Path(member).name
    path.write_bytes(cut(files[member]))
    r = subprocess.run([sys.executable, "-m", "iolens", "convert", fmt, str(path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1, r.stderr
    assert re.search(rf"{re.escape(str(path))} line \d+: damaged gzip stream: cannot read past line \d+ \(EOFError",
                     r.stderr), r.stderr
    assert "Traceback" not in r.stderr


def test_a_damaged_gzip_file_uploaded_loose_is_named(tmp_path):
    """A loose gzip file that is unpacked at upload (fio JSON): damage past the recognised prefix
    is the same problem as in a bundle, naming the file and line (a zlib.error too: gz.gunzip)."""
    sample = Path(__file__).parent / "formats" / "samples" / "fio-3.33-randrw-jsonplus.json"
    data = bytearray(gzip.compress(sample.read_bytes(), mtime=0))
    data[-20] ^= 0xFF  # in the last deflate block: the prefix detect reads is whole
    with pytest.raises(loose.LooseError) as err:
        loose.plan([("fio.json.gz", bytes(data))], "damaged fio", find_perf=False)
    assert re.match(r"fio\.json\.gz line \d+: damaged gzip stream: ", err.value.problems[0]), err.value.problems
