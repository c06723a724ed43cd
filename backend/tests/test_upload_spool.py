"""An upload is written to disk once (api/upload.py), over real HTTP: a bundle padded with 8 MB of
random bytes (a member the manifest does not list: kept, ignored), uploaded again (answered from
its content hash, nothing ingested), makes the server write about its size, not twice it
(Starlette's spool, then the copy into the data folder). Measured with the kernel's count of
bytes this process sent to storage (/proc/self/io write_bytes: the server runs in a thread here,
the client's reads and socket writes are not in it). 8 MB is well past what Starlette's spool keeps in
memory (1 MB), so a second copy would show as twice the size; what is measured is bytes written, not
time, so a larger file proves no more. The limits and errors stay as they were."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bundles import fio_capture, write_bundle
from server import running_server

PAD = 8 << 20


def _written() -> int:
    with open("/proc/self/io") as f:
        return int(next(ln for ln in f if ln.startswith("write_bytes:")).split()[1])


@pytest.fixture
def padded(tmp_path: Path) -> Path:
    m, files = fio_capture("padded", [[{"name": "rw", "iops": 1000.0}]])
    return write_bundle(tmp_path / "padded.iolens.tar", m, {**files, "padding.bin": os.urandom(PAD)}, gz=False)


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="no /proc/self/io (task I/O accounting) here")
def test_an_upload_is_written_once(tmp_path: Path, padded: Path) -> None:
    size = padded.stat().st_size
    with running_server(tmp_path / "data") as client:
        first = client.post("/api/captures", files={"file": (padded.name, padded.read_bytes(), "application/x-tar")})
        assert first.status_code == 201, first.text
        body = padded.read_bytes()
        spooled = []
        for _ in range(2):
            before = _written()
            again = client.post("/api/captures", files={"file": (padded.name, body, "application/x-tar")}, timeout=120)
            spooled.append(_written() - before)
            assert again.status_code == 200 and again.json()["created"] is False, again.text
        assert not list((tmp_path / "data").glob(".upload-*"))  # the spool file is gone
    # once: the bundle's size (and a little); twice was 2 x size
    assert min(spooled) < 1.3 * size, f"{min(spooled):,} bytes written for an upload of {size:,}"


def test_limits_and_errors_are_kept(tmp_path: Path, padded: Path) -> None:
    with running_server(tmp_path / "data", max_upload_bytes=PAD // 2) as client:
        body = padded.read_bytes()
        r = client.post("/api/captures", files={"file": (padded.name, body, "application/x-tar")})
        assert r.status_code == 413 and r.json()["detail"]["limit"] == PAD // 2
        r = client.post("/api/captures", files={"file": ("e.tar.gz", b"", "application/gzip")})
        assert r.status_code == 400 and r.json()["error"] == "the uploaded file is empty"
        assert r.json()["detail"] == {"file": "e.tar.gz"}
        r = client.post("/api/captures", files={"other": ("x.tar.gz", b"abc", "application/gzip")})
        assert r.status_code == 422 and r.json()["error"] == "invalid request: body.file: Field required"
        r = client.post("/api/captures", content=b"not a form", headers={"Content-Type": "application/gzip"})
        assert r.status_code == 422 and r.json()["error"].startswith("invalid request: body.file")
        r = client.post("/api/captures", files={"file": ("junk.iolens.tar.gz", b"\x1f\x8b junk", "application/gzip")})
        assert 400 <= r.status_code < 500 and "junk.iolens.tar.gz" in r.text
        assert not list((tmp_path / "data").glob(".upload-*"))
