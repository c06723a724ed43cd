"""sched_switch and sched_waking with call chains (`perf record -g`, kind perf-offcpu) -> events.

The input, one event per paragraph (perf 6.1, the collector's `--offcpu`: `perf script --ns
-F trace:comm,pid,tid,cpu,time,event,trace,ip,sym,dso`):

    fio  7894/7894  [001] 10872.492459681: sched:sched_switch: prev_comm=fio prev_pid=7894 prev_prio=130 prev_state=S ==> next_comm=kworker/1:1 next_pid=24889 next_prio=120
    \tffffffff821facd8 __schedule ([kernel.kallsyms])
    \tffffffff8173c1e2 read_events ([kernel.kallsyms])
    \t          101829 syscall (/usr/lib/x86_64-linux-gnu/libc.so.6)
    <blank line>

The header is perf's tracepoint line (perf_sched.py reads the same lines without chains; the trace
text is matched with its patterns, SWITCH_TRACE and WAKE_TRACE); the chain follows, leaf first.
The chain of sched_switch is the stack of the task switching out (the event fires in its context,
so the header's task is prev); the chain of sched_waking is whoever raised the wakeup: a task, or
an interrupt or softirq on top of whatever ran (the header's task).

Frames are tidied by the rules of inferno-collapse-perf (perf_script.py): a symbol offset "+0x1b"
is cut, a symbol starting with '(' is dropped, "[unknown]" becomes "[module]", argument lists
are cut, ';' becomes ':', partially demangled Rust symbols are fixed. `frames` is the folded
chain root first ("entry_SYSCALL_64;...;__schedule"), without the task name: ingest puts the
task and its state in front. None when the event has no usable frame.

Which line is the event line (perf's builtin-script.c, perf_sample__fprintf_start, as of v6.1): perf
prints the comm as it is ("%s ") when it prints a call chain, and right-aligned in 16 columns
("%16s ") when it does not; then the pid and tid ("%7d/%-7d "). So with call chains an event line
starts with whitespace only when its task's comm is empty (one space, then the pid's padding:
"    4242/4242    [000] ..."), and without them every event line is indented. The rules:
- the first line of a paragraph (after a blank line, or the file's first line) is an event line,
  indented or not, as inferno-collapse-perf reads it; indented lines after it are its call chain;
- an event line that perf padded (whitespace before a comm, or 16 or more spaces before an empty
  one) has no call chain: an indented line after it is the next event line.
Events other than these two are counted in `skipped`; a non-blank line that is neither an event
line nor a chain line raises FormatError naming the line (a "chain" error for an indented line
that opens a paragraph).
The native pass (src/offcpu.rs) reads by the same rules; testdata/vectors/offcpu-event-line.json
holds the cases both are tested on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from .errors import FormatError
from .perf_sched import SWITCH_TRACE, WAKE_TRACE, normalise_state
from .perf_script import (
    fix_partially_demangled_rust_symbol,
    stack_line_parts,
    tidy_generic,
    with_module_fallback,
)

__all__ = ["OffcpuSwitch", "OffcpuWaking", "OffcpuReader", "iter_offcpu_events", "frame_name", "line_error"]


class OffcpuSwitch(NamedTuple):
    """sched:sched_switch: `prev_pid` leaves `cpu` (its stack: `frames`), `next_pid` runs there."""

    line: int          # 1-based line of the header
    ts_ns: int
    cpu: int
    pid: int | None    # the process (tgid) of prev, from perf's "pid/tid"; None when perf printed a tid only
    prev_comm: str
    prev_pid: int      # thread id; 0 = the idle task
    prev_state: str    # S, D, R, R+ (preempted), I, ... as the kernel printed it
    next_comm: str
    next_pid: int
    frames: str | None  # folded chain, root first


class OffcpuWaking(NamedTuple):
    """sched:sched_waking: the header's task (or an interrupt on top of it) wakes `pid`."""

    line: int
    ts_ns: int
    cpu: int
    waker_pid: int | None
    waker_tid: int
    waker_comm: str
    comm: str           # the task woken
    pid: int            # its thread id
    target_cpu: int | None
    frames: str | None


OffcpuEvent = OffcpuSwitch | OffcpuWaking

# "comm pid/tid [001] 10872.492459681: sched:sched_switch: <trace>" (a period may precede the
# event). As perf_sched.py's header: the comm (spaces allowed) ends at the tid before "[cpu]";
# perf prints -1 for a pid or tid it could not resolve (":-1 13802/-1" for a task it never saw).
_HEAD = re.compile(
    r"\s*(?P<comm>.*?)\s+(?P<pid>-?[0-9]{1,9})(?:/(?P<tid>-?[0-9]{1,9}))?\s+\[(?P<cpu>[0-9]{1,6})\]\s+"
    r"(?P<sec>[0-9]{1,10})\.(?P<frac>[0-9]{1,9}):\s+(?:[0-9]{1,20}\s+)?(?P<event>[\w:.-]+):\s?")
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")


def line_error(source: str, lineno: int, kind: str, text: str) -> FormatError:
    """The error for a line the reader rejects. kind: "chain" (a chain line before any event line),
    "header" (not an event line), "switch" / "waking" (the event's trace text not as expected);
    text: the line, or the trace text. (The native pass of ingest/offcpu_native.py reports its
    errors as these (line, kind, text) and raises the same errors.)"""
    if kind == "chain":
        return FormatError(source, f"a call chain line without an event line before it: {text.strip()[:80]!r}",
                           line=lineno)
    if kind == "header":
        return FormatError(source, f"not a perf script event line: {text.strip()[:80]!r}", line=lineno, field="header")
    event = "sched_switch" if kind == "switch" else "sched_waking"
    return FormatError(source, f"{event} fields not as expected: {text.strip()[:80]!r}", line=lineno, field="trace")


def frame_name(line: str) -> str | None:
    """One chain line -> its frame as inferno names it; None for a frame inferno drops."""
    parts = stack_line_parts(line)
    if parts is None:
        return None
    pc, raw, module = parts
    func = _OFFSET.sub("", raw)
    if func.startswith("("):
        return None
    func = with_module_fallback(module, func, pc, False)
    return fix_partially_demangled_rust_symbol(tidy_generic(func))


class OffcpuReader:
    """Streaming reader: iterate `events(lines)`; `skipped`, `first_ts_ns`, `last_ts_ns`, `lines`
    and `chainless` (events without a usable frame) are filled as it goes."""

    def __init__(self, source: str = "<perf script>") -> None:
        self.source = source
        self.skipped: dict[str, int] = {}
        self.first_ts_ns: int | None = None
        self.last_ts_ns: int | None = None
        self.lines = 0
        self.chainless = 0

    def events(self, lines: Iterable[str]) -> Iterator[OffcpuEvent]:
        head: tuple | None = None   # (lineno, ts, cpu, pid, tid, comm, event, trace) of the open event
        padded = False  # the open event's line was padded: no call chain follows it
        frames: list[str] = []
        lineno = 0
        for lineno, line in enumerate(lines, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                if head is not None:
                    ev = self._make(head, frames)
                    if ev is not None:
                        yield ev
                    head, frames = None, []
                continue
            indented = line[0] in " \t"
            if indented and head is not None and not padded:
                f = frame_name(line)
                if f is not None:
                    frames.append(f)
                continue
            if line.startswith("#"):
                continue
            kind = "chain" if indented and head is None else "header"  # the error if it is no event line
            if head is not None:  # an event without a chain and no blank line (perf record without -g)
                ev = self._make(head, frames)
                if ev is not None:
                    yield ev
                frames = []
            head = self._head(lineno, line, kind)
            ws = len(line) - len(line.lstrip())
            padded = ws > 0 and (head[5] != "" or ws >= 16)
        if head is not None:
            ev = self._make(head, frames)
            if ev is not None:
                yield ev
        self.lines = lineno

    def _head(self, lineno: int, line: str, kind: str) -> tuple:
        m = _HEAD.match(line)
        if m is None:
            raise line_error(self.source, lineno, kind, line)
        comm = m.group("comm")
        if m.group("tid") is None:  # a lone tid
            pid, tid = None, int(m.group("pid"))
        else:
            pid, tid = int(m.group("pid")), int(m.group("tid"))
        frac = m.group("frac")[:9]
        ts = int(m.group("sec")) * 1_000_000_000 + int(frac) * 10 ** (9 - len(frac))
        if self.first_ts_ns is None:
            self.first_ts_ns = ts
        self.last_ts_ns = ts
        return (lineno, ts, int(m.group("cpu")), pid if pid is None or pid >= 0 else None, tid, comm,
                m.group("event"), line[m.end():])

    def _make(self, head: tuple, frames: list[str]) -> OffcpuEvent | None:
        lineno, ts, cpu, pid, tid, comm, event, trace = head
        folded = ";".join(reversed(frames)) if frames else None
        if event == "sched:sched_switch":
            m = SWITCH_TRACE.match(trace)
            if m is None:
                raise line_error(self.source, lineno, "switch", trace)
            pc, pp, _ppr, ps, nc, np, _npr = m.groups()
            if folded is None:
                self.chainless += 1
            return OffcpuSwitch(lineno, ts, cpu, pid, pc, int(pp), normalise_state(ps), nc, int(np), folded)
        if event == "sched:sched_waking":
            m = WAKE_TRACE.match(trace)
            if m is None:
                raise line_error(self.source, lineno, "waking", trace)
            c, p, _pr, t = m.groups()
            if folded is None:
                self.chainless += 1
            return OffcpuWaking(lineno, ts, cpu, pid, tid, comm, c, int(p), None if t is None else int(t), folded)
        self.skipped[event] = self.skipped.get(event, 0) + 1
        return None


def iter_offcpu_events(lines: Iterable[str], source: str = "<perf script>") -> Iterator[OffcpuEvent]:
    """Events of the text in file order (perf script prints them in time order)."""
    return OffcpuReader(source).events(lines)
