"""What `iolens-collect cmd` records of a command (collectors/iolens_collect/cmdrun.py): the
metric lines it printed, and its resource usage.

Pure: text in, dataclasses out.

- Metric lines, anywhere in the command's standard output: ``iolens-metric NAME VALUE [UNIT]``
  (leading blanks allowed). NAME is 1-64 of ``A-Za-z0-9_.:/%-``, VALUE a decimal number
  (``51234``, ``0.25``, ``1e6``), UNIT the rest of the line (up to 32 characters, may hold
  spaces and '/': ``inodes/s``). Other lines are the command's own output and are ignored; a
  line that starts with ``iolens-metric`` but does not parse is reported, not guessed.
- Resource usage (``rusage.json``): the JSON the collector writes from wait4(2): ``wall_ns``,
  ``utime_s``, ``stime_s``, ``maxrss_kb``, ``minflt``, ``majflt``, ``inblock``, ``oublock``
  (512-byte blocks), ``nvcsw``, ``nivcsw``, ``exit_code``, ``signal``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from iolens.formats.errors import FormatError
from iolens.formats.numbers import STRICT_JSON, StrictJsonError

__all__ = ["Metric", "parse_metric_lines", "Rusage", "parse_rusage"]

_METRIC = re.compile(r"^\s*iolens-metric\s+(?P<name>[A-Za-z0-9_.:/%-]{1,64})\s+(?P<value>\S+)(?:\s+(?P<unit>.{1,32}?))?\s*$")


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    value: float
    unit: str  # '' when the line gives none
    line: int


def parse_metric_lines(text: str) -> tuple[list[Metric], list[str]]:
    """(metrics in order, warnings about lines that look like metric lines but are not)."""
    out, warnings = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.lstrip().startswith("iolens-metric"):
            continue
        m = _METRIC.match(line)
        value = None
        if m:
            try:
                value = float(m.group("value"))
            except ValueError:
                value = None
        if m is None or value is None or not math.isfinite(value):
            warnings.append(f"line {lineno}: not 'iolens-metric NAME VALUE [UNIT]': {line.strip()[:80]!r}")
            continue
        out.append(Metric(m.group("name"), value, (m.group("unit") or "").strip(), lineno))
    return out, warnings


@dataclass(frozen=True, slots=True)
class Rusage:
    wall_s: float
    user_s: float
    sys_s: float
    maxrss_kib: int | None
    minflt: int | None
    majflt: int | None
    inblock: int | None
    oublock: int | None
    nvcsw: int | None
    nivcsw: int | None
    exit_code: int | None


def parse_rusage(text: str, source: str = "rusage.json") -> Rusage:
    try:
        doc = STRICT_JSON.decode(text)
    except StrictJsonError as exc:
        raise exc.format_error(source, text) from None
    except (ValueError, RecursionError) as exc:
        raise FormatError(source, f"invalid JSON: {str(exc) or 'nested too deeply'}") from None
    if not isinstance(doc, dict):
        raise FormatError(source, "expected a JSON object")

    def num(key: str, required: bool = False) -> float | None:
        v = doc.get(key)
        if v is None:
            if required:
                raise FormatError(source, "missing (expected a number)", field=key)
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            if key == "exit_code" and isinstance(v, int) and not isinstance(v, bool):
                return v
            raise FormatError(source, f"expected a number >= 0, got {v!r}", field=key)
        return float(v)

    def opt_int(key: str) -> int | None:
        v = num(key)
        return None if v is None else int(v)

    wall = num("wall_ns", True)
    return Rusage(wall_s=wall / 1e9, user_s=num("utime_s", True) or 0.0, sys_s=num("stime_s", True) or 0.0,  # type: ignore[operator]
                  maxrss_kib=opt_int("maxrss_kb"), minflt=opt_int("minflt"), majflt=opt_int("majflt"),
                  inblock=opt_int("inblock"), oublock=opt_int("oublock"), nvcsw=opt_int("nvcsw"),
                  nivcsw=opt_int("nivcsw"), exit_code=opt_int("exit_code"))
