"""The `iolens` command line, run as a user would (a subprocess), on a temp DuckDB file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
from bundles import fio_capture, write_bundle
from server import free_port

REPO = Path(__file__).resolve().parents[2]


def iolens(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iolens", *args], capture_output=True, text=True, timeout=120, **kw)


def test_help_documents_every_command():
    out = iolens("--help").stdout
    for cmd in ("serve", "ingest", "convert", "export"):
        assert cmd in out
    assert "--db" in iolens("ingest", "--help").stdout
    assert "--token-file" in iolens("ingest", "--help").stdout
    serve = iolens("serve", "--help").stdout
    assert "default: 8000" in serve and "--token-file" in serve and "IOLENS_TOKEN" in serve
    export = iolens("export", "--help").stdout
    assert "--format" in export and "--server" in export and "--db" in export


def test_ingest_reports_each_file_and_stores_atomically(tmp_path):
    m, files = fio_capture("cli", [[{"iops": 5}], [{"iops": 6}]])
    good = write_bundle(tmp_path / "good.iolens.tar.gz", m, files)
    bad = tmp_path / "bad.iolens.tar.gz"
    bad.write_bytes(good.read_bytes()[:200])
    db = tmp_path / "db" / "x.duckdb"
    r = iolens("ingest", "--db", str(db), str(good), str(bad), str(tmp_path / "absent"))
    assert r.returncode == 1
    assert "[1/3]" in r.stderr and "ingested as" in r.stderr and "2 runs" in r.stderr
    assert "[2/3]" in r.stderr and "rejected, nothing stored" in r.stderr and "bad.iolens.tar.gz" in r.stderr
    assert "[3/3]" in r.stderr and "no such file" in r.stderr
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"[1/3] {good} (") and lines[0].endswith("): checking and parsing...")
    assert lines[-1] == f"[3/3] {tmp_path / 'absent'}: no such file"
    again = iolens("ingest", "--db", str(db), str(good))
    assert again.returncode == 0 and "already present" in again.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM captures").fetchone()[0] == 1
    con.close()
    assert len(list((db.parent / "bundles").iterdir())) == 1


def test_ingest_through_a_running_server(tmp_path):
    m, files = fio_capture("remote", [[{"iops": 5}]])
    good = write_bundle(tmp_path / "r.iolens.tar.gz", m, files)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "iolens", "serve", "--db", str(tmp_path / "s.duckdb"),
                               "--port", str(port), "--log-level", "warning"], stderr=subprocess.PIPE, text=True)
    try:
        import time

        import httpx
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/health")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        # the server holds the database: a direct ingest says what to do instead
        locked = iolens("ingest", "--db", str(tmp_path / "s.duckdb"), str(good))
        assert locked.returncode == 1 and "--server" in locked.stderr
        bad = tmp_path / "bad.iolens.tar.gz"
        bad.write_bytes(good.read_bytes()[:200])
        absent = tmp_path / "absent.iolens.tar.gz"
        r = iolens("ingest", "--server", f"http://127.0.0.1:{port}", str(good), str(absent), str(bad))
        assert r.returncode == 1, r.stderr
        # the same progress prefix and messages as a local ingest, one line per bundle
        lines = r.stderr.splitlines()
        assert len(lines) == 3, r.stderr
        assert lines[0].startswith(f"[1/3] {good}: ingested as ") and lines[0].endswith(" (remote), 1 runs")
        assert lines[1] == f"[2/3] {absent}: no such file"
        assert lines[2].startswith(f"[3/3] {bad}: rejected, nothing stored: ")
        listed = httpx.get(f"http://127.0.0.1:{port}/api/captures").json()
        assert [c["label"] for c in listed] == ["remote"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_convert_fio_json(tmp_path):
    m, files = fio_capture("c", [[{"iops": 42, "name": "conv"}]])
    src = tmp_path / "fio.json"
    src.write_bytes(files["runs/r000/fio.json"])
    r = iolens("convert", "fio-json", str(src))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["jobs"][0]["jobname"] == "conv" and out["jobs"][0]["iops"] == 42
    bad = tmp_path / "bad.json"
    bad.write_text('{"jobs": [\n')
    r = iolens("convert", "fio-json", str(bad))
    assert r.returncode == 1 and "bad.json" in r.stderr and "line" in r.stderr


def test_openapi_schema_matches_the_generated_client():
    """frontend/openapi.json (the client's source) must be the backend's current schema."""
    from iolens.api.openapi import schema

    committed = REPO / "frontend" / "openapi.json"
    assert committed.is_file(), "frontend/openapi.json is missing: run `make api-client`"
    assert json.loads(committed.read_text()) == schema(), (
        "the API changed but the generated client did not: run `make api-client` and commit the result"
    )
