"""Which handler reads which artifact kind: one line per kind (the kinds are listed in
bundle/kinds.py; every kind marked parsed there has a line here, tests/test_bundle_contract.py
checks it). A handler gets the open bundle, the run id (None for a capture's own artifact), the
artifact and the Parsed it adds rows to; it raises BundleError or FormatError naming the file."""

from __future__ import annotations

from collections.abc import Callable

from ..bundle import Artifact, OpenBundle
from . import blktrace, block, fio, folded, kconfig, lock_stat, monitors, offcpu, perf_script, sched, sweep, trace
from .parsed import Parsed

Handler = Callable[[OpenBundle, str | None, Artifact, Parsed], None]

HANDLERS: dict[str, Handler] = {
    "fio-json": fio.fio_json_artifact,
    "perf-script": perf_script.perf_script_artifact,
    "lock-stat": lock_stat.lock_stat_artifact,
    "blkparse": block.block_artifact,
    "perf-block": block.block_artifact,
    "perf-stat-block": block.perf_stat_block_artifact,
    "perf-sched": sched.sched_artifact,
    "perf-stat": sched.perf_stat_artifact,
    "perf-offcpu": offcpu.offcpu_artifact,
    "perf-stat-offcpu": offcpu.perf_stat_offcpu_artifact,
    "fio-log": sweep.fio_log_artifact,
    "fio-terse": sweep.fio_terse_artifact,
    "cmd-stdout": sweep.cmd_stdout_artifact,
    "cmd-rusage": sweep.cmd_rusage_artifact,
    "diskstats": sweep.diskstats_artifact,
    "fio-jobfile": sweep.text_artifact,
    "sweep-plan": sweep.text_artifact,
    "blktrace": blktrace.blktrace_artifact,
    "folded-stacks": folded.folded_artifact,
    "perf-trace-fields": trace.trace_fields_artifact,
    "monitor": monitors.monitor_artifact,
    "iostat": monitors.iostat_artifact,
    "vmstat": monitors.vmstat_artifact,
    "kernel-config": kconfig.kernel_config_artifact,
}

# Run after every artifact is parsed, for kinds that pair artifacts (diskstats before/after).
FINISHERS: list[Callable[[OpenBundle, Parsed], None]] = [sweep.finish]

# The columns of every table a handler fills, in insert order (the tables: store/schema/<domain>.sql).
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    **fio.TABLE_COLUMNS,
    **lock_stat.TABLE_COLUMNS,
    **block.TABLE_COLUMNS,
    **sched.TABLE_COLUMNS,
    **sweep.TABLE_COLUMNS,
    **folded.TABLE_COLUMNS,
    **trace.TABLE_COLUMNS,
    **monitors.TABLE_COLUMNS,
    **kconfig.TABLE_COLUMNS,
    **offcpu.TABLE_COLUMNS,
}
