"""fio's JSON output (`--output-format=json` and `json+`), fio 2.x to 3.x, as rows.

Pure: text in, dataclasses out, no I/O. Every unit is normalised: latencies in nanoseconds,
bandwidth in bytes/s, sizes in bytes, runtime in milliseconds.

What differs between fio versions (checked against the samples in shared/corpus/fio/json and a
fio 3.33 json+ run, see tests/formats/samples):

- Version key: "fio version" (2.1.4 and later), "fioversion" (2.1.3 and before).
- Latencies: fio >= 3.0 writes `slat_ns`/`clat_ns`/`lat_ns` in ns, with percentiles in ns.
  fio 2.x writes `slat`/`clat`/`lat` in MICROseconds, percentiles too: multiplied by 1000 here.
  Keys are looked up per stat (`clat_ns` first, then `clat`), so a file mixing both still works.
- fio 2.x pads the percentile list with `"0.00": 0` entries (unused slots, printed once or
  several times as duplicate keys): dropped.
- A stat without samples (no slat for sync engines, an idle direction) is printed as all zeros;
  fio >= 3.2x also prints its sample count `N`. Such a stat becomes None, not 0: when `N` is 0,
  or when `N` is absent and min, max and mean are all 0.
- Sizes: fio >= 3.0 writes `io_bytes` in bytes plus `io_kbytes` in KiB. Before that, `io_bytes`
  held KiB (fio printed `io_bytes >> 10` under that name). The corpus confirms it against
  bw (KiB/s) x runtime (ms): fio-2.1.3 yardstick read 36113 x 60.001 s = 2166816 vs io_bytes
  2166860; fio-2.1.4 PKB sequential_write 68118 x 5.314 s = 361979 vs 361984; fio-2.17 PKB
  rand read 129386 x 10.003 s = 1294248 vs 1294256; whereas fio-3.13 io_bytes 536973312 =
  io_kbytes 524388 x 1024. Rule: `io_kbytes` present -> `io_bytes` is bytes, else it is KiB.
- Bandwidth: `bw` is KiB/s in every version; `bw_bytes` (fio >= 3.0) is bytes/s and is preferred.
- `runtime` is ms; the job's `elapsed` is seconds (fio >= 2.1x).
- json+ `bins`: fio >= 3.0 writes only the non-empty bins, keyed by the bin's latency value in ns.
  fio 2.x json+ wrote every bin keyed by its index plus FIO_IO_U_PLAT_BITS/VAL/NR entries, in
  usec; converted here with fio's own plat_idx_to_val() to ns, empty bins dropped.
- Directions: "read", "write", "trim", and "mixed" (unified_rw_reporting=1; with =both fio
  prints read/write/trim AND mixed, all become rows: do not add them up). fio 3's "sync"
  (fsync latencies) is not a data direction and is skipped. A direction becomes a row when its
  io_bytes, runtime or total_ios is nonzero.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, NoReturn

from iolens.formats.errors import FormatError
from iolens.formats.numbers import STRICT_JSON, StrictJsonError, is_float, is_int

__all__ = ["DDIRS", "FioJobDir", "FioResult", "parse_fio_json"]

#: Data directions turned into rows, in this order within a job.
DDIRS = ("read", "write", "trim", "mixed")

_USEC = 1000.0  # ns per usec
_NSEC = 1.0


@dataclass(frozen=True, slots=True)
class FioJobDir:
    """One job x one data direction that did I/O (or ran)."""

    jobname: str
    groupid: int
    job_index: int  # position in the "jobs" array
    error: int
    ddir: str  # read | write | trim | mixed
    job_options: dict[str, str]
    io_bytes: int
    bw_bytes: float  # bytes/s
    iops: float
    runtime_ms: int
    total_ios: int | None
    short_ios: int | None
    drop_ios: int | None
    slat_mean_ns: float | None
    clat_min_ns: float | None
    clat_max_ns: float | None
    clat_mean_ns: float | None
    clat_stddev_ns: float | None
    lat_mean_ns: float | None
    lat_min_ns: float | None
    lat_max_ns: float | None
    clat_percentiles_ns: dict[float, float]  # percentile (e.g. 99.9) -> ns
    clat_bins_ns: dict[int, int] | None  # json+ only: bin latency ns -> count
    usr_cpu: float | None  # percent
    sys_cpu: float | None  # percent
    ctx: int | None
    majf: int | None
    minf: int | None
    elapsed_s: int | None

    def percentile(self, p: float) -> float | None:
        """The clat percentile `p` (e.g. 50.0, 99.0, 99.9) in ns, None if fio did not print it."""
        value = self.clat_percentiles_ns.get(float(p))
        if value is not None:
            return value
        for key, val in self.clat_percentiles_ns.items():
            if math.isclose(key, p, rel_tol=0.0, abs_tol=1e-6):
                return val
        return None


@dataclass(frozen=True, slots=True)
class FioResult:
    fio_version: str | None
    timestamp: int | None  # unix seconds
    global_options: dict[str, str]
    jobs: list[FioJobDir]
    preamble: list[str]  # lines before the JSON (fio's error lines)
    disk_util: list[dict]
    trailer: list[str] = field(default_factory=list)  # non-blank lines after the JSON (warnings)


# --------------------------------------------------------------------------------------------
# Entry point


def parse_fio_json(text: str, source: str = "fio.json") -> FioResult:
    """Parse fio JSON output. Raises FormatError (file `source`) on anything unreadable."""
    text = text.removeprefix("\ufeff")
    start = _find_json_start(text)
    if start is None:
        raise FormatError(
            source,
            "expected fio JSON output (--output-format=json or json+): no line starts with '{'",
            line=None,
        )
    offset, line_index = start
    ctx = _Ctx(text, source, offset, line_index + 1)

    try:
        doc, end = STRICT_JSON.raw_decode(text, offset)
    except StrictJsonError as exc:
        raise exc.format_error(source, text, offset) from None
    except json.JSONDecodeError as exc:
        # exc.lineno counts from the start of `text`, preamble included.
        raise FormatError(source, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except RecursionError:
        raise FormatError(source, "invalid JSON: nested too deeply", line=ctx.json_line) from None

    preamble = [ln.rstrip("\r") for ln in text[:offset].split("\n")[:line_index]]
    trailer = [ln.strip() for ln in text[end:].split("\n") if ln.strip()]

    if not isinstance(doc, dict):  # cannot happen (starts with '{'), kept for type narrowing
        raise FormatError(source, "expected a JSON object", line=ctx.json_line)

    jobs_raw = doc.get("jobs")
    if jobs_raw is None:
        hint = " (fio client/server output with client_stats is not supported)" if "client_stats" in doc else ""
        raise FormatError(
            source,
            f'expected a "jobs" list: this JSON is not fio output{hint}',
            line=ctx.json_line,
            field="jobs",
        )
    if not isinstance(jobs_raw, list):
        raise FormatError(source, f"expected a list of jobs, got {_kind(jobs_raw)}", line=ctx.json_line, field="jobs")

    version = doc.get("fio version", doc.get("fioversion"))
    version_key = "fio version" if "fio version" in doc else "fioversion"
    if version is not None and not isinstance(version, str):
        ctx.fail(version_key, f"expected a string, got {_kind(version)}")
    timestamp = _opt_int(ctx, doc, "timestamp", "")
    global_options = _options(ctx, doc.get("global options"), "global options")

    disk_util_raw = doc.get("disk_util", [])
    if not isinstance(disk_util_raw, list) or not all(isinstance(d, dict) for d in disk_util_raw):
        ctx.fail("disk_util", "expected a list of objects")

    rows: list[FioJobDir] = []
    for index, job in enumerate(jobs_raw):
        rows.extend(_check_row(ctx, row) for row in _job_rows(ctx, job, index))

    return FioResult(
        fio_version=version,
        timestamp=timestamp,
        global_options=global_options,
        jobs=rows,
        preamble=preamble,
        disk_util=list(disk_util_raw),
        trailer=trailer,
    )


# --------------------------------------------------------------------------------------------
# Locating things in the original text


def _find_json_start(text: str) -> tuple[int, int] | None:
    """(offset, 0-based line index) of the first line starting with '{'.

    fio prints its top-level object at column 0; a line that starts with '{' after blanks is only
    taken when no line starts with '{' at column 0.
    """
    pos = 0
    index = 0
    fallback: tuple[int, int] | None = None
    length = len(text)
    while pos <= length:
        end = text.find("\n", pos)
        if end == -1:
            end = length
        line = text[pos:end]
        if line.startswith("{"):
            return pos, index
        if fallback is None:
            stripped = line.lstrip()
            if stripped.startswith("{"):
                fallback = (pos + len(line) - len(stripped), index)
        pos = end + 1
        index += 1
    return fallback


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:]')


class _Ctx:
    """The text and where things are in it, for error messages."""

    def __init__(self, text: str, source: str, json_offset: int, json_line: int) -> None:
        self.text = text
        self.source = source
        self.json_offset = json_offset
        self.json_line = json_line
        self._job_lines: list[int] | None = None

    def fail(self, path: str, message: str, job_index: int | None = None) -> NoReturn:
        line = self.json_line if job_index is None else self.job_line(job_index)
        raise FormatError(self.source, message, line=line, field=path)

    def job_line(self, index: int) -> int:
        """Line (1-based, in the original text) where jobs[index] starts; the JSON's line if unknown.

        Only called on the error path: a small tokenizer over strings and brackets finds the
        elements of the top-level "jobs" array.
        """
        if self._job_lines is None:
            self._job_lines = [self.text.count("\n", 0, off) + 1 for off in self._job_offsets()]
        if 0 <= index < len(self._job_lines):
            return self._job_lines[index]
        return self.json_line

    def _job_offsets(self) -> list[int]:
        stack: list[str] = []
        last_string: str | None = None
        top_key: str | None = None
        in_jobs = False  # inside the top-level "jobs" array (stack == ["{", "["])
        offsets: list[int] = []
        for m in _TOKEN.finditer(self.text, self.json_offset):
            tok = m.group()
            c = tok[0]
            if c == '"':
                last_string = tok
            elif c == ":":
                if len(stack) == 1:
                    top_key = last_string
            elif c in "{[":
                if c == "{" and in_jobs and len(stack) == 2:
                    offsets.append(m.start())
                stack.append(c)
                if c == "[" and len(stack) == 2 and top_key == '"jobs"':
                    in_jobs = True
                    offsets = []  # a duplicate "jobs" key: json keeps the last one
            else:
                if stack:
                    stack.pop()
                if len(stack) == 1:
                    in_jobs = False
                if not stack:
                    break
        return offsets


# --------------------------------------------------------------------------------------------
# Typed access with field paths


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {json.dumps(shown)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _check_row(ctx: _Ctx, row: FioJobDir) -> FioJobDir:
    """Numbers computed from the JSON (KiB -> bytes, sums) stay finite and within 64 bits."""
    for f in dataclasses.fields(row):
        v = getattr(row, f.name)
        values = [*v.keys(), *v.values()] if isinstance(v, dict) else (v,)
        for x in values:
            if isinstance(x, float) and not math.isfinite(x) or isinstance(x, int) and abs(x) > _I64_MAX:
                ctx.fail(f"jobs[{row.job_index}].{row.ddir}.{f.name}",
                         f"the value {str(x)[:30]} is beyond what fio writes (finite, within 64 bits)", row.job_index)
    return row


_I64_MAX = 2**63 - 1


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _opt_num(ctx: _Ctx, obj: dict, key: str, path: str, job: int | None = None) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        ctx.fail(_join(path, key), f"expected a number, got {_kind(value)}", job)
    return float(value)


def _req_num(ctx: _Ctx, obj: dict, key: str, path: str, job: int | None = None) -> float:
    if key not in obj:
        ctx.fail(_join(path, key), "missing (expected a number)", job)
    value = _opt_num(ctx, obj, key, path, job)
    if value is None:
        ctx.fail(_join(path, key), "expected a number, got null", job)
    return value  # type: ignore[return-value]


def _opt_int(ctx: _Ctx, obj: dict, key: str, path: str, job: int | None = None) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        ctx.fail(_join(path, key), f"expected an integer, got {_kind(value)}", job)
    if isinstance(value, float):
        if not value.is_integer():
            ctx.fail(_join(path, key), f"expected an integer, got {_kind(value)}", job)
        return int(value)
    return value


def _req_int(ctx: _Ctx, obj: dict, key: str, path: str, job: int | None = None) -> int:
    if key not in obj:
        ctx.fail(_join(path, key), "missing (expected an integer)", job)
    value = _opt_int(ctx, obj, key, path, job)
    if value is None:
        ctx.fail(_join(path, key), "expected an integer, got null", job)
    return value  # type: ignore[return-value]


def _options(ctx: _Ctx, raw: Any, path: str, job: int | None = None) -> dict[str, str]:
    """fio prints option values as strings; numbers are accepted and turned into strings."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        ctx.fail(path, f"expected an object of options, got {_kind(raw)}", job)
    out: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            out[key] = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = str(value)
        else:
            ctx.fail(_join(path, key), f"expected a string, got {_kind(value)}", job)
    return out


# --------------------------------------------------------------------------------------------
# Jobs and directions


def _job_rows(ctx: _Ctx, job: Any, index: int) -> list[FioJobDir]:
    path = f"jobs[{index}]"
    if not isinstance(job, dict):
        ctx.fail(path, f"expected a job object, got {_kind(job)}", index)
    jobname = job.get("jobname")
    if not isinstance(jobname, str):
        ctx.fail(
            _join(path, "jobname"),
            "missing (expected a string)" if jobname is None else f"expected a string, got {_kind(jobname)}",
            index,
        )
    groupid = _req_int(ctx, job, "groupid", path, index)
    error = _req_int(ctx, job, "error", path, index)
    job_options = _options(ctx, job.get("job options"), _join(path, "job options"), index)
    usr_cpu = _opt_num(ctx, job, "usr_cpu", path, index)
    sys_cpu = _opt_num(ctx, job, "sys_cpu", path, index)
    ctx_sw = _opt_int(ctx, job, "ctx", path, index)
    majf = _opt_int(ctx, job, "majf", path, index)
    minf = _opt_int(ctx, job, "minf", path, index)
    elapsed = _opt_int(ctx, job, "elapsed", path, index)

    rows: list[FioJobDir] = []
    for ddir in DDIRS:
        if ddir not in job:
            continue
        block = job[ddir]
        dpath = _join(path, ddir)
        if not isinstance(block, dict):
            ctx.fail(dpath, f"expected an object, got {_kind(block)}", index)

        raw_io = _req_int(ctx, block, "io_bytes", dpath, index)
        if "io_kbytes" in block:
            _req_int(ctx, block, "io_kbytes", dpath, index)
            io_bytes = raw_io
        else:
            io_bytes = raw_io * 1024  # fio < 3.0: "io_bytes" is KiB (see module doc)
        bw_kib = _req_num(ctx, block, "bw", dpath, index)
        bw_bytes_raw = _opt_num(ctx, block, "bw_bytes", dpath, index)
        bw_bytes = bw_bytes_raw if bw_bytes_raw is not None else bw_kib * 1024.0
        iops = _req_num(ctx, block, "iops", dpath, index)
        runtime_ms = _req_int(ctx, block, "runtime", dpath, index)
        total_ios = _opt_int(ctx, block, "total_ios", dpath, index)
        short_ios = _opt_int(ctx, block, "short_ios", dpath, index)
        drop_ios = _opt_int(ctx, block, "drop_ios", dpath, index)

        if io_bytes <= 0 and runtime_ms <= 0 and not total_ios:
            continue  # a direction the job did not use

        slat = _lat(ctx, block, "slat", dpath, index)
        clat = _lat(ctx, block, "clat", dpath, index)
        lat = _lat(ctx, block, "lat", dpath, index)

        rows.append(
            FioJobDir(
                jobname=jobname,  # type: ignore[arg-type]
                groupid=groupid,
                job_index=index,
                error=error,
                ddir=ddir,
                job_options=job_options,
                io_bytes=io_bytes,
                bw_bytes=bw_bytes,
                iops=iops,
                runtime_ms=runtime_ms,
                total_ios=total_ios,
                short_ios=short_ios,
                drop_ios=drop_ios,
                slat_mean_ns=slat.mean,
                clat_min_ns=clat.min,
                clat_max_ns=clat.max,
                clat_mean_ns=clat.mean,
                clat_stddev_ns=clat.stddev,
                lat_mean_ns=lat.mean,
                lat_min_ns=lat.min,
                lat_max_ns=lat.max,
                clat_percentiles_ns=clat.percentiles,
                clat_bins_ns=clat.bins,
                usr_cpu=usr_cpu,
                sys_cpu=sys_cpu,
                ctx=ctx_sw,
                majf=majf,
                minf=minf,
                elapsed_s=elapsed,
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class _Lat:
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    stddev: float | None = None
    percentiles: dict[float, float] = field(default_factory=dict)
    bins: dict[int, int] | None = None


def _lat(ctx: _Ctx, block: dict, name: str, dpath: str, job: int) -> _Lat:
    """A latency stat (`name`_ns in ns, or `name` in usec), normalised to ns."""
    if f"{name}_ns" in block:
        key, scale = f"{name}_ns", _NSEC
    elif name in block:
        key, scale = name, _USEC
    else:
        return _Lat()
    path = _join(dpath, key)
    raw = block[key]
    if not isinstance(raw, dict):
        ctx.fail(path, f"expected an object, got {_kind(raw)}", job)

    lo = _opt_num(ctx, raw, "min", path, job)
    hi = _opt_num(ctx, raw, "max", path, job)
    mean = _opt_num(ctx, raw, "mean", path, job)
    stddev = _opt_num(ctx, raw, "stddev", path, job)
    samples = _opt_int(ctx, raw, "N", path, job)
    bins = _bins(ctx, raw, path, job, scale)

    empty = samples == 0 if samples is not None else (lo == 0 and hi == 0 and mean == 0)
    if empty:
        return _Lat(bins=bins)

    percentiles: dict[float, float] = {}
    pct_raw = raw.get("percentile")
    if pct_raw is not None:
        ppath = _join(path, "percentile")
        if not isinstance(pct_raw, dict):
            ctx.fail(ppath, f"expected an object, got {_kind(pct_raw)}", job)
        for pkey, pval in pct_raw.items():
            if not is_float(pkey) or not 0.0 <= float(pkey) <= 100.0:
                ctx.fail(_join(ppath, pkey[:40]), 'expected a percentile key like "99.900000"', job)
            p = float(pkey)
            if isinstance(pval, bool) or not isinstance(pval, (int, float)):
                ctx.fail(_join(ppath, pkey), f"expected a number, got {_kind(pval)}", job)
            if p <= 0.0 and pval == 0:
                continue  # fio 2.x padding ("0.00": 0)
            percentiles[p] = _scaled(float(pval), scale)

    def ns(v: float | None) -> float | None:
        return None if v is None else _scaled(v, scale)

    return _Lat(min=ns(lo), max=ns(hi), mean=ns(mean), stddev=ns(stddev), percentiles=percentiles, bins=bins)


def _scaled(value: float, scale: float) -> float:
    """usec -> ns without float noise (fio prints at most 6 decimals: 10.783442 -> 10783.442)."""
    return value if scale == _NSEC else round(value * scale, 6)


def _plat_idx_to_val(idx: int, bits: int, val: int) -> int:
    """fio's plat_idx_to_val(): the value a histogram bin stands for (the middle of its range)."""
    if idx < (val << 1):
        return idx
    error_bits = (idx >> bits) - 1
    base = 1 << (error_bits + bits)
    k = idx % val
    return int(base + ((k + 0.5) * (1 << error_bits)))


def _bins(ctx: _Ctx, raw: dict, path: str, job: int, scale: float) -> dict[int, int] | None:
    bins_raw = raw.get("bins")
    if bins_raw is None:
        return None
    bpath = _join(path, "bins")
    if not isinstance(bins_raw, dict):
        ctx.fail(bpath, f"expected an object, got {_kind(bins_raw)}", job)

    indexed = "FIO_IO_U_PLAT_BITS" in bins_raw  # fio 2.x json+: keys are bin indices
    bits = val = 0
    if indexed:
        bits = _req_int(ctx, bins_raw, "FIO_IO_U_PLAT_BITS", bpath, job)
        val = _req_int(ctx, bins_raw, "FIO_IO_U_PLAT_VAL", bpath, job)
    out: dict[int, int] = {}
    for key, count in bins_raw.items():
        if key.startswith("FIO_IO_U_PLAT_"):
            continue
        if isinstance(count, bool) or not (isinstance(count, int) or (isinstance(count, float) and count.is_integer())):
            ctx.fail(_join(bpath, key), f"expected an integer count, got {_kind(count)}", job)
        if not is_int(key) or int(key) < 0:
            ctx.fail(_join(bpath, key[:40]), "expected a bin key that is an integer >= 0", job)
        k = int(key)
        if not count:
            continue
        value = _plat_idx_to_val(k, bits, val) if indexed else k
        ns = round(value * scale)
        out[ns] = out.get(ns, 0) + int(count)
    return dict(sorted(out.items()))
