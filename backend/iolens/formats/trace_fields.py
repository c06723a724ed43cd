"""Any tracepoint's events with every field typed: the tracefs `format` files (kind
`tracepoint-formats`) and the collector's JSON lines (kind `perf-trace-fields`), both from
`iolens-collect --trace` (collectors/iolens_collect/trace.py).

1. `parse_formats(text)`: the formats file, blocks of

       system: xfs
       name: xfs_ail_insert
       ID: 1234
       format:
       \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
       ...
       \tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
       \tfield:xfs_lsn_t old_lsn;\toffset:16;\tsize:8;\tsigned:1;
       \tfield:char name[32];\toffset:24;\tsize:32;\tsigned:0;
       \tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;
       print fmt: "..."

   -> one `TraceFormat` per event: its fields (common_* left out) with a column type:
   integers by size and signedness (`BIGINT`, or `UBIGINT` for unsigned 64-bit: addresses, u64
   counters), `VARCHAR` for char arrays and `__data_loc char[]` strings, `VARCHAR` (hex) for other
   arrays. Reference: the kernel's kernel/trace/trace_events.c (f_show) and libtraceevent's
   parsing of the same lines (event-parse.c, event_read_fields).

2. `iter_events(lines)`: the JSON lines, one per event:
   `{"event": "sys:name", "time_ns": N, "cpu": C, "pid": P, "tid": T, "comm": "...", "fields": {...}}`
   (perf's Python gives integers as ints, strings as str, byte arrays as hex). Yields `TraceEvent`s;
   a line that is not such an object raises FormatError with its line number.

3. `field_value(value, field)`: a field's JSON value as its column's value. perf hands a fixed-size
   char array to Python as a str only while every byte of the array is printable up to its end
   (tools/perf/util/scripting-engines/trace-event-python.c, is_printable_array); once one event's
   array holds bytes after its NUL (block's `rwbs[10]` as hex 57530000000057090600: the kernel
   writes the letters and their NUL, the rest is stale), perf passes that field as a bytearray from then on, which the JSON carries as
   hex. A char array's hex (exactly 2 x size hex digits; its text is at most size - 1 characters)
   is read back as the text up to the first NUL, as the kernel's `%s` prints it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import FormatError
from .numbers import STRICT_JSON, StrictJsonError, to_int

_FIELD = re.compile(r"^\s*field:(?P<decl>[^;]+);\s*offset:(?P<off>[0-9]{1,9});\s*size:(?P<size>[0-9]{1,9});\s*signed:(?P<signed>-?[0-9]{1,3});")
_DECL = re.compile(r"^(?P<type>.*?)\s*\b(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?P<array>\[[^\]]*\])?\s*$")


@dataclass(frozen=True)
class TraceField:
    name: str
    ctype: str          # as declared: "unsigned long", "xfs_lsn_t", "char[32]", "__data_loc char[]"
    offset: int
    size: int
    signed: bool
    column_type: str    # BIGINT | UBIGINT | VARCHAR | DOUBLE

    @property
    def is_char_array(self) -> bool:
        """A fixed-size char array (`char rwbs[8]`, `char comm[16]`): text up to its first NUL."""
        base, bracket, _ = self.ctype.partition("[")
        return bool(bracket) and "__data_loc" not in base and "__rel_loc" not in base and "char" in base.split()


@dataclass
class TraceFormat:
    event: str                      # "xfs:xfs_ail_insert"
    id: int | None
    fields: list[TraceField] = field(default_factory=list)
    print_fmt: str | None = None


def _column_type(ctype: str, array: str | None, size: int, signed: bool) -> str:
    if "__data_loc" in ctype or "__rel_loc" in ctype:
        return "VARCHAR"
    if array is not None:
        return "VARCHAR"  # char[] as text, other arrays as hex
    if "char *" in ctype or ctype.endswith("*") and size == 8 and "char" in ctype:
        return "UBIGINT"  # a pointer is an address
    if size in (1, 2, 4):
        return "BIGINT"
    if size == 8:
        return "BIGINT" if signed else "UBIGINT"
    return "VARCHAR"


def parse_formats(text: str, source: str = "trace-formats.txt") -> dict[str, TraceFormat]:
    """The formats file -> {"sys:name": TraceFormat}, in file order."""
    out: dict[str, TraceFormat] = {}
    system: str | None = None
    cur: TraceFormat | None = None
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        s = line.strip()
        if not s or s == "format:":
            continue
        if s.startswith("system:"):
            system = s.split(":", 1)[1].strip()
            cur = None
            continue
        if s.startswith("name:"):
            if system is None:
                raise FormatError(source, "an event before any 'system:' line", line=lineno, field="system")
            name = s.split(":", 1)[1].strip()
            cur = TraceFormat(f"{system}:{name}", None)
            out[cur.event] = cur
            continue
        if cur is None:
            raise FormatError(source, f"not a tracepoint format line: {s[:60]!r}", line=lineno)
        if s.startswith("ID:"):
            cur.id = to_int(s.split(":", 1)[1], source, lineno, "ID", minimum=0)
            continue
        if s.startswith("print fmt:"):
            cur.print_fmt = s.split(":", 1)[1].strip()
            continue
        m = _FIELD.match(s)
        if not m:
            raise FormatError(source, f"not a field line: {s[:60]!r}", line=lineno, field=cur.event)
        d = _DECL.match(m.group("decl").strip())
        if not d:
            raise FormatError(source, f"cannot read the declaration {m.group('decl')!r}", line=lineno, field=cur.event)
        name = d.group("name")
        if name.startswith("common_"):
            continue
        ctype = d.group("type").strip()
        array = d.group("array")
        size, signed = int(m.group("size")), m.group("signed") == "1"
        cur.fields.append(TraceField(name, ctype + (array or ""), int(m.group("off")), size, signed,
                                     _column_type(ctype, array, size, signed)))
    if not out:
        raise FormatError(source, "no tracepoint format in the file")
    return out


@dataclass(frozen=True)
class TraceEvent:
    event: str
    time_ns: int | None
    cpu: int | None
    pid: int | None
    tid: int | None
    comm: str | None
    fields: dict[str, Any]


def iter_events(lines: Iterable[str], source: str = "trace.fields.jsonl") -> Iterator[TraceEvent]:
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            o = STRICT_JSON.decode(line)
        except StrictJsonError as exc:
            raise exc.format_error(source, line, line=lineno) from None
        except json.JSONDecodeError as exc:
            raise FormatError(source, f"not JSON: {exc.msg}", line=lineno) from None
        except RecursionError:
            raise FormatError(source, "not JSON of a trace event: nested too deeply", line=lineno) from None
        if not isinstance(o, dict) or not isinstance(o.get("event"), str) or not isinstance(o.get("fields"), dict):
            raise FormatError(source, "expected an object with 'event' and 'fields'", line=lineno, field="event")
        t = o.get("time_ns")
        if t is not None and not isinstance(t, int):
            raise FormatError(source, f"time_ns {t!r} is not an integer", line=lineno, field="time_ns")
        yield TraceEvent(o["event"], t, o.get("cpu"), o.get("pid"), o.get("tid"), o.get("comm"), o["fields"])


_HEX = re.compile(r"[0-9a-fA-F]*")


def char_array_text(value: Any, size: int) -> Any:
    """A char array's value as text: perf's hex of the whole array (2 x size digits) -> the bytes
    up to the first NUL (UTF-8, bad bytes replaced); text is kept as it is."""
    if isinstance(value, str) and size > 0 and len(value) == 2 * size and _HEX.fullmatch(value):
        return bytes.fromhex(value).split(b"\0", 1)[0].decode("utf-8", errors="replace")
    return value


def field_value(value: Any, f: TraceField) -> Any:
    """A field's JSON value as its column's value (char arrays as NUL-terminated text)."""
    if f.is_char_array and f.column_type == "VARCHAR":
        value = char_array_text(value, f.size)
    return coerce(value, f.column_type)


def coerce(value: Any, column_type: str) -> Any:
    """A field's JSON value as its column's type (None when it does not fit)."""
    if value is None:
        return None
    if column_type in ("BIGINT", "UBIGINT"):
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            if column_type == "BIGINT" and not -(1 << 63) <= value < (1 << 63):
                return None
            if column_type == "UBIGINT" and value < 0:
                return value + (1 << 64) if value >= -(1 << 63) else None
            return value
        return None
    if column_type == "DOUBLE":
        return float(value) if isinstance(value, (int, float)) else None
    if isinstance(value, list):
        return json.dumps(value)
    return str(value)
