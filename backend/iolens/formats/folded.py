"""Folded stacks (FlameGraph's stackcollapse-*.pl, inferno-collapse-*) -> (stack, count) rows.

The format flamegraph.pl and inferno-flamegraph read: one stack per line, frames root first
separated by ';', then one space and the sample count:

    fio;entry_SYSCALL_64;do_syscall_64;__x64_sys_io_submit;io_submit_one 17
    swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle_call 3004

- The count is the last space-separated word; frames may themselves hold spaces
  ("V8 WorkerThread;..." from tools that do not replace them), so the line is split at its
  last space. A count is a non-negative integer (a sample count or an event period).
- The same stack on several lines is summed, as flamegraph.pl sums it; the first appearance
  decides the order.
- Blank lines and lines starting with '#' are skipped. A CRLF file is read as LF.
- A line with two counts ("stack 12 15") is the *differential* folded format of difffolded.pl:
  refused with a message saying so (load each side as its own capture and compare them instead).
- Frames are kept as written: annotations such as "_[k]" (kernel) or "_[j]" (JIT) that
  inferno adds stay part of the frame name, as flamegraph.pl keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import FormatError


@dataclass
class Folded:
    stacks: list[tuple[str, int]]   # (folded stack, summed count), in order of first appearance
    lines: int                      # stack lines read (before summing duplicates)
    total: int                      # sum of all counts


def parse_folded(text: str, source: str = "folded.txt") -> Folded:
    sums: dict[str, int] = {}
    lines = 0
    total = 0
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        stack, sep, count = line.rpartition(" ")
        if not sep or not stack.strip():
            raise FormatError(source, f"expected 'frame;frame;... COUNT', got {line[:80]!r}", line=lineno, field="count")
        if not (count.isascii() and count.isdigit() and len(count) <= 18):
            raise FormatError(source, f"the count {count[:30]!r} is not a non-negative integer", line=lineno, field="count")
        head, _, prev = stack.rpartition(" ")
        if head and prev.isascii() and prev.isdigit() and ";" in head:
            raise FormatError(source, "two counts on the line: this is difffolded.pl's differential format; "
                                      "load each side as its own file instead", line=lineno, field="count")
        stack = stack.rstrip()
        n = int(count)
        sums[stack] = sums.get(stack, 0) + n
        lines += 1
        total += n
    if not lines:
        raise FormatError(source, "no folded stacks in the file")
    return Folded(list(sums.items()), lines, total)
