"""/proc/diskstats (Linux 2.6 to 6.x) as rows, and the difference of two reads.

Pure: text in, dataclasses out. Reference: the kernel's Documentation/admin-guide/iostats.rst.
Each line: major, minor, device name, then 11 counters (reads completed, reads merged, sectors
read, ms reading, writes completed, writes merged, sectors written, ms writing, I/Os in
progress, ms doing I/O, weighted ms), 4 more for discards since Linux 4.18 and 2 for flushes
since 5.5. A sector is 512 bytes whatever the device's block size. Counters are unsigned longs
that wrap (on 32-bit kernels, at 2^32): a negative difference is taken as one wrap of the
width that makes it positive.
"""

from __future__ import annotations

from dataclasses import dataclass

from iolens.formats.errors import FormatError
from iolens.formats.numbers import to_int

__all__ = ["FIELDS", "DiskStat", "parse_diskstats", "DiskDelta", "delta"]

FIELDS = ("reads", "reads_merged", "sectors_read", "read_ms", "writes", "writes_merged", "sectors_written",
          "write_ms", "in_flight", "io_ms", "weighted_ms", "discards", "discards_merged", "sectors_discarded",
          "discard_ms", "flushes", "flush_ms")


@dataclass(frozen=True, slots=True)
class DiskStat:
    major: int
    minor: int
    name: str
    counters: dict[str, int]  # FIELDS present on this kernel


def parse_diskstats(text: str, source: str = "diskstats") -> list[DiskStat]:
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 14:
            raise FormatError(source, f"expected major, minor, name and at least 11 counters, got {len(parts)} fields",
                              line=lineno)
        nums = [to_int(x, source, lineno, name, minimum=0) for name, x in zip(FIELDS, parts[3:3 + len(FIELDS)])]
        major = to_int(parts[0], source, lineno, "major", minimum=0)
        minor = to_int(parts[1], source, lineno, "minor", minimum=0)
        out.append(DiskStat(major, minor, parts[2], dict(zip(FIELDS, nums))))
    if not out:
        raise FormatError(source, "empty: no device lines")
    return out


@dataclass(frozen=True, slots=True)
class DiskDelta:
    name: str
    major: int
    minor: int
    reads: int
    writes: int
    read_bytes: int
    write_bytes: int
    read_ms: int
    write_ms: int
    io_ms: int  # time the device had I/O in flight: io_ms / elapsed is its utilisation


def _diff(a: int, b: int) -> int:
    d = b - a
    if d >= 0:
        return d
    for bits in (32, 64):
        if d + (1 << bits) >= 0:
            return d + (1 << bits)
    return 0


def delta(before: list[DiskStat], after: list[DiskStat]) -> list[DiskDelta]:
    """Per device present in both reads (matched by name)."""
    prev = {d.name: d for d in before}
    out = []
    for d in after:
        p = prev.get(d.name)
        if p is None:
            continue
        c0, c1 = p.counters, d.counters
        out.append(DiskDelta(
            d.name, d.major, d.minor, _diff(c0["reads"], c1["reads"]), _diff(c0["writes"], c1["writes"]),
            _diff(c0["sectors_read"], c1["sectors_read"]) * 512, _diff(c0["sectors_written"], c1["sectors_written"]) * 512,
            _diff(c0["read_ms"], c1["read_ms"]), _diff(c0["write_ms"], c1["write_ms"]), _diff(c0["io_ms"], c1["io_ms"]),
        ))
    return out
