"""perf script text parsed inside the write transaction, its samples loaded through a FIFO while
the Rust pass writes them (ingest/streamed.py): what the pass or the load refuses leaves nothing
stored, names the file, and never leaves a thread or the store waiting on the FIFO."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle

from iolens.bundle import BundleError
from iolens.ingest import ingest_file
from iolens.ingest.perf_script import SAMPLE_BUFFER_BYTES, SAMPLE_LINE_BYTES
from iolens.store.db import Store, Writer

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"
DD = SAMPLES / "perf-6.1-dd-cpu-clock.txt.gz"


def perf_bundle(tmp_path: Path, data: bytes, label: str) -> Path:
    m, files = fio_capture(label, [[{"iops": 1000}]])
    add_file(m, files, "runs/r000/perf.script.gz", data, "perf-script", run=0)
    return write_bundle(tmp_path / f"{label}.iolens.tar.gz", m, files)


def big_text() -> bytes:
    """Real perf script text, copied until its samples CSV spans several of DuckDB's buffers."""
    one = gzip.decompress(DD.read_bytes())
    copies = []
    size = 0
    while size < 12 * SAMPLE_BUFFER_BYTES:
        copies.append(one)
        size += len(one)
    return b"".join(copies)


def nothing_stored(store: Store, bundles: Path) -> None:
    for table in ("captures", "runs", "perf_stacks", "perf_samples"):
        assert store.query(f"SELECT count(*) FROM {table}").scalar() == 0, table
    assert not any(bundles.glob("*")), "the bundle was kept"


def within(seconds: float, fn):
    """fn() on a thread: its result or error, and a failure if it is still running after `seconds`."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s (waiting on the FIFO?)"
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_big_text_is_stored_whole_and_a_cut_copy_stores_nothing(tmp_path):
    text = big_text()
    data = gzip.compress(text, 6)
    store = Store(tmp_path / "db.duckdb")
    good = within(300, lambda: ingest_file(store, perf_bundle(tmp_path, data, "good"), bundles_dir=tmp_path / "kept"))
    n = store.query("SELECT count(*) FROM perf_samples").scalar()
    assert good.created and n == text.count(b"cpu-clock:") > 0
    store.close()

    # The gzip stream cut at 80%: the pass fails after DuckDB loaded part of its samples.
    store = Store(tmp_path / "cut.duckdb")
    cut = perf_bundle(tmp_path, data[: len(data) * 4 // 5], "cut")
    with pytest.raises(BundleError, match=r"runs/r000/perf.script.gz line \d+: damaged gzip stream") as info:
        within(300, lambda: ingest_file(store, cut, bundles_dir=tmp_path / "cut-kept"))
    assert info.value.detail["file"] == "runs/r000/perf.script.gz" and info.value.detail["line"] > 1000
    nothing_stored(store, tmp_path / "cut-kept")
    # the store is not left in a transaction: the good bundle goes in afterwards
    assert ingest_file(store, perf_bundle(tmp_path, data, "good"), bundles_dir=tmp_path / "cut-kept").created
    assert store.query("SELECT count(*) FROM perf_samples").scalar() == n
    store.close()


def test_a_sample_line_too_long_for_the_load_is_refused_naming_the_sample(tmp_path):
    text = b"".join(b"fio 1 [000] 1.%06d: 1 cpu-clock:\n\tffff f (/lib/m.so)\n\n" % i for i in range(50000))
    text += b"x" * (SAMPLE_LINE_BYTES + 10) + b" 5 [000] 2.0: 1 cpu-clock:\n\tffff g (/lib/m.so)\n\n"
    store = Store(tmp_path / "db.duckdb")
    bundle = perf_bundle(tmp_path, gzip.compress(text), "long")
    with pytest.raises(BundleError, match=r"perf.script.gz: sample 50001 .*command and event name take more than"):
        within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept"))
    nothing_stored(store, tmp_path / "kept")
    store.close()


def test_a_load_that_fails_before_it_opens_the_fifo_does_not_wait_for_the_pass(tmp_path, monkeypatch):
    """The load's own error (not the pass's) comes out, the pass (blocked opening the FIFO for
    writing) is let through and ends, and nothing is stored."""
    real = Writer.insert_csv

    def failing(self, table, path, *args, **kwargs):
        if str(path).endswith(".fifo"):
            raise RuntimeError("the load failed before reading")
        return real(self, table, path, *args, **kwargs)

    monkeypatch.setattr(Writer, "insert_csv", failing)
    store = Store(tmp_path / "db.duckdb")
    bundle = perf_bundle(tmp_path, gzip.compress(big_text(), 1), "fails")
    with pytest.raises(RuntimeError, match="the load failed before reading"):
        within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept"))
    nothing_stored(store, tmp_path / "kept")
    left = [t for t in threading.enumerate() if t.name == "iolens-streamed-parse"]
    assert not left, "the pass still runs"
    store.close()
