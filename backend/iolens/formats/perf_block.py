"""`perf script` text of the block tracepoints -> BlockEvent rows.

References: perf's builtin-script.c (sample header), the kernel's include/trace/events/block.h
(each tracepoint's TP_printk), and libtraceevent's printing of it. Checked against real output
(tests/formats/samples/perf-6.1-block-*: perf 6.1 on Linux 6.18, see the README there).

Sample header, default fields for tracepoints (`perf script`, or `perf script --ns`):

    comm  tid [cpu] secs.usecs:  block:EVENT: payload          (--ns: secs.nsecs)
    comm  pid/tid [cpu] secs.nsecs:  block:EVENT: payload      (-F comm,pid,tid,cpu,time,event,trace)

- `comm` is right-aligned to 16 columns and may contain spaces ("opt cgu.0", seen in the sample):
  the header is split from the right.
- Without --ns perf prints microseconds: the time is then a multiple of 1000 ns. Collect with
  `perf script --ns`.
- The time is perf's clock (local_clock, seconds since boot, unless perf record -k chose another).
- Interrupt-context events (completions) carry whatever task was running: their comm/pid say
  nothing about who did the I/O ("swapper/1", "python" in the sample).

Payloads (TP_printk of include/trace/events/block.h), as printed by perf 6.1 on Linux 6.18:

    block_rq_insert, block_rq_issue, block_rq_merge (and block_io_start/done, 6.5+):
        254,0 RS 4096 () 39076528 + 8 0x2,0,4 [fio]          dev rwbs bytes (cmd) sector + nr ioprio [comm]
    block_rq_complete, block_rq_requeue, block_rq_error:
        254,0 RS () 39076528 + 8 0x2,0,4 [0]                 dev rwbs (cmd) sector + nr ioprio [error]
    block_bio_queue, block_bio_backmerge, block_bio_frontmerge, block_getrq, block_bio_bounce:
        254,0 W 171065904 + 544 [kworker/u8:1]               dev rwbs sector + nr [comm]
    block_bio_complete:  dev rwbs sector + nr [error]
    block_plug: [comm]            block_unplug: [comm] nr_rq
    block_split: dev rwbs sector / new_sector [comm]
    block_bio_remap: dev rwbs sector + nr <- (dev) sector   (block_rq_remap adds "len nr_bios")

Quirks:
- The ioprio triple "class,level,hint" exists since Linux 6.10 (absent before: accepted). Linux
  prints the class by name ("be,0,4") but perf 6.1's libtraceevent cannot resolve the
  IOPRIO_CLASS_* symbols and prints the number in hex ("0x2,0,4"). Not used here.
- `cmd` is "()" except for passthrough requests, where it holds the command bytes with spaces:
  the payload is cut at the first "(" and the matching ") ".
- The dev is printed "major,minor" from the kernel's dev_t (MAJOR = dev >> 20).
- Flushes: a request with no data has sector 0 and nr 0 ("254,0 FF 0 () 0 + 0 ...").

This reader is the reference: ingest reads perf-block artifacts with its compiled equivalent
(perf_block_native.py, Rust), which must give the same events and counters. A change of rule here
needs the same change in backend/native/iolens_native/src/block/; test_block_native.py compares
the two on every rule.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .block_events import BlockEvent
from .errors import FormatError

# tracepoint -> (action, payload shape)
#   rq:  dev rwbs bytes (cmd) sector + nr [ioprio] [comm]
#   rqc: dev rwbs (cmd) sector + nr [ioprio] [error]
#   bio: dev rwbs sector + nr [comm]
#   bioc: dev rwbs sector + nr [error]
_EVENTS: dict[str, tuple[str, str]] = {
    "block_rq_insert": ("insert", "rq"),
    "block_rq_issue": ("issue", "rq"),
    "block_rq_merge": ("rq_merge", "rq"),
    "block_rq_complete": ("complete", "rqc"),
    "block_rq_requeue": ("requeue", "rqc"),
    "block_rq_error": ("other", "rqc"),
    "block_io_start": ("other", "rq"),
    "block_io_done": ("other", "rq"),
    "block_bio_queue": ("queue", "bio"),
    "block_bio_backmerge": ("backmerge", "bio"),
    "block_bio_frontmerge": ("frontmerge", "bio"),
    "block_getrq": ("getrq", "bio"),
    "block_bio_bounce": ("other", "bio"),
    "block_bio_complete": ("other", "bioc"),
    "block_bio_remap": ("remap", "remap"),
    "block_rq_remap": ("remap", "remap"),
    "block_plug": ("plug", "none"),
    "block_unplug": ("unplug", "none"),
    "block_split": ("split", "split"),
}
_SAMPLE = re.compile(r"\s\d+(?:/\d+)?\s+\[\d+\]\s+\d+\.\d+:")
_RQ = frozenset(("rq", "rqc"))
_NO_SECTOR = (1 << 64) - 1
_new = tuple.__new__
# `perf script --show-lost-events` prints the ring buffer's PERF_RECORD_LOST records after a sample
# header: "perf 0 [001] 12.345: PERF_RECORD_LOST lost 1234" (util/event.c perf_event__fprintf_lost:
# " lost %lu"), and PERF_RECORD_LOST_SAMPLES likewise; older perf report wrote "LOST 12 events!".
_LOST = re.compile(r"PERF_RECORD_LOST(?:_SAMPLES)?\b\D*?(\d+)|\bLOST (\d+) events?!")

_I64_MAX = 2**63 - 1  # ns, sectors and bytes as the database stores them


class PerfBlockReader:
    """Streaming reader: `events(lines)` yields BlockEvents; `tracepoints` counts every block
    tracepoint line (recognised or not), `foreign` the samples of other events, and
    `passthrough` the request events without a sector (kept out of matching)."""

    def __init__(self, source: str = "<perf script>") -> None:
        self.source = source
        self.tracepoints: Counter[str] = Counter()
        self.foreign = 0
        self.passthrough = 0
        self.usec_times = 0      # samples whose time had 6 decimals (perf script without --ns)
        self.lost = 0            # events perf says it lost (PERF_RECORD_LOST, with --show-lost-events)
        self.lines = 0

    def _err(self, lineno: int, msg: str, fld: str | None = None) -> FormatError:
        return FormatError(self.source, msg, line=lineno, field=fld)

    def events(self, lines: Iterable[str]) -> Iterator[BlockEvent]:
        counts = self.tracepoints
        lineno = 0
        for lineno, line in enumerate(lines, 1):  # noqa: B007 - lineno is read after the loop
            i = line.find(" block:")
            if i < 0:
                s = line.strip()
                if not s or s.startswith("#"):
                    continue
                lost = _LOST.search(s)
                if lost:
                    self.lost += int(lost.group(1) or lost.group(2))
                    continue
                if _SAMPLE.search(s):
                    self.foreign += 1  # a sample of another event: not ours
                    continue
                raise self._err(lineno, f"not a perf script sample line: {s[:80]!r}")
            # header: "comm tid [cpu] secs.frac:" split from the right (comm may contain spaces)
            head = line[:i].rsplit(None, 3)
            if len(head) != 4 or not head[3].endswith(":") or not head[2].startswith("["):
                raise self._err(lineno, f"unexpected sample header {line[:i].strip()!r}", "header")
            tail = line[i + 7:]
            j = tail.find(": ")
            name = tail[:j] if j >= 0 else tail.rstrip().rstrip(":")
            counts[name] += 1
            spec = _EVENTS.get(name)
            if spec is None or spec[0] == "other":
                continue
            action, shape = spec
            # Fast path, nearly every line: a request event with an empty cmd "()".
            if shape in _RQ:
                k = tail.find(" () ", j)
                if k > 0:
                    try:
                        pre = tail[j + 2:k].split()
                        post = tail[k + 4:].split()
                        if len(post) >= 4 and post[1] == "+":
                            ts = head[3]
                            dot = ts.find(".")
                            frac = ts[dot + 1:-1]
                            t_ns = int(ts[:dot]) * 1_000_000_000 + (
                                int(frac) if len(frac) == 9 else int(frac.ljust(9, "0")[:9]))
                            if len(frac) == 6:
                                self.usec_times += 1
                            ptid = head[1]
                            nr = int(post[2])
                            sector = int(post[0])
                            if sector == _NO_SECTOR:
                                sector = 0  # a flush's completion: see _event
                            if shape == "rq":
                                nbytes, error = int(pre[2]), None
                            else:
                                nbytes, error = nr * 512, int(post[-1][1:-1])
                            pid = int(ptid[ptid.find("/") + 1:])
                            cpu = int(head[2][1:-1])
                            # beyond 64 bits: refused below (the sign is as the Rust reader reads it)
                            if (abs(t_ns) > _I64_MAX or abs(sector) > _I64_MAX or abs(nr) > _I64_MAX
                                    or abs(nbytes) > _I64_MAX or abs(pid) > _I64_MAX or abs(cpu) > _I64_MAX
                                    or error is not None and abs(error) > _I64_MAX):
                                raise ValueError
                            yield _new(BlockEvent, (
                                t_ns, cpu, pid, head[0].lstrip(), action,
                                pre[0], pre[1], sector, nr, nbytes, error))
                            continue
                    except (ValueError, IndexError):
                        raise self._err(lineno, f"cannot read the {name} payload {tail[j + 2:].strip()!r}", name) from None
            try:
                ev = self._event(head, spec, tail[j + 2:].rstrip("\n") if j >= 0 else "")
                if ev is not None and max(abs(ev.t_ns), abs(ev.sector or 0), abs(ev.nr_sectors or 0), abs(ev.bytes or 0),
                                          abs(ev.pid or 0), abs(ev.cpu), abs(ev.error or 0)) > _I64_MAX:
                    raise ValueError
            except (ValueError, IndexError):
                raise self._err(lineno, f"cannot read the {name} payload {tail[j + 2:].strip()!r}", name) from None
            if ev is not None:
                yield ev
        self.lines = lineno

    def _event(self, head: list[str], spec: tuple[str, str], p: str) -> BlockEvent | None:
        comm_h, ptid, cpu_s, ts = head
        pid = int(ptid.rpartition("/")[2])  # "tid" or "pid/tid": the thread id
        cpu = int(cpu_s[1:-1])
        secs, _, frac = ts[:-1].partition(".")
        if len(frac) == 6:
            self.usec_times += 1
        t_ns = int(secs) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
        action, shape = spec
        comm: str | None = comm_h.lstrip()
        sector = nr = nbytes = error = None
        if shape in ("rq", "rqc"):
            k1 = p.find(" (")
            k2 = p.find(") ", k1)
            pre = p[:k1].split()
            dev, rwbs = pre[0], pre[1]
            if shape == "rq":
                nbytes = int(pre[2])
            b = p.rfind(" [")
            post = p[k2 + 2:b].split()
            last = p[b + 2:p.rindex("]")]
            # a command in the parentheses: a passthrough request (SCSI/NVMe command), sector 0 + 0
            if k2 > k1 + 2 or len(post) < 3 or post[1] != "+":
                self.passthrough += 1
                return None
            sector, nr = int(post[0]), int(post[2])
            if sector == _NO_SECTOR:
                # block_rq_complete prints blk_rq_pos() as is: a flush completes at (sector_t)-1
                # ("FF () 18446744073709551615 + 0"), issued at 0 (blk_rq_trace_sector): match at 0
                sector = 0
            if shape == "rqc":
                error = int(last)
            # for rq events `last` is the comm of the current task: the header already has it
        elif shape in ("bio", "remap"):
            f = p.split(None, 5)
            dev, rwbs, sector, nr = f[0], f[1], int(f[2]), int(f[4])
            nbytes = nr * 512
        elif shape == "split":
            f = p.split(None, 4)
            dev, rwbs, sector = f[0], f[1], int(f[2])
        else:  # plug/unplug: no device in the payload
            dev, rwbs = "", "N"
        if nbytes is None and nr is not None:
            nbytes = nr * 512
        return BlockEvent(t_ns, cpu, pid, comm, action, dev, rwbs, sector, nr, nbytes, error)


@dataclass
class PerfBlockResult:
    events: list[BlockEvent]
    tracepoints: dict[str, int]   # block tracepoint name -> lines
    foreign: int                  # samples of other events
    passthrough: int
    usec_times: int
    lost: int


def parse_perf_block(text: str, source: str = "<perf script>") -> PerfBlockResult:
    """The whole text at once (tests, `iolens convert perf-block`); ingest streams with PerfBlockReader."""
    reader = PerfBlockReader(source)
    events = list(reader.events(text.splitlines()))
    return PerfBlockResult(events, dict(sorted(reader.tracepoints.items())), reader.foreign,
                           reader.passthrough, reader.usec_times, reader.lost)
