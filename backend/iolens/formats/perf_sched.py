"""Scheduler events as printed by `perf script` / `perf sched script`, and `perf sched timehist` text.

Two inputs, both pure text -> rows:

1. `iter_sched_events(lines)` / `parse_sched_script(text)`: the tracepoints sched:sched_switch,
   sched:sched_wakeup, sched:sched_wakeup_new, sched:sched_waking and sched:sched_migrate_task, one
   per line, as `perf script` prints them (`perf sched script` is the same code: it execs
   `perf script`). Streaming: a multi-million-event capture is read line by line.
2. `parse_timehist(text)`: the table `perf sched timehist` prints (with -w, -M, -n, -V, --state,
   and call chains), a derived view that users paste into mails.

References (pinned): perf 6.1, tools/perf/builtin-script.c (perf_sample__fprintf_start,
process_event) and tools/perf/builtin-sched.c (timehist_header, timehist_print_sample,
timehist_print_wakeup_event, timehist_print_migration_event); the print formats of
include/trace/events/sched.h (v6.1). Real samples: tests/formats/samples/README.md.

Line shape of `perf script` for a tracepoint (default fields comm, tid, cpu, time, event, trace):

    "%16s " comm, right-aligned; may contain spaces ("Web Content"), longer than 16 is not cut
    "%7d "  tid, or "%7d/%-7d " pid/tid with -F +pid
    "[%03d] " cpu
    "%lu.%06lu: " time in seconds (9 decimals with --ns)
    "%*s: " event name, right-aligned to the longest event name of the file
    trace text, from the tracepoint's print format

Anything else perf can print on a line (call chains recorded with -g, printed on the lines below,
indented) is skipped; a non-blank line that is not an event raises FormatError. Events other than
the five above (sched:sched_stat_runtime, sched:sched_process_exec...) are counted in `skipped`.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from .errors import FormatError

# --------------------------------------------------------------------------------------------
# perf script text of sched tracepoints


class Switch(NamedTuple):
    """sched:sched_switch: `prev` leaves CPU `cpu`, `next` starts running there."""

    line: int  # 1-based line number in the file: the event's identity and its order
    ts_ns: int  # perf clock (CLOCK_MONOTONIC on Linux), ns
    cpu: int
    prev_comm: str
    prev_pid: int  # a thread id (the kernel's pid), 0 = the idle task
    prev_prio: int
    prev_state: str  # R, R+ (preempted), S, D, I, T, t, X, Z, P, or flags joined by "|"
    next_comm: str
    next_pid: int
    next_prio: int


class Wake(NamedTuple):
    """sched:sched_waking (start of a wakeup, on the waker's CPU), sched:sched_wakeup (the task is
    runnable on `target_cpu`) or sched:sched_wakeup_new (a new task)."""

    line: int
    ts_ns: int
    cpu: int  # CPU the event was recorded on (the waker's, or the target's for remote wakeups)
    kind: str  # waking | wakeup | wakeup_new
    comm: str  # the task woken
    pid: int
    prio: int
    target_cpu: int | None  # None on kernels whose format has no target_cpu
    waker_comm: str  # the task running when the event fired (perf's comm column)
    waker_pid: int  # its thread id (0 = woken from idle / interrupt on an idle CPU)


class Migrate(NamedTuple):
    """sched:sched_migrate_task: task `pid` moves from orig_cpu to dest_cpu."""

    line: int
    ts_ns: int
    cpu: int
    comm: str
    pid: int
    prio: int
    orig_cpu: int
    dest_cpu: int


SchedEvent = Switch | Wake | Migrate

# The header written by perf_sample__fprintf_start. The comm is matched lazily and the tid, the
# optional /pid and the [cpu] that follow pin it down, so comms with spaces and digits work.
# An optional sample period (-F +period) may sit between the time and the event name.
# Numbers are bounded as the kernel bounds them (pid_t, 2^63 ns), so that a number no tool prints
# is an error here and not a traceback or an overflow further on.
_HEAD = re.compile(
    r"\s*(?P<comm>.*?)\s+(?P<tid>-?[0-9]{1,9})(?:/(?P<tid2>-?[0-9]{1,9}))?\s+\[(?P<cpu>[0-9]{1,6})\]\s+"
    r"(?P<sec>[0-9]{1,10})\.(?P<frac>[0-9]{1,9}):\s+(?:[0-9]{1,20}\s+)?(?P<event>[\w:.-]+):\s?"
)

# Print formats of include/trace/events/sched.h. prev_comm/next_comm/comm are "%s" of a 16-byte
# array and can hold spaces, so the next field's name ends them.
_SWITCH = re.compile(
    r"prev_comm=(.*?) prev_pid=([0-9]{1,9}) prev_prio=(-?[0-9]{1,9}) prev_state=(\S*)"
    r" ==> next_comm=(.*?) next_pid=([0-9]{1,9}) next_prio=(-?[0-9]{1,9})"
)
# Since 4.x (commit 2705937a): "comm=%s pid=%d prio=%d target_cpu=%03d". Before that a
# "success=%d" field sat before target_cpu; very old kernels had no target_cpu.
_WAKE = re.compile(
    r"comm=(.*?) pid=([0-9]{1,9}) prio=(-?[0-9]{1,9})(?: success=\d+)?(?: target_cpu=([0-9]{1,6}))?"
)
_MIGRATE = re.compile(
    r"comm=(.*?) pid=([0-9]{1,9}) prio=(-?[0-9]{1,9}) orig_cpu=([0-9]{1,6}) dest_cpu=([0-9]{1,6})"
)
# The trace text of sched_switch and sched_waking/wakeup, for other readers of these events
# (perf_offcpu.py: the same events with call chains).
SWITCH_TRACE = _SWITCH
WAKE_TRACE = _WAKE

_HEAD_LOOSE = re.compile(r"\s*.*?\s+-?\d+(?:/-?\d+)?\s+\[\d+\]\s+\d+\.\d+:\s+(?:\d+\s+)?[\w:.-]+:")
_FIELD_VALUE = re.compile(r"\b(\w*(?:pid|prio|cpu))=(\S*)")
_FIELD_OK = {"pid": re.compile(r"[0-9]{1,9}"), "prio": re.compile(r"-?[0-9]{1,9}"), "cpu": re.compile(r"[0-9]{1,6}")}
_TS_LIMIT = 2**63

_WAKE_KINDS = {
    "sched:sched_waking": "waking",
    "sched:sched_wakeup": "wakeup",
    "sched:sched_wakeup_new": "wakeup_new",
}

# prev_state printed as a number: libtraceevent falls back to the raw value when it cannot
# evaluate __print_flags. Bits of TASK_REPORT in v6.1 (sched.h: TASK_REPORT_MAX = 0x100 is the
# preemption mark printed as "+").
_STATE_BITS = ((0x01, "S"), (0x02, "D"), (0x04, "T"), (0x08, "t"), (0x10, "X"), (0x20, "Z"),
               (0x40, "P"), (0x80, "I"))


def normalise_state(raw: str) -> str:
    """'S', 'R+', 'D|K' are kept as printed; a number is decoded with the v6.1 bits."""
    if not raw or not raw[0].isdigit():
        return raw
    try:
        value = int(raw, 0)
    except ValueError:
        return raw
    flags = [name for bit, name in _STATE_BITS if value & bit]
    return ("|".join(flags) if flags else "R") + ("+" if value & 0x100 else "")


def _ts_ns(sec: str, frac: str) -> int:
    """'2065', '406546' -> 2065406546000 (microseconds by default, ns with --ns)."""
    if len(frac) > 9:
        frac = frac[:9]
    return int(sec) * 1_000_000_000 + int(frac) * 10 ** (9 - len(frac))


@dataclass
class SchedScript:
    """A whole file's events (small inputs, tests and `iolens convert`); ingest streams instead."""

    switches: list[Switch] = field(default_factory=list)
    wakeups: list[Wake] = field(default_factory=list)
    migrations: list[Migrate] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # other events: name -> count
    first_ts_ns: int | None = None
    last_ts_ns: int | None = None


class SchedReader:
    """Streaming reader: iterate `events(lines)`; `skipped`, `first_ts_ns`, `last_ts_ns` and
    `lines` are filled as it goes."""

    def __init__(self, source: str = "<perf script>") -> None:
        self.source = source
        self.skipped: dict[str, int] = {}
        self.first_ts_ns: int | None = None
        self.last_ts_ns: int | None = None
        self.lines = 0

    def _error(self, lineno: int, message: str, fieldname: str | None = None) -> FormatError:
        return FormatError(self.source, message, line=lineno, field=fieldname)

    def _trace_error(self, lineno: int, event: str, trace: str) -> FormatError:
        for name, value in _FIELD_VALUE.findall(trace):
            kind = "pid" if name.endswith("pid") else "prio" if name.endswith("prio") else "cpu"
            if not _FIELD_OK[kind].fullmatch(value):
                return self._error(lineno, f"{event}: {name}={value[:40]} is not a {kind} the kernel prints "
                                           "(a pid is >= 0, at most 9 digits)", name)
        return self._error(lineno, f"{event} fields not as expected: {trace.strip()[:80]!r}", "trace")

    def events(self, lines: Iterable[str]) -> Iterator[SchedEvent]:
        # Hot loop (millions of lines): locals only, no helper calls on the common path.
        switch_match = _SWITCH.match
        wake_match = _WAKE.match
        migrate_match = _MIGRATE.match
        wake_kinds = _WAKE_KINDS
        new = tuple.__new__
        skipped = self.skipped
        first = None
        ts = None
        lineno = 0
        for lineno, line in enumerate(lines, 1):
            # Fast path: "<comm> <tid> [<cpu>] <sec>.<frac>: <event>: <trace>", split from the
            # right so that a comm with spaces stays whole. The first ": " ends the time unless
            # the comm holds ": "; anything unexpected goes to the _HEAD regex.
            head, _, body = line.partition(": ")
            parts = head.rsplit(None, 3)
            try:
                comm, tid, cpu, stamp = parts
                sec, frac = stamp.split(".")
                if cpu[0] != "[":
                    raise ValueError
                cpu = int(cpu[1:-1])
                ts = int(sec + frac) * 1000 if len(frac) == 6 else _ts_ns(sec, frac)
                tid = int(tid) if "/" not in tid else int(tid.partition("/")[2])  # -F +pid: "pid/tid"
                if ts >= _TS_LIMIT or cpu >= 1_000_000 or tid >= 1_000_000_000 or ts < 0 or cpu < 0:
                    raise ValueError  # the checked path below says which
                event, _, trace = body.lstrip().partition(": ")
                if " " in event:  # a sample period (-F +period) before the event name
                    event = event.rsplit(" ", 1)[1]
            except (ValueError, IndexError):
                h = _HEAD.match(line)
                if h is None:
                    stripped = line.strip()
                    if _HEAD_LOOSE.match(line):
                        raise self._error(lineno, "a time, CPU or thread id beyond what perf prints (2^63 ns, "
                                                  f"9 digits): {stripped[:80]!r}", "header") from None
                    # Blank lines separate samples with call chains; chain lines are indented
                    # "addr symbol+off (dso)" lines (perf record -g).
                    if not stripped or (line[:1] in " \t" and _is_chain_line(stripped)):
                        continue
                    if lineno == 1 and stripped.startswith("#"):
                        continue
                    raise self._error(lineno, f"not a perf script event line: {stripped[:80]!r}") from None
                comm, tid, cpu = h.group("comm"), int(h.group("tid2") or h.group("tid")), int(h.group("cpu"))
                ts = _ts_ns(h.group("sec"), h.group("frac"))
                event = h.group("event")
                trace = line[h.end():]
            if first is None:
                first = ts
            if event == "sched:sched_switch":
                m = switch_match(trace)
                if m is None:
                    raise self._trace_error(lineno, "sched_switch", trace)
                pc, pp, ppr, ps, nc, np, npr = m.groups()
                if ps[:1].isdigit():
                    ps = normalise_state(ps)
                yield new(Switch, (lineno, ts, cpu, pc, int(pp), int(ppr), ps, nc, int(np), int(npr)))
            elif event in wake_kinds:
                m = wake_match(trace)
                if m is None:
                    raise self._trace_error(lineno, event, trace)
                c, p, pr, t = m.groups()
                yield new(Wake, (lineno, ts, cpu, wake_kinds[event], c, int(p), int(pr),
                                 None if t is None else int(t), comm.lstrip(), tid))
            elif event == "sched:sched_migrate_task":
                m = migrate_match(trace)
                if m is None:
                    raise self._trace_error(lineno, "sched_migrate_task", trace)
                c, p, pr, o, d = m.groups()
                yield new(Migrate, (lineno, ts, cpu, c, int(p), int(pr), int(o), int(d)))
            else:
                skipped[event] = skipped.get(event, 0) + 1
        self.lines = lineno
        self.first_ts_ns = first
        self.last_ts_ns = ts


_CHAIN = re.compile(r"[0-9a-fA-F]+\s")


def _is_chain_line(stripped: str) -> bool:
    """'ffffffff8110c1a4 __schedule+0x2d4 ([kernel.kallsyms])' (perf record -g)."""
    return _CHAIN.match(stripped) is not None


def iter_sched_events(lines: Iterable[str], source: str = "<perf script>") -> Iterator[SchedEvent]:
    """Events of a perf script text, in file order, one at a time."""
    return SchedReader(source).events(lines)


def parse_sched_script(text: str, source: str = "<perf script>") -> SchedScript:
    reader = SchedReader(source)
    out = SchedScript()
    # Hundreds of thousands of tuples kept in lists make the cyclic GC rescan them again and again
    # (7x the parse time here); events hold only ints and strings, so no cycle can form.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for ev in reader.events(text.splitlines()):
            if type(ev) is Switch:
                out.switches.append(ev)
            elif type(ev) is Wake:
                out.wakeups.append(ev)
            else:
                out.migrations.append(ev)
    finally:
        if was_enabled:
            gc.enable()
    out.skipped = dict(sorted(reader.skipped.items()))
    out.first_ts_ns, out.last_ts_ns = reader.first_ts_ns, reader.last_ts_ns
    return out


# --------------------------------------------------------------------------------------------
# perf sched timehist


@dataclass(frozen=True)
class TimehistRow:
    """One line of `perf sched timehist`.

    kind 'switch': `task` was switched out at `ts_ns` on `cpu`; wait (time between its previous
    switch-out and this switch-in), sch delay (wakeup to switch-in) and run time are perf's.
    kind 'wakeup' (-w): `task` woke `target`. kind 'migrate' (-M): `task` moved `target` from
    from_cpu to to_cpu.
    """

    ts_ns: int
    cpu: int
    kind: str  # switch | wakeup | migrate
    task: str  # as printed: "gcc[31949]", "dpkg-deb[8392/8390]", "<idle>"
    comm: str  # "gcc", "<idle>"
    tid: int | None  # None for <idle>
    pid: int | None  # the process id when printed as [tid/pid], else equal to tid
    wait_ns: int | None = None
    sch_delay_ns: int | None = None
    run_ns: int | None = None
    state: str | None = None  # --state: the task's state when switched out
    next_task: str | None = None  # -n: who ran next
    callchain: list[str] | None = None  # -g: frames, innermost first
    target: str | None = None  # wakeup/migrate: the task woken or moved
    from_cpu: int | None = None
    to_cpu: int | None = None
    cpu_visual: str | None = None  # -V: the per-CPU column ('s' = this CPU switched, 'i' idle, ...)


@dataclass
class Timehist:
    rows: list[TimehistRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # lines perf printed that are not rows
    columns: list[str] = field(default_factory=list)  # from the header, e.g. ["time", "cpu", ...]


_TH_HEAD = re.compile(r"\s*time\s+cpu\s+")
_TH_ROW = re.compile(r"\s*(?P<t>[0-9]{1,10})\.(?P<f>[0-9]{1,9})\s+\[(?P<cpu>[0-9]{1,6})\]")
_TH_ROW_LOOSE = re.compile(r"\s*\d+\.\d+\s+\[\d+\]")
_TH_TASK = re.compile(r"(?P<comm>.*)\[(?P<tid>-?[0-9]{1,9})(?:/(?P<pid>-?[0-9]{1,9}))?\]")
# msec.usec; perf can print a negative delay (events out of order): such rows are dropped, counted
_TH_TIMES = re.compile(r"\s+(?P<w>-?[0-9]{1,12}\.[0-9]{1,9})\s+(?P<d>-?[0-9]{1,12}\.[0-9]{1,9})"
                       r"\s+(?P<r>-?[0-9]{1,12}\.[0-9]{1,9})(?=\s|$)")
_TH_WAKE = re.compile(r"\s+awakened:\s+(?P<target>.+?)\s*$")
_TH_MIGRATE = re.compile(r"\s+migrated:\s+(?P<target>.+?)\s+cpu\s+(?P<from>\d+)\s+=>\s+(?P<to>\d+)\s*$")
# Lines perf prints around the table (builtin-sched.c): kept as notes.
_TH_NOTES = ("Samples do not have callchains.", "Runtime summary", "Idle stats", "Terminated tasks",
             "Total number of unique tasks", "Total number of context switches", "Total run time",
             "Total scheduling time")


def _ms_ns(text: str) -> int:
    """'3.350' msec (perf prints msec.usec) -> 3350000 ns, without float rounding."""
    neg = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    frac = (frac + "000000")[:6]
    value = int(whole) * 1_000_000 + int(frac)
    return -value if neg else value


def _split_task(task: str) -> tuple[str, int | None, int | None]:
    m = _TH_TASK.fullmatch(task)
    if m is None:
        return task, None, None  # "<idle>"
    tid = int(m.group("tid"))
    pid = int(m.group("pid")) if m.group("pid") else tid
    return m.group("comm"), tid, pid


def parse_timehist(text: str, source: str = "<perf sched timehist>") -> Timehist:
    out = Timehist()
    task_col: int | None = None  # where "task name" starts in the header (and in rows)
    visual_span: tuple[int, int] | None = None  # -V: the per-CPU column, under its header digits
    has_state = False
    in_summary = False
    negative: list[int] = []  # lines of rows with a negative time, dropped
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if in_summary:
            continue  # the -s/-S summary tables after the rows: not parsed
        if _TH_HEAD.match(line) and "task name" in line:
            task_col = line.index("task name")
            head = list(re.finditer(r"\S+", line[:task_col]))
            # time, cpu, then with -V a column headed by CPU digits ("012", one char per CPU)
            visual_span = head[2].span() if len(head) > 2 else None
            has_state = line.rstrip().endswith("state")
            out.columns = [c for c in re.split(r"\s{2,}", stripped) if c]
            continue
        if stripped.startswith("[tid/pid]") or set(stripped) <= set("- "):
            continue
        if stripped.startswith(_TH_NOTES):
            out.notes.append(stripped)
            if not stripped.startswith("Samples do not have callchains."):
                in_summary = True
            continue
        m = _TH_ROW.match(line)
        if m is None:
            if _TH_ROW_LOOSE.match(line):
                raise FormatError(source, f"a time or CPU beyond what perf prints: {stripped[:80]!r}", line=lineno,
                                  field="time")
            raise FormatError(source, f"not a perf sched timehist line: {stripped[:80]!r}", line=lineno)
        if task_col is None:
            raise FormatError(source, "a row before the header (time cpu task name ...)", line=lineno)
        frac = m.group("f")
        ts = int(m.group("t")) * 1_000_000_000 + int(frac[:9]) * 10 ** (9 - min(len(frac), 9))
        cpu = int(m.group("cpu"))
        visual = None
        if visual_span is not None:
            visual = line[visual_span[0]: visual_span[1]]
            rest = line[task_col:]
        else:
            rest = line[m.end():].lstrip()
        rest = rest.rstrip()
        wk = _TH_WAKE.search(rest)
        mg = _TH_MIGRATE.search(rest) if wk is None else None
        if wk is not None or mg is not None:
            hit = wk or mg
            assert hit is not None
            task = rest[: hit.start()].strip()
            comm, tid, pid = _split_task(task)
            out.rows.append(TimehistRow(
                ts, cpu, "wakeup" if wk else "migrate", task, comm, tid, pid,
                target=hit.group("target"),
                from_cpu=int(mg.group("from")) if mg else None, to_cpu=int(mg.group("to")) if mg else None,
                cpu_visual=visual,
            ))
            continue
        t = _TH_TIMES.search(rest)
        if t is None:
            raise FormatError(source, "expected wait time, sch delay and run time (msec)", line=lineno,
                              field="times")
        if "-" in (t.group("w")[0], t.group("d")[0], t.group("r")[0]):
            negative.append(lineno)
            continue
        task = rest[: t.start()].strip()
        comm, tid, pid = _split_task(task)
        tail = rest[t.end():].strip()
        state = nxt = None
        chain: list[str] | None = None
        if has_state and tail:
            state, _, tail = tail.partition(" ")
            tail = tail.strip()
        if tail.startswith("next:"):
            nm = re.match(r"next:\s+(?P<n>.*?\])(?:\s+|$)", tail)
            if nm is None:
                raise FormatError(source, "next: without a task", line=lineno, field="next")
            nxt = nm.group("n")
            tail = tail[nm.end():].strip()
        if tail:
            chain = [f.strip() for f in tail.split(" <- ")]
        out.rows.append(TimehistRow(
            ts, cpu, "switch", task, comm, tid, pid,
            wait_ns=_ms_ns(t.group("w")), sch_delay_ns=_ms_ns(t.group("d")), run_ns=_ms_ns(t.group("r")),
            state=state, next_task=nxt, callchain=chain, cpu_visual=visual,
        ))
    if negative:
        out.notes.append(f"iolens: {len(negative)} row(s) with a negative wait, sch delay or run time dropped "
                         f"(line {', '.join(map(str, negative[:10]))}{', ...' if len(negative) > 10 else ''})")
    return out
