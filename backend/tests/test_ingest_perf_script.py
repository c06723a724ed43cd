"""Ingest of perf-script artifacts: perf_stacks and perf_samples, loaded in bulk, per run."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle

from iolens.bundle import BundleError
from iolens.formats.perf_script import FoldOptions, fold_text, parse_folded
from iolens.ingest import ingest_file
from iolens.store.db import Store

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"
GOLDEN = Path(__file__).resolve().parent / "formats" / "golden" / "perf-script"
DD = SAMPLES / "perf-6.1-dd-cpu-clock.txt.gz"
TWO = SAMPLES / "perf-6.1-gzip-two-events.txt.gz"


def perf_bundle(tmp_path: Path, texts: list[bytes], label: str = "stacks") -> Path:
    m, files = fio_capture(label, [[{"iops": 1000}] for _ in texts])
    for i, data in enumerate(texts):
        add_file(m, files, f"runs/r{i:03d}/perf.script.gz", data, "perf-script", run=i)
    return write_bundle(tmp_path / f"{label}.iolens.tar.gz", m, files)


def test_perf_script_rows_per_run_fold_back_to_infernos_output(tmp_path):
    handmade = (b"V8 WorkerThread 24636/25607 [001]  94564.109216:     257597 cycles:uppp: \n"
                b"\t7f53389994d0 foo+0x10 (/usr/lib/libx.so)\n\n"
                b"java 12688 6544038.708352: cpu-clock:\n\n")
    bundle = perf_bundle(tmp_path, [DD.read_bytes(), TWO.read_bytes(), gzip.compress(handmade)])
    store = Store(tmp_path / "db.duckdb")
    result = ingest_file(store, bundle, bundles_dir=tmp_path / "bundles")
    assert result.created
    cid = result.capture_id
    assert any("several perf events" in w and "page-faults (12 samples)" in w for w in result.warnings)

    def folded(run: str, event: str) -> dict[str, int]:
        rows = store.query(
            "SELECT st.folded_stack, sum(s.weight)::BIGINT FROM perf_samples s "
            "JOIN perf_stacks st USING (capture_id, run_id, stack_id) "
            "WHERE s.capture_id = ? AND s.run_id = ? AND s.event = ? GROUP BY 1", [cid, run, event]).rows
        return dict(rows)

    # A flame graph from the store is inferno's output for the same text and event.
    assert folded("r000", "cpu-clock") == parse_folded((GOLDEN / f"{DD.name[:-7]}-collapsed.txt").read_text())
    assert folded("r001", "page-faults") == parse_folded((GOLDEN / f"{TWO.name[:-7]}-collapsed.txt").read_text())
    text = gzip.decompress(TWO.read_bytes()).decode()
    assert folded("r001", "cpu-clock") == fold_text(text, FoldOptions(event_filter="cpu-clock"))

    counts = dict(store.query("SELECT run_id, count(*) FROM perf_samples WHERE capture_id = ? GROUP BY 1",
                              [cid]).rows)
    assert counts == {"r000": 672, "r001": 773, "r002": 2}
    r = store.query("SELECT ts_ns, cpu, pid, tid, comm, stack_id, weight, event FROM perf_samples "
                    "WHERE run_id = 'r002' ORDER BY ts_ns").rows
    assert r == [(94564109216000, 1, 24636, 25607, "V8 WorkerThread", 0, 257597, "cycles"),
                 (6544038708352000, None, None, 12688, "java", None, 1, "cpu-clock")]
    assert store.query("SELECT folded_stack FROM perf_stacks WHERE run_id = 'r002'").rows == [("V8_WorkerThread;foo",)]
    # every sample of the real captures has a time, a CPU and a thread; `perf script` prints the pid
    # only when asked (-F +pid, as in r001)
    assert store.query("SELECT count(*) FROM perf_samples WHERE run_id IN ('r000', 'r001') AND (ts_ns IS NULL "
                       "OR cpu IS NULL OR tid IS NULL)").scalar() == 0
    assert store.query("SELECT count(pid) FROM perf_samples WHERE run_id = 'r000'").scalar() == 0
    assert store.query("SELECT count(*) FROM perf_samples WHERE run_id = 'r001' AND pid IS NULL").scalar() == 0
    lo, hi = store.query("SELECT min(ts_ns), max(ts_ns) FROM perf_samples WHERE run_id = 'r000'").rows[0]
    assert 0 < hi - lo < 60_000_000_000
    store.close()


def test_perf_script_artifact_problems_are_refused_or_reported(tmp_path):
    store = Store(tmp_path / "db.duckdb")
    bad = perf_bundle(tmp_path, [b"PERFILE2" + bytes(64)], label="perfdata")
    with pytest.raises(BundleError, match="perf.data"):
        ingest_file(store, bad, bundles_dir=tmp_path / "bundles")
    assert store.query("SELECT count(*) FROM captures").scalar() == 0

    m, files = fio_capture("twice", [[{"iops": 1}]])
    add_file(m, files, "runs/r000/a.gz", DD.read_bytes(), "perf-script", run=0)
    add_file(m, files, "runs/r000/b.gz", DD.read_bytes(), "perf-script", run=0)
    with pytest.raises(BundleError, match="more than one perf-script"):
        ingest_file(store, write_bundle(tmp_path / "twice.iolens.tar.gz", m, files), bundles_dir=tmp_path / "b")

    empty = perf_bundle(tmp_path, [b"just some text\n"], label="empty")
    result = ingest_file(store, empty, bundles_dir=tmp_path / "bundles")
    assert any("no perf samples" in w for w in result.warnings)
    assert store.query("SELECT count(*) FROM perf_samples").scalar() == 0
    store.close()


def test_ingest_while_the_store_opens_stores_the_same_and_refuses_the_same(tmp_path):
    """`iolens ingest` parses the first bundle while the store is opened on another thread
    (StoreOpening): the same rows as with an open store, a second copy is "already present", a bad
    bundle leaves nothing behind, and a store that cannot be opened raises its StoreError."""
    from iolens.store.db import StoreError, StoreOpening

    bundle = perf_bundle(tmp_path, [DD.read_bytes(), TWO.read_bytes()])
    ref = Store(tmp_path / "ref.duckdb")
    want = ingest_file(ref, bundle, bundles_dir=tmp_path / "ref-bundles")
    opening = StoreOpening(tmp_path / "db.duckdb")
    got = ingest_file(opening, bundle, bundles_dir=tmp_path / "bundles")
    store = opening.result()
    assert (got.created, got.capture_id, got.runs, got.warnings) == (True, want.capture_id, want.runs, want.warnings)
    q = ("SELECT run_id, stack_id, folded_stack FROM perf_stacks ORDER BY ALL",
         "SELECT run_id, ts_ns, cpu, pid, tid, comm, stack_id, weight, event FROM perf_samples ORDER BY ALL")
    for sql in q:
        assert store.query(sql).rows == ref.query(sql).rows
    again = ingest_file(StoreOpening(tmp_path / "other.duckdb"), bundle, bundles_dir=tmp_path / "b2")
    assert again.created
    assert not ingest_file(store, bundle, bundles_dir=tmp_path / "bundles").created

    bad = perf_bundle(tmp_path, [gzip.compress(b"PERFILE2" + b"\0" * 64)], label="bad")
    opening = StoreOpening(tmp_path / "bad.duckdb")
    with pytest.raises(BundleError, match="perf.data"):
        ingest_file(opening, bad, bundles_dir=tmp_path / "bad-bundles")
    assert opening.result().query("SELECT count(*) FROM captures").scalar() == 0
    assert not any((tmp_path / "bad-bundles").glob("*"))
    opening.result().close()

    (tmp_path / "dir.duckdb").mkdir()
    with pytest.raises(StoreError):
        ingest_file(StoreOpening(tmp_path / "dir.duckdb"), bundle, bundles_dir=tmp_path / "b3")
    store.close()
    ref.close()
