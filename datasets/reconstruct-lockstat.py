#!/usr/bin/env python3
"""Reconstruct /proc/lock_stat dumps from figures published on a mailing list.

The figures are copied from the message cited below; this script only lays them out the way the
kernel prints them (kernel/locking/lockdep_proc.c, seq_header and seq_stats, version 0.4), so that
iolens can read them like a dump taken on the machine. Everything it writes is labelled
"reconstructed": the numbers are the published ones, the file around them is not the original.

    python3 datasets/reconstruct-lockstat.py OUTDIR     # writes OUTDIR/<name>.lock_stat.txt

Source: Mel Gorman, "Re: [RFC PATCH v0] mm/slub: Let number of online CPUs determine the slub
page order", linux-kernel, 2021-01-28, Message-ID <20210128134512.GF3592@techsingularity.net>
(https://lore.kernel.org/all/20210128134512.GF3592@techsingularity.net/). hackbench-process-sockets
on a 2-socket, 40-core (80-thread) x86-64 machine, 5.11-rc5 "vanilla" and with the patch reverted
("revert"); the post shows the &zone->lock class of each run's lock_stat, which is all that is
reconstructed here (the post does not show the other classes).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

WIDTH = 40 + 1 + 12 * (14 + 1)  # 221, the kernel's table width
HEADER = ("class name", "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total",
          "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
          "holdtime-avg")


@dataclass
class Times:
    """One seq_lock_time: a count and min/max/total/avg in microseconds as published."""

    nr: int
    min_us: str
    max_us: str
    total_us: str
    avg_us: str


@dataclass
class LockClass:
    name: str
    con_bounces: int
    wait: Times
    acq_bounces: int
    hold: Times
    contention_points: list[tuple[int, str, str]] = field(default_factory=list)  # count, address, symbol
    contending_points: list[tuple[int, str, str]] = field(default_factory=list)


def _lock_time(t: Times) -> str:
    # seq_lock_time: "%14lu" then " %14s" per time (the kernel's text is reused as published)
    return f"{t.nr:14d}" + "".join(f" {v:>14s}" for v in (t.min_us, t.max_us, t.total_us, t.avg_us))


def render(classes: list[LockClass]) -> str:
    """The text of /proc/lock_stat for these classes, write-only rows (spinlocks), as seq_stats prints it."""
    out = ["lock_stat version 0.4\n", "-" * WIDTH + "\n"]
    out.append(f"{HEADER[0]:>40s}" + "".join(f" {h:>14s}" for h in HEADER[1:]) + "\n")
    out += ["-" * WIDTH + "\n", "\n"]
    for c in classes:
        out.append(f"{c.name:>40s}:{c.con_bounces:14d} {_lock_time(c.wait)} {c.acq_bounces:14d} {_lock_time(c.hold)}\n")
        if c.wait.nr == 0:
            continue
        n = len(c.name)
        for points in (c.contention_points, c.contending_points):
            if points:
                out.append(" " * (40 - n) + "-" * n + "\n")
            for count, addr, sym in points:
                out.append(f"{c.name:>40s} {count:14d} {'[<' + addr + '>]':>29s} {sym}\n")
        if c.contending_points:
            out += ["\n", "." * WIDTH + "\n", "\n"]
    return "".join(out)


# The published figures, row for row.
ZONE_LOCK = {
    "5.11-rc5-vanilla": LockClass(
        "&zone->lock", 1202731, Times(1203433, "0.07", "120.55", "1555485.48", "1.29"),
        8920825, Times(12537091, "0.06", "84.10", "9855085.12", "0.79"),
        contention_points=[
            (61903, "00000000b47dc96a", "free_one_page+0x3f/0x530"),
            (7655, "00000000099f6e05", "get_page_from_freelist+0x475/0x1370"),
            (36529, "0000000075b9b918", "free_pcppages_bulk+0x1ac/0x7d0"),
            (1097346, "00000000b8e4950a", "get_page_from_freelist+0xaf0/0x1370"),
        ],
        contending_points=[
            (44716, "00000000099f6e05", "get_page_from_freelist+0x475/0x1370"),
            (69813, "0000000075b9b918", "free_pcppages_bulk+0x1ac/0x7d0"),
            (31596, "00000000b47dc96a", "free_one_page+0x3f/0x530"),
            (1057308, "00000000b8e4950a", "get_page_from_freelist+0xaf0/0x1370"),
        ],
    ),
    "5.11-rc5-revert": LockClass(
        "&zone->lock", 735827, Times(739037, "0.06", "66.12", "699661.56", "0.95"),
        4095299, Times(7757942, "0.05", "54.35", "5670083.68", "0.73"),
        contention_points=[
            (101927, "00000000a60d5f86", "free_one_page+0x3f/0x530"),
            (626426, "00000000122cecf3", "get_page_from_freelist+0xaf0/0x1370"),
            (9207, "0000000068b9c9a1", "free_pcppages_bulk+0x1ac/0x7d0"),
            (1477, "00000000f856e720", "get_page_from_freelist+0x475/0x1370"),
        ],
        contending_points=[
            (6249, "00000000f856e720", "get_page_from_freelist+0x475/0x1370"),
            (92224, "00000000a60d5f86", "free_one_page+0x3f/0x530"),
            (19690, "0000000068b9c9a1", "free_pcppages_bulk+0x1ac/0x7d0"),
            (620874, "00000000122cecf3", "get_page_from_freelist+0xaf0/0x1370"),
        ],
    ),
}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[2].strip(), file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, cls in ZONE_LOCK.items():
        path = out / f"{name}.lock_stat.txt"
        path.write_text(render([cls]), encoding="utf-8")
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
