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

The logs' clock. By default fio writes each log's times as ms since its job started (the job's
own epoch, unknown outside fio: fio 3.33's JSON has no job start time). When the installed fio
knows ``log_alternate_epoch_clock_id`` (probed once with ``fio --cmdhelp=``), the collector also
adds ``log_alternate_epoch=1`` and ``log_alternate_epoch_clock_id=1``: fio then writes the job's
start on CLOCK_MONOTONIC (clock id 1 on Linux) plus those ms, in ms, which is the clock of the perf
probes and of the run's ``trace_clock_at_start_ns``. Each fio-log artifact says which it is
(field ``clock``: ``CLOCK_MONOTONIC`` or ``job``) and carries ``trace_clock_at_start_ns``, so that
ingest puts fio's IOPS on the block layer's time axis. With an older fio the logs stay zero-based
and the manifest's notes say so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Dict, List, Optional, Tuple

from . import fio, jobedit

__all__ = ["ENV", "PLACEHOLDER", "KINDS", "inject", "collect", "LOG_RE", "MONOTONIC", "JOB_CLOCK",
           "knows_monotonic", "clock_of", "clock_note"]

ENV = "IOLENS_FIO_LOGS"
PLACEHOLDER = "${" + ENV + "}"
KINDS = ("bw", "iops", "lat")  # write_lat_log gives lat, clat and slat
LOG_RE = re.compile(r"^(?P<index>\d+)-(?P<job>.*)_(?P<log>bw|iops|lat|clat|slat)(?:\.(?P<n>\d+))?\.log$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
MONOTONIC = "CLOCK_MONOTONIC"  # artifact field clock: the logs' times are CLOCK_MONOTONIC, ms
JOB_CLOCK = "job"              # ... or fio's default: ms since the job started
# clock_gettime's clock id for CLOCK_MONOTONIC on Linux (<linux/time.h>), as fio's option takes it
CLOCK_OPTIONS = (("log_alternate_epoch", "1"), ("log_alternate_epoch_clock_id", "1"))
_PROBED: Dict[str, bool] = {}


def _prefix(k: int, name: str) -> str:
    return f"{PLACEHOLDER}/{k}-{_SAFE.sub('_', name)[:64] or 'job'}"


def _options(k: int, name: str, avg_msec: int, monotonic: bool) -> List[Tuple[str, str]]:
    p = _prefix(k, name)
    opts = [("write_bw_log", p), ("write_iops_log", p), ("write_lat_log", p), ("log_avg_msec", str(avg_msec))]
    return opts + list(CLOCK_OPTIONS) if monotonic else opts


def knows_monotonic(fio_bin: Optional[str] = None) -> bool:
    """Whether this fio takes ``log_alternate_epoch_clock_id`` (asked once per binary). fio's
    ``--cmdhelp=NAME`` exits 0 even for an unknown name, printing the closest option instead
    ("showing closest match"), so the answer is read from what it prints."""
    path = fio_bin or shutil.which("fio")
    if not path:
        return False
    if path not in _PROBED:
        opt = CLOCK_OPTIONS[1][0]
        try:
            cp = subprocess.run([path, f"--cmdhelp={opt}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, timeout=20)
            text = cp.stdout.decode("utf-8", "replace")
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            _PROBED[path] = (cp.returncode == 0 and first.startswith(opt + ":")
                             and "closest match" not in text + cp.stderr.decode("utf-8", "replace"))
        except (OSError, subprocess.SubprocessError):
            _PROBED[path] = False
    return _PROBED[path]


def inject(workload: fio.Workload, avg_msec: int, monotonic: Optional[bool] = None) -> fio.Workload:
    """The same workload with log options at the end of every job (see the module's doc); with
    ``monotonic`` (default: when the fio on PATH knows the options) the logs' times are on
    CLOCK_MONOTONIC."""
    if monotonic is None:
        monotonic = knows_monotonic()
    return jobedit.add_job_options(workload, lambda k, name: _options(k, name, avg_msec, monotonic),
                                   "added by iolens-collect (--fio-logs): this job's logs go into the run's folder"
                                   + (", times on CLOCK_MONOTONIC" if monotonic else ""))


def clock_of(job: fio.Job) -> str:
    """The clock of a job's log times: MONOTONIC when its options (the last value wins) say
    log_alternate_epoch=1 and log_alternate_epoch_clock_id=1, else JOB_CLOCK."""
    clock_id = (job.get("log_alternate_epoch_clock_id") or "").strip()
    return MONOTONIC if job.flag("log_alternate_epoch") and clock_id == "1" else JOB_CLOCK


def clock_note(workloads: List[fio.Workload], fio_version: Optional[str]) -> Optional[str]:
    """The manifest note when some job's logs are zero-based (an fio without the options)."""
    if not any(clock_of(j) == JOB_CLOCK for w in workloads if uses(w) for j in w.jobs):
        return None
    return (f"fio logs: {fio_version or 'this fio'} does not know log_alternate_epoch_clock_id, so its logs' times are "
            "ms since each job started (zero-based), not CLOCK_MONOTONIC: they cannot be aligned with the run's "
            "start or the block events")


def collect(stage: str, run_rel: str, avg_msec: int, jobnames: List[str], clocks: Optional[List[str]] = None,
            t0_ns: Optional[int] = None) -> List[Tuple[str, Dict[str, object]]]:
    """(relative path, extra artifact fields) of every log fio wrote for one run, sorted.
    ``clocks``: each job's log clock (clock_of); ``t0_ns``: CLOCK_MONOTONIC just before fio started
    (the perf probes' trace_clock_at_start_ns of the same run)."""
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
            "clock": clocks[k] if clocks is not None and k < len(clocks) else JOB_CLOCK,
        }
        if t0_ns is not None:
            extra["trace_clock_at_start_ns"] = int(t0_ns)
        out.append((f"{logs_rel}/{name}", extra))
    return out


def jobnames(workload: fio.Workload) -> List[str]:
    return [j.name for j in workload.jobs]


def clocks(workload: fio.Workload) -> List[str]:
    """The log clock of each job, in job order (the ``K-`` of the log names)."""
    return [clock_of(j) for j in workload.jobs]


def uses(workload: Optional[fio.Workload]) -> bool:
    return workload is not None and PLACEHOLDER.encode() in workload.jobfile_bytes
