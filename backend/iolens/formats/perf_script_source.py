"""What the Rust core (`iolens_native`) is handed as perf script text, checked first.

Shared by perf_script_native.py and the short path of `iolens convert perf-script`
(cli/convert_fast.py), which must start fast: this module imports nothing heavy (gzip only
for a compressed file).
"""

from __future__ import annotations

import os

from .errors import FormatError


def native_source(source: str | os.PathLike[str] | bytes, name: str | None = None) -> str | bytes:
    """A path ('-' = standard input) or bytes as iolens_native takes them; a perf.data file (binary,
    gzip-compressed or not) is refused with what to do instead."""
    if isinstance(source, bytes):
        head = source[:8]
    else:
        source = os.fspath(source)
        if source == "-":
            return source
        with open(source, "rb") as f:
            head = f.read(8)
            if head[:2] == b"\x1f\x8b":
                import gzip

                f.seek(0)
                with gzip.GzipFile(fileobj=f) as g:
                    head = g.read(8)
    if head.startswith(b"PERFILE2"):
        raise FormatError(name or (source if isinstance(source, str) else "<bytes>"),
                          "this is a perf.data file; convert it with `perf script -i FILE` first")
    return source
