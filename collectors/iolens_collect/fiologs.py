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
from typing import Dict, List, Optional, Tuple

from . import fio, jobedit

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
    return jobedit.add_job_options(workload, lambda k, name: _options(k, name, avg_msec),
                                   "added by iolens-collect (--fio-logs): this job's logs go into the run's folder")


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
