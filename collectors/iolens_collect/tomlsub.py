"""A reader for the subset of TOML that sweep plans use (docs/sweeps.md), for Python 3.9+.

``tomllib`` is in the standard library only from Python 3.11, and the collector must run on 3.9
hosts, so it reads plans with this instead, on every Python version (one reader, the same errors
everywhere). What it reads is TOML 1.0 and gives what ``tomllib.loads`` gives for the same text
(tests/test_collect_plan.py checks that against tomllib):

- comments (``#`` to the end of the line), blank lines;
- ``key = value`` with bare keys (``A-Za-z0-9_-``), quoted keys (``"a b"``, ``'a'``) and dotted keys
  (``fio.logs = 500``);
- tables ``[name]`` and ``[a.b]``;
- values: basic strings ``"..."`` (escapes ``\\b \\t \\n \\f \\r \\" \\\\ \\uXXXX \\UXXXXXXXX``), literal
  strings ``'...'``, integers (``32``, ``-1``, ``1_000``, ``0x1f``, ``0o17``, ``0b101``), floats
  (``0.5``, ``1e3``, ``inf``, ``nan``), ``true``/``false``, arrays (over several lines, with
  comments and a trailing comma) and inline tables ``{ k = v, ... }``.

What it refuses, each with the line and a message that names the construct: multi-line strings
(``\"\"\"`` and ``'''``), arrays of tables (``[[x]]``), dates and times, a key defined twice, a table
defined twice. Everything else that is not TOML is an error too, never a guess.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Optional

__all__ = ["TomlError", "loads"]


class TomlError(ValueError):
    """The text is not in the supported TOML subset; the message starts with 'line N:'."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


_BARE = re.compile(r"[A-Za-z0-9_-]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}")
_INT = re.compile(r"[+-]?(0|[1-9](_?\d)*)$")
_FLOAT = re.compile(r"[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$")
_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan, "+nan": math.nan,
            "-nan": math.nan}
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


class _Parser:
    def __init__(self, text: str):
        self.s = text.replace("\r\n", "\n")
        self.i = 0
        self.root: Dict[str, Any] = {}
        self.defined_tables: set = set()  # tables opened by a [header] (cannot be opened twice)
        self.inline: set = set()  # ids of inline tables and arrays (closed: no keys added later)

    # -- position ---------------------------------------------------------------------------
    def line(self, pos: Optional[int] = None) -> int:
        return self.s.count("\n", 0, self.i if pos is None else pos) + 1

    def err(self, message: str, pos: Optional[int] = None) -> TomlError:
        return TomlError(self.line(pos), message)

    def peek(self, n: int = 1) -> str:
        return self.s[self.i:self.i + n]

    def skip_ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def skip_comment(self) -> None:
        if self.peek() == "#":
            end = self.s.find("\n", self.i)
            self.i = len(self.s) if end < 0 else end

    def skip_ws_nl(self) -> None:
        """Whitespace, newlines and comments (inside arrays)."""
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch in " \t\n":
                self.i += 1
            elif ch == "#":
                self.skip_comment()
            else:
                break

    def end_of_line(self) -> None:
        self.skip_ws()
        self.skip_comment()
        if self.i < len(self.s):
            if self.s[self.i] != "\n":
                raise self.err(f"expected the end of the line, found {self.rest()!r}")
            self.i += 1

    def rest(self) -> str:
        end = self.s.find("\n", self.i)
        return self.s[self.i:len(self.s) if end < 0 else end][:40]

    # -- document ---------------------------------------------------------------------------
    def parse(self) -> Dict[str, Any]:
        current = self.root
        while True:
            self.skip_ws_nl()
            if self.i >= len(self.s):
                return self.root
            if self.peek(2) == "[[":
                raise self.err("arrays of tables ([[name]]) are not supported in iolens plans; "
                               "use an array of values or an inline table")
            if self.peek() == "[":
                current = self.table_header()
            else:
                self.key_value(current)
            self.end_of_line()

    def table_header(self) -> Dict[str, Any]:
        start = self.i
        self.i += 1
        self.skip_ws()
        keys = self.key()
        self.skip_ws()
        if self.peek() != "]":
            raise self.err(f"expected ']' to close the table header, found {self.rest()!r}")
        self.i += 1
        path = tuple(keys)
        if path in self.defined_tables:
            raise self.err(f"table [{'.'.join(keys)}] is defined twice", start)
        table = self.root
        for k in keys:
            nxt = table.setdefault(k, {})
            if not isinstance(nxt, dict) or id(nxt) in self.inline:
                raise self.err(f"[{'.'.join(keys)}]: {k} is already a value, not a table", start)
            table = nxt
        self.defined_tables.add(path)
        return table

    def key(self) -> List[str]:
        keys = [self.simple_key()]
        while True:
            self.skip_ws()
            if self.peek() != ".":
                return keys
            self.i += 1
            self.skip_ws()
            keys.append(self.simple_key())

    def simple_key(self) -> str:
        ch = self.peek()
        if ch == '"':
            if self.peek(3) == '"""':
                raise self.err("multi-line strings are not supported as keys")
            return self.basic_string()
        if ch == "'":
            return self.literal_string()
        m = _BARE.match(self.s, self.i)
        if not m:
            raise self.err(f"expected a key (letters, digits, '_', '-', or a quoted key), found {self.rest()!r}")
        self.i = m.end()
        return m.group(0)

    def key_value(self, table: Dict[str, Any]) -> None:
        start = self.i
        keys = self.key()
        self.skip_ws()
        if self.peek() != "=":
            raise self.err(f"expected '=' after the key {'.'.join(keys)}, found {self.rest()!r}")
        self.i += 1
        self.skip_ws()
        value = self.value()
        self.assign(table, keys, value, start)

    def assign(self, table: Dict[str, Any], keys: List[str], value: Any, pos: int) -> None:
        for k in keys[:-1]:
            nxt = table.setdefault(k, {})
            if not isinstance(nxt, dict) or id(nxt) in self.inline:
                raise self.err(f"{'.'.join(keys)}: {k} is already a value, not a table", pos)
            table = nxt
        if keys[-1] in table:
            raise self.err(f"key {'.'.join(keys)} is defined twice", pos)
        table[keys[-1]] = value

    # -- values -----------------------------------------------------------------------------
    def value(self) -> Any:
        ch = self.peek()
        if not ch or ch in "\n#":
            raise self.err("expected a value after '='")
        if self.peek(3) in ('"""', "'''"):
            raise self.err("multi-line strings (\"\"\" or ''') are not supported in iolens plans; "
                           "write the text on one line (use \\n in a \"...\" string)")
        if ch == '"':
            return self.basic_string()
        if ch == "'":
            return self.literal_string()
        if ch == "[":
            return self.array()
        if ch == "{":
            return self.inline_table()
        m = re.compile(r"[^\s,\]}#]+").match(self.s, self.i)
        token = m.group(0) if m else ""
        if _DATE.match(token):
            raise self.err(f"dates and times ({token}) are not supported in iolens plans; quote it as a string")
        self.i += len(token)
        if token == "true":
            return True
        if token == "false":
            return False
        if token in _SPECIAL:
            return _SPECIAL[token]
        for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
            if token.startswith(prefix):
                digits = token[2:]
                if digits and not digits.startswith("_") and not digits.endswith("_") and "__" not in digits:
                    try:
                        return int(digits.replace("_", ""), base)
                    except ValueError:
                        pass
                raise self.err(f"{token!r} is not a valid number")
        if _INT.match(token):
            return int(token.replace("_", ""))
        if _FLOAT.match(token) and token.lstrip("+-")[:1].isdigit():
            return float(token.replace("_", ""))
        if not token:
            raise self.err(f"expected a value, found {self.rest()!r}")
        raise self.err(f"{token!r} is not a TOML value (strings need quotes: \"{token}\")")

    def basic_string(self) -> str:
        start = self.i
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s) or self.s[self.i] == "\n":
                raise self.err("unterminated string (a \"...\" string ends on its line)", start)
            ch = self.s[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\":
                esc = self.s[self.i + 1:self.i + 2]
                if esc in _ESCAPES:
                    out.append(_ESCAPES[esc])
                    self.i += 2
                    continue
                if esc in ("u", "U"):
                    n = 4 if esc == "u" else 8
                    digits = self.s[self.i + 2:self.i + 2 + n]
                    if len(digits) != n or not all(c in "0123456789abcdefABCDEF" for c in digits):
                        raise self.err(f"\\{esc} needs {n} hexadecimal digits")
                    code = int(digits, 16)
                    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                        raise self.err(f"\\{esc}{digits} is not a Unicode scalar value")
                    out.append(chr(code))
                    self.i += 2 + n
                    continue
                raise self.err(f"unknown escape \\{esc} in a string (write \\\\ for a backslash, "
                               "or use a 'literal string')")
            if ch != "\t" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
                raise self.err("control character in a string")
            out.append(ch)
            self.i += 1

    def literal_string(self) -> str:
        start = self.i
        end = self.s.find("'", self.i + 1)
        nl = self.s.find("\n", self.i + 1)
        if end < 0 or (0 <= nl < end):
            raise self.err("unterminated string (a '...' string ends on its line)", start)
        self.i = end + 1
        return self.s[start + 1:end]

    def array(self) -> List[Any]:
        start = self.i
        self.i += 1
        items: List[Any] = []
        while True:
            self.skip_ws_nl()
            if self.i >= len(self.s):
                raise self.err("unterminated array (missing ']')", start)
            if self.peek() == "]":
                self.i += 1
                self.inline.add(id(items))
                return items
            items.append(self.value())
            self.skip_ws_nl()
            if self.i >= len(self.s):
                raise self.err("unterminated array (missing ']')", start)
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != "]":
                raise self.err(f"expected ',' or ']' in the array, found {self.rest()!r}")

    def inline_table(self) -> Dict[str, Any]:
        self.i += 1
        table: Dict[str, Any] = {}
        self.skip_ws()
        if self.peek() == "}":
            self.i += 1
            self.inline.add(id(table))
            return table
        while True:
            self.skip_ws()
            if self.peek() in ("\n", ""):
                raise self.err("an inline table { ... } must end on the line it starts")
            start = self.i
            keys = self.key()
            self.skip_ws()
            if self.peek() != "=":
                raise self.err(f"expected '=' in the inline table, found {self.rest()!r}")
            self.i += 1
            self.skip_ws()
            self.assign(table, keys, self.value(), start)
            self.skip_ws()
            if self.peek() == ",":
                self.i += 1
                continue
            if self.peek() == "}":
                self.i += 1
                self.inline.add(id(table))
                return table
            raise self.err(f"expected ',' or '}}' in the inline table, found {self.rest()!r}")


def loads(text: str) -> Dict[str, Any]:
    """Parse ``text``; raises TomlError ('line N: ...') on anything outside the subset."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return _Parser(text).parse()
