"""Ingest of what sweeps add (docs/sweeps.md): fio time-series logs, fio terse output, and the
records of `iolens-collect cmd` (rusage, diskstats, the command's iolens-metric lines); and
`run_metrics`, the one per-run table of numbers the sweep views read, derived at ingest.

Handlers (ingest/registry.py): fio-log, fio-terse, cmd-stdout, cmd-rusage, diskstats.
`finish` runs after every artifact is parsed (diskstats come in before/after pairs), and
DERIVE_RUN_METRICS runs in the write transaction after fio_results is derived.

Uploads of fio terse text (not a bundle) are wrapped into a bundle by `wrap_terse` before the
bundle reader sees them (ingest_file).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..bundle import Artifact, BundleError, OpenBundle, Workload
from ..formats.cmd_output import parse_metric_lines, parse_rusage
from ..formats.diskstats import delta, parse_diskstats
from ..formats.errors import FormatError
from ..formats.fio_log import parse_fio_log
from ..formats.fio_terse import looks_like_terse, parse_fio_terse
from ..formats.gz import decode, read_plain
from .fio import fio_rows
from .parsed import Parsed

TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "fio_log_samples": ("capture_id", "run_id", "log", "jobname", "job_index", "clone", "avg_msec", "t_ms", "value",
                        "ddir", "bs", "path", "run_ms", "t0_ns"),
    "cmd_disk": ("capture_id", "run_id", "device", "major", "minor", "chosen", "seconds", "reads", "writes",
                 "read_bytes", "write_bytes", "read_ms", "write_ms", "io_ms"),
    "run_metrics": ("capture_id", "run_id", "metric", "value", "unit", "source"),
    "capture_texts": ("capture_id", "run_id", "path", "kind", "text"),
}
TEXT_LIMIT = 64 * 1024

_LOG_NAME = re.compile(r"^(?:(?P<index>\d+)-)?(?P<job>.*)_(?P<log>bw|iops|lat|clat|slat)(?:\.(?P<n>\d+))?\.log(?:\.gz)?$")


def _need_run(run_id: str | None, art: Artifact) -> str:
    if run_id is None:
        raise BundleError(f"{art.kind} artifact must belong to a run", {"file": art.path, "field": "kind"}, 422)
    return run_id


MONOTONIC = "CLOCK_MONOTONIC"  # artifact field clock: times are CLOCK_MONOTONIC ms (fio's log_alternate_epoch)
JOB_CLOCK = "job"              # ... or fio's default: ms since the job started


def fio_log_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """A fio bw/iops/lat log of a run -> fio_log_samples. Fields of the artifact (iolens-collect
    --fio-logs writes them): log, job, job_index, clone, avg_msec; else from the file name. And
    `clock` (absent: "job", zero-based) with `trace_clock_at_start_ns`: logs on CLOCK_MONOTONIC are
    put on the run's time axis in `finish` (_fio_log_clock), once every log of the run is read."""
    run_id = _need_run(run_id, art)
    given = art.model_fields_set
    name = art.path.rsplit("/", 1)[-1]
    m = _LOG_NAME.match(name)
    kind = art.log or (m.group("log") if m else None)
    log = parse_fio_log(read_plain(bundle.path(art.path), art.path), source=art.path, kind=kind)
    job = art.job or (m.group("job") if m else name)
    job_index = art.job_index if "job_index" in given else (int(m.group("index")) if m and m.group("index") else None)
    clone = art.clone or (int(m.group("n")) if m and m.group("n") else 1)
    avg = art.avg_msec
    if not log.entries:
        out.warnings.append(f"{art.path}: empty log (the job ran for less than log_avg_msec?)")
    cid = bundle.capture_id
    rows = [[cid, run_id, log.kind, str(job), job_index, int(clone), avg, e.t_ms, e.value, e.ddir, e.bs, art.path,
             None, None] for e in log.entries]
    clock = art.clock if "clock" in given else JOB_CLOCK
    if clock == JOB_CLOCK or not rows:
        out.add("fio_log_samples", [tuple(r) for r in rows])
        return
    if clock != MONOTONIC:
        out.warnings.append(f"{art.path}: clock {clock!r} is not known (CLOCK_MONOTONIC or job): its times are taken "
                            "as ms on some clock, not aligned with the run's start")
    t0 = art.trace_clock_at_start_ns
    if clock == MONOTONIC and not isinstance(t0, int):
        out.warnings.append(f"{art.path}: fio log on CLOCK_MONOTONIC without an integer trace_clock_at_start_ns: "
                            "not aligned with the run's start")
        t0 = None
    out.pending.setdefault("fio_log_clock", []).append(
        (run_id, (job_index, str(job), int(clone)), avg, t0 if clock == MONOTONIC else None, art.path, rows))


def _fio_log_clock(out: Parsed) -> None:
    """Logs with absolute times (CLOCK_MONOTONIC ms: fio's job start on that clock + ms since the
    job started, both truncated to the ms):

    - run_ms = time - trace_clock_at_start_ns (ns -> ms, floored): ms since the run's start on the
      clock of the perf probes; the true offset lies in (run_ms - 1, run_ms + 2) ms (fio truncates
      its epoch and the elapsed ms, the floor of t0 adds up to 1 ms).
    - t_ms keeps its meaning, ms since the job started. fio does not write its job start, so it is
      estimated per job and clone from its logs (_job_start).
    """
    logs = out.pending.pop("fio_log_clock", [])
    by_job: dict[tuple[str, tuple[Any, ...]], list[tuple[str, int, list[int]]]] = {}
    for run_id, job, avg, _t0, _path, rows in logs:
        by_job.setdefault((run_id, job), []).append((rows[0][2], int(avg or 0), [r[7] for r in rows]))
    start = {k: _job_start(v) for k, v in by_job.items()}
    for run_id, job, _avg, t0, path, rows in logs:
        e = start[(run_id, job)]
        t0_ms = t0 // 1_000_000 if t0 is not None else None
        first = min(r[7] for r in rows)
        if t0_ms is not None and first - t0_ms < -1000:
            out.warnings.append(f"{path}: its times start {t0_ms - first} ms before the run's start "
                                "(trace_clock_at_start_ns): not on that clock; not aligned")
            t0_ms = t0 = None
        for r in rows:
            raw = r[7]
            r[7] = raw - e
            r[12] = raw - t0_ms if t0_ms is not None else None
            r[13] = t0
        out.add("fio_log_samples", [tuple(r) for r in rows])


def _job_start(logs: list[tuple[str, int, list[int]]]) -> int:
    """A job's start (its clone's), on the logs' clock, from its logs [(kind, avg_msec, times)].

    fio samples bw and IOPS from its helper thread: an averaged bw/iops entry is written at the
    first tick at least avg_msec after the previous one, the first one between one and two windows
    after the job's start (measured: 100 and 133 ms with log_avg_msec=100). An averaged latency
    entry (lat, clat, slat) is written at the first completion after each multiple of avg_msec
    since the start, so its times, modulo avg_msec, sit just after the start's: the phase that
    puts the entries closest after it (the least sum of (time - phase) mod avg_msec, each term at
    most avg_msec / 4 so that a stalled window does not pull it) is the start modulo avg_msec, late
    by the shortest wait for a completion (well under a ms at thousands of I/Os a second). The start
    is the time with that phase within the two windows before the first bw/iops entry. Without
    averaged latency logs of the same window, or without bw/iops logs: the first entry of the logs
    minus avg_msec (late by up to a window; a per-I/O entry is a completion: late by the first
    I/O's latency).
    """
    rate = [min(ts) for kind, avg, ts in logs if kind in ("bw", "iops") and avg > 0 and ts]
    avgs = {avg for _, avg, ts in logs if ts}
    lat = [t for kind, avg, ts in logs if kind in ("lat", "clat", "slat") and avg > 0 for t in ts]
    if rate and lat and len(avgs) == 1:
        (avg,) = avgs
        counts: dict[int, int] = {}
        for t in lat:
            counts[t % avg] = counts.get(t % avg, 0) + 1
        cap = max(1, avg // 4)  # an entry far after its window's start (a stall) weighs no more than this
        phase = min(counts, key=lambda p: (sum(n * min((r - p) % avg, cap) for r, n in counts.items()), p))
        top = min(rate) - avg + 1  # the first bw/iops entry came at least avg_msec - 1 ms after the start
        return top - (top - phase) % avg
    return min(min(ts) - avg for _, avg, ts in logs if ts)


def text_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """Small text files shown as they are (fio job files, sweep plans) -> capture_texts."""
    if art.size > TEXT_LIMIT:
        out.warnings.append(f"{art.path}: larger than {TEXT_LIMIT} bytes; kept in the bundle, not shown")
        return
    try:
        text = decode(bundle.path(art.path).read_bytes(), art.path, errors="replace")
    except FormatError as exc:  # gzip-compressed: shown as mojibake it would tell nothing
        out.warnings.append(f"{exc}; kept in the bundle, not shown")
        return
    out.add("capture_texts", [(bundle.capture_id, run_id, art.path, art.kind, text)])


def fio_terse_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """fio terse output of a run -> the same rows as fio JSON."""

    run_id = _need_run(run_id, art)
    fio_rows(bundle, run_id, art, out, parse_fio_terse(read_plain(bundle.path(art.path), art.path), source=art.path))


def cmd_stdout_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """The command's standard output -> its `iolens-metric NAME VALUE [UNIT]` lines as run_metrics m.NAME."""
    run_id = _need_run(run_id, art)
    metrics, warnings = parse_metric_lines(read_plain(bundle.path(art.path), art.path))
    out.warnings.extend(f"{art.path}: {w}" for w in warnings)
    last: dict[str, tuple[float, str]] = {}
    for m in metrics:
        if m.name in last:
            out.warnings.append(f"{art.path}: line {m.line}: metric {m.name} printed again; the last value counts")
        last[m.name] = (m.value, m.unit)
    out.add("run_metrics", [(bundle.capture_id, run_id, f"m.{n}", v, u, "command") for n, (v, u) in last.items()])


def cmd_rusage_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    run_id = _need_run(run_id, art)
    r = parse_rusage(read_plain(bundle.path(art.path), art.path), source=art.path)
    out.pending.setdefault("wall", {})[run_id] = r.wall_s
    cid = bundle.capture_id
    rows = [("wall_s", r.wall_s, "s"), ("user_s", r.user_s, "s"), ("sys_s", r.sys_s, "s"),
            ("cpu_s", r.user_s + r.sys_s, "s"), ("maxrss_kib", r.maxrss_kib, "KiB"),
            ("ctx_voluntary", r.nvcsw, "count"), ("ctx_involuntary", r.nivcsw, "count"), ("majflt", r.majflt, "count")]
    out.add("run_metrics", [(cid, run_id, k, float(v), u, "rusage") for k, v, u in rows if v is not None])


def diskstats_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """/proc/diskstats before or after a run (field phase); paired in `finish`."""
    run_id = _need_run(run_id, art)
    phase = art.phase
    if phase not in ("before", "after"):
        phase = "before" if art.path.endswith("before") else "after" if art.path.endswith("after") else None
    if phase is None:
        raise BundleError("a diskstats artifact needs phase: before or after",
                          {"file": "manifest.json", "field": f"artifact {art.path}: phase"}, 422)
    runs = out.pending.setdefault("diskstats", {})
    if phase in runs.setdefault(run_id, {}):
        raise BundleError(f"run {run_id} has two diskstats artifacts for phase {phase}",
                          {"file": art.path, "field": "kind"}, 422)
    clock = art.clock_ns
    runs[run_id][phase] = (parse_diskstats(read_plain(bundle.path(art.path), art.path), source=art.path),
                           clock if isinstance(clock, int) else None, art.path)


def finish(bundle: OpenBundle, out: Parsed) -> None:
    """Put fio logs with a clock on the run's time axis (_fio_log_clock); pair the diskstats of
    each run: cmd_disk rows, and disk.* run_metrics summed over the capture's workload.devices."""
    _fio_log_clock(out)
    pairs = out.pending.get("diskstats", {})
    if not pairs:
        return
    chosen = bundle.manifest.workload.devices
    cid = bundle.capture_id
    for run_id, phases in sorted(pairs.items()):
        if set(phases) != {"before", "after"}:
            out.warnings.append(f"run {run_id}: diskstats {'/'.join(phases)} only; no disk figures for it")
            continue
        (before, c0, _), (after, c1, _) = phases["before"], phases["after"]
        seconds = (c1 - c0) / 1e9 if c0 is not None and c1 is not None and c1 > c0 else out.pending.get("wall", {}).get(run_id)
        if not seconds:
            out.warnings.append(f"run {run_id}: diskstats without the time between the reads; no disk rates")
            continue
        deltas = [d for d in delta(before, after) if d.name in chosen or d.reads or d.writes]  # not idle devices
        out.add("cmd_disk", [(cid, run_id, d.name, d.major, d.minor, d.name in chosen, seconds, d.reads, d.writes,
                              d.read_bytes, d.write_bytes, d.read_ms, d.write_ms, d.io_ms) for d in deltas])
        mine = [d for d in deltas if d.name in chosen]
        if not mine:
            continue
        reads, writes = sum(d.reads for d in mine), sum(d.writes for d in mine)
        rb, wb = sum(d.read_bytes for d in mine), sum(d.write_bytes for d in mine)
        rows = [("disk.read_iops", reads / seconds, "IO/s"), ("disk.write_iops", writes / seconds, "IO/s"),
                ("disk.iops", (reads + writes) / seconds, "IO/s"), ("disk.read_bw", rb / seconds, "B/s"),
                ("disk.write_bw", wb / seconds, "B/s"), ("disk.read_bytes", float(rb), "B"),
                ("disk.write_bytes", float(wb), "B"),
                ("disk.util", max(d.io_ms for d in mine) / 10.0 / seconds, "%")]
        out.add("run_metrics", [(cid, run_id, k, v, u, "diskstats") for k, v, u in rows])
    if chosen and not out.rows.get("run_metrics"):
        out.warnings.append(f"diskstats: the workload's devices ({', '.join(chosen)}) are not in /proc/diskstats")


# Per run, from fio_results: each direction's figures, and the run's totals over directions (and
# jobs). Percentiles cannot be added up: a total percentile exists only when the run has one row.
# CPU belongs to a job, not a direction (fio_results repeats it per direction): max per job, then
# summed over jobs.
DERIVE_RUN_METRICS = """
INSERT INTO run_metrics
WITH r AS (SELECT * FROM fio_results WHERE capture_id = $cid),
d AS (
    SELECT run_id, ddir, sum(iops) AS iops, sum(bw_bytes) AS bw,
           CASE WHEN count(*) = 1 THEN any_value(clat_mean_ns)
                ELSE sum(clat_mean_ns * total_ios) / nullif(sum(total_ios), 0) END AS clat_mean,
           CASE WHEN count(*) = 1 THEN any_value(clat_p50_ns) END AS clat_p50,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_ns) END AS clat_p99,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_9_ns) END AS clat_p99_9
    FROM r GROUP BY run_id, ddir
),
t AS (
    SELECT run_id, sum(iops) AS iops, sum(bw_bytes) AS bw,
           CASE WHEN count(*) = 1 THEN any_value(clat_mean_ns)
                ELSE sum(clat_mean_ns * total_ios) / nullif(sum(total_ios), 0) END AS clat_mean,
           CASE WHEN count(*) = 1 THEN any_value(clat_p50_ns) END AS clat_p50,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_ns) END AS clat_p99,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_9_ns) END AS clat_p99_9
    FROM r GROUP BY run_id
),
cpu AS (
    SELECT run_id, sum(u) AS usr, sum(s) AS sys
    FROM (SELECT run_id, jobname, max(usr_cpu) AS u, max(sys_cpu) AS s FROM r GROUP BY run_id, jobname)
    GROUP BY run_id
),
long AS (
    SELECT run_id, ddir || '.iops' AS metric, iops AS value, 'IO/s' AS unit FROM d
    UNION ALL SELECT run_id, ddir || '.bw', bw, 'B/s' FROM d
    UNION ALL SELECT run_id, ddir || '.clat_mean', clat_mean, 'ns' FROM d
    UNION ALL SELECT run_id, ddir || '.clat_p50', clat_p50, 'ns' FROM d
    UNION ALL SELECT run_id, ddir || '.clat_p99', clat_p99, 'ns' FROM d
    UNION ALL SELECT run_id, ddir || '.clat_p99_9', clat_p99_9, 'ns' FROM d
    UNION ALL SELECT run_id, 'iops', iops, 'IO/s' FROM t
    UNION ALL SELECT run_id, 'bw', bw, 'B/s' FROM t
    UNION ALL SELECT run_id, 'clat_mean', clat_mean, 'ns' FROM t
    UNION ALL SELECT run_id, 'clat_p50', clat_p50, 'ns' FROM t
    UNION ALL SELECT run_id, 'clat_p99', clat_p99, 'ns' FROM t
    UNION ALL SELECT run_id, 'clat_p99_9', clat_p99_9, 'ns' FROM t
    UNION ALL SELECT run_id, 'usr_cpu', usr, '%' FROM cpu
    UNION ALL SELECT run_id, 'sys_cpu', sys, '%' FROM cpu
    UNION ALL SELECT cpu.run_id, 'cpu_per_io', (usr + sys) / 100 * 1e9 / nullif(t.iops, 0), 'ns'
              FROM cpu JOIN t USING (run_id)
)
SELECT $cid, run_id, metric, value, unit, 'fio' FROM long WHERE value IS NOT NULL AND isfinite(value)
"""


def summary(w: Workload, fio_summary: str | None) -> str | None:
    """captures.workload_summary for sweeps and commands: what was swept, and over how many
    points ("randread libaio bs=4k ... | sweep rw x bs x iodepth, 12 points"); a command's own words."""
    text = fio_summary
    if w.kind == "cmd" and w.command is not None:
        text = " ".join(w.command)
        text = text if len(text) <= 120 else text[:117] + "..."
    names = [p.name for p in w.sweep.parameters] if w.sweep is not None else []
    if names and text and w.kind == "fio":  # the first point's values are not the capture's
        toks = text.split(" ")
        text = " ".join(t for i, t in enumerate(toks)
                        if not any(t.startswith(f"{n}=") for n in names) and not (i == 0 and "rw" in names)) or None
    if names:
        n = w.sweep.points if w.sweep is not None else None
        text = f"{text + ' | ' if text else ''}sweep {' x '.join(names)}{f', {n} points' if n else ''}"
    return text


# --- fio terse uploads ---------------------------------------------------------------------------

def sniff_terse(path: Path) -> str | None:
    """The text of `path` when it is fio terse output (not a bundle), else None."""
    with path.open("rb") as f:
        head = f.read(4096)
    if head[:2] == b"\x1f\x8b" or len(head) > 262 and head[257:262] == b"ustar":
        return None
    try:
        text = path.read_bytes().decode("utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    return text if looks_like_terse(text) else None


def existing_terse(store: Any, sha256: str) -> tuple[str, str] | None:
    row = store.query("SELECT capture_id, label FROM captures WHERE json_extract_string(manifest, '$.source.sha256') = ?",
                      [sha256]).rows
    return (row[0][0], row[0][1]) if row else None


def wrap_terse(text: str, source: str | None, into: Path) -> Path:
    """A bundle made of an uploaded fio terse file: each run is the terse lines up to a job name
    seen again (several fio runs appended to one file), as runs/rNNN/fio.terse; the file itself is
    kept as upload/NAME (kind fio-terse-upload). The manifest says it was uploaded as terse output
    (no host facts: fio's terse output has none) and holds the file's SHA-256 in source.sha256, so
    the same file uploaded twice is one capture."""
    name = Path(source or "fio.terse").name
    data = text.encode("utf-8")
    sha = hashlib.sha256(data).hexdigest()
    parse_fio_terse(text, source=name)  # refuse garbage before building anything
    runs = _split_runs(text)
    label = re.sub(r"(\.iolens)?\.(terse|txt|out|log|csv)$", "", name) or "fio-terse"
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    files: dict[str, bytes] = {f"upload/{_safe(name)}": data}
    manifest: dict[str, Any] = {
        "format": "iolens-bundle", "format_version": 1,
        "collector": {"name": "iolens (terse upload)", "version": "0", "argv": []},
        "label": label[:200], "tags": {}, "created_at": now, "host": {},
        "workload": {"kind": "fio", "fio_version": parse_fio_terse(text, name).fio_version, "jobfile": None,
                     "fio_args": None, "targets": []},
        "runs": [], "artifacts": [],
        "notes": ["uploaded as fio terse output: no host facts, no job options, no latency histogram"],
        "source": {"kind": "fio-terse", "file": name, "sha256": sha},
    }
    for i, lines in enumerate(runs):
        body = "".join(lines).encode("utf-8")
        rel = f"runs/r{i:03d}/fio.terse"
        files[rel] = body
        manifest["runs"].append({"id": f"r{i:03d}", "index": i, "repeat": i, "params": {}, "started_at": None,
                                 "ended_at": None, "exit_code": 0, "cmdline": ["fio", "--minimal"],
                                 "artifacts": [_art(rel, body, "fio-terse")]})
    manifest["artifacts"].append(_art(f"upload/{_safe(name)}", data, "fio-terse-upload"))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for member, content in [("manifest.json", json.dumps(manifest, indent=1).encode())] + list(files.items()):
            info = tarfile.TarInfo(member)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    fd, tmp = tempfile.mkstemp(prefix=".terse-", suffix=".iolens.tar.gz", dir=into)
    with open(fd, "wb") as f:
        f.write(buf.getvalue())
    return Path(tmp)


def _split_runs(text: str) -> list[list[str]]:
    """The terse lines as runs: the file is taken as k runs when its (job, group) sequence is one
    pattern repeated k times (fio run k times, appending with --minimal), the shortest such
    pattern winning; lines before a terse line (fio's job descriptions) go with it. numjobs
    clones without group_reporting print one line each under the same job name: a single job
    with numjobs=N in N appended... is ambiguous, and read as N runs (use group_reporting)."""
    blocks: list[list[str]] = []
    keys: list[tuple[str, str]] = []
    pending: list[str] = []
    for line in text.splitlines(keepends=True):
        pending.append(line)
        if re.match(r"^[2-5];", line):
            parts = line.split(";")
            v2 = parts[0] == "2"
            keys.append((parts[1] if v2 else parts[2], parts[2] if v2 else parts[3]))
            blocks.append(pending)
            pending = []
    if blocks and pending:
        blocks[-1].extend(pending)
    n = len(keys)
    period = next(p for p in range(1, n + 1) if n % p == 0 and all(keys[i] == keys[i % p] for i in range(n)))
    return [sum(blocks[i:i + period], []) for i in range(0, n, period)]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "fio.terse"


def _art(rel: str, data: bytes, kind: str) -> dict[str, Any]:
    return {"kind": kind, "path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
