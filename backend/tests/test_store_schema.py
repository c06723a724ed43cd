"""The store's schema: one file per domain (store/schema/<name>.sql), applied in the registry's order,
documented for SQL cells grouped by domain; and a database made by an older schema still opens."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import duckdb
import pytest

from iolens.store.db import Store, StoreError
from iolens.store.schema import DOMAINS, domain_sql
from iolens.store.tabledocs import capture_tables, parse_schema, parse_schemas

FIXTURES = Path(__file__).parent / "fixtures"
CREATE = re.compile(r"CREATE\s+TABLE\s+IF\s+NOT\s+EXISTS\s+(\w+)", re.IGNORECASE)


def test_every_schema_file_is_registered_once():
    files = sorted(p.name for p in resources.files("iolens.store.schema").iterdir() if p.name.endswith(".sql"))
    names = [d.name for d in DOMAINS]
    assert len(set(names)) == len(names), "a domain is registered twice"
    assert sorted(f"{n}.sql" for n in names) == files, "store/schema/*.sql and DOMAINS differ"


def test_every_table_is_in_one_domain_and_documented():
    seen: dict[str, str] = {}
    for d in DOMAINS:
        text = domain_sql(d)
        assert text.startswith("-- "), f"{d.name}.sql starts with a comment saying what it holds"
        for name in CREATE.findall(text):
            assert name not in seen, f"{name} is in {seen[name]}.sql and {d.name}.sql"
            seen[name] = d.name
        for name, t in parse_schema(text, d.name).items():
            assert t.description, f"{name} ({d.name}.sql) has no comment above its CREATE"
    assert set(seen) == set(parse_schemas())
    assert {"captures", "fio_results", "perf_samples", "lock_stat_classes", "block_ios", "sched_switch"} <= set(seen)


def test_the_store_has_every_table_of_every_file(tmp_path):
    s = Store(tmp_path / "x.duckdb")
    try:
        tables = {r[0] for r in s.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").rows}
        assert set(parse_schemas()) <= tables
        docs = capture_tables(s)
        order = [d.name for d in DOMAINS]
        ranks = [order.index(t.domain) for t in docs]
        assert ranks == sorted(ranks), "capture tables are grouped by domain in registry order"
        assert {t.domain for t in docs} == set(order) - {"notebooks"}
    finally:
        s.close()


def test_a_database_made_by_an_older_schema_opens_and_gains_the_new_columns(tmp_path):
    """The schema of one file, before fio_log_samples had run_ms and t0_ns: the ALTER TABLE ... ADD
    COLUMN IF NOT EXISTS of sweep.sql adds them, the rows already there keep their values (NULL in
    the new columns), and opening it again changes nothing."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute((FIXTURES / "schema-before-fio-log-clock.sql").read_text(encoding="utf-8"))
    con.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    con.execute("INSERT INTO fio_log_samples VALUES ('c1', 'r000', 'iops', 'job', 0, 1, 100, 100, 2500.0, 'write', 0, 'logs/a.log')")
    old_cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'fio_log_samples' ORDER BY ordinal_position").fetchall()]
    con.close()
    assert "run_ms" not in old_cols

    for _ in range(2):
        s = Store(path)
        try:
            cols = [r[0] for r in s.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'fio_log_samples' ORDER BY ordinal_position").rows]
            assert cols == old_cols + ["run_ms", "t0_ns"]
            assert s.query("SELECT t_ms, value, run_ms, t0_ns FROM fio_log_samples").rows == [(100, 2500.0, None, None)]
            assert s.query("SELECT value FROM meta WHERE key = 'schema_version'").scalar() == "1"
            tables = {r[0] for r in s.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").rows}
            assert set(parse_schemas()) <= tables  # the tables made since then are there too
            assert "fio_log_samples" in {t.name for t in capture_tables(s)}
        finally:
            s.close()


def test_a_schema_file_that_fails_is_named(tmp_path, monkeypatch):
    from iolens.store import db

    bad = DOMAINS[:2] + (DOMAINS[2].__class__("nonesuch", "x"),)
    monkeypatch.setattr(db, "DOMAINS", bad)
    monkeypatch.setattr(db, "domain_sql", lambda d: "CREATE TABLE broken (" if d.name == "nonesuch" else domain_sql(d))
    with pytest.raises(StoreError, match=r"store/schema/nonesuch\.sql"):
        Store(tmp_path / "y.duckdb")
