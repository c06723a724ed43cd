"""SQL cells: read-only, time-limited, row-limited queries over a notebook's captures.

Every query of a SQL cell goes through `Sandbox.run`, Datasette style: one method that checks the
query, adds the time limit and returns a small result object. The checks, in order:

1. DuckDB's own parser splits the text: exactly one statement, and it must be a SELECT (INSERT,
   COPY, ATTACH, INSTALL/LOAD, SET, PRAGMA, CALL, EXPLAIN... are refused by type, each with its
   own message).
2. DuckDB serializes the parsed SELECT (`json_serialize_sql`, which refuses anything that is not
   a SELECT) and the tree is walked, deny by default: a FROM item may only be a capture table
   (see tabledocs.py), a CTE of an enclosing scope, a subquery, a join, VALUES, or the table
   functions range/generate_series/unnest; never a file path ('/etc/passwd' parses as a table
   name), read_csv/read_parquet/glob/query_table..., SHOW/DESCRIBE, or a schema-qualified name.
   Functions with side effects or that read the configuration (nextval, setseed, sleep_ms,
   current_setting, write_log...) are refused.
3. The query runs on its own cursor, wrapped so that each capture table it names is that table
   filtered to the notebook's captures (a saved notebook shows the same rows however many
   captures are added later). The wrapped text is checked again as in 2.
4. A timer interrupts the cursor after the time limit; at most `max_rows` rows are fetched.

The database instance is shared with the application (one process holds the DuckDB file), so
instance-wide settings such as enable_external_access cannot be turned off for SQL cells alone:
ingest itself reads files. The checks above are what keeps SQL cells from files and extensions.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import logging
import math
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import duckdb

from .db import Store
from .tabledocs import capture_tables

log = logging.getLogger("iolens.sql")

MAX_SQL_CHARS = 20_000
MAX_TEXT_CHARS = 10_000  # longer text values are cut (with '...') in results

TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})
DENIED_FUNCTIONS = frozenset({
    "nextval", "currval", "setval", "setseed", "sleep_ms", "pg_sleep", "write_log", "current_setting",
    "current_query", "json_execute_serialized_sql", "query", "query_table", "getenv", "read_text",
    "read_blob", "read_csv", "read_parquet", "read_json", "glob",
})
_ALLOWED_REFS = frozenset({"BASE_TABLE", "JOIN", "SUBQUERY", "TABLE_FUNCTION", "EMPTY", "EMPTY_FROM",
                           "EXPRESSION_LIST", "PIVOT", "COLUMN_DATA", "DELIM_GET"})
_CAPTURE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

_REFUSED_TYPES = {
    "INSERT": "SQL cells are read-only: INSERT is refused.",
    "UPDATE": "SQL cells are read-only: UPDATE is refused.",
    "DELETE": "SQL cells are read-only: DELETE is refused.",
    "CREATE": "SQL cells are read-only: CREATE is refused.",
    "DROP": "SQL cells are read-only: DROP is refused.",
    "ALTER": "SQL cells are read-only: ALTER is refused.",
    "MERGE_INTO": "SQL cells are read-only: MERGE is refused.",
    "TRANSACTION": "SQL cells run one SELECT; transactions are refused.",
    "COPY": "SQL cells cannot read or write files: COPY is refused.",
    "COPY_DATABASE": "SQL cells cannot read or write files: COPY is refused.",
    "EXPORT": "SQL cells cannot write files: EXPORT is refused.",
    "ATTACH": "SQL cells cannot attach databases: ATTACH is refused.",
    "DETACH": "SQL cells cannot detach databases: DETACH is refused.",
    "LOAD": "SQL cells cannot install or load extensions: INSTALL/LOAD is refused.",
    "UPDATE_EXTENSIONS": "SQL cells cannot install or load extensions.",
    "SET": "SQL cells cannot change settings: SET/RESET is refused.",
    "VARIABLE_SET": "SQL cells cannot change settings: SET VARIABLE is refused.",
    "PRAGMA": "SQL cells cannot run PRAGMA.",
    "CALL": "SQL cells cannot CALL functions; SELECT from the capture tables instead.",
    "EXPLAIN": "EXPLAIN is not available in SQL cells.",
    "PREPARE": "SQL cells cannot PREPARE statements.",
    "EXECUTE": "SQL cells cannot EXECUTE statements.",
    "VACUUM": "SQL cells are read-only: VACUUM is refused.",
    "ANALYZE": "SQL cells are read-only: ANALYZE is refused.",
    "EXTENSION": "SQL cells cannot install or load extensions.",
}


class SqlRefused(Exception):
    """The query was refused or stopped. `reason` is a short code, `message` one sentence."""

    def __init__(self, reason: str, message: str, **detail: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.detail = {"reason": reason, **detail}


@dataclass
class SqlAnswer:
    columns: list[tuple[str, str]]
    rows: list[list[Any]]
    truncated: bool
    elapsed_ms: float
    max_rows: int
    time_limit_ms: int


@dataclass
class Sandbox:
    store: Store
    time_limit_s: float = 5.0
    max_rows: int = 5000
    max_concurrent: int = 2
    _slots: threading.BoundedSemaphore = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._slots = threading.BoundedSemaphore(self.max_concurrent)

    def tables(self) -> set[str]:
        return {t.name for t in capture_tables(self.store)}

    def run(self, sql: str, captures: list[str], max_rows: int | None = None) -> SqlAnswer:
        limit = min(max_rows or self.max_rows, self.max_rows)
        text = sql.strip().rstrip(";").strip()
        if not text:
            raise SqlRefused("empty", "The query is empty: write a SELECT over the capture tables.")
        if len(sql) > MAX_SQL_CHARS:
            raise SqlRefused("too_long", f"The query is {len(sql)} characters long; at most {MAX_SQL_CHARS}.")
        ids = self._check_captures(captures)
        tables = self.tables()

        cur = self.store.sandbox_cursor()
        try:
            self._check_statement(cur, text)
            check_tree(_serialize(cur, text), tables, user=True)
            wrapped = wrap(text, sorted(tables), ids)
            check_tree(_serialize(cur, wrapped), tables, user=False)
            if not self._slots.acquire(timeout=self.time_limit_s):
                raise SqlRefused("busy", "Too many SQL queries are running on this server; try again in a moment.")
            try:
                return self._execute(cur, wrapped, limit)
            finally:
                self._slots.release()
        finally:
            cur.close()

    def _check_captures(self, captures: list[str]) -> list[str]:
        ids = list(dict.fromkeys(c for c in captures if c))
        if not ids:
            raise SqlRefused("no_captures", "SQL cells query a notebook's captures: give at least one capture id.")
        bad = [c for c in ids if not _CAPTURE_ID.match(c)]
        if bad:
            raise SqlRefused("bad_capture", f"not a capture id: {bad[0]!r}", captures=bad)
        known = {r[0] for r in self.store.query(
            "SELECT capture_id FROM captures WHERE list_contains($ids, capture_id)", {"ids": ids}).rows}
        missing = [c for c in ids if c not in known]
        if missing:
            raise SqlRefused("unknown_capture", f"unknown capture id(s): {', '.join(missing)}", missing=missing)
        return ids

    @staticmethod
    def _check_statement(cur: duckdb.DuckDBPyConnection, text: str) -> None:
        try:
            statements = cur.extract_statements(text)
        except duckdb.Error as exc:
            raise SqlRefused("syntax", _clean(exc)) from None
        if len(statements) != 1:
            raise SqlRefused("statements", f"A SQL cell runs one SELECT statement; this text has {len(statements)}.")
        kind = statements[0].type.name
        if kind != "SELECT":
            raise SqlRefused("not_select", _REFUSED_TYPES.get(kind, f"SQL cells run SELECT statements only, not {kind}."),
                             statement=kind)

    def _execute(self, cur: duckdb.DuckDBPyConnection, wrapped: str, limit: int) -> SqlAnswer:
        timer = threading.Timer(self.time_limit_s, cur.interrupt)
        start = time.perf_counter()
        timer.start()
        try:
            cur.execute("SET python_enable_replacements = false")
            result = cur.execute(wrapped)
            description = result.description or []
            rows = result.fetchmany(limit + 1)
        except duckdb.InterruptException:
            raise SqlRefused(
                "time_limit",
                f"The query ran for longer than the time limit of {self.time_limit_s:g} s and was stopped.",
                time_limit_ms=int(self.time_limit_s * 1000),
            ) from None
        except duckdb.Error as exc:
            if time.perf_counter() - start >= self.time_limit_s and "interrupt" in str(exc).lower():
                raise SqlRefused("time_limit", f"The query was stopped after the time limit of {self.time_limit_s:g} s.") from None
            raise SqlRefused("error", _clean(exc)) from None
        finally:
            timer.cancel()
        elapsed = (time.perf_counter() - start) * 1000
        log.debug("sql cell %.1f ms", elapsed)
        truncated = len(rows) > limit
        return SqlAnswer(
            columns=[(d[0], str(d[1])) for d in description],
            rows=[[json_value(v) for v in row] for row in rows[:limit]],
            truncated=truncated,
            elapsed_ms=round(elapsed, 2),
            max_rows=limit,
            time_limit_ms=int(self.time_limit_s * 1000),
        )


def _clean(exc: Exception) -> str:
    """DuckDB's message without the traceback-ish noise: 'Binder Error: ...' kept, LINE markers dropped."""
    text = str(exc).strip()
    return text if len(text) < 2000 else text[:2000] + "..."


def _serialize(cur: duckdb.DuckDBPyConnection, text: str) -> dict[str, Any]:
    raw = cur.execute("SELECT json_serialize_sql(?::VARCHAR)", [text]).fetchone()
    tree = json.loads(raw[0]) if raw else {"error": True, "error_message": "cannot parse"}
    if tree.get("error"):
        msg = tree.get("error_message", "cannot parse the query")
        if "Only SELECT" in msg:
            raise SqlRefused("not_select", "SQL cells run SELECT statements only (PIVOT statements too are refused: use PIVOT inside a SELECT).")
        raise SqlRefused("syntax", f"Parser Error: {msg}")
    return tree


def check_tree(tree: dict[str, Any], tables: set[str], *, user: bool) -> None:
    """Walk a serialized SELECT, deny by default (see the module's docstring). Raises SqlRefused.

    In DuckDB's serialized tree, expressions carry a "class"; query nodes end in _NODE, result
    modifiers in _MODIFIER; every other typed dict is a FROM item (a "table ref"), and only the
    kinds in _ALLOWED_REFS pass."""

    def walk(x: Any, ctes: frozenset[str]) -> None:
        if isinstance(x, list):
            for v in x:
                walk(v, ctes)
            return
        if not isinstance(x, dict):
            return
        cte_map = x.get("cte_map")
        if isinstance(cte_map, dict) and cte_map.get("map"):
            ctes = ctes | {str(e.get("key", "")).lower() for e in cte_map["map"]}
        kind = x.get("type")
        if "class" in x:
            if x.get("class") == "FUNCTION":
                _check_function(x)
        elif isinstance(kind, str) and not kind.endswith(("_NODE", "_MODIFIER")) and kind not in _ORDER_TYPES:
            _check_ref(x, kind, tables, ctes, user)
        for v in x.values():
            walk(v, ctes)

    for st in tree.get("statements", []):
        walk(st, frozenset())


_ORDER_TYPES = frozenset({"ASCENDING", "DESCENDING", "ORDER_DEFAULT", "INVALID"})


def _check_function(x: dict[str, Any]) -> None:
    name = str(x.get("function_name", "")).lower()
    schema = str(x.get("schema") or "").lower()
    if name in DENIED_FUNCTIONS or name.startswith("__internal") or schema not in ("", "main"):
        raise SqlRefused("function", f"SQL cells cannot call {name}().", function=name)


def _check_ref(x: dict[str, Any], kind: str, tables: set[str], ctes: frozenset[str], user: bool) -> None:
    if kind == "SHOW_REF":
        raise SqlRefused("show", "SHOW, DESCRIBE and SUMMARIZE are not available: the tables panel lists every table and column.")
    if kind not in _ALLOWED_REFS:
        raise SqlRefused("table", f"{kind.lower().replace('_', ' ')} is not allowed in SQL cells.")
    if kind == "BASE_TABLE":
        raw = str(x.get("table_name", ""))
        name = raw.lower()
        schema = str(x.get("schema_name") or "").lower()
        catalog = str(x.get("catalog_name") or "").lower()
        if any(ch in name for ch in "/\\.*:~"):
            raise SqlRefused("file", f"SQL cells cannot read files: '{raw}' is refused.", table=raw)
        if catalog or (schema and (user or schema != "main")):
            qualified = ".".join(p for p in (catalog, schema, name) if p)
            raise SqlRefused("table", f"Name the capture tables without a schema: '{qualified}' is refused.", table=qualified)
        if name not in tables and name not in ctes:
            raise SqlRefused("table", f"'{raw}' is not a capture table; SQL cells can read: {', '.join(sorted(tables))}.",
                             table=raw)
    elif kind == "TABLE_FUNCTION":
        fn = x.get("function") or {}
        name = str(fn.get("function_name", "")).lower()
        if name not in TABLE_FUNCTIONS:
            files = name.startswith(("read_", "parquet", "glob", "sniff")) or name in {"query_table", "query"}
            what = "read files" if files else f"use {name}()"
            raise SqlRefused(
                "table_function",
                f"SQL cells cannot {what}: FROM may name the capture tables and {', '.join(sorted(TABLE_FUNCTIONS))}() only.",
                function=name,
            )


def wrap(text: str, tables: list[str], captures: list[str]) -> str:
    """The user's SELECT over views of the capture tables filtered to `captures` (ids checked)."""
    ids = ", ".join(f"'{c}'" for c in captures)
    ctes = ",\n".join(
        f'"{t}" AS NOT MATERIALIZED (SELECT * FROM main."{t}" WHERE capture_id IN ({ids}))' for t in tables
    )
    return f"WITH {ctes}\nSELECT * FROM (\n{text}\n) AS cell"


def json_value(v: Any) -> Any:
    """A DuckDB value as JSON: timestamps as ISO text, decimals and huge ints as numbers, bytes as base64."""
    if v is None or isinstance(v, (bool, str)):
        return v if not isinstance(v, str) or len(v) <= MAX_TEXT_CHARS else v[:MAX_TEXT_CHARS] + "..."
    if isinstance(v, int):
        return v if abs(v) < 2**53 else float(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dt.datetime):
        return v.isoformat() + ("Z" if v.tzinfo is None else "")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(v)).decode()
    if isinstance(v, dict):
        return {str(k): json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    return str(v)
