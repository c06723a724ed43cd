"""SQL cells: one read-only SELECT over the notebook's captures, and the tables it can read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ... import models
from ...store.schema import DOMAINS
from ...store.tabledocs import capture_tables
from ..deps import ERRORS, SandboxDep, StoreDep

router = APIRouter()


@router.get("/api/sql", response_model=models.SqlResult, responses=ERRORS, tags=["sql"])
def run_sql(
    sandbox: SandboxDep,
    sql: Annotated[str, Query(description="One SELECT over the capture tables (see /api/sql/tables).")],
    captures: Annotated[str, Query(description="Comma-separated capture ids: the tables show only their rows.")],
    max_rows: Annotated[int | None, Query(ge=1, description="At most this many rows (capped by the server).")] = None,
) -> models.SqlResult:
    a = sandbox.run(sql, [c.strip() for c in captures.split(",")], max_rows)
    return models.SqlResult(columns=[models.SqlColumn(name=n, type=t) for n, t in a.columns], rows=a.rows,
                            truncated=a.truncated, truncated_by=a.truncated_by, elapsed_ms=a.elapsed_ms,
                            max_rows=a.max_rows, max_bytes=a.max_bytes, time_limit_ms=a.time_limit_ms)


@router.get("/api/sql/tables", response_model=models.SqlTables, tags=["sql"])
def sql_tables(s: StoreDep, sandbox: SandboxDep) -> models.SqlTables:
    tables = capture_tables(s)
    present = {t.domain for t in tables}
    return models.SqlTables(
        domains=[models.SqlDomain(name=d.name, title=d.title) for d in DOMAINS if d.name in present],
        tables=[models.SqlTableDoc(name=t.name, description=t.description, domain=t.domain,
                                   columns=[models.SqlColumnDoc(**vars(c)) for c in t.columns])
                for t in tables],
        max_rows=sandbox.max_rows,
        time_limit_ms=int(sandbox.time_limit_s * 1000),
        notes=[
            "One SELECT per cell; every table shows only the notebook's captures.",
            "Read-only: no INSERT/COPY/ATTACH/INSTALL/SET; no files (read_csv...) and no network.",
            f"Stopped after {sandbox.time_limit_s:g} s; at most {sandbox.max_rows} rows and "
            f"{sandbox.max_bytes / (1 << 20):g} MiB of JSON are returned; sorts and hash tables may use "
            f"{s.sandbox_memory_limit} of memory.",
        ],
    )
