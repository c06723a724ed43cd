"""Numbers as the tools print them, read strictly: ASCII digits, finite, within 64 bits.

Python's int() and float() accept more than any tool prints ("NaN", "Infinity", "1e309" (which
becomes inf), "1_000", Arabic-Indic digits, 5,000-digit integers that int() refuses with a
ValueError): the parsers read numbers through these helpers so that such text is refused with
the file, line and field, instead of reaching the database or a JSON answer as NaN, or ending in
a traceback.
"""

from __future__ import annotations

import json
import math
import re

from .errors import FormatError

__all__ = ["INT_RE", "FLOAT_RE", "STRICT_JSON", "StrictJsonError", "is_int", "is_float", "to_int", "to_float", "check_float"]

# An integer of at most 20 digits (u64); a decimal number with an optional exponent.
INT_RE = re.compile(r"[+-]?[0-9]{1,20}")
FLOAT_RE = re.compile(r"[+-]?(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,3})?")
U64_MAX = 2**64 - 1
I64_MIN = -(2**63)


def is_int(text: str) -> bool:
    return INT_RE.fullmatch(text) is not None and I64_MIN <= int(text) <= U64_MAX


def is_float(text: str) -> bool:
    return FLOAT_RE.fullmatch(text) is not None and math.isfinite(float(text))


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def to_int(text: str, source: str, line: int | None, field: str, *, minimum: int | None = None) -> int:
    """`text` as an integer, else FormatError naming source, line and field."""
    t = text.strip()
    if not is_int(t):
        raise FormatError(source, f"expected a whole number (at most 20 digits), got {_show(text)}", line=line, field=field)
    v = int(t)
    if minimum is not None and v < minimum:
        raise FormatError(source, f"expected a number >= {minimum}, got {v}", line=line, field=field)
    return v


def to_float(text: str, source: str, line: int | None, field: str, *, minimum: float | None = None) -> float:
    """`text` as a finite number, else FormatError naming source, line and field."""
    t = text.strip()
    if FLOAT_RE.fullmatch(t) is None:
        raise FormatError(source, f"expected a number, got {_show(text)}", line=line, field=field)
    return check_float(float(t), source, line, field, minimum=minimum, text=t)


def check_float(v: float, source: str, line: int | None, field: str, *, minimum: float | None = None,
                text: str | None = None) -> float:
    """A number already read (from JSON, say): finite and not below `minimum`, else FormatError."""
    if not math.isfinite(v):
        raise FormatError(source, f"expected a finite number, got {_show(text or repr(v))}", line=line, field=field)
    if minimum is not None and v < minimum:
        raise FormatError(source, f"expected a number >= {minimum:g}, got {_show(text or repr(v))}", line=line,
                          field=field)
    return v


class StrictJsonError(ValueError):
    """A JSON number no tool writes: NaN/Infinity, an integer past 64 bits, a float past a double."""

    def __init__(self, token: str, why: str) -> None:
        super().__init__(why)
        self.token = token
        self.why = why

    def where(self, text: str, start: int = 0) -> int | None:
        """The line of `text` holding the token (the first one after `start`)."""
        pos = text.find(self.token, start)
        return None if pos < 0 else text.count("\n", 0, pos) + 1

    def format_error(self, source: str, text: str, start: int = 0, line: int | None = None) -> FormatError:
        return FormatError(source, f"{self.why}: {_show(self.token)}", line=line or self.where(text, start))


def _json_constant(name: str) -> float:
    raise StrictJsonError(name, "NaN and Infinity are not JSON numbers")


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > 20 or not I64_MIN <= int(text) <= U64_MAX:
        raise StrictJsonError(text, "an integer beyond 64 bits")
    return int(text)


def _json_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise StrictJsonError(text, "a number beyond the range of a double")
    return v


#: A JSON decoder that refuses NaN, Infinity, integers beyond 64 bits and numbers beyond a double
#: (Python's own accepts the first three and turns 1e309 into inf). Raises StrictJsonError.
STRICT_JSON = json.JSONDecoder(parse_constant=_json_constant, parse_int=_json_int, parse_float=_json_float)
