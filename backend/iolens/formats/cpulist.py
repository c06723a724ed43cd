"""The kernel's CPU list format ('0-2,5'), as /sys/devices/system/cpu/online and taskset -c use it."""

from __future__ import annotations


def parse_cpu_list(text: str) -> list[int]:
    """'0-2,5' -> [0, 1, 2, 5] (the kernel's cpulist format, as taskset -c takes it)."""
    cpus: set[int] = set()
    for part in str(text).replace(" ", "").split(","):
        if not part:
            continue
        lo, dash, hi = part.partition("-")
        if dash:
            a, b = int(lo), int(hi)
            if b < a or b - a > 65536:
                raise ValueError(f"bad CPU range {part!r}")
            cpus.update(range(a, b + 1))
        else:
            cpus.add(int(part))
    return sorted(cpus)
