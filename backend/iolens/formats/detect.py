"""What a file is, from its content (never its name): one detector per kind, three-valued.

`recognise(prefix, complete)` runs every detector over a bounded prefix of the file (the caller
reads `PREFIX_BYTES`, more when the answer is "cannot tell yet", up to `MAX_PREFIX_BYTES`).
Each detector answers:

- `YES`: this is the kind (the reason says what was seen: "a perf event line followed by stack
  frames at line 2");
- `NO`: it is not (the reason says why, for the message listing what was tried);
- `MAYBE` ("cannot tell yet"): the prefix is consistent with the kind but too short to decide
  (fio's normal output before its JSON, a file cut inside its first line). With the whole file
  (`complete=True`) a detector never answers MAYBE.

gzip is looked through: the prefix is decompressed (bounded) and `Recognition.gzip` says so.
Kinds are the bundle's artifact kinds (docs/bundle-format.md) where one exists; the others name
what was recognised so the message can say it (`fio-hist-log`: kept, not parsed; `perf-data`:
to be turned into text with perf). The detectors are written to exclude each other; when two
still say yes, the first in `DETECTORS` wins and `Recognition.also` names the other.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from . import blktrace_bin
from .fio_terse import looks_like_terse

YES, NO, MAYBE = "yes", "no", "cannot tell yet"
PREFIX_BYTES = 64 * 1024
MAX_PREFIX_BYTES = 8 * 1024 * 1024
_SCAN_LINES = 400


@dataclass(frozen=True)
class Verdict:
    answer: str     # YES, NO or MAYBE
    reason: str


@dataclass
class Prefix:
    """The bytes a detector sees: the file's first bytes, gunzipped when it is gzip."""

    data: bytes
    complete: bool                   # the prefix is the whole file (after decompression)
    gzip: bool = False
    _lines: list[str] | None = None

    @property
    def binary(self) -> bool:
        return b"\0" in self.data[:4096]

    @property
    def lines(self) -> list[str]:
        """Whole lines of the prefix (the last one dropped when it may be cut), CR removed."""
        if self._lines is None:
            text = self.data.decode("utf-8", "replace")
            lines = text.split("\n")
            if not self.complete:
                lines = lines[:-1]
            self._lines = [ln.rstrip("\r") for ln in lines]
        return self._lines

    def nonblank(self, limit: int = _SCAN_LINES, comments: bool = True) -> list[tuple[int, str]]:
        """The first `limit` non-blank lines (line number, text); without '#' lines if not `comments`."""
        out = []
        for i, ln in enumerate(self.lines, 1):
            if ln.strip() and (comments or not ln.startswith("#")):
                out.append((i, ln))
                if len(out) >= limit:
                    break
        return out


def _short(p: Prefix, what: str) -> Verdict:
    return Verdict(NO, what) if p.complete else Verdict(MAYBE, what)


Lines = list[tuple[int, str]]  # (line number, text) of the first non-blank lines


# --- binary kinds: the detector reads the bytes (Detector.lines is None) ---------------------

def detect_blktrace(p: Prefix, _: Lines) -> Verdict:
    if len(p.data) < 4:
        return _short(p, "shorter than a blktrace record")
    if blktrace_bin.is_blktrace(p.data):
        return Verdict(YES, "starts with blktrace's record magic 0x65617407 (struct blk_io_trace, version 7)")
    return Verdict(NO, "no blktrace record magic")


def detect_perf_data(p: Prefix, _: Lines) -> Verdict:
    if len(p.data) < 8:
        return _short(p, "shorter than perf.data's magic")
    if p.data[:8] in (b"PERFILE2", b"2ELIFREP", b"PERFFILE"):
        return Verdict(YES, "starts with perf.data's magic PERFILE2 (a perf record file, binary)")
    return Verdict(NO, "no perf.data magic")


# --- text kinds: the detector gets the first Detector.lines non-blank lines of a file that is not
# binary (else NO "binary"), and, unless Detector.empty is None, at least one of them (else the
# answer is Detector.empty: NO with the whole file, MAYBE with a prefix) -----------------------

_FIO_JSON = re.compile(r'(?m)^\s*\{\s*"fio ?version"\s*:')
_FIO_NORMAL = re.compile(r"^(\S+: \(g=\d+\)|fio: |fio-\d|Starting \d+ process|Jobs: )")


def detect_fio_json(p: Prefix, lines: Lines) -> Verdict:
    text = p.data.decode("utf-8", "replace")
    m = _FIO_JSON.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        before = "" if m.start() == 0 else f" after {line - 1} line(s) of fio's other output"
        return Verdict(YES, f"a JSON object whose first key is \"fio version\" at line {line}{before}")
    first = lines[0][1] if lines else ""
    if _FIO_NORMAL.match(first) or first.strip() == "{":
        return _short(p, "fio's text output or a JSON object, no \"fio version\" key seen yet")
    return Verdict(NO, "no JSON object starting with \"fio version\"")


def detect_fio_terse(p: Prefix, lines: Lines) -> Verdict:
    if looks_like_terse("\n".join(ln for _, ln in lines)):
        return Verdict(YES, "fio terse lines (VERSION;fio-X;jobname;...)")
    return Verdict(NO, "no fio terse line")


_FIO_LOG = re.compile(r"^\d+, -?\d+(?:\.\d+)?, \d+, \d+(?:, -?\d+)*\s*$")


def _fio_log_fields(lines: Lines) -> Verdict | int:
    """The number of fields of every line, or NO."""
    widths = set()
    for i, ln in lines:
        if not _FIO_LOG.match(ln):
            return Verdict(NO, f"line {i} is not 'msec, value, ddir, bs[, ...]'")
        widths.add(ln.count(",") + 1)
    if len(widths) != 1:
        return Verdict(NO, "lines with different numbers of fields")
    return widths.pop()


def detect_fio_log(p: Prefix, lines: Lines) -> Verdict:
    n = _fio_log_fields(lines)
    if isinstance(n, Verdict):
        return n
    if n > 6:
        return Verdict(NO, f"{n} fields per line: a histogram log")
    return Verdict(YES, f"fio log lines 'msec, value, ddir, bs' ({n} fields)")


def detect_fio_hist_log(p: Prefix, lines: Lines) -> Verdict:
    n = _fio_log_fields(lines)
    if isinstance(n, Verdict):
        return n
    if n <= 6:
        return Verdict(NO, f"{n} fields per line: a bw/iops/lat log")
    return Verdict(YES, f"fio histogram log lines 'msec, ddir, bs, {n - 3} latency bins'")


# perf script event lines: "comm  pid[/tid] [cpu] secs.frac: [period] event: ..."
# (old perf versions print no CPU and no time: "java 19983 cycles:")
_PERF_EVENT = re.compile(r"^\s*\S.*?\s+(?:-?\d+/)?-?\d+\s+(?:\[\d+\]\s+)?(?:\d+\.\d+:\s+)?(?:\d+\s+)?(\S+?):(?:\s|$)")
# a stack frame: "\t    7f1e2215d058 __GI___libc_write+0x18 (/usr/lib/...)"; some tools print it at column 0
_FRAME = re.compile(r"^\s*[0-9a-fA-F]+\s+\S")
_TRACEPOINT = re.compile(r"^[A-Za-z0-9_]+:[A-Za-z0-9_]+$")


def _perf_lines(lines: Lines) -> tuple[list[tuple[int, str, str]], int]:
    """(line, text, event) of the perf event lines among `lines`, and the number of frame lines."""
    events, frames = [], 0
    for i, ln in lines:
        m = _PERF_EVENT.match(ln)
        if m:
            events.append((i, ln, m.group(1)))
        elif _FRAME.match(ln):
            frames += 1
    return events, frames


# the off-CPU probe's events (formats/perf_offcpu.py): their chains are weighed by blocked time
_OFFCPU_EVENTS = frozenset({"sched:sched_switch", "sched:sched_waking"})


def detect_perf_script_stacks(p: Prefix, lines: Lines) -> Verdict:
    events, frames = _perf_lines(lines)
    if not events:
        return _short(p, "no perf script event line")
    if frames == 0:
        return Verdict(NO, "perf script events without call stacks")
    if frames < len(events) // 2:
        return Verdict(NO, "few stack frames under the events")
    if {e for _, _, e in events} <= _OFFCPU_EVENTS:
        return Verdict(NO, "sched_switch/sched_waking with call chains: off-CPU stacks (perf-offcpu)")
    return Verdict(YES, f"perf script events with call stacks (first event '{events[0][2]}' at line {events[0][0]})")


def detect_perf_offcpu(p: Prefix, lines: Lines) -> Verdict:
    events, frames = _perf_lines(lines)
    if not events:
        return _short(p, "no perf script event line")
    names = {e for _, _, e in events}
    if not names <= _OFFCPU_EVENTS:
        return Verdict(NO, f"events other than sched_switch/sched_waking ({sorted(names - _OFFCPU_EVENTS)[0]})")
    if frames == 0 or frames < len(events) // 2:
        return Verdict(NO, "sched_switch/sched_waking without call chains")
    return Verdict(YES, f"perf script of {', '.join(sorted(names))} with call chains (off-CPU; first event at "
                        f"line {events[0][0]})")


def _tracepoints(want: Callable[[set[str]], bool], what: str) -> Callable[[Prefix, Lines], Verdict]:
    """A detector of perf script text of tracepoints (no stacks) whose subsystems satisfy `want`."""
    def detect(p: Prefix, lines: Lines) -> Verdict:
        events, frames = _perf_lines(lines)
        if not events:
            return _short(p, "no perf script event line")
        if frames >= max(1, len(events) // 2):
            return Verdict(NO, "events with call stacks")
        names = {e for _, _, e in events}
        if not all(_TRACEPOINT.match(n) for n in names):
            return Verdict(NO, f"events that are not tracepoints ({sorted(n for n in names if not _TRACEPOINT.match(n))[0]})")
        subsystems = {n.split(":", 1)[0] for n in names}
        if want(subsystems):
            return Verdict(YES, f"perf script of {what} tracepoints ({', '.join(sorted(names)[:4])})")
        return Verdict(NO, f"tracepoints of {', '.join(sorted(subsystems))}")
    return detect


_FOLDED = re.compile(r"^\S.* \d+$")


def detect_folded(p: Prefix, lines: Lines) -> Verdict:
    lines = [(i, ln) for i, ln in lines if not ln.startswith("#")]
    if not lines:
        return _short(p, "empty")
    semis = 0
    for i, ln in lines:
        if not _FOLDED.match(ln):
            return Verdict(NO, f"line {i} is not 'frame;frame;... COUNT'")
        stack = ln.rpartition(" ")[0]
        if "," in stack.split(";", 1)[0] and stack.split(";", 1)[0].replace(",", "").replace(" ", "").isdigit():
            return Verdict(NO, f"line {i} starts with numbers")
        semis += ";" in stack
    if semis == 0:
        return _short(p, "no line with ';' between frames")
    return Verdict(YES, f"folded stacks 'frame;frame;... COUNT' ({len(lines)} lines seen)")


_BLKPARSE = re.compile(r"^\s*\d+,\d+\s+\d+\s+\d+\s+\d+\.\d+\s+\d+\s+[A-Za-z]\s+[A-Z]*\s")


def detect_blkparse(p: Prefix, lines: Lines) -> Verdict:
    for i, ln in lines:
        if ln.startswith("Input file "):
            continue
        if _BLKPARSE.match(ln):
            return Verdict(YES, f"blkparse event lines ('maj,min cpu seq time pid action rwbs ...' at line {i})")
        return Verdict(NO, f"line {i} is not a blkparse event line")
    return _short(p, "no event line yet")


# "   &rq->lock:   13128   13128   0.43   190.53 ..." (class name, colon, 8 or 12 numbers)
_LOCK_CLASS = re.compile(r"^\s+\S.*:\s+(?:\d+(?:\.\d+)?\s+){7,}\d+(?:\.\d+)?\s*$")


def detect_lock_stat(p: Prefix, lines: Lines) -> Verdict:
    if lines[0][1].startswith("lock_stat version"):
        return Verdict(YES, f"'{lines[0][1].strip()}' on line {lines[0][0]}")
    for i, ln in lines:
        if "class name" in ln and "con-bounces" in ln:
            return Verdict(YES, f"lock_stat's column header at line {i} (no version line)")
        if _LOCK_CLASS.match(ln):
            return Verdict(YES, f"a lock_stat class line at line {i} (an excerpt without the header)")
    return Verdict(NO, "no 'lock_stat version' line or lock_stat column header")


def detect_timehist(p: Prefix, lines: Lines) -> Verdict:
    for i, ln in lines:
        if ln.split()[:3] == ["time", "cpu", "task"] or ("task name" in ln and "sch delay" in ln):
            return Verdict(YES, f"perf sched timehist's header at line {i}")
        if ln.strip() == "Runtime summary":
            return Verdict(NO, f"perf sched timehist -s: only the summary (line {i}), no per-event rows")
    return Verdict(NO, "no perf sched timehist header")


def detect_perf_stat(p: Prefix, lines: Lines) -> Verdict:
    from .errors import FormatError
    from .perf_stat import parse_perf_stat
    rows = [ln for _, ln in lines if not ln.startswith("#")]
    if not rows:
        return _short(p, "only '#' lines")
    if any(ln.count(",") < 4 for ln in rows):
        return Verdict(NO, "lines with fewer than 5 comma-separated fields")
    try:
        st = parse_perf_stat("\n".join(rows) + "\n", "<prefix>")
    except FormatError as exc:
        return Verdict(NO, f"not perf stat -x, CSV ({exc.message})")
    if not st.rows or not all(re.search(r"[A-Za-z]", r.event) for r in st.rows):
        return Verdict(NO, "no perf stat counter line")
    return Verdict(YES, f"perf stat -x, CSV ({len(st.rows)} counter lines seen, first '{st.rows[0].event}')")


_IOSTAT_SYS = re.compile(r"^\S+ \S+ \([^)]*\)\s+\S+\s+\S+\s+\(\d+ CPU\)\s*$")


def detect_iostat(p: Prefix, lines: Lines) -> Verdict:
    start = 1 if _IOSTAT_SYS.match(lines[0][1]) else 0
    for i, ln in lines[start:]:
        s = ln.strip()
        if re.match(r"^\d", s) and ":" in s and len(s.split()) <= 3:
            continue  # -t time line
        if s.startswith("avg-cpu:") and "%iowait" in s:
            return Verdict(YES, f"iostat's avg-cpu header at line {i}")
        if (s.startswith("Device ") or s.startswith("Device:")) and ("r/s" in s or "rkB/s" in s or "tps" in s):
            return Verdict(YES, f"iostat's Device header at line {i}")
        return Verdict(NO, f"line {i} is not an iostat header")
    return _short(p, "a sysstat system line, no report yet") if start else Verdict(NO, "no iostat header")


def detect_vmstat(p: Prefix, lines: Lines) -> Verdict:
    s = lines[0][1].strip()
    if not (s.startswith("procs") or s.startswith("--procs")):
        return Verdict(NO, "does not start with vmstat's 'procs' header")
    if len(lines) < 2:
        return _short(p, "vmstat's first header line only")
    if lines[1][1].split()[:2] == ["r", "b"]:
        return Verdict(YES, "vmstat's headers 'procs ---memory---...' and 'r b swpd ...'")
    return Verdict(NO, "a 'procs' line not followed by 'r b ...'")


_INI_SECTION = re.compile(r"^\[[^\]]+\]\s*$")
_INI_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:=.*)?$")
_FIO_OPTIONS = frozenset({"rw", "readwrite", "bs", "blocksize", "ioengine", "iodepth", "size", "filename",
                          "directory", "runtime", "numjobs", "direct", "time_based", "filesize", "nrfiles"})


def detect_fio_jobfile(p: Prefix, lines: Lines) -> Verdict:
    sections, known = 0, set()
    for i, ln in lines:
        s = ln.strip()
        if s[0] in ";#":
            continue
        if _INI_SECTION.match(s):
            sections += 1
            continue
        m = _INI_KEY.match(s)
        if not m or not sections:
            return Verdict(NO, f"line {i} is not an fio job file line ([section] or option=value)")
        if m.group(1) in _FIO_OPTIONS:
            known.add(m.group(1))
    if sections and known:
        return Verdict(YES, f"an ini file with fio options ({', '.join(sorted(known)[:4])})")
    return _short(p, "no [section] with fio options yet")


def detect_monitor(p: Prefix, lines: Lines) -> Verdict:
    if not lines[0][1].startswith("#@iolens-monitor t_ns="):
        return Verdict(NO, "no '#@iolens-monitor t_ns=' line first")
    from .monitors import source_of
    src = source_of("\n".join(p.lines[:60]))
    if src is None:
        return _short(p, "an iolens monitor file of no known source yet")
    return Verdict(YES, f"an iolens-collect monitor file ({src} snapshots)")


def detect_tracepoint_formats(p: Prefix, lines: Lines) -> Verdict:
    if len(lines) < 2:
        return _short(p, "too short")
    if lines[0][1].startswith("system: ") and lines[1][1].startswith("name: "):
        return Verdict(YES, f"tracefs event formats ('system:', 'name: {lines[1][1][6:].strip()}', fields...)")
    return Verdict(NO, "no 'system:' and 'name:' lines first")


def detect_trace_fields(p: Prefix, lines: Lines) -> Verdict:
    first = lines[0][1]
    if not first.startswith('{"event":'):
        return Verdict(NO, "not JSON lines starting with \"event\"")
    import json
    try:
        o = json.loads(first)
    except ValueError:
        return _short(p, "a JSON line cut short")
    if isinstance(o, dict) and "fields" in o and "time_ns" in o:
        return Verdict(YES, f"iolens-collect --trace JSON lines (first event {o.get('event')})")
    return Verdict(NO, "JSON lines without 'fields' and 'time_ns'")


@dataclass(frozen=True)
class Detector:
    kind: str
    title: str
    detect: Callable[[Prefix, Lines], Verdict]
    lines: int | None = _SCAN_LINES  # text: how many non-blank lines it reads; None: a binary kind
    comments: bool = True            # False: without lines that start with '#'
    empty: str | None = "empty"      # the answer's reason without any line; None: the detector decides

    def __call__(self, p: Prefix) -> Verdict:
        if self.lines is None:
            return self.detect(p, [])
        if p.binary:
            return Verdict(NO, "binary")
        lines = p.nonblank(self.lines, self.comments)
        if not lines and self.empty is not None:
            return _short(p, self.empty)
        return self.detect(p, lines)


DETECTORS: tuple[Detector, ...] = (
    Detector("blktrace", "blktrace binary per-CPU file", detect_blktrace, None),
    Detector("perf-data", "perf.data (binary perf record file)", detect_perf_data, None),
    Detector("fio-json", "fio JSON (json, json+, normal+json)", detect_fio_json, 5, empty=None),
    Detector("fio-terse", "fio terse output", detect_fio_terse, 50),
    Detector("fio-jobfile", "fio job file", detect_fio_jobfile, empty=None),
    Detector("fio-log", "fio bw/iops/lat log", detect_fio_log, 50),
    Detector("fio-hist-log", "fio latency histogram log", detect_fio_hist_log, 50),
    Detector("perf-offcpu", "perf script of sched_switch/sched_waking with call chains (off-CPU)", detect_perf_offcpu,
             comments=False, empty=None),
    Detector("perf-script", "perf script with call stacks", detect_perf_script_stacks, comments=False, empty=None),
    Detector("perf-block", "perf script of block tracepoints", _tracepoints(lambda s: s == {"block"}, "block"),
             comments=False, empty=None),
    Detector("perf-sched", "perf script of sched tracepoints", _tracepoints(lambda s: s == {"sched"}, "sched"),
             comments=False, empty=None),
    Detector("perf-trace", "perf script of tracepoints", _tracepoints(lambda s: s not in ({"block"}, {"sched"}), "other"),
             comments=False, empty=None),
    Detector("folded-stacks", "folded stacks (FlameGraph/inferno)", detect_folded),
    Detector("blkparse", "blkparse text", detect_blkparse, 20, empty=None),
    Detector("lock-stat", "/proc/lock_stat", detect_lock_stat, 6),
    Detector("perf-sched-timehist", "perf sched timehist", detect_timehist, 8, empty=None),
    Detector("perf-stat", "perf stat -x, CSV", detect_perf_stat, 100),
    Detector("iostat", "iostat -x", detect_iostat, 12),
    Detector("vmstat", "vmstat", detect_vmstat, 2),
    Detector("monitor", "iolens-collect monitor samples", detect_monitor, 3),
    Detector("tracepoint-formats", "tracefs event formats", detect_tracepoint_formats, 3, empty=None),
    Detector("perf-trace-fields", "tracepoint events with typed fields (JSON lines)", detect_trace_fields, 3),
)
KINDS = tuple(d.kind for d in DETECTORS)
TITLES = {d.kind: d.title for d in DETECTORS}


@dataclass
class Recognition:
    kind: str | None                 # the recognised kind, None when nothing said yes
    answer: str                      # YES, NO (nothing fits) or MAYBE (read more and ask again)
    reason: str
    gzip: bool = False
    also: list[str] = field(default_factory=list)               # other kinds that said yes
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # every detector's answer


def prefix_of(data: bytes, complete: bool, limit: int = MAX_PREFIX_BYTES) -> Prefix:
    """`data` (the file's first bytes) as detectors see it: gunzipped (at most `limit` bytes)."""
    if data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = d.decompress(data, limit)
        except zlib.error:
            return Prefix(data, complete)  # not really gzip: let the detectors say no
        whole = complete and d.eof and not d.unconsumed_tail
        return Prefix(out, whole, gzip=True)
    return Prefix(data, complete)


def recognise(data: bytes, complete: bool) -> Recognition:
    p = prefix_of(data, complete)
    verdicts = {d.kind: d(p) for d in DETECTORS}
    yes = [k for k, v in verdicts.items() if v.answer == YES]
    if yes:
        return Recognition(yes[0], YES, verdicts[yes[0]].reason, p.gzip, yes[1:], verdicts)
    maybe = [k for k, v in verdicts.items() if v.answer == MAYBE]
    if maybe:
        return Recognition(None, MAYBE, "could be " + ", ".join(maybe), p.gzip, [], verdicts)
    if not p.data.strip():
        return Recognition(None, NO, "the file is empty", p.gzip, [], verdicts)
    return Recognition(None, NO, f"none of the {len(KINDS)} kinds iolens recognises (fio JSON/terse/logs, perf script, "
                                 "blktrace, blkparse, folded stacks, lock_stat, perf stat, iostat, vmstat...) fits",
                       p.gzip, [], verdicts)
