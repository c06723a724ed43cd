"""perf script text parsed inside the write transaction, its samples and stacks loaded (Arrow
batches through iolens_native.TableStream) while the Rust pass writes them (ingest/streamed.py):
what the pass or the load refuses leaves nothing stored, names the file, and never leaves a
thread or the store waiting on the other; other writes go on while it is parsed."""

from __future__ import annotations

import functools
import gzip
import threading
from pathlib import Path

import duckdb
import pytest
from bundles import add_file, fio_capture, write_bundle

from iolens.bundle import BundleError
from iolens.ingest import ingest_file
from iolens.store.db import Store, Writer

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"
DD = SAMPLES / "perf-6.1-dd-cpu-clock.txt.gz"


def perf_bundle(tmp_path: Path, data: bytes, label: str) -> Path:
    m, files = fio_capture(label, [[{"iops": 1000}]])
    add_file(m, files, "runs/r000/perf.script.gz", data, "perf-script", run=0)
    return write_bundle(tmp_path / f"{label}.iolens.tar.gz", m, files)


BATCH_ROWS = 1 << 16  # samples per Arrow batch (backend/native/iolens_native/src/arrow.rs)


def big_text() -> bytes:
    """Real perf script text, copied until its samples span a dozen batches of the stream (more
    than the channel between the pass and the load holds)."""
    one = gzip.decompress(DD.read_bytes())
    copies = []
    samples = 0
    while samples < 12 * BATCH_ROWS:
        copies.append(one)
        samples += one.count(b"cpu-clock:")
    return b"".join(copies)


@functools.cache
def big_gzip(level: int) -> bytes:
    """gzip.compress(big_text(), level), made once per run (2.2 s of CPU at level 6 for its 197 MB;
    this module and test_ingest_early.py compressed it nine times); kept, 8-25 MB, not the text."""
    return gzip.compress(big_text(), level)


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
    data = big_gzip(6)
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


def test_a_sample_with_a_command_name_over_a_mebibyte_is_stored(tmp_path):
    """The samples went through CSV text with a 1 MiB limit on a line (such a sample was refused);
    in Arrow batches a value has no such limit."""
    text = b"".join(b"fio 1 [000] 1.%06d: 1 cpu-clock:\n\tffff f (/lib/m.so)\n\n" % i for i in range(50000))
    text += b"x" * ((1 << 20) + 10) + b" 5 [000] 2.0: 1 cpu-clock:\n\tffff g (/lib/m.so)\n\n"
    store = Store(tmp_path / "db.duckdb")
    bundle = perf_bundle(tmp_path, gzip.compress(text), "long")
    assert within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept")).created
    assert store.query("SELECT count(*), max(length(comm)) FROM perf_samples").rows == [(50001, (1 << 20) + 10)]
    store.close()


def test_a_load_that_fails_before_it_reads_does_not_wait_for_the_pass(tmp_path, monkeypatch):
    """The load's own error (not the pass's) comes out, the pass (blocked on a full channel) is
    stopped and ends, and nothing is stored."""
    def failing(self, table, stream, *args, **kwargs):
        raise RuntimeError("the load failed before reading")

    monkeypatch.setattr(Writer, "insert_arrow", failing)
    store = Store(tmp_path / "db.duckdb")
    bundle = perf_bundle(tmp_path, big_gzip(1), "fails")
    with pytest.raises(RuntimeError, match="the load failed before reading"):
        within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept"))
    nothing_stored(store, tmp_path / "kept")
    left = [t for t in threading.enumerate() if t.name == "iolens-streamed-parse"]
    assert not left, "the pass still runs"
    store.close()


def test_a_load_that_fails_while_the_pass_runs_stops_it(tmp_path):
    """A value the table cannot hold (a pid past INTEGER) far into the text: DuckDB's cast fails
    while the pass is still parsing; its error comes out, the pass ends, nothing is stored."""
    text = big_text()
    cut = text.index(b"\n\n", len(text) // 3) + 2
    text = text[:cut] + b"dd 99999999999/7 [000] 3.0: 1 cpu-clock:\n\tffff g (/lib/m.so)\n\n" + text[cut:]
    store = Store(tmp_path / "db.duckdb")
    bundle = perf_bundle(tmp_path, gzip.compress(text, 1), "pid")
    with pytest.raises(duckdb.ConversionException, match="99999999999"):
        within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept"))
    nothing_stored(store, tmp_path / "kept")
    assert not [t for t in threading.enumerate() if t.name == "iolens-streamed-parse"], "the pass still runs"
    assert ingest_file(store, perf_bundle(tmp_path, big_gzip(1), "good"),
                       bundles_dir=tmp_path / "kept").created
    store.close()


def test_other_writes_go_on_while_the_text_is_parsed(tmp_path, monkeypatch):
    """The bulk loads run without the store's write lock: a write (a notebook save, another
    upload) made while a large text is parsed commits at once, and the ingest then commits whole;
    an ingest that fails after such a write leaves that write and nothing of its own."""
    loading, go_on = threading.Event(), threading.Event()
    insert_arrow = Writer.insert_arrow
    fail = {"now": False}

    def held_up(self, table, stream, *args, **kwargs):
        loading.set()
        assert go_on.wait(60)
        if fail["now"]:
            raise RuntimeError("the load failed after the other write")
        return insert_arrow(self, table, stream, *args, **kwargs)

    monkeypatch.setattr(Writer, "insert_arrow", held_up)
    store = Store(tmp_path / "db.duckdb")
    data = big_gzip(1)
    for key, failing in (("first", False), ("second", True)):
        loading.clear()
        go_on.clear()
        fail["now"] = failing
        out: dict = {}
        bundle = perf_bundle(tmp_path, data, f"parsed-{key}")

        def ingest(bundle=bundle, out=out, key=key):
            try:
                out["result"] = ingest_file(store, bundle, bundles_dir=tmp_path / f"kept-{key}")
            except BaseException as exc:  # noqa: BLE001
                out["error"] = exc

        t = threading.Thread(target=ingest)
        t.start()
        assert loading.wait(60), "the load did not start"

        def other_write(key=key):
            with store.write() as w:
                w.execute("INSERT INTO meta VALUES (?, 'saved while an ingest parsed')", [key])

        within(10, other_write)  # would wait for the whole ingest if it held the lock
        go_on.set()
        t.join(120)
        assert not t.is_alive()
        assert store.query("SELECT value FROM meta WHERE key = ?", [key]).scalar() == "saved while an ingest parsed"
        if failing:
            assert "the load failed after the other write" in str(out["error"])
            assert not any((tmp_path / f"kept-{key}").glob("*")), "the bundle was kept"
        else:
            assert out["result"].created
    assert store.query("SELECT count(*) FROM captures").scalar() == 1
    assert store.query("SELECT count(*) FROM perf_samples").scalar() == big_text().count(b"cpu-clock:")
    store.close()
