"""The DuckDB store: the tables of store/schema/ (one file per domain, applied in the order of its
registry), every read through `Store.query`, every write through `Store.write` (one transaction,
one writer at a time).

DuckDB allows one process to open a database file for writing. `iolens serve` holds it for its
lifetime; `iolens ingest --server URL` goes through the running server instead.

The DuckDB instance is configured once, then its configuration is locked (`lock_configuration`):
extensions are never installed or loaded on demand (a query naming a type or function of an
extension that is not built in fails instead of downloading it), Python variables are not
replacement scans, and the memory limit is fixed. The connections of SQL cells are made before the
lock, each with its own limit on query intermediates (`operator_memory_limit`, a per-connection
setting that cannot be changed afterwards).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import shutil
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from .schema import DOMAINS, domain_sql

T = TypeVar("T")

log = logging.getLogger("iolens.store")

SCHEMA_VERSION = "1"
DEFAULT_SQL_MEMORY = "1GB"  # query intermediates of one SQL cell (sorts, hash tables)


class StoreError(RuntimeError):
    """The database cannot be opened or a query failed."""


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    elapsed_ms: float

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def scalar(self) -> Any:
        return self.rows[0][0] if self.rows else None


class Writer:
    """Handle given to the body of `Store.write`: inserts and statements inside one transaction."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection, lock: Callable[[], None] | None = None) -> None:
        self._cur = cursor
        self._lock = lock

    def lock(self) -> None:
        """Takes the store's write lock for the rest of the transaction (`Store.write(locked=False)`;
        a no-op when it is held already)."""
        if self._lock is not None:
            self._lock()

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> None:
        self._cur.execute(sql, params)

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> int:
        """Insert rows in one statement: each column goes in as one list parameter, unnested
        side by side (DuckDB's executemany costs ~0.5 ms a row; this is ~100x faster)."""
        if not rows:
            return 0
        cols = list(zip(*rows))
        if len(cols) != len(columns):
            raise ValueError(f"{table}: {len(columns)} columns named, rows have {len(cols)}")
        selects = ", ".join(f"unnest(${i + 1})" for i in range(len(columns)))
        self._cur.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {selects}", [list(c) for c in cols]
        )
        return len(rows)

    def insert_csv(
        self,
        table: str,
        path: Path | str,
        columns: Sequence[tuple[str, str]],
        constants: Sequence[tuple[str, Any]] = (),
        *,
        max_line_bytes: int = 64 << 20,
        buffer_bytes: int | None = None,
    ) -> int:
        """Bulk insert (millions of rows; executemany is far too slow for that) from a headerless
        CSV file: `columns` are its (name, DuckDB type) in file order, `constants` (name, value)
        fill the other columns (capture_id, run_id...). Quoting is RFC 4180 (quotes doubled inside quotes); an
        empty unquoted field is NULL, a quoted one "" is the empty string. Returns the row count.
        A longer line than `max_line_bytes` is an error. DuckDB reads `buffer_bytes` at a time
        (default 16 x max_line_bytes): a FIFO is parsed as it is written only with small buffers."""
        names = [c for c, _ in constants] + [c for c, _ in columns]
        spec = "{" + ", ".join(f"'{c}': '{t}'" for c, t in columns) + "}"
        literal = "'" + str(path).replace("'", "''") + "'"
        sql = (
            f"INSERT INTO {table} ({', '.join(names)}) "
            f"SELECT {', '.join('?' for _ in constants)}{', ' if constants else ''}* FROM read_csv({literal}, "
            f"header = false, columns = {spec}, delim = ',', quote = '\"', escape = '\"', "
            f"allow_quoted_nulls = false, auto_detect = false, max_line_size = {int(max_line_bytes)}"
            f"{'' if buffer_bytes is None else f', buffer_size = {int(buffer_bytes)}'})"
        )
        row = self._cur.execute(sql, [v for _, v in constants]).fetchone()
        return int(row[0]) if row else 0

    def insert_arrow(self, table: str, stream: Any, columns: Sequence[tuple[str, str]],
                     constants: Sequence[tuple[str, Any]] = ()) -> int:
        """Bulk insert from an object of the Arrow PyCapsule interface (`__arrow_c_stream__`,
        e.g. a run of iolens_native.TableStream) whose columns are `columns` (name, DuckDB type: each
        value is cast to it, an out-of-range value is an error), `constants` (name, value) filling
        the other columns. DuckDB reads the batches as they come. Returns the row count."""
        view = f"_iolens_arrow_{threading.get_ident()}"
        names = [c for c, _ in constants] + [c for c, _ in columns]
        casts = ", ".join(f"CAST({c} AS {t})" for c, t in columns)
        sql = (f"INSERT INTO {table} ({', '.join(names)}) "
               f"SELECT {''.join('?, ' for _ in constants)}{casts} FROM {view}")
        self._cur.register(view, stream)
        try:
            row = self._cur.execute(sql, [v for _, v in constants]).fetchone()
        except BaseException:
            # the transaction is aborted: the view goes with its rollback (and this cursor)
            with contextlib.suppress(duckdb.Error):
                self._cur.unregister(view)
            raise
        self._cur.unregister(view)
        return int(row[0]) if row else 0

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> QueryResult:
        start = time.perf_counter()
        cur = self._cur.execute(sql, params)
        columns = [d[0] for d in cur.description] if cur.description else []
        rows = cur.fetchall() if cur.description else []
        return QueryResult(columns, rows, (time.perf_counter() - start) * 1000)


# Settings of the whole instance, before the lock: nothing is fetched or loaded behind our back.
_INSTANCE_SETTINGS = (
    ("autoinstall_known_extensions", False),
    ("autoload_known_extensions", False),
    ("allow_community_extensions", False),
    ("python_enable_replacements", False),
)


class Store:
    def __init__(self, path: Path | str, *, memory_limit: str | None = None, sandbox_connections: int = 2,
                 sandbox_memory_limit: str | None = None) -> None:
        """Open (or create) the database. `memory_limit`: DuckDB's limit for the whole instance
        (default $IOLENS_DB_MEMORY_LIMIT, else DuckDB's own: 80% of RAM). `sandbox_connections`:
        connections kept for SQL cells (at most that many run at once), each limited to
        `sandbox_memory_limit` of query intermediates (default $IOLENS_SQL_MEMORY_LIMIT, else 1GB)."""
        memory_limit = memory_limit or os.environ.get("IOLENS_DB_MEMORY_LIMIT") or None
        sandbox_memory_limit = sandbox_memory_limit or os.environ.get("IOLENS_SQL_MEMORY_LIMIT") or DEFAULT_SQL_MEMORY
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = dict(_INSTANCE_SETTINGS)
        if memory_limit:
            config["memory_limit"] = _size_literal(memory_limit)
        try:
            self._con = duckdb.connect(str(path), config=config)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise StoreError(in_use_message(str(path), str(exc))) from exc
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc
        except duckdb.Error as exc:  # a bad memory_limit, for one
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc
        self._write_lock = threading.Lock()
        # Bumped by every committed write: answers cached from the store (views/flame_answer.py)
        # are valid for one generation.
        self.generation = 0
        self._kept: dict[Hashable, tuple[int, Any]] = {}
        self._kept_lock = threading.Lock()
        self._apply_schema()
        self.sandbox_pool: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
        for _ in range(sandbox_connections):
            cur = self._con.cursor()
            if sandbox_memory_limit:
                try:
                    cur.execute(f"SET operator_memory_limit = '{_size_literal(sandbox_memory_limit)}'")
                except duckdb.Error as exc:
                    raise StoreError(f"SQL cell memory limit {sandbox_memory_limit!r}: {exc}") from exc
            self.sandbox_pool.put(cur)
        self.sandbox_memory_limit = sandbox_memory_limit
        self._con.execute("SET lock_configuration = true")

    def setting(self, name: str) -> Any:
        return self.query("SELECT current_setting($n)", {"n": name}).scalar()

    def _apply_schema(self) -> None:
        with self.write() as w:
            for domain in DOMAINS:
                try:
                    w.execute(domain_sql(domain))  # DuckDB runs a script of several statements in one call
                except duckdb.Error as exc:
                    raise StoreError(f"{self.path}: store/schema/{domain.name}.sql: {exc}") from exc
            w.execute(
                "INSERT INTO meta VALUES ('schema_version', ?) ON CONFLICT (key) DO NOTHING",
                [SCHEMA_VERSION],
            )

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> QueryResult:
        """Run one read query. Every read of the application goes through here."""
        start = time.perf_counter()
        cur = self._con.cursor()
        try:
            result = cur.execute(sql, params)
            columns = [d[0] for d in result.description] if result.description else []
            rows = result.fetchall() if result.description else []
        except duckdb.Error as exc:
            raise StoreError(f"query failed: {exc}") from exc
        finally:
            cur.close()
        elapsed = (time.perf_counter() - start) * 1000
        log.debug("query %.1f ms: %s", elapsed, " ".join(sql.split())[:200])
        return QueryResult(columns, rows, elapsed)

    def read_arrow(self, queries: Sequence[tuple[str, Sequence[Any] | dict[str, Any]]], consume: Callable[..., T]) -> T:
        """Run read queries (sql, parameters) and hand their results to `consume`, one argument
        each, as objects of the Arrow PyCapsule interface (`__arrow_c_stream__`: DuckDB's
        relations, each on its own cursor), for native code that reads the rows as Arrow batches
        instead of Python tuples (views/flame.py diff); returns what `consume` returns. A failure
        of a query (DuckDB's error, raised here or by the reader) is a StoreError."""
        start = time.perf_counter()
        curs = [self._con.cursor() for _ in queries]
        try:
            return consume(*(cur.sql(sql, params=params) for cur, (sql, params) in zip(curs, queries)))
        except duckdb.Error as exc:
            raise StoreError(f"query failed: {exc}") from exc
        finally:
            for cur in curs:
                cur.close()
            log.debug("arrow queries %.1f ms: %s", (time.perf_counter() - start) * 1000,
                      " | ".join(" ".join(sql.split())[:100] for sql, _ in queries))

    def kept_now(self, key: Hashable) -> Any | None:
        """The value kept under `key` (Store.kept) if the store has not been written since, else None."""
        with self._kept_lock:
            hit = self._kept.get(key)
        return hit[1] if hit is not None and hit[0] == self.generation else None

    def kept(self, key: Hashable, make: Callable[[], T]) -> T:
        """make()'s value, kept under `key` until the store's next committed write (`generation`):
        for facts read from the store that views would otherwise query again (views/flame.py's
        capture facts, flame_answer's captures without stacks). A value made while a write
        committed is returned but not kept. Values are shared: not to be changed."""
        generation = self.generation  # read before make(): a value of a store written meanwhile is not kept
        with self._kept_lock:
            hit = self._kept.get(key)
        if hit is not None and hit[0] == generation:
            return hit[1]
        value = make()
        with self._kept_lock:
            if self.generation == generation:
                if any(g != generation for g, _v in self._kept.values()):
                    self._kept = {k: v for k, v in self._kept.items() if v[0] == generation}
                self._kept[key] = (generation, value)
        return value

    def sandbox_cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor for store/sandbox.py only: to check SQL cells' text (no user query runs on it)."""
        return self._con.cursor()

    @contextmanager
    def write(self, *, locked: bool = True) -> Iterator[Writer]:
        """One transaction: committed when the body returns, rolled back if it raises.

        `locked=False`: the body starts without the store's write lock, and takes it with
        `Writer.lock()` before it writes anything another writer could write too (the commit is
        always under the lock). Meanwhile other writes go on: DuckDB's transactions are isolated,
        rows appended by one are seen by no other before its commit, and a checkpoint or a
        snapshot writes only what is committed. For a bulk load (a large ingest's parse) that
        must not keep notebook saves waiting."""
        held = False

        def lock() -> None:
            nonlocal held
            if not held:
                self._write_lock.acquire()
                held = True

        if locked:
            lock()
        try:
            cur = self._con.cursor()
            try:
                cur.begin()
                yield Writer(cur, lock)
                lock()
                cur.commit()
                self.generation += 1
            except BaseException:
                cur.rollback()
                raise
            finally:
                cur.close()
        finally:
            if held:
                self._write_lock.release()

    def checkpoint(self) -> None:
        """Write the WAL into the database file (DuckDB otherwise does it only past 16 MB of WAL or
        at a clean close): after it, the .duckdb file alone holds every committed capture."""
        with self._write_lock:
            self._con.execute("CHECKPOINT")

    def snapshot(self, dest: Path) -> None:
        """A consistent copy of the database as one file: no write can start while the WAL is
        checkpointed and the file copied (every write goes through `write`, under the same lock)."""
        tmp = dest.with_name(dest.name + ".partial")
        with self._write_lock:
            self._con.execute("CHECKPOINT")
            shutil.copyfile(self.path, tmp)
        os.replace(tmp, dest)

    def close(self) -> None:
        while not self.sandbox_pool.empty():
            self.sandbox_pool.get_nowait().close()
        self._con.close()


class StoreOpening:
    """A Store being opened (the file created, the schema applied) on a thread of its own, while
    the caller reads and parses a bundle: DuckDB's connect and DDL run without the GIL, as does
    the Rust parse, so on a new database `iolens ingest` does both at once. `result()` waits for
    the Store, or raises what opening it raised (StoreError)."""

    def __init__(self, path: Path | str, **kwargs: Any) -> None:
        self._store: Store | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._open, args=(path, kwargs), name="iolens-store-open", daemon=True)
        self._thread.start()

    def _open(self, path: Path | str, kwargs: dict[str, Any]) -> None:
        try:
            self._store = Store(path, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by result()
            self._error = exc

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> Store:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._store is not None
        return self._store


def in_use_message(path: str, duckdb_error: str) -> str:
    """Who holds the database, from DuckDB's "Conflicting lock is held in PROGRAM (PID N)" and the
    holder's command line in /proc, and what to do about it."""
    m = re.search(r"\(PID (\d+)\)", duckdb_error)
    if m is None:
        return (f"{path}: the database is in use by another process ({duckdb_error.strip()[:200]}). Stop it, or, "
                "if it is `iolens serve`, go through it: `iolens ingest --server URL FILE`.")
    pid = int(m.group(1))
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        cmd = " ".join(a.decode("utf-8", "replace") for a in argv if a)
    except OSError:
        cmd = ""
    who = f"pid {pid}" + (f": {cmd[:200]}" if cmd else "")
    words = cmd.split()
    if "serve" in words:
        return (f"{path}: the database is in use by `iolens serve` ({who}). Go through the server: "
                "`iolens ingest --server http://HOST:PORT FILE`, `iolens export ID --server http://HOST:PORT`, "
                "`iolens backup DIR --server http://HOST:PORT`; or stop it.")
    if "ingest" in words:
        return (f"{path}: the database is in use by another `iolens ingest` ({who}). It holds the database until "
                "its last bundle is stored: wait for it, then run this again.")
    return f"{path}: the database is in use by another process ({who}). Wait for it to finish or stop it."


_SIZE_RE = re.compile(r"^\s*\d+(\.\d+)?\s*([KMGT]i?B|B|bytes)?\s*$", re.IGNORECASE)


def _size_literal(text: str) -> str:
    """A DuckDB size ('512MB', '2GiB'), checked before it goes into a SET statement."""
    if not _SIZE_RE.match(text):
        raise StoreError(f"not a size: {text!r} (write e.g. 512MB or 2GiB)")
    return text.strip()

