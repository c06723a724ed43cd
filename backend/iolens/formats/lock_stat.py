"""/proc/lock_stat (version 0.4) as rows: one per lock class and read/write state, with the
contention and contending points of each class.

Pure: text in, dataclasses out, no I/O. Times are normalised to nanoseconds (integers: the kernel
prints microseconds with two decimals, so every value is a multiple of 10 ns).

The layout, from the kernel's kernel/locking/lockdep_proc.c (seq_header, seq_stats, seq_lock_time;
unchanged since version 0.4 added the two -avg columns) and Documentation/locking/lockstat.rst:

    lock_stat version 0.4
    [*WARNING* lock debugging disabled!! - possibly due to a lockdep warning]
    ------...  (221 dashes: 40 + 1 + 12 * (14 + 1))
                                  class name    con-bounces    contentions   waittime-min ...
    ------...
    <blank>
                             &mm->mmap_sem-W:            46             84           0.26 ...
                             &mm->mmap_sem-R:            37            100           1.31 ...
                             ---------------
                               &mm->mmap_sem              1          [<ffffffff811502a7>] khugepaged_scan_mm_slot+0x57/0x280
                             ---------------
                               &mm->mmap_sem             60          [<ffffffff81129e29>] SyS_mprotect+0xe9/0x250
    <blank>
    ......  (221 dots)
    <blank>

Quirks handled here, each next to the line that handles it:

- Class name: `%40s:` (or `%38s-W:` / `%38s-R:`), right-aligned in the first 40 columns, from a
  39-byte buffer: the name is cut to 37 characters (35 when a `#N` name version or a `/N` subclass
  suffix follows, 33 with both; a version above 9 keeps its first digit only, "XXX truncates
  versions > 9" in the source). A cut name can end inside an expression and hold spaces, braces,
  "=" or ":" (`&(({ do { const void *__vpp_verify = :` in a real 6.12 dump, the cut text of a
  per-CPU lock's `#define`), so a row is split at column 40 when the line is laid out as the
  kernel prints it, and the name is everything before that column but the padding (a trailing
  space is part of the name). Only an excerpt whose padding was removed is split by pattern.
  Two classes can print the same name (`&sb->s_type->i_lock_key#2` three times in that dump: one
  key per file system type): the second gets `occurrence` 1 (and a warning), and (name,
  occurrence) is what keeps classes apart everywhere downstream.
- Read/write: a class with both read and write acquisitions prints two rows, `NAME-W:` then
  `NAME-R:`. A class with only write (or exclusive: spinlocks, mutexes) acquisitions prints one row
  `NAME:` holding the *write* statistics; one with only read acquisitions prints `NAME-R:`. So
  `rw` is "W" or "R" (what the numbers are) and `rw_shown` says whether the suffix was printed.
- Times: `%14s` of "%lld.%02d" microseconds. Older kernels format them in a 15-byte buffer
  (`char num[15]` in seq_time; 6.12 has 22 bytes): a value of 15 characters or more is cut to 14. `123456789012.34` us prints as `123456789012.3` (kept, to 0.1 us, with a warning);
  past that the integer part itself is cut (`12345678901234` for 1234567890123456.78): such a value
  is unknown, stored as None, with a warning.
- Points: `%40s %14lu %29s %pS`, the class name in the same 40 columns; up to four contention points (call sites that waited) then up to four contending points
  (call sites that held the lock meanwhile), each list after a line of dashes. Points belong to the
  class, not to its -R/-W rows. `%pS` prints `func+0xOFF/0xSIZE`, with ` [module]` for modules, or
  the bare address when there is no symbol; `[<%p>]` prints a hashed address since Linux 4.15
  (`[<00000000b47dc96a>]`), or `(____ptrval____)` early in boot.
- A class with no contention prints no points and no closing dots; a class whose contention points
  are all set prints its dots only after contending points. A lone point list is read as contention
  points: the kernel records a contention point before the wait that makes a contending one.
- `*WARNING* lock debugging disabled!!`: lockdep switched itself off (after a splat); counting
  stopped at that moment, so the figures cover only part of the run. Kept as `debug_locks_off`.

Refused, with a FormatError that says why (never misread):
- A dump wrapped by an email client: rows of 221 columns broken at ~72-78 columns, so that a class
  row holds only some of its 12 numbers and the rest sit on the next lines.
- A listing with line numbers (Documentation/locking/lockstat.rst prints one), a quoted reply
  ("> "), and versions other than 0.4 (0.2 and 0.3 have no -avg columns).
Accepted with a warning: an excerpt without the `lock_stat version` line and header (as pasted in
mails and documents).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from iolens.formats.errors import FormatError

__all__ = [
    "COLUMNS",
    "LockClass",
    "LockPoint",
    "LockRow",
    "LockStatDump",
    "parse_lock_stat",
]

VERSION = "0.4"

#: The header's column names, in order (the first is "class name").
COLUMNS = (
    "class name", "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total",
    "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
    "holdtime-avg",
)
_HEADER_TOKENS = ["class", "name", *COLUMNS[1:]]
_COUNT_FIELDS = {0, 1, 6, 7}  # positions of counts; the others are times
_KERNEL_WIDTH = 40 + 1 + 12 * (14 + 1)  # 221: every full-width line of the table

_VERSION_RE = re.compile(r"^lock_stat version (\S+)$")
_WARNING_RE = re.compile(r"^\*WARNING\*")
_DOTS_RE = re.compile(r"^\.{3,}$")
_DASHES_RE = re.compile(r"^-+$")  # as long as the name: one dash for a one-letter class
_NUM = r"(\S+)"
_NAME_WIDTH = 40  # "%40s:" and "%40s %14lu ...": the name field of every row and point
# A class row laid out by the kernel: 40 columns of name, ':', 12 fields.
_FIXED_ROW_RE = re.compile(r"^:" + r"".join([r"\s+" + _NUM] * 12) + r"$")
# A point laid out by the kernel, after its 40 columns of name: count, [<address>], symbol.
_FIXED_POINT_RE = re.compile(r"^ +(?P<count>[0-9]{1,20}) +\[<(?P<addr>[^>\]]*)>\] +(?P<sym>\S.*)$")
# A class row of an excerpt whose padding was removed: name, optional -R/-W, ':', 12 fields. The
# name is lazy, so "NAME-W:" reads as NAME with its -W; it may end with a space (a cut name).
_ROW_RE = re.compile(r"^(?P<name>\S.*?)(?P<rw>-[RW])?:\s+" + r"\s+".join([_NUM] * 12) + r"$")
# A point of such an excerpt: name, count, [<address>], symbol.
_POINT_RE = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<count>[0-9]{1,20})\s+\[<(?P<addr>[^>\]]*)>\]\s+(?P<sym>\S.*)$"
)
# func+0x57/0x280, func.cold+0x1/0x2 [xfs]; offsets and sizes are 64-bit at most.
_SYMBOL_RE = re.compile(
    r"^(?P<func>\S+?)\+0x(?P<off>[0-9a-fA-F]{1,16})/0x(?P<size>[0-9a-fA-F]{1,16})(?:\s+\[(?P<mod>[^\]]+)\])?$"
)
# Trailing "#N" (name version) and "/N" (subclass) suffixes of a printed class name.
_SUFFIX_RE = re.compile(r"^(?P<base>.*?)(?:#(?P<ver>[0-9]{1,2}))?(?:/(?P<sub>[0-9]{1,2}))?$")
_COUNT_RE = re.compile(r"^[0-9]{1,20}$")  # %lu: 64 bits, 20 digits at most
_I64_MAX = 2**63 - 1  # what the database stores
_TIME_RE = re.compile(r"^([0-9]{1,15})\.([0-9][0-9])$")  # %lld.%02d of ns / 1000: within 2^63 ns

# Fragments that only appear in a dump broken by an email client.
_PARTIAL_ROW_RE = re.compile(r"^\S(?:.*?\S)?(?:-[RW])?:(?:\s+\d+(?:\.\d+)?){0,11}$")
_NUMBERS_ONLY_RE = re.compile(r"^\d+(?:\.\d+)?(?:\s+\d+(?:\.\d+)?)*$")
_POINT_HEAD_RE = re.compile(r"^\S(?:.*?\S)?\s+\d+$")
_LEADING_NUMBER_RE = re.compile(r"^\s*(\d{1,4})(?=[\s.\-]|$)")


@dataclass(frozen=True, slots=True)
class LockRow:
    """One row of the table: a class's statistics for one state (write/exclusive or read).

    Times in ns; None when the kernel cut the number (see the module doc)."""

    rw: str  # "W": write or exclusive acquisitions; "R": read acquisitions
    rw_shown: bool  # the row was printed with its -W / -R suffix
    con_bounces: int  # contentions that involved cross-CPU data
    contentions: int  # acquisitions that had to wait
    wait_min_ns: int | None
    wait_max_ns: int | None
    wait_total_ns: int | None
    wait_avg_ns: int | None
    acq_bounces: int  # acquisitions that involved cross-CPU data
    acquisitions: int
    hold_min_ns: int | None
    hold_max_ns: int | None
    hold_total_ns: int | None
    hold_avg_ns: int | None
    line: int


@dataclass(frozen=True, slots=True)
class LockPoint:
    """A call site: where the lock was waited for (contention) or held meanwhile (contending)."""

    kind: str  # "contention" | "contending"
    index: int  # 0-3, the kernel's slot order
    count: int
    address: str  # as printed between [< and >]: hashed since Linux 4.15
    symbol: str  # as printed by %pS: "func+0x57/0x280", "func+0x1/0x2 [xfs]", or an address
    function: str | None
    offset: int | None
    size: int | None
    module: str | None
    line: int


@dataclass(frozen=True, slots=True)
class LockClass:
    name: str  # as printed, with its "#N" and "/N" suffixes, without "-W"/"-R" and ":"
    base_name: str  # without the suffixes
    # The "#N" suffix as printed: lockdep's Nth class of that name. The kernel prints it only for
    # N > 1 and keeps one digit, so "#1" is a version 10-19 and "#2" is 2 or 20-29.
    name_version: int | None
    subclass: int  # the "/N" suffix (nesting level); 0 when absent
    occurrence: int  # 0, or n for the (n+1)th class printed with this same name
    rows: list[LockRow]
    contention_points: list[LockPoint]
    contending_points: list[LockPoint]
    line: int


@dataclass(frozen=True, slots=True)
class LockStatDump:
    version: str | None  # None for an excerpt without its "lock_stat version" line
    debug_locks_off: bool  # the "*WARNING* lock debugging disabled!!" line
    classes: list[LockClass]
    warnings: list[str] = field(default_factory=list)


class _Builder:
    def __init__(self, name: str, line: int, occurrence: int) -> None:
        m = _SUFFIX_RE.match(name)
        assert m is not None  # the pattern matches any string
        self.name = name
        self.base_name = m.group("base") or name
        self.name_version = int(m.group("ver")) if m.group("ver") else None
        self.subclass = int(m.group("sub")) if m.group("sub") else 0
        self.occurrence = occurrence
        self.line = line
        self.rows: list[LockRow] = []
        self.points: list[list[LockPoint]] = [[], []]
        self.section = -1  # -1: rows; 0: contention points; 1: contending points

    def build(self) -> LockClass:
        return LockClass(self.name, self.base_name, self.name_version, self.subclass, self.occurrence,
                         self.rows, self.points[0], self.points[1], self.line)


def parse_lock_stat(text: str, source: str = "lock_stat") -> LockStatDump:
    """Parse the text of /proc/lock_stat. Raises FormatError (file `source`) on anything unreadable."""
    text = text.removeprefix("\ufeff")
    lines = [ln.rstrip("\r").rstrip() for ln in text.split("\n")]
    if not any(ln.strip() for ln in lines):
        raise FormatError(source, "empty file: expected the text of /proc/lock_stat")
    _refuse_listings(lines, source)

    version: str | None = None
    debug_off = False
    header_seen = False
    warnings: list[str] = []
    classes: list[LockClass] = []
    current: _Builder | None = None
    seen_names: dict[str, int] = {}
    first = True

    def close() -> None:
        nonlocal current
        if current is not None:
            classes.append(current.build())
            current = None

    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if first:
            first = False
            m = _VERSION_RE.match(line)
            if m:
                version = m.group(1)
                if version != VERSION:
                    raise FormatError(
                        source,
                        f"lock_stat version {version} is not supported: this parser reads version {VERSION} "
                        "(the one with waittime-avg and holdtime-avg columns)",
                        line=lineno,
                    )
                continue
            if line.startswith("lock_stat"):
                raise FormatError(source, f"expected 'lock_stat version {VERSION}', got {_show(line)}", line=lineno)
            warnings.append(
                f"no 'lock_stat version' line: read as an excerpt of a version {VERSION} dump"
            )
        if _VERSION_RE.match(line):
            raise FormatError(source, "a second 'lock_stat version' line: two dumps in one file?", line=lineno)
        if _WARNING_RE.match(line):
            debug_off = True
            warnings.append(
                f"line {lineno}: the kernel says lock debugging was disabled ({line.strip('* ')}): "
                "lockdep stopped counting then, so these figures cover only part of the run"
            )
            continue
        if _DOTS_RE.match(line):
            close()  # the kernel ends a class that printed contending points with a dotted line
            continue
        if _DASHES_RE.match(line):
            if current is None:
                continue  # the lines above and below the header
            if current.section >= 1:
                raise FormatError(source, f"a third list of points for class {current.name!r}", line=lineno)
            current.section += 1
            continue
        if line.startswith("class name"):
            tokens = line.split()
            if tokens != _HEADER_TOKENS:
                if tokens == _HEADER_TOKENS[: len(tokens)]:
                    _wrapped(lines, source, lineno, f"the header stops after {tokens[-1]!r}")
                raise FormatError(
                    source,
                    f"unexpected columns {' '.join(tokens[2:])!r}: version {VERSION} has "
                    f"{' '.join(COLUMNS[1:])}",
                    line=lineno,
                )
            header_seen = True
            continue

        split = _split_row(raw, line)
        if split is not None:
            name, shown, tokens = split
            rw = "R" if shown == "-R" else "W"
            values = _row_values(tokens, source, lineno, name, warnings)
            row = LockRow(rw, shown is not None, *values, line=lineno)  # type: ignore[arg-type]
            # "NAME-R:" right after "NAME-W:" (and before any point) is the same class.
            if (current is not None and shown == "-R" and current.name == name and current.section == -1
                    and len(current.rows) == 1 and current.rows[0].rw == "W" and current.rows[0].rw_shown):
                current.rows.append(row)
                continue
            if shown == "-W" and current is not None and current.name == name and current.section == -1:
                raise FormatError(source, f"two write rows for class {name!r}", line=lineno)
            close()
            occurrence = seen_names.get(name, 0)
            seen_names[name] = occurrence + 1
            current = _Builder(name, lineno, occurrence)
            if occurrence:
                why = ("the kernel prints only the first digit of a name version above 9"
                       if current.name_version is not None else "the kernel cuts names to 37 characters")
                warnings.append(
                    f"line {lineno}: a class named {name!r} was printed before ({why}): "
                    f"kept apart as occurrence {occurrence}"
                )
            current.rows.append(row)
            continue

        m, point_name = _split_point(raw, line)
        if m is not None:
            if current is None or current.section < 0:
                raise FormatError(source, "a contention point outside a class's list of points", line=lineno)
            if point_name != current.name and point_name.rstrip() != current.name.rstrip():
                raise FormatError(
                    source,
                    f"a point of class {point_name!r} in the points of class {current.name!r}",
                    line=lineno,
                )
            if int(m.group("count")) > _I64_MAX:
                raise FormatError(source, f"a point count beyond 2^63: {_show(m.group('count'))}", line=lineno,
                                  field="count")
            points = current.points[current.section]
            if len(points) >= 4:
                raise FormatError(source, f"more than 4 points in one list of class {current.name!r}", line=lineno)
            points.append(_point(m, "contention" if current.section == 0 else "contending", len(points), lineno))
            continue

        _explain_bad_line(lines, source, lineno, line)

    close()
    if version is None and not header_seen and not classes:
        raise FormatError(source, f"no lock_stat table: expected 'lock_stat version {VERSION}'")
    return LockStatDump(version=version, debug_locks_off=debug_off, classes=classes, warnings=warnings)


def _split_row(raw: str, line: str) -> tuple[str, str | None, tuple[str, ...]] | None:
    """(name, "-W" | "-R" | None, the 12 fields) of a class row, or None when it is not one."""
    if len(raw) > _NAME_WIDTH and raw[_NAME_WIDTH] == ":" and raw[:_NAME_WIDTH].strip():
        m = _FIXED_ROW_RE.match(raw[_NAME_WIDTH:])
        if m:  # as the kernel prints it: the name is the 40 columns before ':', padding removed
            field_ = raw[:_NAME_WIDTH]
            shown = field_[-2:] if field_[-2:] in ("-W", "-R") else None
            name = (field_[:-2] if shown else field_).lstrip(" ")
            if name:
                return name, shown, m.groups()
    m = _ROW_RE.match(line)
    if m:
        return m.group("name"), m.group("rw"), m.groups()[2:]
    return None


def _split_point(raw: str, line: str) -> tuple[re.Match[str] | None, str]:
    """The match (count, addr, sym) and the class name of a point line; (None, "") if not one."""
    if len(raw) > _NAME_WIDTH and raw[:_NAME_WIDTH].strip():
        m = _FIXED_POINT_RE.match(raw[_NAME_WIDTH:])
        if m:
            return m, raw[:_NAME_WIDTH].lstrip(" ")
    m = _POINT_RE.match(line)
    if m:
        return m, m.group("name")
    return None, ""


def _row_values(tokens: tuple[str, ...], source: str, lineno: int, name: str,
                warnings: list[str]) -> list[int | None]:
    out: list[int | None] = []
    for i, tok in enumerate(tokens):
        col = COLUMNS[i + 1]
        if i in _COUNT_FIELDS:
            if not _COUNT_RE.match(tok) or int(tok) > _I64_MAX:
                raise FormatError(source, f"expected a whole number below 2^63 (%lu), got {_show(tok)}", line=lineno,
                                  field=col)
            out.append(int(tok))
            continue
        m = _TIME_RE.match(tok)
        if m:  # microseconds with two decimals -> ns, exactly
            out.append(int(m.group(1)) * 1000 + int(m.group(2)) * 10)
            continue
        # The kernel's 15-byte buffer cut the number to 14 characters (see the module doc).
        if len(tok) == 14 and re.fullmatch(r"[0-9]+\.[0-9]?", tok):
            whole, _, dec = tok.partition(".")
            out.append(int(whole) * 1000 + (int(dec) * 100 if dec else 0))
            warnings.append(f"line {lineno}: {col} of {name!r} was cut by the kernel to {tok}: "
                            "kept to the digits printed")
            continue
        if len(tok) == 14 and re.fullmatch(r"[0-9]+", tok):
            out.append(None)
            warnings.append(f"line {lineno}: {col} of {name!r} was cut by the kernel to {tok} "
                            "(its integer part is incomplete): value unknown")
            continue
        raise FormatError(source, f"expected microseconds like 12.34 (at most 15 digits before the point), got {_show(tok)}", line=lineno, field=col)
    return out


def _point(m: re.Match[str], kind: str, index: int, lineno: int) -> LockPoint:
    sym = m.group("sym")
    s = _SYMBOL_RE.match(sym)
    return LockPoint(
        kind=kind,
        index=index,
        count=int(m.group("count")),
        address=m.group("addr"),
        symbol=sym,
        function=s.group("func") if s else None,
        offset=int(s.group("off"), 16) if s else None,
        size=int(s.group("size"), 16) if s else None,
        module=s.group("mod") if s else None,
        line=lineno,
    )


def _show(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _refuse_listings(lines: list[str], source: str) -> None:
    """Line-numbered listings (Documentation/locking/lockstat.rst) and quoted replies."""
    body = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip()]
    numbers = [_LEADING_NUMBER_RE.match(ln) for _, ln in body[:8]]
    if len(body) >= 2 and all(numbers):
        values = [int(m.group(1)) for m in numbers if m]
        if all(b == a + 1 for a, b in zip(values, values[1:])):
            raise FormatError(
                source,
                f"every line starts with a line number ({values[0]:02d}, {values[1]:02d}, ...), as in the listing "
                "of Documentation/locking/lockstat.rst: remove the numbers to get the kernel's own text",
                line=body[0][0],
            )
    if body and all(ln.lstrip().startswith(">") for _, ln in body):
        raise FormatError(
            source,
            "every line starts with '>': this is a quoted email reply, not /proc/lock_stat; "
            "use the original dump",
            line=body[0][0],
        )


def _wrapped(lines: list[str], source: str, lineno: int, what: str) -> None:
    widths = [len(ln) for ln in lines if " " in ln.strip()]
    width = max(widths) if widths else 0
    raise FormatError(
        source,
        f"this dump was wrapped by an email client: {what}, and no line with spaces is wider than "
        f"{width} columns, where the rows of /proc/lock_stat are {_KERNEL_WIDTH}. Read as is, it would be "
        "misread, so it is not read at all: use the file as the kernel wrote it (attach it to the mail, "
        "or take the raw message, e.g. the /raw link of lore.kernel.org)",
        line=lineno,
    )


def _explain_bad_line(lines: list[str], source: str, lineno: int, line: str) -> None:
    if _PARTIAL_ROW_RE.match(line):
        n = len(line.rsplit(":", 1)[1].split())
        _wrapped(lines, source, lineno, f"this class row holds {n} of its 12 numbers")
    if _NUMBERS_ONLY_RE.match(line):
        _wrapped(lines, source, lineno, "this line holds only numbers, the rest of a broken class row")
    if line.startswith("[<"):
        _wrapped(lines, source, lineno, "this line starts with an address, the rest of a broken point line")
    if _POINT_HEAD_RE.match(line):
        _wrapped(lines, source, lineno, "this point line stops after its count")
    tokens = line.split()
    if tokens and all(t in _HEADER_TOKENS for t in tokens):
        _wrapped(lines, source, lineno, "this line holds only column names, the rest of the broken header")
    if line.startswith(">"):
        raise FormatError(source, "a quoted email line ('>'): use the original dump", line=lineno)
    raise FormatError(source, f"not a line of /proc/lock_stat: {_show(line)}", line=lineno)
