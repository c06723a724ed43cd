"""A kernel's .config (artifact kind ``kernel-config``): ``CONFIG_X=value`` and ``# CONFIG_X is not set``.

The collector keeps the file whole (``--kernel-config``, collectors/iolens_collect/kconfig.py reads
the same lines); ingest stores every option so a comparison can list the options that differ.
"""

from __future__ import annotations

import re

from .errors import FormatError

__all__ = ["parse_kconfig"]

_OPT = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_NOT = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def parse_kconfig(text: str, *, source: str = "kernel/config") -> dict[str, str]:
    """{CONFIG_X: value}, quotes of string values removed, "n" for "is not set"."""
    options: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        m = _OPT.match(s)
        if m:
            v = m.group(2)
            options[m.group(1)] = v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v
            continue
        m = _NOT.match(s)
        if m:
            options[m.group(1)] = "n"
            continue
        if s.startswith("#"):
            continue
        raise FormatError(source, f"not a .config line: {s[:80]!r}", line=n)
    if not options:
        raise FormatError(source, "no CONFIG_ option in it: not a kernel .config")
    return options
