"""/proc/lock_stat text written by hand for the lock_stat tests (not a test module): a class row
as seq_stats prints it, its call-site points, and a whole dump."""

from __future__ import annotations

HEADER = """lock_stat version 0.4
{dashes}
                              class name    con-bounces    contentions   waittime-min   waittime-max waittime-total   waittime-avg    acq-bounces   acquisitions   holdtime-min   holdtime-max holdtime-total   holdtime-avg
{dashes}

""".format(dashes="-" * 221)


def row(name: str, contentions: int, wait_total_us: float, acquisitions: int = 1000, hold_total_us: float = 500.0,
        suffix: str = "") -> str:
    """A class row as seq_stats prints it (times in us)."""
    label = f"{name}{suffix}:".rjust(41)
    avg_w = wait_total_us / contentions if contentions else 0.0
    avg_h = hold_total_us / acquisitions if acquisitions else 0.0
    wmin, wmax = (0.05, wait_total_us) if contentions else (0.0, 0.0)
    times_w = " ".join(f"{v:14.2f}" for v in (wmin, wmax, wait_total_us, avg_w))
    times_h = " ".join(f"{v:14.2f}" for v in (0.02, hold_total_us, hold_total_us, avg_h))
    return f"{label}{contentions:14d} {contentions:14d} {times_w} {acquisitions // 2:14d} {acquisitions:14d} {times_h}\n"


def points(name: str, contention: list[tuple[int, str]], contending: list[tuple[int, str]]) -> str:
    out = ""
    for pts in (contention, contending):
        if pts:
            out += " " * (40 - len(name)) + "-" * len(name) + "\n"
        for i, (count, sym) in enumerate(pts):
            out += f"{name:>40s} {count:14d} {'[<00000000%08x>]' % (0xA0 + i):>29s} {sym}\n"
    return out + "\n" + "." * 221 + "\n\n"


def dump(*classes: str) -> str:
    return HEADER + "".join(classes)
