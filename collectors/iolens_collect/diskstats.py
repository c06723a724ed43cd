"""/proc/diskstats around a run of ``iolens-collect cmd``: the file is copied byte for byte before
and after the command (artifacts of kind ``diskstats``, the server computes the deltas); here
only what the collector prints at the end of a run.

Fields (Documentation/admin-guide/iostats.rst): major, minor, name, then reads completed, reads
merged, sectors read, ms reading, writes completed, writes merged, sectors written, ms writing,
I/Os in progress, ms doing I/O, weighted ms; 4.18+ adds discards (4 fields), 5.5+ flushes (2).
Sectors are 512 bytes whatever the device's block size.
"""

from __future__ import annotations

import os
import time
from typing import Dict, List, Optional, Tuple

__all__ = ["FIELDS", "parse", "read", "resolve", "delta", "summary"]

FIELDS = ("reads", "reads_merged", "sectors_read", "read_ms", "writes", "writes_merged",
          "sectors_written", "write_ms", "in_flight", "io_ms", "weighted_ms",
          "discards", "discards_merged", "sectors_discarded", "discard_ms", "flushes", "flush_ms")


def parse(text: str) -> Dict[str, Dict[str, int]]:
    """name -> {field: value} (fields the kernel did not print are absent)."""
    out: Dict[str, Dict[str, int]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 14:
            continue
        try:
            values = [int(x) for x in parts[3:3 + len(FIELDS)]]
        except ValueError:
            continue
        row = dict(zip(FIELDS, values))
        row["major"], row["minor"] = int(parts[0]), int(parts[1])
        out[parts[2]] = row
    return out


def read(root: str = "/") -> Tuple[bytes, int]:
    """(the text of /proc/diskstats, CLOCK_MONOTONIC ns when it was read)."""
    with open(os.path.join(root, "proc/diskstats"), "rb") as f:
        data = f.read()
    return data, time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def resolve(spec: str, root: str = "/") -> str:
    """A device as /proc/diskstats names it: 'loop0', '/dev/loop0' or '7:0' -> 'loop0'.
    Raises ValueError naming what is known."""
    try:
        with open(os.path.join(root, "proc/diskstats")) as f:
            stats = parse(f.read())
    except OSError as exc:
        raise ValueError(f"cannot read /proc/diskstats: {exc.strerror or exc}") from None
    name = spec[5:] if spec.startswith("/dev/") else spec
    if name in stats:
        return name
    if ":" in spec:
        try:
            major, minor = (int(x) for x in spec.split(":", 1))
        except ValueError:
            major = minor = -1
        for n, row in stats.items():
            if (row["major"], row["minor"]) == (major, minor):
                return n
    if spec.startswith("/dev/"):
        real = os.path.realpath(spec)
        if real.startswith("/dev/") and real[5:] in stats:
            return real[5:]
    busy = sorted(n for n, r in stats.items() if r.get("reads", 0) or r.get("writes", 0))
    raise ValueError(f"device {spec!r} is not in /proc/diskstats (devices with I/O: {', '.join(busy[:12]) or 'none'})")


def delta(before: Dict[str, Dict[str, int]], after: Dict[str, Dict[str, int]],
          devices: List[str]) -> Dict[str, Dict[str, int]]:
    out = {}
    for d in devices:
        if d in before and d in after:
            out[d] = {k: after[d][k] - before[d][k] for k in FIELDS if k in after[d] and k in before[d]
                      and k != "in_flight"}
    return out


def _rate(v: float) -> str:
    return f"{v / 1000:.1f}k" if v >= 10000 else f"{v:.0f}"


def summary(d: Dict[str, Dict[str, int]], seconds: float) -> Optional[str]:
    """'loop0 read 1.2k IOPS 4.7 MiB/s, write 0 IOPS 0.0 MiB/s' over the run."""
    if seconds <= 0:
        return None
    parts = []
    for name, f in d.items():
        r, w = f.get("reads", 0) / seconds, f.get("writes", 0) / seconds
        rb = f.get("sectors_read", 0) * 512 / seconds / (1 << 20)
        wb = f.get("sectors_written", 0) * 512 / seconds / (1 << 20)
        parts.append(f"{name} read {_rate(r)} IOPS {rb:.1f} MiB/s, write {_rate(w)} IOPS {wb:.1f} MiB/s")
    return "; ".join(parts) or None
