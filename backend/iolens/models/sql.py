"""SQL cells (store/sandbox.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# --- SQL cells (iolens/store/sandbox.py) -----------------------------------------------------


class SqlColumn(BaseModel):
    name: str
    type: str = Field(description="DuckDB type, e.g. 'DOUBLE', 'VARCHAR', 'TIMESTAMP'.")


class SqlResult(BaseModel):
    columns: list[SqlColumn]
    rows: list[list[object | None]] = Field(description="At most max_rows rows; values as JSON (timestamps as text).")
    truncated: bool = Field(description="True when the query had more rows than were returned.")
    truncated_by: Literal["rows", "bytes"] | None = Field(
        None, description="What cut the answer: max_rows, or max_bytes of JSON (the rows that fit are returned).")
    elapsed_ms: float
    max_rows: int
    max_bytes: int = Field(description="At most this many bytes of rows as JSON.")
    time_limit_ms: int


class SqlColumnDoc(BaseModel):
    name: str
    type: str
    description: str


class SqlTableDoc(BaseModel):
    name: str
    description: str
    columns: list[SqlColumnDoc]
    domain: str = Field(description="SqlDomain.name of the schema file that defines the table.")


class SqlDomain(BaseModel):
    name: str = Field(description="The domain's schema file in the store (store/schema/NAME.sql): fio, block, sched...")
    title: str = Field(description="A heading for its tables.")


class SqlTables(BaseModel):
    domains: list[SqlDomain] = Field(description="The domains that have tables, in the store's order.")
    tables: list[SqlTableDoc] = Field(description="Grouped by domain, in the order of domains.")
    max_rows: int
    time_limit_ms: int
    notes: list[str] = Field(description="What SQL cells can and cannot do, one sentence each.")
