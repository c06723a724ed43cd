"""What an artifact handler produces (ingest/registry.py): rows per table, bulk CSV files, derived
steps and warnings, collected over a bundle before the write transaction opens (pipeline.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..formats.fio_json import FioResult
from .streamed import Streamed

Rows = dict[str, list[tuple[Any, ...]]]


@dataclass(frozen=True)
class BulkCsv:
    """Rows too many for executemany: a headerless CSV file loaded by `Writer.insert_csv`."""

    table: str
    path: Path                               # inside the bundle's temporary directory
    columns: tuple[tuple[str, str], ...]     # (name, DuckDB type) in file order
    constants: tuple[tuple[str, Any], ...]   # (name, value) for every row: capture_id, run_id
    # DuckDB's limit on a line, and what it reads at a time (Writer.insert_csv; None: 16 x the limit)
    max_line_bytes: int = 64 << 20
    buffer_bytes: int | None = None


@dataclass(frozen=True)
class BulkStream:
    """Rows that a streamed parse (ingest/streamed.py) hands to DuckDB while it parses: its
    `stream` (Arrow batches of several tables, in runs), each run loaded by `Writer.insert_arrow`."""

    # the stream's name of a table (RowStream.next_table) -> (table, its (name, DuckDB type)
    # in the stream's order)
    tables: dict[str, tuple[str, tuple[tuple[str, str], ...]]]
    constants: tuple[tuple[str, Any], ...]   # (name, value) for every row: capture_id, run_id
    streamed: Streamed


@dataclass
class Parsed:
    rows: Rows = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    fio: list[FioResult] = field(default_factory=list)
    bulk: list[BulkCsv | BulkStream] = field(default_factory=list)
    # derived tables computed in the write transaction after the bulk loads (block tiles)
    derive: list[Callable[[Any], None]] = field(default_factory=list)
    # state of parsers that pair artifacts (diskstats before/after), used by ARTIFACT_FINISHERS
    pending: dict[str, Any] = field(default_factory=dict)

    def add(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        self.rows.setdefault(table, []).extend(rows)

    def bulk_loads(self, table: str, run_id: str | None) -> bool:
        """Whether a bulk file or stream of this bundle loads `table` for run `run_id`."""
        for b in self.bulk:
            tables = [b.table] if isinstance(b, BulkCsv) else [t for t, _ in b.tables.values()]
            if table in tables and ("run_id", run_id) in b.constants:
                return True
        return False
