"""fio time-series logs (``--fio-logs MSEC``, or ``logs = MSEC`` in a sweep plan): bandwidth, IOPS
and latency over the run, averaged over MSEC milliseconds (fio's ``log_avg_msec``), kept in the
bundle as artifacts of kind ``fio-log``.

fio writes a log per job and clone, named ``PREFIX_<kind>.<N>.log`` (kind bw, iops, lat, clat,
slat; N counts the job's clones from 1), into the current directory unless PREFIX has a folder.
The collector asks for them at the end of every job section (the last value of an option wins in
fio, so this overrides the job's own log options), with a PREFIX under the run's folder in the
stage:

- in a job file: ``write_bw_log=${IOLENS_FIO_LOGS}/0-randwrite`` and so on; fio substitutes
  ``${VAR}`` in job files, and the collector sets IOLENS_FIO_LOGS for each run. The job file
  stored in the bundle is the one that ran, with these lines.
- with ``--fio-args``: the same options after each ``--name=JOB``; fio does not substitute
  variables on its command line, so run_fio replaces ``${IOLENS_FIO_LOGS}`` itself (the recorded
  command line shows the path relative to the bundle).

The PREFIX starts with the job's position (``0-``, ``1-``...) so that two jobs with one name keep
their logs apart, and so that ingest can map a log back to its job.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Dict, List, Optional, Tuple

from . import fio

__all__ = ["ENV", "PLACEHOLDER", "KINDS", "inject", "collect", "LOG_RE"]

ENV = "IOLENS_FIO_LOGS"
PLACEHOLDER = "${" + ENV + "}"
KINDS = ("bw", "iops", "lat")  # write_lat_log gives lat, clat and slat
LOG_RE = re.compile(r"^(?P<index>\d+)-(?P<job>.*)_(?P<log>bw|iops|lat|clat|slat)(?:\.(?P<n>\d+))?\.log$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def _prefix(k: int, name: str) -> str:
    return f"{PLACEHOLDER}/{k}-{_SAFE.sub('_', name)[:64] or 'job'}"


def _options(k: int, name: str, avg_msec: int) -> List[Tuple[str, str]]:
    p = _prefix(k, name)
    return [("write_bw_log", p), ("write_iops_log", p), ("write_lat_log", p), ("log_avg_msec", str(avg_msec))]


def inject(workload: fio.Workload, avg_msec: int) -> fio.Workload:
    """The same workload with log options at the end of every job (see the module's doc)."""
    if workload.fio_args is not None:
        tokens: List[str] = []
        k = 0
        for tok in workload.fio_args:
            tokens.append(tok)
            if tok.startswith("--name="):
                tokens += [f"--{key}={value}" for key, value in _options(k, tok[len("--name="):], avg_msec)]
                k += 1
        joined = " ".join(shlex.quote(t) for t in tokens)
        out = fio.parse_fio_args(joined)
        out.notes = [n for n in out.notes if PLACEHOLDER not in n]  # ours: fio gets the path itself
        return out
    text = workload.jobfile_bytes.decode("utf-8", errors="surrogateescape")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    # Insert before the header of the next section (or at the end) for every job section.
    inserts: Dict[int, List[str]] = {}
    jobs = [s for s in workload.sections if not s.is_global]
    headers = sorted(s.line for s in workload.sections)
    for k, section in enumerate(jobs):
        after = [h for h in headers if h > section.line]
        at = (after[0] - 1) if after else len(lines)
        block = [f"; added by iolens-collect (--fio-logs): logs of job {k} into the run's folder\n"]
        block += [f"{key}={value}\n" for key, value in _options(k, section.name, avg_msec)]
        inserts.setdefault(at, []).extend(block)
    out_lines: List[str] = []
    for i in range(len(lines) + 1):
        out_lines.extend(inserts.get(i, []))
        if i < len(lines):
            out_lines.append(lines[i])
    data = "".join(out_lines).encode("utf-8", errors="surrogateescape")
    sections = fio.parse_jobfile(data.decode("utf-8", errors="surrogateescape"), source="job file")
    return fio.Workload(jobfile_bytes=data, sections=sections,
                        jobs=fio.jobs_from_sections(sections, substitute_env=True),
                        notes=list(workload.notes))


def collect(stage: str, run_rel: str, avg_msec: int, jobnames: List[str]) -> List[Tuple[str, Dict[str, object]]]:
    """(relative path, extra artifact fields) of every log fio wrote for one run, sorted."""
    logs_rel = f"{run_rel}/logs"
    folder = os.path.join(stage, logs_rel)
    if not os.path.isdir(folder):
        return []
    out = []
    for name in sorted(os.listdir(folder)):
        m = LOG_RE.match(name)
        if not m:
            continue
        k = int(m.group("index"))
        extra: Dict[str, object] = {
            "log": m.group("log"),
            "job": jobnames[k] if k < len(jobnames) else m.group("job"),
            "job_index": k,
            "clone": int(m.group("n")) if m.group("n") else 1,
            "avg_msec": avg_msec,
        }
        out.append((f"{logs_rel}/{name}", extra))
    return out


def log_dir(stage: str, run_rel: str) -> Tuple[str, str]:
    """(absolute, relative to the bundle) folder of one run's logs, created."""
    rel = f"{run_rel}/logs"
    path = os.path.join(stage, rel)
    os.makedirs(path, exist_ok=True)
    return path, rel


def jobnames(workload: fio.Workload) -> List[str]:
    return [j.name for j in workload.jobs]


def uses(workload: Optional[fio.Workload]) -> bool:
    return workload is not None and PLACEHOLDER.encode() in workload.jobfile_bytes
