"""The fast path for block events: `iolens_native.block_perf_csv` (Rust, backend/native/iolens_native
src/block/).

One pass over a `perf-block` artifact (`perf script --ns` text of the block tracepoints, gzip
detected): read, parse, match issue to completion and write the CSV rows that ingest loads into
block_ios, in Rust, with decompression on a second thread. The rules are those of the Python
reference, which stays: `PerfBlockReader` (perf_block.py), `IoMatcher` and `csv.writer`
(ingest/block.py). The CSV is the same bytes and the counters are the same numbers
(backend/tests/test_block_native.py runs both paths on the same inputs and compares them), and a
malformed line raises the same FormatError (file, line, field, message).

The Python path is used instead
- when `iolens_native` cannot be imported or predates `block_perf_csv`;
- when the environment sets IOLENS_BLOCK_NATIVE=0;
- when the input needs what the Rust pass does not reimplement (it raises `Fallback`, and
  `read_block_artifact` reads the file again in Python): non-ASCII text where Python's `int()` or
  `re` would read Unicode digits or spaces, integers beyond 64 bits, unreadable or corrupt gzip
  (whose exceptions are Python's own). Real perf output never needs it.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass
from pathlib import Path

from .errors import FormatError

try:
    import iolens_native as _native
except ImportError:  # pragma: no cover - the package is built by `uv sync`
    _native = None

ENV = "IOLENS_BLOCK_NATIVE"
_I64 = (-(1 << 63), (1 << 63) - 1)


class Fallback(Exception):
    """The input needs the Python reader (the reason is the message)."""


def available() -> bool:
    """The compiled pass is importable."""
    return _native is not None and hasattr(_native, "block_perf_csv")


def enabled() -> bool:
    """Ingest uses the compiled pass: available, and not turned off with IOLENS_BLOCK_NATIVE=0."""
    return available() and os.environ.get(ENV, "1").strip() not in ("0", "false", "no", "off")


@dataclass(frozen=True)
class BlockPass:
    """What one pass gave besides the CSV: PerfBlockReader's and IoMatcher's counters, each dict in
    the key order the Python Counter would have (first increment)."""

    bytes: int                     # text bytes read (after decompression)
    rows: int                      # CSV rows written
    tracepoints: dict[str, int]    # PerfBlockReader.tracepoints
    foreign: int
    passthrough: int
    usec_times: int
    lost: int
    lines: int
    t0_ns: int | None              # IoMatcher.t0_ns, first_ns, last_ns, counts, actions, devices
    first_ns: int | None
    last_ns: int | None
    counts: dict[str, int]
    actions: dict[str, int]
    devices: dict[str, int]
    unmatched_completes: array     # IoMatcher._unmatched_completes (array of int64)
    unfinished_issues: array       # IoMatcher._unfinished_issues


def _times(raw: bytes) -> array:
    a = array("q")
    a.frombytes(raw)
    return a


def perf_block_csv(member: str | os.PathLike[str] | bytes, source: str, csv_path: str | os.PathLike[str],
                   t0_ns: int | None = None, *, chunk_bytes: int = 0) -> BlockPass:
    """Reads `member` (a path, or the text as bytes), writes the rows of IoMatcher.feed + finish to
    `csv_path` as csv.writer writes them. Raises FormatError as PerfBlockReader does (`source` names
    the file), Fallback when the Python path must read this input, OSError when the CSV cannot be
    written. chunk_bytes: the read size (0 = 1 MiB; tests use tiny ones)."""
    if not available():
        raise Fallback("iolens_native.block_perf_csv is not available")
    if t0_ns is not None:
        t0_ns = int(t0_ns)
        if not _I64[0] <= t0_ns <= _I64[1]:
            raise Fallback("trace_clock_at_start_ns beyond 64 bits")
    src = member if isinstance(member, bytes) else os.fspath(Path(member))
    d = _native.block_perf_csv(src, os.fspath(csv_path), t0_ns=t0_ns, chunk_bytes=chunk_bytes)
    if "fallback" in d:
        raise Fallback(d["fallback"])
    if "error" in d:
        line, kind, name, text = d["error"]
        # the messages of PerfBlockReader.events
        if kind == "line":
            raise FormatError(source, f"not a perf script sample line: {text[:80]!r}", line=line)
        if kind == "header":
            raise FormatError(source, f"unexpected sample header {text.strip()!r}", line=line, field="header")
        raise FormatError(source, f"cannot read the {name} payload {text.strip()!r}", line=line, field=name)
    return BlockPass(
        d["bytes"], d["rows"], dict(d["tracepoints"]), d["foreign"], d["passthrough"], d["usec_times"],
        d["lost"], d["lines"], d["t0_ns"], d["first_ns"], d["last_ns"], dict(d["counts"]),
        dict(d["actions"]), dict(d["devices"]), _times(d["unmatched_completes"]),
        _times(d["unfinished_issues"]),
    )
