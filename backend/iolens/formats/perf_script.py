"""`perf script` text with call stacks -> folded stacks, exactly as inferno-collapse-perf 0.12.8.

This is the pure-Python reference of the rules. The fast path (Rust, several threads, used by
`iolens convert perf-script` and by ingest) is `iolens_native`, wrapped by
`perf_script_native.py`; tests run both over the corpus against inferno's own output.

References, pinned: inferno 0.12.8 from crates.io, src/collapse/perf.rs (the state machine),
src/collapse/common.rs (`fix_partially_demangled_rust_symbol`, output "stack count"),
src/collapse/matcher.rs (`is_kernel`), src/bin/collapse-perf.rs (`--all` = `--kernel --jit`,
`--tid` implies `--pid`). inferno's rules descend from FlameGraph's stackcollapse-perf.pl.

The input, one sample per paragraph (perf 6.1, `perf record -g`, `perf script`):

    dd  2470 [001]  1428.338238:    1001001 cpu-clock:pppH:
    \tffffffff813a4413 finish_task_switch.isra.0+0x93 ([kernel.kallsyms])
    \t    7f1e2215d058 __GI___libc_write+0x18 (/usr/lib/x86_64-linux-gnu/libc.so.6)
    <blank line>

Quirks kept on purpose, each where it is handled below: the comm ends at the first all-digit
word ("V8 WorkerThread 25607 ..."), spaces in it become '_'; "PID/TID" or a lone TID (pid "?");
the text between the first two colons after the TID is "PERIOD EVENT" (modifiers after the
event's colon, "cycles:ppp", are not part of its name) and the period weights the sample (1
when absent); only the first event seen is kept unless an event filter is given; an event line
may carry a one-frame stack after the event ("cycles:u:  ffff... [unknown] ([unknown])"); lines
starting with '#' are ignored anywhere; symbol offsets "+0x1b" are stripped; frames whose
symbol starts with '(' are dropped; "[unknown]" becomes "[module]" (with --addrs "[module <pc>]");
Java inlining "a->b" gives frames "a;b_[i]"; argument lists are cut except Go's ".(" and C++
"(anonymous namespace)"; ';' in a name becomes ':'; Java's leading 'L' is dropped for comms
starting "java"; partially demangled Rust symbols are fixed; the last sample is kept even
without a final blank line. Lines are split on '\\n' only and trimmed with Rust's notion of
whitespace (Unicode White_Space), which differs from Python's str.strip().
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

# Rust's char::is_whitespace (Unicode White_Space); Python's str.strip() also strips \x1c-\x1f.
_WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
      "\u2028\u2029\u202f\u205f\u3000"
_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
_RUST_HASH_LENGTH = 17
_RUST_ESCAPES = (
    ("$SP$", "@"), ("$BP$", "*"), ("$RF$", "&"), ("$LT$", "<"), ("$GT$", ">"), ("$LP$", "("),
    ("$RP$", ")"), ("$C$", ","), ("$u7e$", "~"), ("$u20$", " "), ("$u27$", "'"), ("$u3d$", "="),
    ("$u5b$", "["), ("$u5d$", "]"), ("$u7b$", "{"), ("$u7d$", "}"), ("$u3b$", ";"), ("$u2b$", "+"),
    ("$u21$", "!"), ("$u22$", '"'),
)

_KEEP, _SKIP, _SKIP_REMAINING = 0, 1, 2


@dataclass(frozen=True)
class FoldOptions:
    """inferno-collapse-perf's options; every default is off, as in inferno."""

    pid: bool = False            # --pid: root frame "comm-PID"
    tid: bool = False            # --tid: root frame "comm-PID/TID" (implies --pid)
    kernel: bool = False         # --kernel (or --all): "_[k]" after kernel frames
    jit: bool = False            # --jit (or --all): "_[j]" after JIT frames
    addrs: bool = False          # --addrs: "[module <pc>]" for unknown symbols
    event_filter: str | None = None  # --event-filter; None: the first event of the input
    skip_after: tuple[str, ...] = ()  # --skip-after FUNC: drop FUNC's callers and the comm


@dataclass(frozen=True)
class SampleMeta:
    """What an event line says beyond the folded stack (kept by ingest, dropped by folding)."""

    ts_ns: int | None        # "1428.338238:" -> 1428338238000
    cpu: int | None          # "[001]" -> 1
    pid: int | None          # None when perf printed only a TID
    tid: int | None
    comm: str                # as printed (the folded root frame has its spaces as '_')
    event: str | None        # "cpu-clock" for "cpu-clock:pppH:"


@dataclass(frozen=True)
class Sample:
    meta: SampleMeta
    stack: str | None        # folded with the folder's options; None when no frame was usable
    weight: int              # the period on the event line, 1 when absent


def parse_u64(s: str) -> int | None:
    """Rust's str::parse::<u64>(): an optional '+', ASCII digits, no overflow."""
    digits = s[1:] if s.startswith("+") else s
    if not digits or len(digits) > 20 or not all(c in _DIGITS for c in digits):
        return None  # (more than 20 digits: past u64, an overflow for Rust too)
    v = int(digits)
    return v if v < 1 << 64 else None


def event_line_parts(line: str) -> tuple[str, str, str, int] | None:
    """(comm, pid or "?", tid, index after the TID word): the first all-digit word (or
    PID/TID) followed by a space ends the comm, which may contain spaces."""
    word_start = 0
    all_digits = False
    last_was_space = False
    slash: int | None = None
    for idx, c in enumerate(line):
        if c == " ":
            if all_digits and not last_was_space:
                if slash is not None:
                    pid, tid = line[word_start:slash], line[slash + 1:idx]
                else:
                    pid, tid = "?", line[word_start:idx]
                return line[: word_start - 1].strip(_WS), pid, tid, idx + 1
            word_start = idx + 1
            all_digits = True
        elif c == "/":
            if all_digits:
                slash = idx
        elif c not in _DIGITS:
            all_digits = False
            slash = None
        last_was_space = c == " "
    return None


def stack_line_parts(line: str) -> tuple[str, str, str] | None:
    """(pc, rawfunc, module without parentheses) of "  ffff8103ce3b native_safe_halt ([kernel])"."""
    line = line.lstrip(_WS)
    sp = line.find(" ")
    if sp < 0:
        return None
    pc = line[:sp].rstrip(_WS)
    rest = line[sp + 1:]
    sp2 = rest.rfind(" ")
    if sp2 < 0:
        return None
    module = rest[sp2 + 1:]
    if not (module.startswith("(") and module.endswith(")")):
        return None
    # Two spaces between pc and "(module)": rawfunc is " ", as in the perl version.
    rawfunc = rest[:sp2].strip(_WS) or " "
    return pc, rawfunc, module[1:-1]


def fix_partially_demangled_rust_symbol(symbol: str) -> str:
    tail = symbol[-_RUST_HASH_LENGTH:]
    # (the hash is ASCII, so counting characters here is counting bytes as inferno does)
    if len(tail) != _RUST_HASH_LENGTH or tail[0] != "h" or not all(c in _HEX for c in tail[1:]):
        return symbol
    rest = symbol[:-_RUST_HASH_LENGTH]
    if rest.endswith("::"):
        rest = rest[:-2]
    if rest.startswith("_$"):
        rest = rest[1:]
    out: list[str] = []
    while rest:
        if rest[0] == ".":
            if rest[1:2] == ".":
                out.append("::")
                rest = rest[2:]
            else:
                out.append(".")
                rest = rest[1:]
        elif rest[0] == "$":
            for pat, rep in _RUST_ESCAPES:
                if rest.startswith(pat):
                    out.append(rep)
                    rest = rest[len(pat):]
                    break
            else:
                out.append(rest)
                break
        else:
            idx = min((i for i in (rest.find("$"), rest.find(".")) if i >= 0), default=len(rest))
            out.append(rest[:idx])
            rest = rest[idx:]
    return "".join(out)


def with_module_fallback(module: str, func: str, pc: str, addrs: bool) -> str:
    if func != "[unknown]":
        return func
    if module == "[unknown]":
        if not addrs:
            return func
        name = "unknown"
    else:
        name = module[module.rfind("/") + 1:]
    return f"[{name} <{pc}>]" if addrs else f"[{name}]"


def tidy_generic(func: str) -> str:
    """';' -> ':'; cut the argument list, except Go's "pkg.(*T).M" and C++ "(anonymous
    namespace)", and parentheses nested in <>, {}, []."""
    func = func.replace(";", ":")
    if "(" not in func:
        return func
    depth = 0
    last_dot: int | None = None
    for idx, c in enumerate(func):
        if c in "<{[":
            depth += 1
        elif c in ">}])":
            depth -= 1
        elif c == "(":
            if depth == 0:
                is_go = last_dot == idx
                is_anon = func.startswith("(anonymous namespace)", idx)
                if not is_go and not is_anon:
                    return func[:idx]
            depth += 1
        elif c == ".":
            last_dot = idx + 1
    return func


def tidy_java(func: str) -> str:
    # "Lorg/mozilla/javascript/MemberBox:.init" -> "org/mozilla/javascript/MemberBox:.init"
    return func[1:] if func.startswith("L") and "/" in func else func


def is_vmlinux(s: str) -> bool:
    vm = s.rfind("vmlinux")
    return vm >= 0 and all(c.isascii() and (c.isalnum() or c in "-._") for c in s[vm:])


def is_kernel(module: str) -> bool:
    return (module.startswith("[") or module.endswith(".ko") or is_vmlinux(module)) and module != "[unknown]"


def is_jit(module: str) -> bool:
    return (module.startswith("/tmp/perf-") and module.endswith(".map")) or (
        "/jitted-" in module and module.endswith(".so"))


def parse_seconds_ns(s: str) -> int | None:
    """"1428.338238" -> 1428338238000; more than 9 decimals are truncated."""
    whole, _, frac = s.partition(".")
    if not whole or len(whole) > 18 or not all(c in _DIGITS for c in whole):
        return None
    if not all(c in _DIGITS for c in frac):
        return None
    return int(whole) * 1_000_000_000 + int((frac + "000000000")[:9])


def _uint(s: str) -> int | None:
    if not s or len(s) > 18 or not all(c in _DIGITS for c in s):
        return None
    return int(s)


def parse_meta(comm: str, pid: str, tid: str, rest: str, event: str | None) -> SampleMeta:
    """rest: the event line after the TID ("[001]  1428.338238:    1001001 cpu-clock:pppH:")."""
    r = rest.lstrip(" ")
    cpu = None
    if r.startswith("["):
        close = r.find("]", 1)
        if close >= 0:
            cpu = _uint(r[1:close])
            r = r[close + 1:].lstrip(" ")
    colon = r.find(":")
    ts = parse_seconds_ns(r[:colon]) if colon >= 0 else None
    return SampleMeta(ts, cpu, _uint(pid), _uint(tid), comm, event)


@dataclass
class PerfScriptFolder:
    """inferno's state machine. Feed text in pieces of any size, then call `finish()`.

    Folding mode (default): `counts` maps folded stacks to summed weights, for the samples of
    one event (the first one seen, or `options.event_filter`). With `keep_all=True` every
    sample of every event is kept in `samples`, with its metadata, stackless ones included.
    """

    options: FoldOptions = field(default_factory=FoldOptions)
    keep_all: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    samples: list[Sample] = field(default_factory=list)
    event_filter: str | None = None
    weird_lines: int = 0

    def __post_init__(self) -> None:
        self.event_filter = self.options.event_filter
        self._in_event = False
        self._filter = _KEEP
        self._pname = ""
        self._period: int | None = None
        self._stack: list[str] = []        # root first
        self._pending: SampleMeta | None = None
        self._partial = ""

    # -- input ------------------------------------------------------------------------------
    def feed(self, text: str) -> None:
        """Any piece of the text; a line split across pieces is joined."""
        if not text:
            return
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line)

    def finish(self) -> None:
        if self._partial:
            self._line(self._partial)
            self._partial = ""
        if self._stack:
            self._after_event()
        if self.keep_all:
            self._flush_pending()
        self._in_event = False
        self._filter = _KEEP
        self._stack = []

    def _line(self, line: str) -> None:
        if line.startswith("#"):
            return
        line = line.rstrip(_WS)
        if not line:
            self._after_event()
        elif self._in_event:
            self._on_stack_line(line)
        else:
            if self.keep_all:
                self._flush_pending()
            self._on_event_line(line)
            if self._stack:  # a combined event/stack line
                self._after_event()

    # -- lines ------------------------------------------------------------------------------
    def _on_event_line(self, line: str) -> None:
        self._in_event = True
        parts = event_line_parts(line)
        if parts is None:
            self.weird_lines += 1
            self._in_event = False
            return
        comm, pid, tid, end = parts
        rest = line[end:]
        event: str | None = None
        post_event: str | None = None
        pieces = rest.split(":", 2)   # inferno: splitn(3, ':').skip(1)
        if len(pieces) >= 2:
            if len(pieces) == 3:
                post_event = pieces[2]
            words = pieces[1].rsplit(" ", 2)  # "    1001001 cpu-clock": period, then event
            event = words[-1]
            self._period = parse_u64(words[-2]) if len(words) >= 2 else None
        if event is not None and not self.keep_all:
            if self.event_filter is None:
                self.event_filter = event  # the first event type only: never merge cycles and instructions
            elif event != self.event_filter:
                self._filter = _SKIP
                return
        single_stack = None
        if post_event is not None:
            cut = min((i for i in (post_event.find(":"), post_event.find(" ")) if i >= 0), default=-1)
            s = post_event[cut + 1:].strip(_WS)
            single_stack = s or None
        o = self.options
        self._pname = comm.replace(" ", "_")
        if o.tid:
            self._pname += f"-{pid}/{tid}"
        elif o.pid:
            self._pname += f"-{pid}"
        if self.keep_all:
            self._pending = parse_meta(comm, pid, tid, rest, event)
        if single_stack is not None:
            self._on_stack_line(single_stack)
            self._in_event = False

    def _on_stack_line(self, line: str) -> None:
        if self._filter != _KEEP:
            return
        parts = stack_line_parts(line)
        if parts is None:
            self.weird_lines += 1
            return
        pc, rawfunc, module = parts
        off = rawfunc.rfind("+0x")
        if off >= 0 and all(c in _HEX for c in rawfunc[off + 3:]):
            rawfunc = rawfunc[:off]          # symbol offset
        if rawfunc.startswith("("):
            return                           # process names, as stackcollapse-perf.pl
        rawfunc = fix_partially_demangled_rust_symbol(rawfunc)
        o = self.options
        java = self._pname.startswith("java")
        line_frames: list[str] = []
        for i, func in enumerate(rawfunc.split("->")):
            func = tidy_generic(with_module_fallback(module, func, pc, o.addrs))
            if java:
                func = tidy_java(func)
            if i > 0:
                if "_[i]" not in func:
                    func += "_[i]"           # inlined
            elif o.kernel and is_kernel(module):
                func += "_[k]"
            elif o.jit and is_jit(module) and "_[j]" not in func:
                func += "_[j]"
            line_frames.append(func)
        self._stack[0:0] = line_frames       # callers come later in the text: prepend
        if rawfunc in o.skip_after:
            self._filter = _SKIP_REMAINING

    def _after_event(self) -> None:
        if self._stack:
            frames = self._stack if self._filter == _SKIP_REMAINING else [self._pname, *self._stack]
            key = ";".join(frames)
            weight = 1 if self._period is None else self._period
            if self.keep_all:
                meta, self._pending = self._pending, None
                if meta is not None:
                    self.samples.append(Sample(meta, key, weight))
            else:
                self.counts[key] = self.counts.get(key, 0) + weight
        elif self.keep_all:
            self._flush_pending()
        self._in_event = False
        self._filter = _KEEP
        self._stack = []
        self._period = None

    def _flush_pending(self) -> None:
        if self._pending is not None:
            weight = 1 if self._period is None else self._period
            self.samples.append(Sample(self._pending, None, weight))
            self._pending = None


def fold_text(text: str | Iterable[str], options: FoldOptions = FoldOptions()) -> dict[str, int]:
    """Folded stack -> count, as inferno-collapse-perf prints it (text, or pieces of it)."""
    f = PerfScriptFolder(options)
    for piece in [text] if isinstance(text, str) else text:
        f.feed(piece)
    f.finish()
    return f.counts


def format_folded(counts: dict[str, int]) -> str:
    """inferno's output: "stack count" lines, sorted by stack."""
    return "".join(f"{k} {v}\n" for k, v in sorted(counts.items()))


def parse_folded(text: str) -> dict[str, int]:
    """Folded text back to a dict (counts of repeated stacks are added)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        if line:
            stack, _, count = line.rpartition(" ")
            out[stack] = out.get(stack, 0) + int(count)
    return out


def sample_table(text: str | Iterable[str]) -> tuple[list[str], list[tuple]]:
    """Reference of the ingest tables: (stacks, rows). stacks[i] is the folded stack with id i
    (default options, in order of first appearance); rows are (ts_ns, cpu, pid, tid, comm,
    stack_id, weight, event), one per sample of every event."""
    f = PerfScriptFolder(keep_all=True)
    for piece in [text] if isinstance(text, str) else text:
        f.feed(piece)
    f.finish()
    ids: dict[str, int] = {}
    rows = []
    for s in f.samples:
        sid = None if s.stack is None else ids.setdefault(s.stack, len(ids))
        m = s.meta
        rows.append((m.ts_ns, m.cpu, m.pid, m.tid, m.comm, sid, s.weight, m.event))
    return list(ids), rows


def call_tree(counts: dict[str, int], root: str = "root") -> dict:
    """Folded stacks -> the merged call tree {name, value, children} (children by name)."""
    top: dict = {"name": root, "value": 0, "children": {}}
    for stack, count in counts.items():
        node = top
        node["value"] += count
        for frame in stack.split(";"):
            child = node["children"].get(frame)
            if child is None:
                child = node["children"][frame] = {"name": frame, "value": 0, "children": {}}
            child["value"] += count
            node = child

    def freeze(node: dict) -> dict:
        return {"name": node["name"], "value": node["value"],
                "children": [freeze(node["children"][k]) for k in sorted(node["children"])]}

    return freeze(top)
