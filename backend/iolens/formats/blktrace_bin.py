"""blktrace's binary per-CPU files (`DEV.blktrace.CPU`) read directly -> BlockEvent rows.

No blkparse needed: the events come out as the same `BlockEvent` rows that `formats.blkparse`
reads from blkparse's default text, one for one (tested against blkparse 1.2.0's own output for
the shared corpus trace).

Reference: the kernel's include/uapi/linux/blktrace_api.h and blktrace 1.2.0's blkparse.c /
blkparse_fmt.c. Each file is a sequence of records, a 48-byte header and `pdu_len` bytes after it:

    struct blk_io_trace {
        __u32 magic;     /* 0x65617400 | version (7) */
        __u32 sequence;  /* per-CPU event number, 0 for notify records */
        __u64 time;      /* ns, the trace clock */
        __u64 sector;    /* 512-byte units */
        __u32 bytes;
        __u32 action;    /* category bits << 16 | action code */
        __u32 pid;
        __u32 device;    /* kernel dev_t: major << 20 | minor */
        __u32 cpu;
        __u16 error;
        __u16 pdu_len;
    };

The records are in the byte order of the host that traced (blkparse checks the magic both ways;
so does this reader). The payload depends on the action: remap (A) carries
`struct blk_io_trace_remap` (big-endian device_from, device_to, sector_from); unplugs (U, T) and
splits (X) a big-endian u64; notify records (category NOTIFY) a process name (the pid's comm, which
blkparse prints in brackets from then on), a timestamp, or a message (printed as an `m` line);
passthrough requests (category PC) the command bytes. With the cgroup flag (`__BLK_TA_CGROUP`,
kernels 4.14+ with blktrace's `-C`), the payload starts with an 8-byte cgroup id.

What blkparse does that this reader does too:
- times are counted from the earliest event of all the files (`genesis_ns` keeps that reading);
- events are merged across files and CPUs in time order (ties: device, CPU, sequence);
- the process name of an event is the last name a notify record gave for its pid before it;
  unknown names are None (blkparse prints "(null)"), and a completion carries no name;
- a gap in the per-CPU sequence numbers is events blktrace lost (blkparse's "Skips").

Errors name the file, the record number and its byte offset: a wrong magic (not a blktrace file,
or a version other than 7), a record cut short by the end of the file (a truncated capture).
"""

from __future__ import annotations

import heapq
import struct
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .block_events import BlockEvent
from .errors import FormatError

MAGIC = 0x65617400
VERSION = 0x07
HEADER = 48
_LE = struct.Struct("<IIQQIIIIIHH")
_BE = struct.Struct(">IIQQIIIIIHH")

# enum blktrace_act (low 16 bits of action), and blkparse's letter for each.
_LETTER = {
    1: "Q", 2: "M", 3: "F", 4: "G", 5: "S", 6: "R", 7: "D", 8: "C", 9: "P", 10: "U", 11: "T",
    12: "I", 13: "X", 14: "B", 15: "A", 16: "abort", 17: "drv_data",
}
_ACTIONS = {
    "Q": "queue", "G": "getrq", "I": "insert", "D": "issue", "C": "complete", "R": "requeue",
    "M": "backmerge", "F": "frontmerge", "A": "remap", "P": "plug", "U": "unplug", "T": "unplug",
    "X": "split",
}
TA_CGROUP = 1 << 8
# enum blktrace_notify
TN_PROCESS, TN_TIMESTAMP, TN_MESSAGE = 0, 1, 2
# enum blktrace_cat, shifted by BLK_TC_SHIFT (16)
TC_WRITE, TC_FLUSH, TC_SYNC = 1 << 17, 1 << 18, 1 << 19
TC_PC, TC_NOTIFY, TC_AHEAD, TC_META, TC_DISCARD, TC_FUA = 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 29, 1 << 31


def rwbs(action: int, nbytes: int) -> str:
    """blkparse's fill_rwbs: [F]{D|W|R|N}[F][A][S][M] from the category bits."""
    s = "F" if action & TC_FLUSH else ""
    if action & TC_DISCARD:
        s += "D"
    elif action & TC_WRITE:
        s += "W"
    elif nbytes:
        s += "R"
    else:
        s += "N"
    if action & TC_FUA:
        s += "F"
    if action & TC_AHEAD:
        s += "A"
    if action & TC_SYNC:
        s += "S"
    if action & TC_META:
        s += "M"
    return s


def dev_name(dev: int) -> str:
    """Kernel dev_t (major << 20 | minor) as blkparse prints it: "259,0"."""
    return f"{dev >> 20},{dev & 0xFFFFF}"


@dataclass
class _Record:
    time: int
    devno: int
    cpu: int
    seq: int
    order: int          # position in the input, to keep the sort stable across equal keys
    action: int
    sector: int
    nbytes: int
    pid: int
    error: int
    pdu: bytes
    file: str


@dataclass
class BlktraceResult:
    events: list[BlockEvent]
    actions: dict[str, int]                 # blkparse's letter (Q, D, C, m...) -> events
    passthrough: int                        # passthrough (PC) request events, not matched
    genesis_ns: int | None                  # trace clock of the earliest event (times are counted from it)
    lost: dict[str, int] = field(default_factory=dict)        # "259,0 cpu1" -> events missing from the sequence
    devices: dict[str, int] = field(default_factory=dict)     # "259,0" -> events (blkparse's "Events (259,0): N entries")
    processes: dict[int, str] = field(default_factory=dict)   # pid -> name from the notify records
    messages: list[str] = field(default_factory=list)         # notify messages (blkparse's "m" lines), at most 1000
    records: int = 0                        # every record read, notify records included
    files: list[str] = field(default_factory=list)


def is_blktrace(data: bytes) -> bool:
    """True when `data` starts with a blktrace record header (either byte order), version 7."""
    if len(data) < 4:
        return False
    m_le = int.from_bytes(data[:4], "little")
    m_be = int.from_bytes(data[:4], "big")
    return m_le == MAGIC | VERSION or m_be == MAGIC | VERSION


def _check_head(name: str, data: bytes) -> tuple[struct.Struct, int]:
    """The byte order and magic of a file, from its first record (FormatError when it is not blktrace's)."""
    if not data:
        raise FormatError(name, "empty file: no blktrace records")
    m_le = int.from_bytes(data[:4], "little") if len(data) >= 4 else 0
    m_be = int.from_bytes(data[:4], "big") if len(data) >= 4 else 0
    if m_le & 0xFFFFFF00 == MAGIC:
        st, magic = _LE, m_le
    elif m_be & 0xFFFFFF00 == MAGIC:
        st, magic = _BE, m_be
    else:
        raise FormatError(name, f"not a blktrace file: the first 4 bytes are {data[:4].hex()}, "
                                f"not blktrace's magic {MAGIC:#x}", field="record 1 (byte 0): magic")
    if magic & 0xFF != VERSION:
        raise FormatError(name, f"blktrace format version {magic & 0xFF}, only version {VERSION} is read",
                          field="record 1 (byte 0): magic")
    return st, magic


def _records(name: str, data: bytes, file_index: int) -> Iterator[_Record]:
    """The records of one file, in file order (`data`: bytes, or an mmap of the file)."""
    st, magic = _check_head(name, data)
    off, n, size = 0, 0, len(data)
    unpack = st.unpack_from
    while off < size:
        n += 1
        if off + HEADER > size:
            raise FormatError(name, f"truncated: {size - off} bytes left, a record header is {HEADER} "
                                    "(the capture was cut short)", field=f"record {n} (byte {off})")
        (mg, seq, t, sector, nbytes, action, pid, devno, cpu, error, pdu_len) = unpack(data, off)
        if mg != magic:
            raise FormatError(name, f"bad magic {mg:#x} (expected {magic:#x}): the file is damaged "
                                    "or not one blktrace per-CPU file", field=f"record {n} (byte {off}): magic")
        end = off + HEADER + pdu_len
        if end > size:
            raise FormatError(name, f"truncated: the record's payload is {pdu_len} bytes, {size - off - HEADER} "
                                    "are left (the capture was cut short)", field=f"record {n} (byte {off}): pdu_len")
        yield _Record(t, devno, cpu, seq, (file_index << 40) + n, action, sector, nbytes, pid,
                      error - 0x10000 if error & 0x8000 else error, data[off + HEADER:end], name)
        off = end


def _be64(b: bytes) -> int:
    return int.from_bytes(b[:8], "big") if len(b) >= 8 else 0


def _key(r: _Record) -> tuple[int, int, int, int, int]:
    return (r.time, r.devno, r.cpu, r.seq, r.order)


def _merged(files: list[tuple[str, bytes]]) -> tuple[Iterator[_Record], int | None]:
    """Every record of every file in blkparse's order (time, device, CPU, sequence), and the
    earliest time (blkparse's genesis). Each per-CPU file is in time order as blktrace writes it, so
    the files are merged as they are read; a file that is not in order is sorted whole first."""
    streams: list[Iterator[_Record]] = []
    firsts: list[int] = []
    for i, (name, data) in enumerate(files):
        _check_head(name, data)
        ordered, prev = True, None
        for r in _records(name, data, i):  # a first pass: validate and check the order (no records kept)
            k = _key(r)
            if prev is not None and k < prev:
                ordered = False
                break
            prev = k
        if ordered:
            st, _ = _check_head(name, data)
            firsts.append(st.unpack_from(data, 0)[2])
            streams.append(_records(name, data, i))
        else:
            recs = sorted(_records(name, data, i), key=_key)
            firsts.append(recs[0].time)
            streams.append(iter(recs))
    return heapq.merge(*streams, key=_key), (min(firsts) if firsts else None)


class BlktraceReader:
    """Streaming reader: `events()` yields BlockEvents in blkparse's order; the counters (actions,
    devices, lost, processes...) are complete once the generator is exhausted."""

    def __init__(self, files: Iterable[tuple[str, bytes]]) -> None:
        self.files = list(files)
        self.names = [n for n, _ in self.files]
        self.actions: Counter[str] = Counter()
        self.devices: Counter[str] = Counter()
        self.lost: Counter[str] = Counter()
        self.comm: dict[int, str] = {}
        self.messages: list[str] = []
        self.passthrough = 0
        self.records = 0
        self.genesis_ns: int | None = None
        if not self.files:
            raise FormatError("<blktrace>", "no blktrace files given")

    def events(self) -> Iterator[BlockEvent]:
        recs, genesis = _merged(self.files)
        self.genesis_ns = genesis
        actions, devices, lost, comm = self.actions, self.devices, self.lost, self.comm
        last_seq: dict[tuple[int, int], int] = {}
        for r in recs:
            self.records += 1
            act = r.action
            pdu = r.pdu
            if act & TA_CGROUP and len(pdu) >= 8:
                pdu = pdu[8:]
            code = act & 0xFF
            if act & TC_NOTIFY:
                if code == TN_PROCESS:
                    comm[r.pid] = pdu.split(b"\0", 1)[0].decode("utf-8", "replace")
                elif code == TN_MESSAGE:
                    actions["m"] += 1
                    devices[dev_name(r.devno)] += 1
                    if len(self.messages) < 1000:
                        self.messages.append(pdu.split(b"\0", 1)[0].decode("utf-8", "replace"))
                continue
            devices[dev_name(r.devno)] += 1
            key = (r.devno, r.cpu)
            prev = last_seq.get(key)
            if prev is not None and r.seq > prev + 1:
                lost[f"{dev_name(r.devno)} cpu{r.cpu}"] += r.seq - prev - 1
            if prev is None or r.seq > prev:
                last_seq[key] = r.seq
            letter = _LETTER.get(code)
            if letter is None:
                raise FormatError(r.file, f"unknown blktrace action {code}",
                                  field=f"sequence {r.seq} on cpu {r.cpu}: action")
            actions[letter] += 1
            action = _ACTIONS.get(letter)
            if action is None:
                continue  # B, S, abort, driver data: counted, nothing to match (as blkparse's text reader)
            if act & TC_PC and letter in "DIQCR":
                self.passthrough += 1
                continue
            nsec = r.nbytes >> 9
            name = comm.get(r.pid)
            sector: int | None = None
            nr: int | None = None
            error: int | None = None
            if letter in "CR":
                error = r.error
                name = None
                sector, nr = r.sector, nsec
            elif letter in "DIQMFG":
                if nsec:
                    sector, nr = r.sector, nsec
            elif letter == "A":
                sector, nr = r.sector, nsec
                name = None
            elif letter == "X":
                sector = r.sector
            yield BlockEvent(r.time - genesis, r.cpu, r.pid, name, action, dev_name(r.devno), rwbs(act, r.nbytes),
                             sector, nr, None if nr is None else nr * 512, error)


def parse_blktrace(files: Iterable[tuple[str, bytes]]) -> BlktraceResult:
    """One or more per-CPU files of one trace (`(name, bytes)`), merged in time order as blkparse
    merges them; the whole trace at once (tests, conversion). Ingest streams with BlktraceReader."""
    reader = BlktraceReader(files)
    events = list(reader.events())
    return BlktraceResult(events, dict(sorted(reader.actions.items())), reader.passthrough, reader.genesis_ns,
                          dict(sorted(reader.lost.items())), dict(sorted(reader.devices.items())),
                          dict(sorted(reader.comm.items())), reader.messages, reader.records, reader.names)
