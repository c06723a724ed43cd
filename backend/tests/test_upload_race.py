"""Two uploads of the same capture at once, with different bytes (the same manifest packed twice), over
real HTTP: both parse, and both load their bulk rows (perf samples) outside the store's write lock;
the captures row, written under the lock, decides. One capture is stored whole, once; the other
upload is told it is the same capture (200, as a later re-upload would be), and nothing of it stays:
no rows, no kept bundle."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from server import running_server

from iolens.store.db import Writer

DD = Path(__file__).resolve().parent / "formats" / "samples" / "perf-6.1-dd-cpu-clock.txt.gz"


def upload(client, path: Path):
    with path.open("rb") as f:
        return client.post("/api/captures", files={"file": (path.name, f, "application/gzip")})


def test_two_uploads_of_one_capture_with_different_bytes_store_it_once(tmp_path, monkeypatch):
    m, files = fio_capture("raced", [[{"name": "t", "iops": 1000}]])
    add_file(m, files, "runs/r000/perf.script.gz", DD.read_bytes(), "perf-script", run=0)
    gz = write_bundle(tmp_path / "raced.iolens.tar.gz", m, files)
    plain = write_bundle(tmp_path / "raced.iolens.tar", m, files, gz=False)
    assert gz.read_bytes() != plain.read_bytes()
    samples = gzip.decompress(DD.read_bytes()).count(b"cpu-clock:")

    # Both uploads are inside their bulk loads before either goes on: the race, every time.
    both_loading = threading.Barrier(2, timeout=60)
    insert_arrow = Writer.insert_arrow

    def together(self, *args, **kwargs):
        both_loading.wait()
        return insert_arrow(self, *args, **kwargs)

    monkeypatch.setattr(Writer, "insert_arrow", together)
    data = tmp_path / "data"
    with running_server(data) as api:
        answers: dict[str, object] = {}

        def send(path: Path) -> None:
            try:
                answers[path.name] = upload(api, path)
            except BaseException as exc:  # noqa: BLE001
                answers[path.name] = exc

        threads = [threading.Thread(target=send, args=(p,)) for p in (gz, plain)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads)
        assert not both_loading.broken, "the two bulk loads did not run at the same time"
        rs = [answers[gz.name], answers[plain.name]]
        assert all(not isinstance(r, BaseException) for r in rs), rs
        codes = sorted(r.status_code for r in rs)  # type: ignore[union-attr]
        assert codes == [200, 201], [r.text for r in rs]  # type: ignore[union-attr]
        ids = {r.json()["id"] for r in rs}  # type: ignore[union-attr]
        assert len(ids) == 1
        (cid,) = ids
        assert [c["id"] for c in api.get("/api/captures").json()] == [cid]
        # the winner's rows, once: not the loser's beside them
        got = api.get("/api/sql", params={"captures": cid, "sql": "SELECT (SELECT count(*) FROM perf_samples), "
                                                                  "(SELECT count(*) FROM runs)"})
        assert got.status_code == 200, got.text
        assert got.json()["rows"] == [[samples, 1]]
        # one kept bundle: the winner's bytes
        kept = sorted(p.name for p in (data / "bundles").glob("*"))
        assert len(kept) == 1, kept
        # and the loser again, now that the capture is stored: the same answer as it got in the race
        monkeypatch.setattr(Writer, "insert_arrow", insert_arrow)
        for p in (gz, plain):
            r = upload(api, p)
            assert r.status_code == 200 and r.json()["id"] == cid, r.text


if __name__ == "__main__":
    pytest.main([__file__])
