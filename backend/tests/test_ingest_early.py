"""`iolens ingest`'s early start (ingest/early.py): the first bundle's perf script pass starts
before the bundle is checked (while the modules import); the handler takes it. The rows stored are
those of the usual path; a bundle refused or already stored stops the pass and stores nothing;
a damaged text is refused naming the file and line, as without the early start."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from test_ingest_streamed import big_gzip, big_text, nothing_stored, perf_bundle, within

from iolens.bundle import BundleError, Limits
from iolens.cli.main import main
from iolens.ingest import ingest_file
from iolens.ingest.early import EarlyIngest
from iolens.store.db import Store

TABLES = {"perf_samples": "ts_ns, cpu, pid, tid, comm, stack_id, weight, event",
          "perf_stacks": "stack_id, folded_stack"}


def early_of(bundle: Path) -> EarlyIngest:
    return EarlyIngest(bundle, Limits())


def rows(store: Store) -> dict[str, list[tuple]]:
    return {t: store.query(f"SELECT capture_id, run_id, {cols} FROM {t} ORDER BY ALL").rows for t, cols in TABLES.items()}


def spy_take(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, for each take() of a perf-script member, whether an early pass was there."""
    out: list[bool] = []
    real = EarlyIngest.take

    def spy(self, member):
        p = real(self, member)
        out.append(p is not None)
        return p

    monkeypatch.setattr(EarlyIngest, "take", spy)
    return out


@pytest.fixture
def taken(monkeypatch) -> list[bool]:
    return spy_take(monkeypatch)


@pytest.fixture(scope="module")
def usual(tmp_path_factory) -> tuple[Path, dict[str, list[tuple]]]:
    """A bundle of the big text and the rows that the usual path (no early start) stores of it: made
    once for the tests that compare their rows with them (~5 s of CPU each time, at load ~20)."""
    tmp_path = tmp_path_factory.mktemp("usual")
    bundle = perf_bundle(tmp_path, big_gzip(6), "early")
    store = Store(tmp_path / "usual.duckdb")
    with pytest.MonkeyPatch.context() as mp:
        taken = spy_take(mp)
        assert ingest_file(store, bundle, bundles_dir=tmp_path / "kept-usual").created
        assert taken == []  # no early start: nothing to take
    want = rows(store)
    store.close()
    assert want["perf_samples"] and want["perf_stacks"]
    return bundle, want


def no_pass_left() -> None:
    left = [t.name for t in threading.enumerate() if t.name.startswith(("iolens-early", "iolens-streamed"))]
    assert not left, left


def test_the_early_pass_stores_the_rows_of_the_usual_path(tmp_path, taken, usual):
    bundle, want = usual
    store = Store(tmp_path / "early.duckdb")
    early = early_of(bundle)
    try:
        assert within(300, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept", early=early)).created
    finally:
        early.close()
    assert taken == [True]
    assert rows(store) == want
    # the same bundle again: already stored, its early pass (taken or not) stopped
    again = early_of(bundle)
    try:
        assert not within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept", early=again)).created
    finally:
        again.close()
    no_pass_left()
    assert rows(store) == want
    store.close()


def test_a_damaged_text_is_refused_naming_the_line_and_nothing_is_stored(tmp_path, taken):
    data = big_gzip(6)
    cut = perf_bundle(tmp_path, data[: len(data) * 4 // 5], "cut")
    store = Store(tmp_path / "db.duckdb")
    early = early_of(cut)
    try:
        with pytest.raises(BundleError, match=r"runs/r000/perf.script.gz line \d+: damaged gzip stream") as info:
            within(300, lambda: ingest_file(store, cut, bundles_dir=tmp_path / "kept", early=early))
    finally:
        early.close()
    assert taken == [True]
    assert info.value.detail["file"] == "runs/r000/perf.script.gz" and info.value.detail["line"] > 1000
    nothing_stored(store, tmp_path / "kept")
    no_pass_left()
    store.close()


def test_a_bundle_refused_by_its_checks_stops_the_pass_it_started(tmp_path):
    """The member's bytes differ from the manifest's SHA-256: refused before the pass is taken;
    the pass (blocked on its full channel) is stopped, the plain tar removed."""
    text = big_gzip(1)
    m, files = fio_capture("tampered", [[{"iops": 1000}]])
    add_file(m, files, "runs/r000/perf.script.gz", text, "perf-script", run=0)
    files["runs/r000/perf.script.gz"] = gzip.compress(big_text()[:-100], 1)
    bundle = write_bundle(tmp_path / "tampered.iolens.tar.gz", m, files)
    store = Store(tmp_path / "db.duckdb")
    early = early_of(bundle)
    plain = early.plain()
    # started, and blocked: the text holds more batches than the channel
    assert plain is not None and any(t.name == "iolens-early-pass" for t in threading.enumerate())
    try:
        with pytest.raises(BundleError, match="does not match"):
            within(120, lambda: ingest_file(store, bundle, bundles_dir=tmp_path / "kept", early=early))
    finally:
        within(60, early.close)
    assert plain.closed
    no_pass_left()
    nothing_stored(store, tmp_path / "kept")
    store.close()


def test_the_cli_takes_the_early_pass(tmp_path, taken, capsys, usual):
    bundle, want = usual
    db = tmp_path / "cli.duckdb"
    assert main(["ingest", "--db", str(db), str(bundle), str(bundle)]) == 0
    assert "already present" in capsys.readouterr().err
    assert taken[0] is True
    no_pass_left()
    store = Store(db)
    assert rows(store) == want
    store.close()


def test_a_bundle_kept_already_starts_no_pass(tmp_path, taken, capsys, monkeypatch):
    """A bundle whose copy the store keeps (bundles/<sha256>.iolens.tar, beside an existing
    database) starts no early pass: the store's lookup answers "already present" as always. The
    copy is a hint only: another database in the same directory starts its pass, and one that
    exists without the capture stores it all the same (without the early start)."""
    started: list[Path] = []
    real = EarlyIngest._start_pass

    def spy(self):
        started.append(self.archive)
        return real(self)

    monkeypatch.setattr(EarlyIngest, "_start_pass", spy)
    bundle = perf_bundle(tmp_path, big_gzip(6), "kept")
    db = tmp_path / "kept.duckdb"
    assert main(["ingest", "--db", str(db), str(bundle)]) == 0
    assert (started, taken) == ([bundle], [True])
    assert main(["ingest", "--db", str(db), str(bundle)]) == 0
    assert "already present" in capsys.readouterr().err
    assert (started, taken) == ([bundle], [True, False])
    no_pass_left()
    # a new database beside it: the pass starts
    assert main(["ingest", "--db", str(tmp_path / "new.duckdb"), str(bundle)]) == 0
    assert "ingested as" in capsys.readouterr().err
    assert (started, taken[2:]) == ([bundle, bundle], [True])
    # a database that exists without the capture: no early pass (the hint), stored all the same
    other = tmp_path / "other.duckdb"
    Store(other).close()
    assert main(["ingest", "--db", str(other), str(bundle)]) == 0
    assert "ingested as" in capsys.readouterr().err
    assert len(started) == 2 and taken[3:] == [False]
    no_pass_left()
    stores = [Store(p) for p in (db, other)]
    assert rows(stores[0]) == rows(stores[1])
    for st in stores:
        st.close()


def test_the_early_start_imports_no_model() -> None:
    """early.py shares the reader's limits, names and SHA-256 (bundle/archive.py) without importing
    pydantic or DuckDB: the point of starting early."""
    import subprocess
    import sys

    code = ("import sys; import iolens.ingest.early, iolens.cli.main; "
            "print(sorted(m for m in ('pydantic', 'duckdb', 'iolens.bundle.manifest') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_an_ingest_process_ends_with_everything_closed(tmp_path, usual) -> None:
    """`iolens ingest` as a process ends without the interpreter's finalization once it has closed
    what it opened (cli/__init__.py run()): its output is all there, the database was closed (no
    WAL left) and reads back, and no temporary file is left behind. A refused bundle ends the
    same way, with its exit code."""
    import os
    import subprocess
    import sys

    bundle, want = usual
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    db = tmp_path / "process.duckdb"

    def ingest(*paths: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "iolens", "ingest", "--db", str(db), *map(str, paths)],
                              env={**os.environ, "TMPDIR": str(tmp)}, capture_output=True, text=True, timeout=600)

    done = ingest(bundle)
    assert done.returncode == 0, done.stderr
    assert "ingested as" in done.stderr
    assert not list(tmp.iterdir())
    assert not db.with_name(db.name + ".wal").exists()
    damaged = tmp_path / "damaged.iolens.tar.gz"
    damaged.write_bytes(bundle.read_bytes()[:-1000])
    refused = ingest(damaged)
    assert refused.returncode == 1 and "rejected, nothing stored" in refused.stderr
    assert not list(tmp.iterdir())
    store = Store(db)
    assert rows(store) == want
    store.close()
