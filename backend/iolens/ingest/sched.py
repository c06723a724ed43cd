"""Scheduler artifacts at ingest: perf-sched (sched tracepoints) and perf-stat (counters).

Artifact kinds (docs/bundle-format.md):
- `perf-sched`, per run: `perf script` (or `perf sched script`) text of sched:sched_switch,
  sched:sched_wakeup, sched:sched_waking, sched:sched_migrate_task (gzip allowed).
- `perf-stat`, per run: `perf stat -x,` output, best `-I 1000 -A -a -e context-switches,
  cpu-migrations,task-clock,sched:sched_switch,sched:sched_waking`. The artifact's optional field
  `scope` says what was counted: `system` (perf stat -a; the default) or `workload` (the
  workload's processes only).

Rows: the events stream from the parser to CSV files beside the unpacked bundle and are loaded
with one `INSERT ... SELECT FROM read_csv` each inside the ingest transaction (memory stays flat).
Then `derive` computes, once, in SQL, what the views would otherwise recompute with window
functions over whole tables (0.3-1.6 s per 10M rows, DESIGN "Facts measured"): run slices,
wakeup-to-run delays and per-CPU counts per 100 ms, and the small summaries every view reads
(per task pair, per task, ping-pong round trips and delays counted per microsecond), so that no
view scans the events.

Lost events: perf record silently loses tracepoints raised in interrupt context while CPUs idle
(DESIGN: a capture kept 1.5% of sched_waking and 99.7% of sched_switch; perf stat counted both
right). So each run's recorded counts are compared with perf stat's counts of the same
tracepoints in the same run, and two checks need no perf stat (sched_checks). A ratio below
LOSS_THRESHOLD marks the run (sched_traces.events_lost); every sched view returns the flag.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..bundle import Artifact, BundleError, Manifest, OpenBundle, Run
from ..formats import gz
from ..formats.cpulist import parse_cpu_list
from ..formats.perf_sched import Migrate, SchedReader, Switch
from ..formats.perf_stat import PerfStat, parse_perf_stat
from ..store.derived import BUCKET_NS, MAX_WINDOW_US
from ..store.rules.lost_events import LOSS_THRESHOLD, recorded_short
from .parsed import BulkCsv, Parsed
from .timeline import derive_cpu_tiles

if TYPE_CHECKING:
    from ..store.db import Writer

STAT_KIND = "perf-stat"
STAT_SCOPES = ("system", "workload")

# Wrappers that a cmd workload may start with; the task name is that of the program they run.
_WRAPPERS = {"taskset", "nice", "ionice", "chrt", "numactl", "env", "cgexec", "stdbuf", "timeout", "sudo",
             "systemd-run", "perf"}

SWITCH_COLUMNS: tuple[tuple[str, str], ...] = (
    ("line", "BIGINT"), ("ts_ns", "BIGINT"), ("cpu", "INTEGER"), ("prev_comm", "VARCHAR"),
    ("prev_pid", "INTEGER"), ("prev_prio", "INTEGER"), ("prev_state", "VARCHAR"), ("next_comm", "VARCHAR"),
    ("next_pid", "INTEGER"), ("next_prio", "INTEGER"),
)
WAKE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("line", "BIGINT"), ("ts_ns", "BIGINT"), ("cpu", "INTEGER"), ("kind", "VARCHAR"), ("comm", "VARCHAR"),
    ("pid", "INTEGER"), ("prio", "INTEGER"), ("target_cpu", "INTEGER"), ("waker_comm", "VARCHAR"),
    ("waker_pid", "INTEGER"),
)
MIGRATE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("line", "BIGINT"), ("ts_ns", "BIGINT"), ("cpu", "INTEGER"), ("comm", "VARCHAR"), ("pid", "INTEGER"),
    ("prio", "INTEGER"), ("orig_cpu", "INTEGER"), ("dest_cpu", "INTEGER"),
)
# Unknown target_cpu (very old kernels) goes through the CSV as this and becomes NULL in derive():
# the CSV quotes every string (an empty comm is legal) so an empty field cannot mean NULL.
_NO_TARGET_CPU = -1

TRACE_COLUMNS = (
    "capture_id", "run_id", "path", "lines", "n_switch", "n_wakeup", "n_waking", "n_wakeup_new", "n_migrate",
    "skipped", "first_ts_ns", "last_ts_ns", "duration_ns", "cpus", "workload_cpus", "workload_cpus_source",
    "workload_comm", "events_lost", "warnings",
)
CHECK_COLUMNS = ("capture_id", "run_id", "name", "event", "recorded", "expected", "ratio", "threshold", "ok",
                 "detail")
STAT_COLUMNS = (
    "capture_id", "run_id", "path", "scope", "line", "start_s", "end_s", "summary", "cpu", "aggr", "event",
    "value", "status", "unit", "run_ns", "running_pct", "metric_value", "metric_unit",
)
STAT_FILE_COLUMNS = ("capture_id", "run_id", "path", "clock_at_start_ns", "started_on")
TABLE_COLUMNS = {"sched_traces": TRACE_COLUMNS, "sched_checks": CHECK_COLUMNS, "perf_stat": STAT_COLUMNS,
                 "perf_stat_files": STAT_FILE_COLUMNS}


def task_group_sql(comm: str, pid: str) -> str:
    """SQL for a task's group: idle as '<idle>', every kworker as 'kworker/*', per-CPU kernel
    threads ('ksoftirqd/1', 'migration/0', 'cpuhp/3') as 'ksoftirqd/*'...; others keep their comm."""
    return (f"CASE WHEN {pid} = 0 THEN '<idle>' WHEN {comm} LIKE 'kworker/%' THEN 'kworker/*' "
            f"ELSE regexp_replace({comm}, '/[0-9]+$', '/*') END")


def open_member(path: Path, source: str | None = None) -> IO[str]:
    """A bundle member as text, gzip or not (detected from the first bytes); a damaged gzip
    stream is a FormatError naming `source` and the line reached (formats/gz.py)."""
    return gz.open_text(path, source)


@dataclass
class SchedTrace:
    """What streaming one perf-sched file gave: counts for sched_traces and the chain check."""

    path: str
    lines: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"switch": 0, "wakeup": 0, "waking": 0,
                                                            "wakeup_new": 0, "migrate": 0})
    skipped: dict[str, int] = field(default_factory=dict)
    first_ts_ns: int | None = None
    last_ts_ns: int | None = None
    cpus: list[int] = field(default_factory=list)
    chain_links: int = 0  # consecutive switch pairs on one CPU
    chain_breaks: int = 0  # ... where the second does not switch out the task the first switched in


# One CSV line per event, every string quoted (an empty comm is legal, and an empty unquoted field
# would be NULL); a '"' inside a comm is doubled first (_quoted).
_SWITCH_FMT = '%d,%d,%d,"%s",%d,%d,"%s","%s",%d,%d\n'
_WAKE_FMT = '%d,%d,%d,"%s","%s",%d,%d,%d,"%s",%d\n'
_MIGRATE_FMT = '%d,%d,%d,"%s",%d,%d,%d,%d\n'


def _quoted(ev: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(v.replace('"', '""') if isinstance(v, str) else v for v in ev)


def read_sched_trace(member: Path, source: str, out_dir: Path) -> SchedTrace:
    """Stream one perf-sched file into switch.csv, wakeup.csv and migrate.csv in out_dir
    (columns SWITCH_COLUMNS, WAKE_COLUMNS, MIGRATE_COLUMNS; raises FormatError)."""
    trace = SchedTrace(source)
    reader = SchedReader(source)
    counts = trace.counts
    on_cpu: dict[int, int] = {}  # cpu -> pid switched in last
    links = breaks = n_switch = n_migrate = 0
    cpus: set[int] = set()
    with open_member(member, source) as f, \
            (out_dir / "switch.csv").open("w", encoding="utf-8") as fs, \
            (out_dir / "wakeup.csv").open("w", encoding="utf-8") as fw, \
            (out_dir / "migrate.csv").open("w", encoding="utf-8") as fm:
        write_switch, write_wake, write_migrate = fs.write, fw.write, fm.write
        for ev in reader.events(f):
            if type(ev) is Switch:
                n_switch += 1
                if '"' in ev[3] or '"' in ev[7]:
                    ev = _quoted(ev)
                write_switch(_SWITCH_FMT % ev)
                cpu = ev[2]
                last = on_cpu.get(cpu)
                if last is None:
                    cpus.add(cpu)
                else:
                    links += 1
                    if last != ev[4]:
                        breaks += 1
                on_cpu[cpu] = ev[8]
            elif type(ev) is Migrate:
                n_migrate += 1
                if '"' in ev[3]:
                    ev = _quoted(ev)
                write_migrate(_MIGRATE_FMT % ev)
                cpus.add(ev[2])
            else:
                counts[ev[3]] += 1
                if ev[7] is None:
                    ev = ev._replace(target_cpu=_NO_TARGET_CPU)
                if '"' in ev[4] or '"' in ev[8]:
                    ev = _quoted(ev)
                write_wake(_WAKE_FMT % ev)
                cpus.add(ev[2])
    counts["switch"], counts["migrate"] = n_switch, n_migrate
    trace.lines = reader.lines
    trace.skipped = dict(sorted(reader.skipped.items()))
    trace.first_ts_ns, trace.last_ts_ns = reader.first_ts_ns, reader.last_ts_ns
    trace.cpus = sorted(cpus)
    trace.chain_links, trace.chain_breaks = links, breaks
    return trace


# --------------------------------------------------------------------------------------------
# Workload CPUs and task name


def workload_cpus(manifest: Manifest, run: Run) -> tuple[list[int] | None, str | None]:
    """The CPUs the workload was pinned to, and where that was read, first found of:
    runs[].params.cpus (the collector's --cpus, also a sweep axis), workload.cpus, and
    host.cpu.affinity when it is narrower than host.cpu.online (the collector itself was pinned)."""
    candidates: list[tuple[Any, str]] = [(run.params.get("cpus"), "runs[].params.cpus")]
    candidates.append((manifest.workload.cpus, "workload.cpus"))
    cpu = manifest.host.cpu
    affinity, online = (cpu.affinity, cpu.online) if cpu is not None else (None, None)
    if affinity and online and str(affinity).strip() != str(online).strip():
        candidates.append((affinity, "host.cpu.affinity"))
    for value, source in candidates:
        if value is None or value == "":
            continue
        try:
            cpus = parse_cpu_list(",".join(map(str, value)) if isinstance(value, list) else str(value))
        except ValueError:
            continue
        if cpus:
            return cpus, source
    return None, None


def workload_comm(manifest: Manifest, run: Run) -> str | None:
    """'fio' for fio workloads; for a command, the name of the program it runs (after wrappers
    such as taskset and their options), cut to 15 characters as the kernel does."""
    if manifest.workload.kind == "fio":
        return "fio"
    words = list(run.cmdline)
    while words:
        name = os.path.basename(words[0])
        if name not in _WRAPPERS:
            return name[:15] or None
        words = words[1:]
        # skip the wrapper's options and their values: up to the first word that names a program
        while words and (words[0].startswith("-") or words[0].replace(",", "").replace("-", "").isdigit()):
            words = words[1:]
    return None


# --------------------------------------------------------------------------------------------
# Checks


@dataclass(frozen=True)
class Check:
    name: str
    event: str
    recorded: int | None
    expected: int | None
    ratio: float | None
    ok: bool | None
    detail: str


def assess(trace: SchedTrace, counted: dict[str, float] | None, counted_from: str | None) -> list[Check]:
    """Compare what the trace holds with what it should hold (see module docstring)."""
    checks: list[Check] = []
    recorded = {
        "sched:sched_switch": trace.counts["switch"], "sched:sched_waking": trace.counts["waking"],
        "sched:sched_wakeup": trace.counts["wakeup"], "sched:sched_wakeup_new": trace.counts["wakeup_new"],
        "sched:sched_migrate_task": trace.counts["migrate"],
    }
    for event in ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup", "sched:sched_wakeup_new",
                  "sched:sched_migrate_task"):
        n = recorded[event]
        c = None if counted is None else counted.get(event)
        if c is None:
            if event in ("sched:sched_switch", "sched:sched_waking") and (n or event == "sched:sched_switch"):
                why = "no perf-stat artifact in this run" if counted is None else f"perf stat did not count {event}"
                checks.append(Check("recorded_vs_counted", event, n, None, None, None,
                                    f"{event}: recorded {n}; not checked ({why})"))
            continue
        expected = int(round(c))
        ratio = n / expected if expected else (1.0 if n == 0 else None)
        ok = None if ratio is None else not recorded_short(n, expected)
        pct = "" if ratio is None else f" ({ratio:.1%})"
        detail = f"{event}: recorded {n} of {expected} counted by perf stat{pct} in {counted_from}"
        if ok is False:
            detail += f"; below {LOSS_THRESHOLD:.0%}: perf record lost events"
        elif ratio is not None and ratio < LOSS_THRESHOLD:
            detail += f"; only {expected - n} missing, within perf record's start and stop"
        checks.append(Check("recorded_vs_counted", event, n, expected, ratio, ok, detail))
    waking, wakeup = trace.counts["waking"], trace.counts["wakeup"]
    if waking and wakeup:
        # Every sched_waking is followed by a sched_wakeup of the same task (kernel/sched/core.c,
        # try_to_wake_up): their counts agree unless one was lost.
        ratio = min(waking, wakeup) / max(waking, wakeup)
        ok = not recorded_short(min(waking, wakeup), max(waking, wakeup))
        fewer = "sched:sched_waking" if waking < wakeup else "sched:sched_wakeup"
        detail = f"sched_waking {waking} vs sched_wakeup {wakeup} recorded ({ratio:.1%})"
        if not ok:
            detail += f"; {fewer} events were lost"
        checks.append(Check("waking_vs_wakeup", fewer, min(waking, wakeup), max(waking, wakeup), ratio, ok, detail))
    if trace.chain_links:
        chained = trace.chain_links - trace.chain_breaks
        ratio = chained / trace.chain_links
        ok = not recorded_short(chained, trace.chain_links)
        detail = (f"{chained} of {trace.chain_links} consecutive switches of a CPU switch out the task the "
                  f"previous one switched in ({ratio:.1%})")
        if not ok:
            detail += "; sched_switch events were lost"
        checks.append(Check("switch_chain", "sched:sched_switch", chained, trace.chain_links, ratio, ok, detail))
    return checks


def _stat_scope(art: Artifact) -> str:
    scope = art.scope if "scope" in art.model_fields_set else "system"
    if scope not in STAT_SCOPES:
        raise BundleError(f"perf-stat scope must be one of {', '.join(STAT_SCOPES)}",
                          {"file": "manifest.json", "field": f"artifact {art.path}: scope"}, 422)
    return scope


def _read_stat(bundle: OpenBundle, art: Artifact) -> PerfStat:
    with open_member(bundle.path(art.path), art.path) as f:
        return parse_perf_stat(f.read(), art.path)


def _counted(bundle: OpenBundle, run: Run) -> tuple[dict[str, float] | None, str | None]:
    """Totals of the run's system-wide perf-stat artifacts (None when it has none)."""
    totals: dict[str, float] | None = None
    paths = []
    for a in run.artifacts:
        if a.kind == STAT_KIND and _stat_scope(a) == "system":
            stat = _read_stat(bundle, a)
            totals = {**(totals or {}), **stat.totals()}
            paths.append(a.path)
    return totals, ", ".join(paths) or None


# --------------------------------------------------------------------------------------------
# ARTIFACT_PARSERS entries


def sched_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """`perf-sched`: one run's sched events -> sched_switch / sched_wakeup / sched_migrate (bulk
    CSV), one sched_traces row and its sched_checks; the derived tables are added by `derive`."""

    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("perf-sched artifact must belong to a run", where, 422)
    cid = bundle.capture_id
    if any(r[1] == run_id for r in out.rows.get("sched_traces", [])):
        raise BundleError(f"run {run_id} has more than one perf-sched artifact", where, 422)
    run = next(r for r in bundle.manifest.runs if r.id == run_id)
    tmp = Path(tempfile.mkdtemp(prefix=".iolens-sched-", dir=bundle.root))
    trace = read_sched_trace(bundle.path(art.path), art.path, tmp)
    if trace.counts["switch"] == 0:
        raise BundleError("no sched:sched_switch events in this perf-sched file (is it `perf script` "
                          "output of a sched recording?)", {"file": art.path}, 422)
    counted, counted_from = _counted(bundle, run)
    checks = assess(trace, counted, counted_from)
    lost = any(c.ok is False for c in checks)
    warnings = [f"run {run_id}: {c.detail}" for c in checks if c.ok is False]
    if trace.skipped:
        other = ", ".join(f"{k} ({v})" for k, v in trace.skipped.items())
        out.warnings.append(f"{art.path}: other events not loaded: {other}")
    out.warnings.extend(warnings)
    cpus, cpus_source = workload_cpus(bundle.manifest, run)
    duration = None if trace.first_ts_ns is None else trace.last_ts_ns - trace.first_ts_ns  # type: ignore[operator]
    c = trace.counts
    out.add("sched_traces", [(
        cid, run_id, art.path, trace.lines, c["switch"], c["wakeup"], c["waking"], c["wakeup_new"], c["migrate"],
        json.dumps(trace.skipped), trace.first_ts_ns, trace.last_ts_ns, duration, trace.cpus, cpus, cpus_source,
        workload_comm(bundle.manifest, run), lost, json.dumps(warnings),
    )])
    out.add("sched_checks", [(cid, run_id, k.name, k.event, k.recorded, k.expected, k.ratio, LOSS_THRESHOLD, k.ok,
                              k.detail) for k in checks])
    const = (("capture_id", cid), ("run_id", run_id))
    out.bulk.append(BulkCsv("sched_switch", tmp / "switch.csv", SWITCH_COLUMNS, const))
    out.bulk.append(BulkCsv("sched_wakeup", tmp / "wakeup.csv", WAKE_COLUMNS, const))
    out.bulk.append(BulkCsv("sched_migrate", tmp / "migrate.csv", MIGRATE_COLUMNS, const))
    if not any(getattr(step, "func", None) is derive for step in out.derive):
        out.derive.append(partial(derive, cid=cid))
        out.derive.append(partial(derive_cpu_tiles, cid=cid))  # the timeline's per-CPU tracks


def perf_stat_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """`perf-stat`: perf stat -x CSV -> perf_stat rows (compared with the trace by sched_artifact)."""
    if run_id is None:
        raise BundleError("perf-stat artifact must belong to a run", {"file": art.path, "field": "kind"}, 422)
    scope = _stat_scope(art)
    stat = _read_stat(bundle, art)
    cid = bundle.capture_id
    out.add("perf_stat", [
        (cid, run_id, art.path, scope, r.line, r.start_s, r.end_s, r.summary, r.cpu, r.aggr, r.event, r.value,
         r.status, r.unit, r.run_ns, r.running_pct, r.metric_value, r.metric_unit)
        for r in stat.rows
    ])
    out.add("perf_stat_files", [(cid, run_id, art.path, art.stat_clock_at_start_ns, stat.started_on)])
    for r in stat.rows:
        if r.running_pct is not None and r.running_pct < 100.0 and r.value is not None:
            out.warnings.append(f"{art.path}: {r.event} was multiplexed (running {r.running_pct:g}% of the time); "
                                "perf scaled its counts")
            break


# --------------------------------------------------------------------------------------------
# Derived tables (once per capture, in the ingest transaction, after the bulk loads)

_GRP_NEXT = task_group_sql("next_comm", "next_pid")
_GRP_IN = task_group_sql("comm", "pid")

DERIVE_SQL: tuple[str, ...] = (
    f"UPDATE sched_wakeup SET target_cpu = NULL WHERE capture_id = $cid AND target_cpu = {_NO_TARGET_CPU}",
    # Slices: each switch starts a slice of next_pid on that CPU, ended by the CPU's next switch,
    # which must switch that same task out (else events were lost in between: no slice).
    f"""
    INSERT INTO sched_slices
    SELECT capture_id, run_id, cpu, next_pid, next_comm, {_GRP_NEXT}, ts_ns, end_ns, end_ns - ts_ns,
           prev_pid, prev_comm, prev_state, end_next_pid, end_next_comm, end_state, line
    FROM (
        SELECT capture_id, run_id, cpu, line, ts_ns, prev_pid, prev_comm, prev_state, next_pid, next_comm,
               lead(ts_ns) OVER w AS end_ns, lead(prev_pid) OVER w AS end_prev_pid,
               lead(prev_state) OVER w AS end_state, lead(next_pid) OVER w AS end_next_pid,
               lead(next_comm) OVER w AS end_next_comm
        FROM sched_switch WHERE capture_id = $cid
        WINDOW w AS (PARTITION BY run_id, cpu ORDER BY line)
    ) WHERE end_prev_pid = next_pid
    """,
    # Delays. Per task, its switch events in file order: switch-out (e=0) and switch-in (e=2). Each
    # wakeup of a task is placed after the task's last switch event before it (ASOF join; sort-merge,
    # ~10x cheaper here than a running window over all events). A switch-in whose previous switch
    # event is a switch-out waited since: that switch-out when the task was preempted (R/R+), else
    # the first wakeup placed after it (reason 'unknown', no delay, when none was recorded). A first
    # switch-in of the task waited since its first wakeup, when one was recorded before it.
    f"""
    INSERT INTO sched_delays
    WITH sw AS (
        SELECT run_id, prev_pid AS pid, line, 0 AS e, ts_ns, prev_state AS state, cpu, prev_comm AS comm
        FROM sched_switch WHERE capture_id = $cid AND prev_pid <> 0
        UNION ALL
        SELECT run_id, next_pid, line, 2, ts_ns, NULL, cpu, next_comm
        FROM sched_switch WHERE capture_id = $cid AND next_pid <> 0
    ),
    wk AS (SELECT run_id, pid, line, ts_ns, kind FROM sched_wakeup WHERE capture_id = $cid AND pid <> 0),
    wseg AS (  -- seg: line of the switch-out the wakeups follow; -1 before the task's first switch
        SELECT w.run_id, w.pid, coalesce(s.line, -1) AS seg, min(w.ts_ns) AS wake_ns,
               arg_min(w.kind, w.line) AS wake_kind
        FROM wk w ASOF LEFT JOIN sw s ON w.run_id = s.run_id AND w.pid = s.pid AND w.line > s.line
        WHERE s.e IS NULL OR s.e = 0
        GROUP BY ALL
    ),
    ins AS (
        SELECT i.run_id, i.pid, i.line, i.ts_ns, i.cpu, i.comm, o.e AS prev_e, coalesce(o.line, -1) AS seg,
               o.ts_ns AS out_ns, o.state AS out_state
        FROM (SELECT * FROM sw WHERE e = 2) i
        ASOF LEFT JOIN sw o ON i.run_id = o.run_id AND i.pid = o.pid AND i.line > o.line
    ),
    ready AS (
        SELECT ins.*, w.wake_ns, w.wake_kind,
               CASE WHEN prev_e = 0 AND out_state LIKE 'R%' THEN out_ns ELSE w.wake_ns END AS ready_ns,
               CASE WHEN prev_e = 0 AND out_state LIKE 'R%' THEN 'preempted'
                    ELSE coalesce(w.wake_kind, 'unknown') END AS reason
        FROM ins LEFT JOIN wseg w USING (run_id, pid, seg)
        WHERE prev_e = 0 OR (prev_e IS NULL AND w.wake_ns IS NOT NULL)
    )
    SELECT $cid, run_id, pid, comm, {_GRP_IN}, cpu, ready_ns, ts_ns, ts_ns - ready_ns, reason, line
    FROM ready
    ORDER BY run_id, ts_ns, line  -- in time order: a time range reads only its row groups (views/sched_range.py)
    """,
    f"""
    INSERT INTO sched_cpu_rate
    WITH t AS (SELECT run_id, first_ts_ns FROM sched_traces WHERE capture_id = $cid),
    parts AS (
        SELECT s.run_id, s.cpu, ((s.ts_ns - t.first_ts_ns) // {BUCKET_NS})::INTEGER AS bucket,
               count(*) AS switches,
               count(*) FILTER (WHERE s.prev_pid <> 0 AND s.prev_state LIKE 'R%') AS involuntary,
               count(*) FILTER (WHERE s.prev_pid <> 0 AND s.prev_state NOT LIKE 'R%') AS voluntary,
               count(*) FILTER (WHERE s.prev_pid = 0) AS from_idle,
               0 AS wakeups, 0 AS migrations
        FROM sched_switch s JOIN t USING (run_id) WHERE s.capture_id = $cid GROUP BY ALL
        UNION ALL
        SELECT w.run_id, coalesce(w.target_cpu, w.cpu), ((w.ts_ns - t.first_ts_ns) // {BUCKET_NS})::INTEGER,
               0, 0, 0, 0, count(*), 0
        FROM sched_wakeup w JOIN t USING (run_id)
        WHERE w.capture_id = $cid AND w.kind <> 'waking' GROUP BY ALL
        UNION ALL
        SELECT m.run_id, m.dest_cpu, ((m.ts_ns - t.first_ts_ns) // {BUCKET_NS})::INTEGER, 0, 0, 0, 0, 0, count(*)
        FROM sched_migrate m JOIN t USING (run_id) WHERE m.capture_id = $cid GROUP BY ALL
    )
    SELECT $cid, run_id, cpu, bucket, sum(switches), sum(involuntary), sum(voluntary), sum(from_idle),
           sum(wakeups), sum(migrations)
    FROM parts GROUP BY run_id, cpu, bucket
    """,
)


_GRP_PREV = task_group_sql("prev_comm", "prev_pid")

DERIVE_SUMMARY_SQL: tuple[str, ...] = (
    f"""
    INSERT INTO sched_pair_counts
    SELECT capture_id, run_id, cpu, prev_pid, prev_comm, {_GRP_PREV}, prev_state, next_pid, next_comm, {_GRP_NEXT},
           count(*)
    FROM sched_switch WHERE capture_id = $cid GROUP BY ALL
    """,
    """
    INSERT INTO sched_task_runtime
    SELECT capture_id, run_id, cpu, pid, comm, grp, sum(dur_ns), count(*),
           count(*) FILTER (WHERE end_state LIKE 'R%' AND pid <> 0)
    FROM sched_slices WHERE capture_id = $cid GROUP BY ALL
    """,
    f"""
    INSERT INTO sched_roundtrips
    SELECT capture_id, run_id, cpu, pid, comm, grp, prev_pid, prev_comm, {_GRP_PREV}, prev_state LIKE 'R%',
           ((dur_ns + 999) // 1000)::INTEGER AS dur_us, count(*), min(start_ns), max(start_ns)
    FROM sched_slices
    WHERE capture_id = $cid AND prev_pid = next_pid AND pid <> 0 AND prev_pid <> 0 AND pid <> prev_pid
      AND dur_ns <= {MAX_WINDOW_US * 1000}
    GROUP BY ALL
    """,
    """
    INSERT INTO sched_delay_hist
    SELECT capture_id, run_id, cpu, pid, comm, grp, reason,
           CASE WHEN delay_ns IS NOT NULL THEN greatest((delay_ns + 999) // 1000, 0) END AS delay_us,  -- NULL: unknown
           count(*), sum(delay_ns)
    FROM sched_delays WHERE capture_id = $cid GROUP BY ALL
    """,
)


def derive(w: Writer, cid: str) -> None:
    for sql in DERIVE_SQL + DERIVE_SUMMARY_SQL:
        w.execute(sql, {"cid": cid})
