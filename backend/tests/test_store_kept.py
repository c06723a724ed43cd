"""Store.kept: a value read from the store is kept until the store's next committed write, and a
value made while a write committed is returned but not kept (a real DuckDB file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolens.store.db import Store


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "kept.duckdb")
    yield s
    s.close()


def _write(store: Store) -> None:
    """A committed write (a DELETE of nothing: the generation moves on all the same)."""
    with store.write() as w:
        w.execute("DELETE FROM captures WHERE capture_id = ?", ["none"])


def test_kept_until_the_next_write(store):
    made = []

    def make():
        made.append(store.query("SELECT count(*) FROM captures").rows[0][0])
        return len(made)

    assert store.kept_now("n") is None
    assert store.kept("n", make) == 1 and store.kept("n", make) == 1 and made == [0]
    assert store.kept_now("n") == 1
    _write(store)
    assert store.kept_now("n") is None
    assert store.kept("n", make) == 2 and made == [0, 0]
    assert store.kept("m", lambda: "other") == "other" and store.kept("n", make) == 2


def test_a_value_made_across_a_write_is_not_kept(store):
    def make():
        _write(store)  # a write commits while the value is made
        return "stale"

    assert store.kept("n", make) == "stale"
    assert store.kept_now("n") is None
    assert store.kept("n", lambda: "fresh") == "fresh" and store.kept_now("n") == "fresh"


def test_an_error_is_not_kept(store):
    def fail():
        raise LookupError("no such capture")

    with pytest.raises(LookupError):
        store.kept("n", fail)
    assert store.kept("n", lambda: 3) == 3
