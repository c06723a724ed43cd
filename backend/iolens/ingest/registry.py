"""Which handler reads which artifact kind: one line per kind (the kinds are listed in
bundle/kinds.py; every kind marked parsed there has a line here, tests/test_bundle_contract.py
checks it). A handler gets the open bundle, the run id (None for a capture's own artifact), the
artifact and the Parsed it adds rows to; it raises BundleError or FormatError naming the file.

A line names the handler's module (in this package) and function; the module is imported the
first time a bundle holds that kind (`handler`), so an ingest imports only the domains it reads
(issue 17: the start-up cost; tests/test_ingest_registry.py checks it)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from ..bundle import Artifact, OpenBundle
from . import sweep
from .parsed import Parsed

Handler = Callable[[OpenBundle, str | None, Artifact, Parsed], None]

# kind -> (module of iolens.ingest, handler function)
HANDLERS: dict[str, tuple[str, str]] = {
    "fio-json": ("fio", "fio_json_artifact"),
    "perf-script": ("perf_script", "perf_script_artifact"),
    "lock-stat": ("lock_stat", "lock_stat_artifact"),
    "blkparse": ("block", "block_artifact"),
    "perf-block": ("block", "block_artifact"),
    "perf-stat-block": ("block", "perf_stat_block_artifact"),
    "perf-sched": ("sched", "sched_artifact"),
    "perf-stat": ("sched", "perf_stat_artifact"),
    "perf-offcpu": ("offcpu", "offcpu_artifact"),
    "perf-stat-offcpu": ("offcpu", "perf_stat_offcpu_artifact"),
    "fio-log": ("sweep", "fio_log_artifact"),
    "fio-terse": ("sweep", "fio_terse_artifact"),
    "cmd-stdout": ("sweep", "cmd_stdout_artifact"),
    "cmd-rusage": ("sweep", "cmd_rusage_artifact"),
    "diskstats": ("sweep", "diskstats_artifact"),
    "fio-jobfile": ("sweep", "text_artifact"),
    "sweep-plan": ("sweep", "text_artifact"),
    "blktrace": ("blktrace", "blktrace_artifact"),
    "folded-stacks": ("folded", "folded_artifact"),
    "perf-trace-fields": ("trace", "trace_fields_artifact"),
    "monitor": ("monitors", "monitor_artifact"),
    "iostat": ("monitors", "iostat_artifact"),
    "vmstat": ("monitors", "vmstat_artifact"),
    "kernel-config": ("kconfig", "kernel_config_artifact"),
}

# Run after every artifact is parsed, for kinds that pair artifacts (diskstats before/after).
FINISHERS: list[Callable[[OpenBundle, Parsed], None]] = [sweep.finish]

# The modules whose TABLE_COLUMNS name the columns of the tables their handlers fill, in insert
# order (the tables: store/schema/<domain>.sql).
DOMAINS: tuple[str, ...] = tuple(dict.fromkeys(module for module, _ in HANDLERS.values()))

_table_columns: dict[str, tuple[str, ...]] = {}


def _domain(module: str) -> ModuleType:
    mod = importlib.import_module(f"{__package__}.{module}")
    _table_columns.update(getattr(mod, "TABLE_COLUMNS", {}))
    return mod


def handler(kind: str) -> Handler | None:
    """The handler of an artifact kind, its module imported on first use; None for a kind not parsed."""
    entry = HANDLERS.get(kind)
    if entry is None:
        return None
    module, function = entry
    return getattr(_domain(module), function)


def table_columns(table: str) -> tuple[str, ...]:
    """The columns of a table a handler fills, in insert order (KeyError for no such table)."""
    if table not in _table_columns:
        for module in DOMAINS:
            _domain(module)
    return _table_columns[table]
