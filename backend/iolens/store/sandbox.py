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
   current_setting, write_log...) are refused. A CTE's name is in scope in the query that
   follows its WITH and in the CTEs after it, not in its own body (`WITH pg_settings AS (SELECT *
   FROM pg_settings)` reads the catalog's pg_settings, so it is refused); a recursive CTE's name
   is in scope in its recursive part only.
3. The query runs on its own cursor, wrapped so that each capture table it names is that table
   filtered to the notebook's captures (a saved notebook shows the same rows however many
   captures are added later). The wrapped text is checked again as in 2.
4. It runs on one of the store's SQL cell connections (made before the configuration was
   locked, each with its own `operator_memory_limit` for sorts and hash tables; their number
   bounds the queries running at once). A timer interrupts it after the time limit.
5. The answer is bounded before any of it becomes Python objects: at most `max_rows` + 1 rows are
   kept in a temporary table of the connection, the JSON size of each row is measured there, and
   only the rows that fit in `max_bytes` are fetched (an answer of which not even the first row
   fits is refused, with its size).

The database instance is shared with the application (one process holds the DuckDB file), so
instance-wide settings such as enable_external_access cannot be turned off for SQL cells alone:
ingest itself reads files. The checks above are what keeps SQL cells from files. Extensions are
never installed or loaded on demand, and the configuration is locked (store/db.py).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import logging
import math
import queue
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
DEFAULT_MAX_BYTES = 8 << 20  # JSON bytes of an answer's rows

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
    truncated_by: str | None = None  # "rows" | "bytes" when truncated
    max_bytes: int = DEFAULT_MAX_BYTES


@dataclass
class Sandbox:
    store: Store
    time_limit_s: float = 5.0
    max_rows: int = 5000
    max_bytes: int = DEFAULT_MAX_BYTES
    _answer_seq: Any = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        import itertools

        self._answer_seq = itertools.count()

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
        finally:
            cur.close()
        try:
            con = self.store.sandbox_pool.get(timeout=self.time_limit_s)
        except queue.Empty:
            raise SqlRefused("busy", "Too many SQL queries are running on this server; try again in a moment.") from None
        try:
            return self._execute(con, wrapped, limit)
        finally:
            self.store.sandbox_pool.put(con)

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
        answer = f"__iolens_answer_{next(self._answer_seq)}"
        timer.start()
        try:
            rel = cur.sql(wrapped)  # bound, not run: the names and types as the query gives them
            description = list(zip(rel.columns, [str(t) for t in rel.types]))
            cur.execute(f"CREATE TEMP TABLE {answer} AS {wrapped}\nLIMIT {limit + 1}")
            names = [d[0] for d in cur.execute(f"SELECT * FROM {answer} LIMIT 0").description or []]
            size = " + ".join(
                [f"{len(n) + 8} + " + _json_size(_ident(n), t) for n, t in zip(names, rel.types)]) or "0"
            sizes = [int(r[0] or 0) for r in cur.execute(f"SELECT {size} FROM {answer} ORDER BY rowid").fetchall()]
            keep, used = 0, 0
            for size in sizes[:limit]:
                if used + size > self.max_bytes:
                    break
                used, keep = used + size, keep + 1
            if sizes and keep == 0:
                raise SqlRefused(
                    "answer_size",
                    f"The first row of the answer is about {_mib(sizes[0])} of JSON; an answer is at most "
                    f"{_mib(self.max_bytes)}: select fewer or smaller columns (e.g. len(list) instead of the list).",
                    row_bytes=sizes[0], max_bytes=self.max_bytes,
                )
            rows = cur.execute(f"SELECT * FROM {answer} ORDER BY rowid LIMIT {keep}").fetchall()
        except duckdb.InterruptException:
            raise SqlRefused(
                "time_limit",
                f"The query ran for longer than the time limit of {self.time_limit_s:g} s and was stopped.",
                time_limit_ms=int(self.time_limit_s * 1000),
            ) from None
        except duckdb.OutOfMemoryException as exc:
            limit_text = self.store.setting("memory_limit")
            raise SqlRefused(
                "memory_limit",
                f"The query needs more memory than the server gives DuckDB ({limit_text}; a SQL cell's sorts and "
                f"hash tables spill to disk above {self.store.sandbox_memory_limit}): filter or aggregate before "
                f"building large lists or strings. DuckDB said: {_first_line(exc)}",
                memory_limit=limit_text, operator_memory_limit=self.store.sandbox_memory_limit,
            ) from None
        except duckdb.Error as exc:
            if time.perf_counter() - start >= self.time_limit_s and "interrupt" in str(exc).lower():
                raise SqlRefused("time_limit", f"The query was stopped after the time limit of {self.time_limit_s:g} s.") from None
            ext = _EXTENSION_RE.search(str(exc))
            if ext:
                raise SqlRefused(
                    "extension",
                    f"This query needs the DuckDB extension '{ext.group(1)}', which SQL cells never install or load "
                    f"({_first_line(exc)}).",
                    extension=ext.group(1),
                ) from None
            raise SqlRefused("error", _clean(exc)) from None
        finally:
            timer.cancel()
            try:
                cur.execute(f"DROP TABLE IF EXISTS {answer}")
            except duckdb.Error:  # an interrupted connection: dropped with the next query's
                log.warning("sql cell: could not drop %s", answer)
        elapsed = (time.perf_counter() - start) * 1000
        log.debug("sql cell %.1f ms", elapsed)
        truncated_by = "rows" if len(sizes) > limit and keep == limit else "bytes" if keep < min(len(sizes), limit) else None
        return SqlAnswer(
            columns=description,
            rows=[[json_value(v) for v in row] for row in rows],
            truncated=truncated_by is not None,
            elapsed_ms=round(elapsed, 2),
            max_rows=limit,
            time_limit_ms=int(self.time_limit_s * 1000),
            truncated_by=truncated_by,
            max_bytes=self.max_bytes,
        )


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_FIXED_JSON = 24  # a date, time, uuid... as JSON text, give or take
_FIXED_BY_KIND = {"boolean": 5, "tinyint": 4, "utinyint": 4, "smallint": 6, "usmallint": 6, "integer": 11,
                  "uinteger": 11, "bigint": 12, "ubigint": 12, "hugeint": 20, "uhugeint": 20, "float": 14,
                  "double": 20, "null": 4}


def _json_size(expr: str, t: Any, depth: int = 0) -> str:
    """A DuckDB expression for the bytes of `expr` (of type `t`) as JSON, measured without building
    the JSON: strings by their length, lists by their elements (a list of numbers by its length)."""
    kind = str(getattr(t, "id", "")).lower()
    children = list(getattr(t, "children", None) or []) if kind in ("list", "array", "struct", "map") else []
    if depth > 6:
        return f"coalesce(strlen(CAST({expr} AS VARCHAR)), 0)"
    if kind in ("varchar", "enum", "union", "bit", "json"):
        return f"coalesce(strlen(CAST({expr} AS VARCHAR)), 0) + 3"
    if kind == "blob":
        return f"coalesce(octet_length({expr}), 0) * 4 // 3 + 3"
    if kind in ("list", "array"):
        child = children[0][1]
        inner = _json_size(f"x{depth}", child, depth + 1)
        if inner.isdigit():  # elements of a fixed size
            return f"coalesce(len({expr}), 0) * {int(inner) + 1} + 2"
        return f"coalesce(list_sum(list_transform({expr}, lambda x{depth}: {inner})), 0) + coalesce(len({expr}), 0) + 2"
    if kind == "struct":
        parts = [f"{len(name) + 4} + " + _json_size(f"struct_extract({expr}, '{name.replace(chr(39), chr(39) * 2)}')",
                                                    ct, depth + 1) for name, ct in children]
        return " + ".join(parts) + " + 2" if parts else "2"
    if kind == "map":
        (_, kt), (_, vt) = children[:2]
        return (f"{_json_size(f'map_keys({expr})', duckdb.list_type(kt), depth + 1)} + "
                f"{_json_size(f'map_values({expr})', duckdb.list_type(vt), depth + 1)}")
    return str(_FIXED_BY_KIND.get(kind, _FIXED_JSON))


_EXTENSION_RE = re.compile(r"exists in the (\w+) extension|extension \"?(\w+)\"? (?:is not|must be) (?:loaded|installed)")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().split("\n", 1)[0][:300]


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} bytes"


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
            # Each CTE's body sees the CTEs before it, never itself: a name it reads that is its
            # own name is the catalog's table of that name (WITH pg_settings AS (SELECT * FROM
            # pg_settings) ...), which must be checked like any other table.
            for entry in cte_map["map"]:
                walk(entry.get("value"), ctes)
                ctes = ctes | {str(entry.get("key", "")).lower()}
        kind = x.get("type")
        if "class" in x:
            if x.get("class") == "FUNCTION":
                _check_function(x)
        elif isinstance(kind, str) and not kind.endswith(("_NODE", "_MODIFIER")) and kind not in _ORDER_TYPES:
            _check_ref(x, kind, tables, ctes, user)
        for key, v in x.items():
            if key == "cte_map":
                continue
            if kind == "RECURSIVE_CTE_NODE" and key == "right":
                # the recursive part of WITH RECURSIVE name AS (anchor UNION recursive part)
                walk(v, ctes | {str(x.get("cte_name", "")).lower()})
            else:
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
