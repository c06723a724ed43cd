"""blkparse's default text output (blktrace 1.x) -> BlockEvent rows, and its summary.

Reference: blktrace's blkparse_fmt.c (process_default) and blkparse.c (dump_io_stats,
show_device_and_cpu_stats) at blktrace 1.2.0; checked against ../shared/corpus/blktrace, the text
`blkparse -i -` (and `-q`) printed for a real NVMe trace.

An event line is the fixed header `"%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s "` (device, CPU,
sequence, seconds.nanoseconds since the trace's first event, pid, action, RWBS) and a tail that
depends on the action:

    259,0    1        6     0.000001676 21279  D  RA 2348060440 + 8 [(null)]     D/I/Q/B: sector + n [process]
    259,0    1        7     0.000056992     0  C  RA 2348060440 + 8 [0]          C/R: sector + n [error]
    259,0    1        1     0.000000000 21279  A  RA 2348060440 + 8 <- (259,3) 2345510680
    259,0    1        4     0.000001100 21279  P   N [(null)]                    plug
    259,0    1        5     0.000001290 21279  U   N [(null)] 1                  unplug: [process] requests
      8,64   3        0     0.000032306     0  m   N cfq4162S / dispatched a request   (message, seq 0)

Quirks, each handled where the line is read:
- "[(null)]": blkparse did not know the process name (glibc prints a NULL %s as "(null)"); -> None.
- A remap (A) line is printed with the *target* device in its header (the disk), the source
  (partition) in "<- (259,3) sector". The events that follow use the disk's device and sector.
- A request with no sectors prints no "sector + n": "D   N [name]" or, for C/R, "sector [error]"
  (flushes). Passthrough (SCSI/NVMe command) requests print "bytes (cdb bytes) [name]" for
  D/I/Q/B and "(cdb) [error]" for C/R: they have no sector and are counted, not matched.
- With -t, an elapsed time "(%8llu)" sits before the bracket: skipped.
- The summary at the end: one block per CPU ("CPU1 (259,0):") and, with more than one CPU, a
  "Total (259,0):" block, per device; then "Throughput (R/W): ...", "Events (259,0): N entries" and
  "Skips: N forward (M - P%)". A device may be named ("CPU26 (sde):"). Counts above 999 have
  thousands separators ("143,304,    1,146MiB"). M skipped events means blktrace lost events.
  `-q` prints no summary.
- A trace stopped with ^C leaves "^C" glued to the first summary line ("^CCPU2 (8,0):").
- "Input file x.blktrace.0 added" lines (stderr, often captured with stdout) are skipped wherever
  they fall: with both streams sent to one file, stdout is flushed at exit, so they come after the
  summary (what `blkparse -i x > f 2>&1` writes).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .block_events import BlockEvent
from .errors import FormatError

_ACTIONS = {
    "Q": "queue", "G": "getrq", "I": "insert", "D": "issue", "C": "complete", "R": "requeue",
    "M": "backmerge", "F": "frontmerge", "A": "remap", "P": "plug", "U": "unplug", "T": "unplug",
    "X": "split", "B": "other", "S": "other", "m": "other",
}
# Actions whose tail is "sector + n [process]" (or "[process]" when the request has no sectors).
_SECTOR_NAME = frozenset("QGIDBMFS")
_SUMMARY_HEAD = re.compile(r"^(?:\^C)?(CPU\d+|Total) \(([^)]*)\):\s*$")
# Counts and sizes have thousands separators or not, depending on the locale blkparse ran in.
_STAT = re.compile(r"([A-Za-z][A-Za-z .]*?):\s+(\d+(?:,\d{3})*)(?:,\s+(\d+(?:,\d{3})*)([KMG])iB)?")
_INPUT_FILE = re.compile(r"^Input file \S+ added$")
_EVENTS = re.compile(r"^Events \(([^)]*)\): ([\d,]+) entries")
_SKIPS = re.compile(r"^Skips: ([\d,]+) forward \(([\d,]+) -\s*([\d.]+)%\)")
_UNIT_KIB = {"K": 1, "M": 1024, "G": 1024 * 1024}

_I64_MAX = 2**63 - 1  # ns, sectors and bytes as the database stores them


@dataclass
class SummaryBlock:
    """One block of blkparse's summary: per CPU ("CPU1") or all CPUs ("Total"), for one device."""

    scope: str                       # "CPU1", "Total"
    device: str                      # "259,0" or a name ("sde")
    stats: dict[str, int] = field(default_factory=dict)  # "reads_queued": 963, "reads_queued_kib": 3852, "read_depth": 1


@dataclass
class BlkparseSummary:
    blocks: list[SummaryBlock] = field(default_factory=list)
    events: dict[str, int] = field(default_factory=dict)       # device -> "Events (dev): N entries"
    skips: dict[str, int] = field(default_factory=dict)        # device -> times blkparse skipped ahead
    skipped_events: dict[str, int] = field(default_factory=dict)  # device -> events lost (sequence gaps)
    throughput: dict[str, str] = field(default_factory=dict)   # device -> "11165KiB/s / 0KiB/s" (as printed)


class BlkparseReader:
    """Streaming reader: `events(lines)` yields BlockEvents; counters and the summary are filled
    as it goes and complete once the generator is exhausted."""

    def __init__(self, source: str = "<blkparse>") -> None:
        self.source = source
        self.actions: Counter[str] = Counter()   # blkparse action letter -> events
        self.passthrough = 0                     # passthrough (PC) request events, not matched
        self.summary = BlkparseSummary()
        self.lines = 0

    def _err(self, lineno: int, msg: str, fld: str | None = None) -> FormatError:
        return FormatError(self.source, msg, line=lineno, field=fld)

    def events(self, lines: Iterable[str]) -> Iterator[BlockEvent]:
        in_summary = False
        block: SummaryBlock | None = None
        last_device: str | None = None
        actions = self.actions
        lineno = 0
        for lineno, raw in enumerate(lines, 1):  # noqa: B007 - lineno is read after the loop
            line = raw.rstrip("\n")
            if _INPUT_FILE.match(line):
                continue
            if not in_summary:
                parts = line.split(None, 7)
                # Event lines: the device "maj,min" first, then 6 more header fields.
                if len(parts) >= 7 and "," in parts[0] and parts[0][0].isdigit():
                    ev = self._event(parts, lineno)
                    actions[parts[5]] += 1
                    if ev is not None:
                        yield ev
                    continue
                if not line.strip():
                    continue
            m = _SUMMARY_HEAD.match(line)
            if m:
                in_summary = True
                block = SummaryBlock(m.group(1), m.group(2))
                self.summary.blocks.append(block)
                last_device = m.group(2)
                continue
            if not in_summary:
                raise self._err(lineno, f"not a blkparse event or summary line: {line[:80]!r}")
            stripped = line.strip()
            if not stripped or set(stripped) == {"-"} or stripped.startswith("Using "):
                block = None if not stripped else block
                continue
            if line.startswith(" ") or line.startswith("\t"):
                if block is None:
                    raise self._err(lineno, "statistics line outside a CPU/Total block")
                for name, count, size, unit in _STAT.findall(line):
                    key = name.strip().lower().replace(".", "").replace(" ", "_")
                    block.stats[key] = int(count.replace(",", ""))
                    if size:
                        block.stats[key + "_kib"] = int(size.replace(",", "")) * _UNIT_KIB[unit]
                continue
            block = None
            if stripped.startswith("Throughput (R/W):"):
                if last_device is not None:
                    self.summary.throughput[last_device] = stripped.split(":", 1)[1].strip()
                continue
            m = _EVENTS.match(stripped)
            if m:
                last_device = m.group(1)
                self.summary.events[last_device] = int(m.group(2).replace(",", ""))
                continue
            m = _SKIPS.match(stripped)
            if m:
                dev = last_device or "?"
                self.summary.skips[dev] = int(m.group(1).replace(",", ""))
                self.summary.skipped_events[dev] = int(m.group(2).replace(",", ""))
                continue
            raise self._err(lineno, f"unexpected line in blkparse's summary: {line[:80]!r}")
        self.lines = lineno

    def _event(self, p: list[str], lineno: int) -> BlockEvent | None:
        # p = [dev, cpu, seq, secs.nsecs, pid, action, rwbs, tail]
        act = p[5]
        action = _ACTIONS.get(act)
        if action is None:
            raise self._err(lineno, f"unknown blkparse action {act!r}", "action")
        try:
            cpu = int(p[1])
            secs, _, frac = p[3].partition(".")
            t_ns = int(secs) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
            pid = int(p[4])
        except ValueError as exc:
            raise self._err(lineno, f"bad header field: {exc}", "header") from None
        if action == "other":
            return None  # B, S, m: counted in `actions`, nothing to match
        rwbs = p[6]
        tail = p[7] if len(p) > 7 else ""
        sector = nr = error = None
        comm: str | None = None
        try:
            if act in _SECTOR_NAME or act == "P":
                # "sector + n [name]", "sector + n (elapsed) [name]", "[name]", "(elapsed) [name]",
                # or passthrough "bytes [name]" / "bytes (cdb ..) [name]"
                b = tail.rfind("[")
                if b < 0:
                    raise self._err(lineno, "missing [process] at the end of the line", "process")
                comm = tail[b + 1:tail.rindex("]")]
                head = tail[:b].strip()
                if " + " in head:
                    s, _, rest = head.partition(" + ")
                    sector, nr = int(s), int(rest.split(None, 1)[0])
                elif head and not head.startswith("("):
                    if act in "DIQB":
                        self.passthrough += 1
                        return None
                    sector = int(head.split(None, 1)[0])
            elif act in "CR":
                # "sector + n [error]", "sector [error]" (no sectors: flush), passthrough "(cdb) [error]" or "[error]"
                b = tail.rfind("[")
                if b < 0:
                    raise self._err(lineno, "missing [error] at the end of the line", "error")
                error = int(tail[b + 1:tail.rindex("]")])
                head = tail[:b].strip()
                if not head or head.startswith("("):
                    self.passthrough += 1
                    return None
                if " + " in head:
                    s, _, rest = head.partition(" + ")
                    sector, nr = int(s), int(rest.split(None, 1)[0])
                else:
                    sector, nr = int(head.split(None, 1)[0]), 0
            elif act == "A":
                # "sector + n <- (maj,min) from_sector"
                head = tail.split()
                sector, nr = int(head[0]), int(head[2])
            elif act in "UT":
                b = tail.rfind("]")
                comm = tail[tail.find("[") + 1:b] if b > 0 else None
            elif act == "X":
                # "sector / new_sector [name]"
                head = tail.split()
                sector = int(head[0])
                b = tail.rfind("[")
                comm = tail[b + 1:tail.rindex("]")] if b >= 0 else None
        except FormatError:
            raise
        except (ValueError, IndexError):
            raise self._err(lineno, f"cannot read the {action} event's fields {tail!r}", "sector") from None
        if comm == "(null)":
            comm = None
        if max(abs(t_ns), abs(sector or 0), abs(nr or 0) * 512, abs(pid), abs(cpu), abs(error or 0)) > _I64_MAX:
            raise self._err(lineno, f"a time, sector or size beyond 64 bits: {tail[:80]!r}", "sector")
        return BlockEvent(t_ns, cpu, pid, comm, action, p[0], rwbs, sector, nr,
                          None if nr is None else nr * 512, error)


@dataclass
class BlkparseResult:
    events: list[BlockEvent]
    actions: dict[str, int]      # blkparse action letter -> number of lines
    passthrough: int
    summary: BlkparseSummary


def parse_blkparse(text: str, source: str = "<blkparse>") -> BlkparseResult:
    """The whole text at once (tests, `iolens convert blkparse`); ingest streams with BlkparseReader."""
    reader = BlkparseReader(source)
    events = list(reader.events(text.splitlines()))
    return BlkparseResult(events, dict(sorted(reader.actions.items())), reader.passthrough, reader.summary)
