"""Reading an artifact that may be gzip-compressed, where a damaged stream is a FormatError.

Collectors gzip their large text artifacts (perf script, perf sched, blkparse, trace events,
monitors). A member cut short or with a flipped byte makes Python's gzip raise EOFError,
zlib.error or BadGzipFile (an OSError) from whatever read reached the damage, in the middle of a
reader's loop. Every reader opens such files through `open_text` (or `gunzip`), which turns those
into the one error type of the parsers: FormatError naming the file and the line the intact text
reaches (``sched.script.gz line 20113: damaged gzip stream: cannot read past line 20112
(EOFError: Compressed file ended before the end-of-stream marker was reached)``). The
readers of kinds that are never gzipped read through `decode` / `read_plain`, which say so of a
gzip stream (the collectors do not compress those; a user who did should hear that, not that the
file is not UTF-8). The lines are
counted on the decompressed chunks (bytes.count per chunk, not per line), so no reader pays for
it line by line. A flipped byte that the deflate decoder does not notice is caught by the CRC at
the end of the member: the reader may have parsed garbage lines by then, but the error still comes
before anything is stored, since ingest parses every artifact before it writes.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import FormatError

MAGIC = b"\x1f\x8b"
# What Python's gzip raises for a damaged stream (BadGzipFile is an OSError).
GZIP_ERRORS: tuple[type[BaseException], ...] = (EOFError, zlib.error, OSError)


def is_gzip(head: bytes) -> bool:
    return head[:2] == MAGIC


def damaged(source: str, lines: int, exc: BaseException) -> FormatError:
    """The FormatError of a gzip stream that broke after `lines` intact lines of text."""
    if isinstance(exc, gzip.BadGzipFile) and str(exc).startswith(("CRC check failed", "Incorrect length")):
        # decoded to the end, but not to what was compressed: the damage is somewhere before
        what = f"its check fails at the end, after line {lines}: the text read is not what was written"
    else:
        what = f"cannot read past line {lines}"
    return FormatError(source, f"damaged gzip stream: {what} ({type(exc).__name__}: {exc})", line=lines + 1)


class _Gunzip(io.RawIOBase):
    """The decompressed bytes of a gzip stream; a read that hits damage raises FormatError."""

    def __init__(self, raw: IO[bytes], source: str) -> None:
        self._raw = raw
        self._gz = gzip.GzipFile(fileobj=raw)
        self._source = source
        self.lines = 0  # newlines delivered so far

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        try:
            data = self._gz.read1(len(b))  # read1: what was decoded before the damage is delivered
        except GZIP_ERRORS as exc:
            raise damaged(self._source, self.lines, exc) from exc
        n = len(data)
        b[:n] = data
        self.lines += data.count(b"\n")
        return n

    def close(self) -> None:
        if not self.closed:
            try:
                self._gz.close()
            finally:
                self._raw.close()
        super().close()


def binary(buffered: io.BufferedReader, source: str, buffer_size: int = 1 << 20) -> IO[bytes]:
    """An open stream's bytes, gunzipped when they start with the gzip magic (detected, not by
    name); `source` is the name errors give. Closing the result closes `buffered`."""
    if not is_gzip(buffered.peek(2)):
        return buffered
    return io.BufferedReader(_Gunzip(buffered, source), buffer_size)


def text(buffered: io.BufferedReader, source: str) -> IO[str]:
    """`binary` as UTF-8 text lines (bad bytes replaced)."""
    return io.TextIOWrapper(binary(buffered, source), encoding="utf-8", errors="replace")


def open_binary(path: Path, source: str | None = None, buffer_size: int = 1 << 20) -> IO[bytes]:
    """The file's bytes, gunzipped when it starts with the gzip magic. `source` is the name
    errors give (the bundle member's path); the file's name by default."""
    name = source if source is not None else path.name
    return binary(io.BufferedReader(path.open("rb"), buffer_size), name, buffer_size)


def open_text(path: Path, source: str | None = None, buffer_size: int = 1 << 20) -> IO[str]:
    """The file as UTF-8 text lines (bad bytes replaced), gzip or not; a damaged gzip stream
    raises FormatError(source, line=the first line not read intact) from the read that reaches it."""
    return io.TextIOWrapper(open_binary(path, source, buffer_size), encoding="utf-8", errors="replace")


def decode(data: bytes, source: str, errors: str = "strict") -> str:
    """`data` as UTF-8 text, for the readers of kinds that are plain text, never gzipped (fio JSON,
    lock_stat, kconfig, ...). A gzip stream there is refused as what it is, naming `source`, not as
    text that is not UTF-8 (its second byte, 0x8b, is no UTF-8 start). Other invalid UTF-8: a
    FormatError naming the line and byte (errors="strict"), or replaced (errors="replace")."""
    if is_gzip(data):
        raise FormatError(source, "looks gzip-compressed (it starts with the gzip magic bytes 1f 8b), but this kind "
                                  "of file is read as plain text: store it uncompressed")
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(source, f"not valid UTF-8 text (at byte offset {exc.start})", line=line) from None


def read_plain(path: Path, source: str | None = None) -> str:
    """The file as UTF-8 text by `decode`'s rules; `source` is the name errors give (the file's by
    default)."""
    return decode(path.read_bytes(), source if source is not None else path.name)


def gunzip(data: bytes, source: str) -> bytes:
    """`data` decompressed when it is gzip (unchanged otherwise); damage is a FormatError."""
    if not is_gzip(data):
        return data
    try:
        return gzip.decompress(data)
    except GZIP_ERRORS as exc:
        damage = _scan(io.BufferedReader(io.BytesIO(data)), source)  # for the line reached
        raise (damage or damaged(source, 0, exc)) from exc


def _scan(buffered: io.BufferedReader, source: str) -> FormatError | None:
    try:
        with binary(buffered, source) as f:
            while f.read(1 << 20):
                pass
    except FormatError as exc:
        return exc
    return None


def find_damage(path: Path, source: str | None = None) -> FormatError | None:
    """The FormatError of `path`'s gzip stream when it is damaged (None when it reads to the end,
    or is not gzip). For readers that decompress elsewhere (the native ones) and only learn
    'corrupt stream', and for a parser error on garbage that a damaged stream decoded to: this
    reads the file again with Python's decoder to name the line reached."""
    with path.open("rb") as f:
        if not is_gzip(f.read(2)):
            return None
    return _scan(io.BufferedReader(path.open("rb"), 1 << 20), source if source is not None else path.name)


def explain(exc: FormatError, path: Path) -> FormatError:
    """A parser's FormatError on `path`, or, when `path`'s gzip stream is damaged, the error of the
    damage (caused by the parser's): a flipped byte can decode to garbage that a parser refuses
    before the CRC check at the end of the member would, and the garbage is not the fault."""
    if exc.message.startswith("damaged gzip stream"):
        return exc
    damage = find_damage(path, exc.file)
    if damage is None:
        return exc
    damage.__cause__ = exc
    return damage


@contextmanager
def native_reads(path: Path | None, source: str) -> Iterator[None]:
    """Around a reader that decompresses `path` elsewhere (the native ones): a read error it raises
    (OSError 'corrupt gzip stream', zlib.error) becomes the FormatError of `find_damage` when the
    file's gzip stream is damaged; other errors, and any error without a path, pass unchanged."""
    try:
        yield
    except (OSError, zlib.error) as exc:
        damage = None if path is None else find_damage(path, source)
        if damage is None:
            raise
        raise damage from exc
