"""The store's tables, one SQL file per domain (`<name>.sql` beside this module), and the one
registry of those files: `DOMAINS`, applied in its order when a database is opened (store/db.py),
and listed in its order, grouped, by `GET /api/sql/tables` (store/tabledocs.py).

Conventions of every file: times are UTC, durations in ns, rates per second. Each statement is
idempotent (`CREATE TABLE IF NOT EXISTS`; a column added later comes with its
`ALTER TABLE ... ADD COLUMN IF NOT EXISTS` after the CREATE, so that a database made before it
gets it when opened). The comment block right above a CREATE describes the table and the `--`
comment on a column's line describes the column: SQL cells show both. No table belongs to two
files, and a file names no table of another (no foreign keys), so the order matters only for
`meta`, which the store writes after applying them.

A new kind of data with tables of its own: one new file here and one line in `DOMAINS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True, slots=True)
class Domain:
    name: str   # the file's name without .sql
    title: str  # a heading for its tables (SQL cells' Tables panel)


DOMAINS: tuple[Domain, ...] = (
    Domain("captures", "Captures, runs and their files"),
    Domain("notebooks", "Saved notebooks"),
    Domain("fio", "fio results"),
    Domain("sweep", "Sweeps, fio logs and commands"),
    Domain("flame", "perf call stacks"),
    Domain("offcpu", "Off-CPU and wakeup stacks"),
    Domain("lock_stat", "lock_stat"),
    Domain("block", "Block layer"),
    Domain("sched", "Scheduler"),
    Domain("timeline", "Timeline tiles"),
    Domain("trace", "Traced events"),
    Domain("monitors", "Monitors"),
    Domain("kconfig", "Kernel configuration"),
)


def domain_sql(domain: Domain) -> str:
    """The text of a domain's schema file."""
    return resources.files(__name__).joinpath(f"{domain.name}.sql").read_text(encoding="utf-8")
