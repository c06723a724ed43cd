"""SQL cells over real HTTP: what they may read, and everything they must refuse or stop."""

from __future__ import annotations

import pytest
from bundles import fio_capture, write_bundle
from server import running_server

from iolens.store.tabledocs import parse_schemas


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sql")
    data = tmp / "data"
    # few rows and bytes to test the caps; a time limit against a hang only (test_long_queries_are_stopped
    # has its own server with a short one: 1 s here stopped "one huge row" under make test's load)
    with running_server(data, sql_time_limit_s=120.0, sql_max_rows=500, sql_max_bytes=1 << 20) as client:
        yield client, [upload(client, tmp, "base", [1000, 1100, 900]), upload(client, tmp, "other", [1500, 1600])]


def upload(client, tmp, label: str, iops: list[int]) -> str:
    """A capture of one fio job, one run per value of `iops`, uploaded: its id."""
    m, files = fio_capture(label, [[{"name": "rw4k", "iops": v}] for v in iops])
    path = write_bundle(tmp / f"{label}.iolens.tar.gz", m, files)
    with path.open("rb") as f:
        r = client.post("/api/captures", files={"file": (path.name, f, "application/gzip")})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def sql(client, query: str, captures: list[str], **params):
    return client.get("/api/sql", params={"sql": query, "captures": ",".join(captures), **params})


def test_select_over_the_notebooks_captures_only(env):
    client, (a, b) = env
    r = sql(client, "SELECT capture_id, count(*) AS n, avg(iops) AS iops FROM fio_results GROUP BY ALL ORDER BY iops", [a, b])
    assert r.status_code == 200, r.text
    body = r.json()
    assert [c["name"] for c in body["columns"]] == ["capture_id", "n", "iops"]
    assert body["columns"][2]["type"] == "DOUBLE"
    assert body["rows"] == [[a, 3, 1000.0], [b, 2, 1550.0]]
    assert body["truncated"] is False and body["time_limit_ms"] > 0
    # the same query in a notebook of one capture sees only that capture's rows
    only = sql(client, "SELECT DISTINCT capture_id FROM fio_results", [b]).json()
    assert only["rows"] == [[b]]
    joined = sql(client, "WITH r AS (SELECT * FROM runs) SELECT count(*) FROM r JOIN captures c USING (capture_id)", [a])
    assert joined.json()["rows"] == [[3]]


def test_rows_are_limited(env):
    client, (a, _) = env
    r = sql(client, "SELECT * FROM range(100000)", [a], max_rows=10)
    assert r.status_code == 200
    body = r.json()
    assert len(body["rows"]) == 10 and body["truncated"] is True and body["max_rows"] == 10
    capped = sql(client, "SELECT * FROM range(100000)", [a], max_rows=10**9).json()
    assert len(capped["rows"]) == capped["max_rows"] == 500


REFUSED = {
    "insert": ("INSERT INTO captures SELECT * FROM captures", "read-only"),
    "delete": ("DELETE FROM fio_results", "read-only"),
    "update": ("UPDATE captures SET label = 'x'", "read-only"),
    "create": ("CREATE TABLE evil AS SELECT 1", "read-only"),
    "drop": ("DROP TABLE fio_results", "read-only"),
    "copy to": ("COPY fio_results TO '/tmp/iolens-evil.csv'", "cannot read or write files"),
    "copy from": ("COPY fio_results FROM '/etc/passwd'", "cannot read or write files"),
    "read_csv /etc/passwd": ("SELECT * FROM read_csv('/etc/passwd')", "cannot read files"),
    "read_csv_auto": ("SELECT * FROM fio_results, read_csv_auto('/etc/passwd')", "cannot read files"),
    "file as table": ("SELECT * FROM '/etc/passwd'", "cannot read files"),
    "read_text in subquery": ("SELECT (SELECT content FROM read_text('/etc/passwd'))", "cannot read files"),
    "glob": ("SELECT * FROM glob('/etc/*')", "cannot read files"),
    "parquet": ("SELECT * FROM read_parquet('https://example.com/x.parquet')", "cannot read files"),
    "attach": ("ATTACH '/tmp/other.duckdb' AS other", "cannot attach"),
    "install": ("INSTALL httpfs", "cannot install or load"),
    "load": ("LOAD httpfs", "cannot install or load"),
    "set": ("SET threads = 1", "cannot change settings"),
    "reset": ("RESET threads", "cannot change settings"),
    "pragma": ("PRAGMA enable_profiling", "PRAGMA"),
    "call": ("CALL pragma_version()", "CALL"),
    "current_setting": ("SELECT current_setting('threads')", "cannot call current_setting"),
    "duckdb_settings": ("SELECT * FROM duckdb_settings()", "use duckdb_settings()"),
    "system tables": ("SELECT * FROM information_schema.tables", "without a schema"),
    "other tables": ("SELECT * FROM notebook_versions", "is not a capture table"),
    "meta": ("SELECT * FROM meta", "is not a capture table"),
    "qualified": ("SELECT * FROM main.fio_results", "without a schema"),
    "two statements": ("SELECT 1; SELECT 2", "one SELECT statement"),
    "show": ("SHOW TABLES", "tables panel"),
    "describe": ("DESCRIBE fio_results", "tables panel"),
    "nextval": ("SELECT nextval('s')", "cannot call nextval"),
    "query_table": ("SELECT * FROM query_table('meta')", "cannot"),
    "escape via parenthesis": ("SELECT 1) UNION ALL (SELECT * FROM read_csv('/etc/passwd')", "syntax"),
    "cte shadowing outside its scope": (
        "SELECT * FROM (WITH duckdb_tables AS (SELECT 1) SELECT * FROM duckdb_tables), duckdb_tables",
        "is not a capture table"),
    "empty": ("   ;  ", "empty"),
    # a CTE's own name is not in scope in its body: these read the catalog's tables of that name
    "cte reading itself: pg_settings": (
        "WITH pg_settings AS (SELECT * FROM pg_settings) SELECT name, setting FROM pg_settings", "'pg_settings' is not"),
    "cte reading itself: duckdb_databases": (
        "WITH duckdb_databases AS (SELECT * FROM duckdb_databases) SELECT path FROM duckdb_databases", "is not a capture"),
    "cte reading itself: meta": ("WITH meta AS (SELECT * FROM meta) SELECT * FROM meta", "'meta' is not"),
    "cte reading itself: notebook_versions": (
        "WITH n AS (SELECT 1), notebook_versions AS (SELECT * FROM notebook_versions) SELECT * FROM notebook_versions",
        "'notebook_versions' is not"),
    "cte reading itself: duckdb_views": (
        "SELECT * FROM (WITH duckdb_views AS (SELECT * FROM duckdb_views) SELECT sql FROM duckdb_views)", "is not"),
    "cte reading a later one": ("WITH a AS (SELECT * FROM meta), meta AS (SELECT 1) SELECT * FROM a", "'meta' is not"),
    "recursive cte anchor reading itself": (
        "WITH RECURSIVE meta AS (SELECT * FROM meta UNION ALL SELECT * FROM meta) SELECT * FROM meta", "'meta' is not"),
    # extensions are never installed nor loaded on demand (this one would be downloaded)
    "extension type": ("SELECT '127.0.0.1'::INET", "never install or load"),
    # an answer whose first row alone is larger than the byte limit (1 MiB here)
    "one huge row": ("SELECT range(300000) AS big", "first row of the answer is about"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_a_clear_message(env, name):
    client, (a, _) = env
    query, needle = REFUSED[name]
    r = sql(client, query, [a])
    assert r.status_code == 400, (name, r.text)
    body = r.json()
    assert set(body) == {"error", "detail"}
    assert needle.lower() in body["error"].lower(), (name, body)
    assert body["detail"]["reason"]


def test_ctes_in_scope_still_work(env):
    client, (a, _) = env
    rec = sql(client, "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 4) SELECT sum(n) FROM t", [a])
    assert rec.status_code == 200 and rec.json()["rows"] == [[10]], rec.text
    chain = sql(client, "WITH r AS (SELECT * FROM runs), s AS (SELECT * FROM r) SELECT count(*) FROM s", [a])
    assert chain.json()["rows"] == [[3]]
    # a CTE named like a capture table reads the notebook's view of that table
    shadow = sql(client, "WITH fio_results AS (SELECT * FROM fio_results) SELECT count(DISTINCT capture_id) FROM fio_results", [a])
    assert shadow.json()["rows"] == [[1]]


def test_answers_are_limited_in_bytes_before_python_sees_them(env):
    client, (a, _) = env
    r = sql(client, "SELECT i, repeat('x', 9000) AS s FROM range(400) t(i)", [a])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["truncated"] is True and body["truncated_by"] == "bytes" and body["max_bytes"] == 1 << 20
    assert 100 <= len(body["rows"]) < 400 and [row[0] for row in body["rows"]] == list(range(len(body["rows"])))
    assert len(r.content) <= (1 << 20) * 1.1
    rows = sql(client, "SELECT * FROM range(100000)", [a]).json()
    assert rows["truncated_by"] == "rows" and len(rows["rows"]) == 500
    # column names (a repeated one numbered, as DuckDB names it) and types survive the bounded path
    dup = sql(client, "SELECT 1 AS x, 2 AS x, [1.5, 2.5] AS l, {'k': 'v'} AS st", [a]).json()
    assert [(c["name"], c["type"]) for c in dup["columns"]] == [
        ("x", "INTEGER"), ("x_1", "INTEGER"), ("l", "DECIMAL(2,1)[]"), ("st", "STRUCT(k VARCHAR)")]
    assert dup["rows"] == [[1, 2, [1.5, 2.5], {"k": "v"}]] and dup["truncated_by"] is None


def test_memory_beyond_the_servers_limit_is_a_clear_error(tmp_path):
    with running_server(tmp_path / "data", db_memory_limit="200MB") as client:
        cid = upload(client, tmp_path, "m", [1000])
        r = sql(client, "SELECT list(i) FROM range(50000000) t(i)", [cid])
        assert r.status_code == 400, r.text
        body = r.json()
        assert body["detail"]["reason"] == "memory_limit" and "190.7 MiB" in body["error"]
        assert sql(client, "SELECT 42", [cid]).json()["rows"] == [[42]]  # and the server goes on


def test_configuration_is_locked_and_extensions_never_load(tmp_path):
    import duckdb

    from iolens.store.db import Store

    store = Store(tmp_path / "x.duckdb", sandbox_memory_limit="256MB")
    try:
        assert store.setting("autoinstall_known_extensions") is False
        assert store.setting("autoload_known_extensions") is False
        assert store.setting("lock_configuration") is True
        assert store.setting("python_enable_replacements") is False
        cur = store.sandbox_pool.get()
        assert cur.execute("SELECT current_setting('operator_memory_limit')").fetchone()[0] == "244.1 MiB"
        with pytest.raises(duckdb.Error, match="locked"):
            cur.execute("SET autoload_known_extensions = true")
        with pytest.raises(duckdb.Error, match="locked"):
            store.sandbox_cursor().execute("SET operator_memory_limit = '100GB'")
        store.sandbox_pool.put(cur)
    finally:
        store.close()


def test_nothing_was_written_or_read(env, tmp_path):
    client, (a, b) = env
    assert not (tmp_path / "iolens-evil.csv").exists()
    import os

    assert not os.path.exists("/tmp/iolens-evil.csv")
    r = sql(client, "SELECT count(*) FROM captures", [a, b])
    assert r.json()["rows"] == [[2]]
    assert sql(client, "SELECT label FROM captures ORDER BY label", [a, b]).json()["rows"] == [["base"], ["other"]]


def test_long_queries_are_stopped(tmp_path):
    with running_server(tmp_path / "data", sql_time_limit_s=1.0) as client:
        a = upload(client, tmp_path, "base", [1000])
        r = sql(client, "SELECT count(*) FROM range(100000000000) a", [a])
        assert r.status_code == 400, r.text
        body = r.json()
        assert body["detail"]["reason"] == "time_limit" and body["detail"]["time_limit_ms"] == 1000
        assert "time limit of 1 s" in body["error"]
        # the server still answers, and the next query runs
        assert sql(client, "SELECT 42", [a]).json()["rows"] == [[42]]


def test_errors_of_the_query_say_what(env):
    client, (a, _) = env
    r = sql(client, "SELECT no_such_column FROM fio_results", [a])
    assert r.status_code == 400 and "no_such_column" in r.json()["error"]
    r = sql(client, "SELEC 1", [a])
    assert r.status_code == 400 and r.json()["detail"]["reason"] == "syntax"
    r = sql(client, "SELECT 1", ["ffffffffffffffff"])
    assert r.status_code == 400 and r.json()["detail"]["reason"] == "unknown_capture"


def test_tables_are_documented(env):
    client, _ = env
    body = client.get("/api/sql/tables").json()
    tables = {t["name"]: t for t in body["tables"]}
    for name in ("captures", "host_facts", "runs", "artifacts", "fio_jobs", "fio_results"):
        assert name in tables
    assert "notebook_versions" not in tables and "meta" not in tables
    for t in tables.values():
        assert t["description"], f"table {t['name']} has no comment above its CREATE in store/schema/{t['domain']}.sql"
    domains = [d["name"] for d in body["domains"]]
    assert domains[:3] == ["captures", "fio", "sweep"] and "block" in domains and "notebooks" not in domains
    assert [t["domain"] for t in body["tables"]] == sorted((t["domain"] for t in body["tables"]), key=domains.index)
    assert tables["fio_results"]["domain"] == "fio" and tables["captures"]["domain"] == "captures"
    cols = {c["name"]: c for c in tables["fio_results"]["columns"]}
    assert cols["iops"]["type"] == "DOUBLE"
    assert cols["capture_id"]["description"]
    assert "bytes/s" in {c["name"]: c for c in tables["fio_jobs"]["columns"]}["bw_bytes"]["description"]
    assert body["max_rows"] > 0 and body["time_limit_ms"] > 0 and body["notes"]


def test_schema_comments_are_parsed():
    parsed = parse_schemas()
    assert parsed["captures"].columns["kernel"] == "host.kernel.release"
    assert "One row per ingested bundle" in parsed["captures"].description
    assert parsed["fio_jobs"].columns["usr_cpu"].startswith("% of one CPU")
