"""fio's time-series logs (write_bw_log, write_iops_log, write_lat_log) as rows.

Pure: text in, dataclasses out. Reference: fio's HOWTO, "Log File Formats" (fio 3.33), and the
fio 3.7 logs of pbench in shared/corpus/fio/logs.

- One line per entry: ``time (ms), value, data direction, block size (bytes)`` and, from fio 3.x
  on, ``offset (bytes)`` (always written by fio 3.33, 0 unless log_offset=1) and in newer fio
  ``command priority``. fio 3.7 writes the first four only (corpus). Fields are separated by ", ".
- Value: bandwidth logs are KiB/s (converted to bytes/s here), IOPS logs IO/s, latency logs
  (lat, clat, slat) ns since fio 3.0 (fio 2.x wrote usec: pass ``lat_unit_ns=1000``).
- With log_avg_msec, an entry is the average (or the maximum with log_max_value) over that
  window, one entry per direction seen in the window, block size and offset 0. Without it, an
  entry per I/O (value 1 in an IOPS log).
- Direction: 0 read, 1 write, 2 trim; other values are kept as 'other'.
- The kind of log is in the file name: ``PREFIX_<kind>.N.log`` or ``PREFIX_<kind>.log``
  (per_job_logs=0), kind bw, iops, lat, clat or slat. Histogram logs (``_clat_hist``, from
  write_hist_log) have one column per latency bin: refused with a message, they are not this
  format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iolens.formats.errors import FormatError
from iolens.formats.numbers import to_float, to_int

__all__ = ["KINDS", "UNITS", "FioLogEntry", "FioLog", "log_kind_from_name", "parse_fio_log"]

KINDS = ("bw", "iops", "lat", "clat", "slat")
UNITS = {"bw": "B/s", "iops": "IO/s", "lat": "ns", "clat": "ns", "slat": "ns"}
DDIRS = {0: "read", 1: "write", 2: "trim"}
_NAME = re.compile(r"_(bw|iops|lat|clat|slat)(?:\.\d+)?\.log(?:\.gz)?$")
_HIST = re.compile(r"_clat_hist(?:\.\d+)?\.log")


@dataclass(frozen=True, slots=True)
class FioLogEntry:
    t_ms: int  # since the job started
    value: float  # bytes/s, IO/s or ns
    ddir: str  # read | write | trim | other
    bs: int  # bytes; 0 in averaged logs
    offset: int | None  # bytes; None when the log has no offset column
    prio: int | None  # command priority; None when the log has no such column


@dataclass(frozen=True, slots=True)
class FioLog:
    kind: str  # bw | iops | lat | clat | slat
    unit: str  # B/s | IO/s | ns
    columns: int  # fields per line (4 for fio 3.7, 5 for fio 3.33)
    entries: list[FioLogEntry]


def log_kind_from_name(name: str) -> str | None:
    m = _NAME.search(name)
    return m.group(1) if m else None


def parse_fio_log(text: str, source: str = "fio.log", kind: str | None = None, lat_unit_ns: float = 1.0) -> FioLog:
    """Parse one log. `kind` defaults to the one in `source`'s name. Raises FormatError."""
    if _HIST.search(source):
        raise FormatError(source, "a latency histogram log (write_hist_log) is not a bw/iops/lat log; not read")
    kind = kind or log_kind_from_name(source)
    if kind not in KINDS:
        raise FormatError(source, f"cannot tell which fio log this is: expected a name like job_iops.1.log "
                                  f"(kinds: {', '.join(KINDS)})")
    scale = {"bw": 1024.0, "iops": 1.0}.get(kind, lat_unit_ns)
    entries: list[FioLogEntry] = []
    columns = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) > 6:
            raise FormatError(source, f"{len(parts)} fields: a histogram log or not a fio log "
                                      "(expected time, value, direction, block size[, offset[, priority]])",
                              line=lineno)
        if len(parts) < 4:
            raise FormatError(source, "expected time, value, direction, block size[, offset[, priority]]",
                              line=lineno)
        if columns and len(parts) != columns:
            raise FormatError(source, f"{len(parts)} fields where the lines above have {columns}", line=lineno)
        columns = len(parts)
        # Every field is a count, a time or a size: a negative, NaN or infinite one is refused.
        t_ms = to_int(parts[0], source, lineno, "time", minimum=0)
        value = to_float(parts[1], source, lineno, "value", minimum=0)
        ddir = to_int(parts[2], source, lineno, "direction", minimum=0)
        bs = to_int(parts[3], source, lineno, "block size", minimum=0)
        offset = to_int(parts[4], source, lineno, "offset", minimum=0) if len(parts) > 4 else None
        prio = to_int(parts[5], source, lineno, "priority", minimum=0) if len(parts) > 5 else None
        entries.append(FioLogEntry(t_ms, value * scale, DDIRS.get(ddir, "other"), bs, offset, prio))
    return FioLog(kind, UNITS[kind], columns, entries)  # empty: the job ran for less than log_avg_msec
