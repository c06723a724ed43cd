"""The tables that SQL cells may query, documented from the schema files' own comments
(store/schema/<domain>.sql), grouped by domain in the order of the registry (store/schema).

A table (or view) of a schema file with a `capture_id` column is a capture table: SQL cells see it,
filtered to the notebook's captures. Its description is the comment block right above its
CREATE statement; a column's is the `--` comment on its line (and the comment lines that follow,
indented under it). Columns that many tables share are described once in COMMON_COLUMNS.
Types come from DuckDB itself (information_schema), so they are always the real ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .db import Store
from .schema import DOMAINS, Domain, domain_sql

# Tables that have a capture_id but are not capture data.
NOT_QUERYABLE = frozenset({"notebook_versions"})

COMMON_COLUMNS = {
    "capture_id": "Capture id (captures.capture_id): which capture the row belongs to.",
    "run_id": "Run id within the capture (runs.run_id), e.g. 'r000'.",
    "job_index": "Position of the job in fio's 'jobs' array.",
    "ddir": "Data direction: read, write or trim.",
    "jobname": "fio job name.",
    "key": "Dotted key of the flattened host facts.",
    "value": "Value of the fact, as text.",
}

_CREATE = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.IGNORECASE,
)
_COLUMN = re.compile(r"^\s+([A-Za-z_][A-Za-z0-9_]*)\s+[A-Za-z]")
_KEYWORDS = {"primary", "unique", "foreign", "check", "constraint", "select", "from", "where", "with"}


@dataclass
class ParsedTable:
    name: str
    description: str
    columns: dict[str, str] = field(default_factory=dict)
    domain: str = ""


def parse_schema(sql: str, domain: str = "") -> dict[str, ParsedTable]:
    """Table name -> its description and column comments, from the text of a schema file."""
    tables: dict[str, ParsedTable] = {}
    pending: list[str] = []
    current: ParsedTable | None = None
    last_col: str | None = None
    for line in sql.splitlines():
        stripped = line.strip()
        m = _CREATE.match(line)
        if m:
            current = ParsedTable(m.group(1).lower(), " ".join(pending), domain=domain)
            tables[current.name] = current
            pending, last_col = [], None
            continue
        if current is None:
            if stripped.startswith("--"):
                pending.append(stripped[2:].strip())
            elif not stripped:
                pending = []
            continue
        if stripped.startswith(")") or stripped.endswith(";"):
            current, last_col, pending = None, None, []
            continue
        code, _, comment = line.partition("--")
        cm = _COLUMN.match(code) if code.strip() else None
        if cm and cm.group(1).lower() not in _KEYWORDS:
            last_col = cm.group(1).lower()
            if comment.strip():
                current.columns[last_col] = comment.strip()
        elif not code.strip() and comment.strip() and last_col:
            # a comment line continuing the previous column's comment
            prev = current.columns.get(last_col, "")
            current.columns[last_col] = f"{prev} {comment.strip()}".strip()
    return tables


def parse_schemas(domains: tuple[Domain, ...] = DOMAINS) -> dict[str, ParsedTable]:
    """Every table of every schema file, the domains in registry order, each file's in file order."""
    tables: dict[str, ParsedTable] = {}
    for d in domains:
        for name, t in parse_schema(domain_sql(d), d.name).items():
            if name in tables:
                raise ValueError(f"table {name} is in store/schema/{tables[name].domain}.sql and {d.name}.sql")
            tables[name] = t
    return tables


@dataclass
class ColumnDoc:
    name: str
    type: str
    description: str


@dataclass
class TableDoc:
    name: str
    description: str
    columns: list[ColumnDoc]
    domain: str  # Domain.name of the schema file (store/schema), "trace" for an event's own table


def capture_tables(store: Store) -> list[TableDoc]:
    """Every capture table of the store with its columns, grouped by domain in registry order,
    each domain's in the order of its file; an event's own table (trace_SYS__NAME) after its domain's."""
    parsed = parse_schemas()
    cols = store.query(
        """SELECT table_name, column_name, data_type FROM information_schema.columns
           WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"""
    ).rows
    by_table: dict[str, list[tuple[str, str]]] = {}
    for t, c, ty in cols:
        by_table.setdefault(t.lower(), []).append((c, ty))
    out = []
    for name, p in parsed.items():
        columns = by_table.get(name)
        if not columns or name in NOT_QUERYABLE or "capture_id" not in {c.lower() for c, _ in columns}:
            continue
        out.append(TableDoc(
            name=name,
            domain=p.domain,
            description=p.description,
            columns=[ColumnDoc(c, ty, p.columns.get(c.lower()) or COMMON_COLUMNS.get(c.lower(), ""))
                     for c, ty in columns],
        ))
    # one table per traced event, made at ingest (ingest/trace.py): trace_SYS__NAME
    for name in sorted(by_table):
        columns = by_table[name]
        if name.startswith("trace_") and "__" in name and name not in parsed and \
                "capture_id" in {c.lower() for c, _ in columns}:
            sys_, _, ev = name[len("trace_"):].partition("__")
            out.append(TableDoc(
                name=name,
                domain="trace",
                description=f"Traced event {sys_}:{ev} (iolens-collect --trace): one row per event, every field of "
                            "its tracefs format a typed column; trace_events lists the captures and runs that have it.",
                columns=[ColumnDoc(c, ty, TRACE_COLUMNS.get(c.lower()) or COMMON_COLUMNS.get(c.lower(), "a field of the event"))
                         for c, ty in columns],
            ))
    rank = {d.name: i for i, d in enumerate(DOMAINS)}
    out.sort(key=lambda t: rank[t.domain])  # stable: each domain's tables keep their order
    return out


TRACE_COLUMNS = {
    "ts_ns": "perf's clock of the event (CLOCK_MONOTONIC with the collector), ns.",
    "t_ns": "ns since the run started (ts_ns minus the artifact's trace_clock_at_start_ns).",
    "cpu": "CPU the event happened on.",
    "pid": "process id of the task in whose context it happened.",
    "tid": "thread id.",
    "comm": "the task's command name.",
}
