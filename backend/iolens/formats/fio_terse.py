"""fio's terse output (``--minimal``, ``--output-format=terse``, terse versions 2 to 5) as the same
rows as fio's JSON (fio_json.FioJobDir), so that terse results go through the same tables.

Pure: text in, dataclasses out. Reference: fio's HOWTO, "Terse output" (fio 3.33), checked
against fio 3.33's own output in tests/formats/samples/fio-terse (every version, several jobs,
group_reporting with a description).

Layout, fields separated by ';', one line per job (or per group with group_reporting):

    terse version; fio version [v3+]; jobname; groupid; error;
    READ; WRITE; TRIM [all versions but 3];
    usr CPU %; sys CPU %; context switches; major faults; minor faults;
    I/O depths <=1 2 4 8 16 32 >=64 (7); latency buckets us (10); ms (12);
    disk utilization [v3+]: 9 fields per disk (name, read ios, write ios, read merges,
        write merges, read ticks, write ticks, in queue, util %);
    [total errors; first error] (continue_on_error); [description] (on a line of its own in v2)

and a data direction is: KiB, bandwidth KiB/s, IOPS, runtime ms; slat min, max, mean, stddev
(us); clat min, max, mean, stddev (us); 20 clat percentiles as ``99.000000%=1234`` (us; unused
slots ``0%=0``); lat min, max, mean, stddev (us); bandwidth min, max, aggregate %, mean, stddev
(KiB/s), and in v5 the bandwidth sample count and IOPS min, max, mean, stddev, samples. That is
41 fields per direction before v5, 47 in v5.

Quirks handled:
- ``--minimal`` with several jobs still prints fio's job description lines ("w: (g=0): rw=...")
  and "..." before the terse lines: lines that do not start with ``<version>;`` are skipped and
  kept in ``preamble``.
- A direction with no I/O is all zeros: it becomes a row only when its KiB or runtime is
  nonzero (the JSON parser's rule). A stat that is all zeros (no slat for sync engines) is None.
- Terse has no I/O count (``total_ios``) and no latency histogram: both None. Units are
  normalised as in fio_json: ns, bytes, bytes/s, ms.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from iolens.formats.errors import FormatError
from iolens.formats.fio_json import FioJobDir, FioResult
from iolens.formats.numbers import is_float

__all__ = ["parse_fio_terse", "looks_like_terse", "TERSE_VERSIONS"]

TERSE_VERSIONS = (2, 3, 4, 5)
_LINE = re.compile(r"^([2-5]);")
_PCT = re.compile(r"^([0-9.]+)%=(-?[0-9.]+)$")
_USEC = 1000.0


@dataclass
class _Cursor:
    fields: list[str]
    source: str
    line: int
    i: int = 0

    def take(self, what: str) -> str:
        if self.i >= len(self.fields):
            raise FormatError(self.source, f"the line ends before {what} (field {self.i + 1}); is it cut?",
                              line=self.line)
        v = self.fields[self.i]
        self.i += 1
        return v

    def num(self, what: str) -> float:
        v = self.take(what).rstrip("%")
        if not is_float(v):  # never NaN, inf or 1e309
            raise FormatError(self.source, f"field {self.i} ({what}): expected a number, got {v[:40]!r}",
                              line=self.line)
        return float(v)

    def int(self, what: str) -> int:
        v = self.num(what)
        if abs(v) > 2**63 - 1:
            raise FormatError(self.source, f"field {self.i} ({what}): {v:g} is beyond 64 bits", line=self.line)
        return int(v)


def looks_like_terse(text: str) -> bool:
    """Whether the text holds fio terse lines (for uploads: a terse file instead of a bundle)."""
    for line in text.splitlines()[:50]:
        m = _LINE.match(line)
        if m and line.count(";") >= 100:
            return True
    return False


def _stat(c: _Cursor, what: str) -> tuple[float | None, float | None, float | None, float | None]:
    vals = [c.num(f"{what} {k}") for k in ("min", "max", "mean", "stddev")]
    if all(v == 0 for v in vals):
        return None, None, None, None
    mn, mx, mean, sd = (v * _USEC for v in vals)
    return mn, mx, mean, sd


def _direction(c: _Cursor, version: int, ddir: str) -> dict:
    d: dict = {"ddir": ddir}
    d["io_bytes"] = c.int(f"{ddir} KiB") * 1024
    d["bw_bytes"] = c.num(f"{ddir} bandwidth") * 1024
    d["iops"] = c.num(f"{ddir} IOPS")
    d["runtime_ms"] = c.int(f"{ddir} runtime")
    d["slat"] = _stat(c, f"{ddir} slat")
    d["clat"] = _stat(c, f"{ddir} clat")
    pcts: dict[float, float] = {}
    for k in range(20):
        raw = c.take(f"{ddir} clat percentile {k + 1}")
        m = _PCT.match(raw)
        if not m:
            raise FormatError(c.source, f"field {c.i} ({ddir} clat percentile {k + 1}): expected P%=VALUE, "
                                        f"got {raw[:40]!r}", line=c.line)
        if not (is_float(m.group(1)) and is_float(m.group(2))):
            raise FormatError(c.source, f"field {c.i} ({ddir} clat percentile {k + 1}): expected P%=VALUE, "
                                        f"got {raw[:40]!r}", line=c.line)
        p = float(m.group(1))
        if p > 0:  # "0%=0": an unused slot
            pcts[round(p, 6)] = float(m.group(2)) * _USEC
    d["pcts"] = pcts
    d["lat"] = _stat(c, f"{ddir} lat")
    for k in ("min", "max", "agg", "mean", "stddev"):
        c.num(f"{ddir} bw {k}")
    if version >= 5:
        c.num(f"{ddir} bw samples")
        for k in ("min", "max", "mean", "stddev", "samples"):
            c.num(f"{ddir} iops {k}")
    return d


def _line(fields: list[str], source: str, lineno: int, index: int) -> tuple[list[FioJobDir], str | None, list[dict]]:
    c = _Cursor(fields, source, lineno)
    version = c.int("terse version")
    fio_version = c.take("fio version") if version >= 3 else None
    jobname = c.take("jobname")
    groupid = c.int("groupid")
    error = c.int("error")
    ddirs = ["read", "write"] + (["trim"] if version != 3 else [])
    dirs = [_direction(c, version, d) for d in ddirs]
    usr, sys_ = c.num("usr CPU"), c.num("sys CPU")
    ctx, majf, minf = c.int("context switches"), c.int("major faults"), c.int("minor faults")
    for k in range(7 + 10 + 12):
        c.num(f"I/O depth and latency distribution field {k + 1}")
    disks: list[dict] = []
    while version >= 3 and c.i + 9 <= len(fields) and not _is_number(fields[c.i]):
        name = c.take("disk name")
        vals = [c.num(f"disk {name} {k}") for k in ("read ios", "write ios", "read merges", "write merges",
                                                    "read ticks", "write ticks", "in queue", "util")]
        if any(abs(v) > 2**63 - 1 for v in vals):
            raise FormatError(c.source, f"disk {name}: a count beyond 64 bits", line=c.line, field=name[:40])
        disks.append({"name": name, "read_ios": int(vals[0]), "write_ios": int(vals[1]), "read_merges": int(vals[2]),
                      "write_merges": int(vals[3]), "read_ticks": int(vals[4]), "write_ticks": int(vals[5]),
                      "in_queue": int(vals[6]), "util": vals[7]})
    rows = []
    for d in dirs:
        if d["io_bytes"] == 0 and d["runtime_ms"] == 0:
            continue
        slat, clat, lat = d["slat"], d["clat"], d["lat"]
        rows.append(FioJobDir(
            jobname=jobname, groupid=groupid, job_index=index, error=error, ddir=d["ddir"], job_options={},
            io_bytes=d["io_bytes"], bw_bytes=d["bw_bytes"], iops=d["iops"], runtime_ms=d["runtime_ms"],
            total_ios=None, short_ios=None, drop_ios=None, slat_mean_ns=slat[2],
            clat_min_ns=clat[0], clat_max_ns=clat[1], clat_mean_ns=clat[2], clat_stddev_ns=clat[3],
            lat_mean_ns=lat[2], lat_min_ns=lat[0], lat_max_ns=lat[1], clat_percentiles_ns=d["pcts"],
            clat_bins_ns=None, usr_cpu=usr, sys_cpu=sys_, ctx=ctx, majf=majf, minf=minf, elapsed_s=None,
        ))
    for row in rows:  # KiB -> bytes and the like: still within 64 bits
        for f in dataclasses.fields(row):
            name, v = f.name, getattr(row, f.name)
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**63 - 1:
                raise FormatError(c.source, f"{row.ddir} {name}: {v} is beyond 64 bits", line=c.line, field=name)
    return rows, fio_version, disks


def _is_number(s: str) -> bool:
    return is_float(s.rstrip("%"))


def parse_fio_terse(text: str, source: str = "fio.terse") -> FioResult:
    """Every terse line of `text` (one per job or group). Raises FormatError."""
    rows: list[FioJobDir] = []
    preamble: list[str] = []
    disks: list[dict] = []
    versions: set[int] = set()
    fio_version = None
    index = 0
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = raw.rstrip("\r")
        if not _LINE.match(line):
            if line.strip():
                preamble.append(line)
            continue
        fields = line.split(";")
        r, fv, d = _line(fields, source, lineno, index)
        versions.add(int(fields[0]))
        rows.extend(r)
        disks.extend(x for x in d if x not in disks)
        fio_version = fio_version or fv
        index += 1
    if index == 0:
        raise FormatError(source, "no fio terse line (a line starting with the terse version, 2-5, and ';')")
    if len(versions) > 1:
        raise FormatError(source, f"terse versions {sorted(versions)} mixed in one file")
    # v2 prints a job's description on the line after it: that line is in the preamble then.
    return FioResult(fio_version=fio_version, timestamp=None, global_options={}, jobs=rows,
                     preamble=preamble, disk_util=disks)
