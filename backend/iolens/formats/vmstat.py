"""`vmstat [-a] [-w] [-t] [-n] DELAY [COUNT]` text (procps-ng) -> one row per sample.

Reference: procps-ng 4.0.2 (Debian 12), vmstat.c (new_header, new_format). Samples in
tests/formats/samples/vmstat with the commands that made them.

    procps -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----
     r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st gu
    14  0      0 21017820  41784 2575404    0    0  2811  3458  650 2644 42 10 47  1  0  0

- The first line groups the columns, the second names them; columns are read from that line, so
  every procps version's set is read (`gu`, guest time, is new in procps-ng 4.0.3; `-a` prints
  inact/active instead of buff/cache).
- `-t` adds a "-----timestamp-----" group and a column named after the time zone ("UTC"), whose
  value is two words ("2026-11-25 13:51:55"): kept as `time`.
- vmstat repeats the two header lines when its output is a terminal taller than the samples: read
  again, they must name the same columns.
- The first sample is the average since boot (vmstat(8)); `Vmstat.rows[0]` is marked `since_boot`.
- Memory is in KiB unless `-S` was given (the text does not say which: not converted); si/so,
  bi/bo are per second, in/cs per second, us..gu are percent of CPU time.
- `vmstat -d`, `-s`, `-m`, `-D` print other tables: refused, naming what was seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import FormatError
from .numbers import to_int


@dataclass
class VmstatRow:
    index: int
    since_boot: bool
    values: dict[str, int]        # column -> value
    time: str | None              # with -t


@dataclass
class Vmstat:
    columns: list[str]
    timezone: str | None          # the -t column's name ("UTC"), None without -t
    rows: list[VmstatRow]


def _is_group_line(s: str) -> bool:
    return s.startswith("procs") or s.startswith("--procs") or s.startswith("-procs")


def parse_vmstat(text: str, source: str = "vmstat.txt") -> Vmstat:
    lines = text.replace("\r\n", "\n").split("\n")
    columns: list[str] | None = None
    timezone: str | None = None
    rows: list[VmstatRow] = []
    expect_names = False
    for lineno, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        if _is_group_line(s):
            expect_names = True
            continue
        if expect_names:
            names = s.split()
            if names[:2] != ["r", "b"]:
                raise FormatError(source, f"expected vmstat's column names (r b swpd ...), got {s[:60]!r}",
                                  line=lineno, field="header")
            tz = None
            if "timestamp" in lines[lineno - 2]:
                tz = names.pop()
            if columns is not None and names != columns:
                raise FormatError(source, "the repeated header names other columns", line=lineno, field="header")
            columns, timezone = names, tz
            expect_names = False
            continue
        if columns is None:
            raise FormatError(source, f"not vmstat output (no 'procs' header before {s[:60]!r}); "
                                      "only the default table is read, not -d/-s/-m/-D", line=lineno)
        toks = s.split()
        want = len(columns) + (2 if timezone is not None else 0)
        if len(toks) != want:
            raise FormatError(source, f"{len(toks)} values for {want} columns", line=lineno, field="row")
        vals: dict[str, int] = {}
        for c, t in zip(columns, toks):
            vals[c] = to_int(t, source, lineno, c)
        time = " ".join(toks[len(columns):]) if timezone is not None else None
        rows.append(VmstatRow(len(rows), not rows, vals, time))
    if columns is None:
        raise FormatError(source, "no vmstat header ('procs ...' and 'r b ...')")
    if not rows:
        raise FormatError(source, "a vmstat header and no sample")
    return Vmstat(columns, timezone, rows)
