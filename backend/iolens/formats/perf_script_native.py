"""The fast path for perf script text: `iolens_native` (Rust, backend/native/iolens_native).

Same rules as the pure-Python reference `perf_script.py` (both are tested against
inferno-collapse-perf 0.12.8 on the corpus), but on several threads at a few hundred MB/s, with
memory bounded by the chunk queue plus the distinct stacks. Unlike the other format modules this
one reads files itself (a path, '-' for standard input, or bytes; gzip is detected), so the text
never passes through Python.

- `fold`: folded stack -> count, as inferno prints it (`format_folded` renders it).
- `write_folded`: the same, written straight to a file descriptor (`iolens convert`).
- `write_tables_arrow`: every sample of every event with its timestamp, CPU, pid, tid, comm and
  event (`SAMPLE_COLUMNS`), and the distinct stacks folded with inferno's default rules
  (`STACK_COLUMNS`), as Arrow batches in a `TableStream`, which DuckDB scans while the text is
  parsed (ingest: `Writer.insert_arrow`, one statement per run of one table's batches).
  The tests compare its rows with the pure-Python reference (`perf_script.sample_table`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import iolens_native

from . import gz
from .perf_script import FoldOptions
from .perf_script_source import native_source

Source = Union[str, "os.PathLike[str]", bytes]

# The tables of write_tables_arrow, read in runs: `next_table()` names the table of the next
# batches ("samples": SAMPLE_COLUMNS, ts_ns, cpu, pid, tid as int64, stack_id uint32, weight
# uint64; "stacks": STACK_COLUMNS, stack_id uint32), None when every row was read; a scan of
# the stream (`__arrow_c_stream__`) reads that table's batches up to the other table's: every
# sample, then every stack, in batches of one DuckDB row group each (compressed and written by
# the INSERT as they come: the samples' while the text is parsed). DuckDB casts the values to the
# table's types on insert. `cancel()` stops the pass (its next batch fails with BrokenPipeError).
TableStream = iolens_native.TableStream

# The tables of write_tables_arrow: column name and DuckDB type, in the stream's order.
STACK_COLUMNS: tuple[tuple[str, str], ...] = (("stack_id", "INTEGER"), ("folded_stack", "VARCHAR"))
SAMPLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ts_ns", "BIGINT"), ("cpu", "INTEGER"), ("pid", "INTEGER"), ("tid", "INTEGER"),
    ("comm", "VARCHAR"), ("stack_id", "INTEGER"), ("weight", "BIGINT"), ("event", "VARCHAR"),
)


@dataclass(frozen=True)
class FoldInfo:
    bytes: int                 # text bytes read (after decompression)
    event: str | None          # the event that was kept (the first one of the input by default)
    stacks: int                # distinct folded stacks (output lines)
    total: int                 # sum of the counts
    weird_lines: int           # lines that were neither event, stack, comment nor blank


@dataclass(frozen=True)
class TablesSummary:
    bytes: int
    samples: int
    stacks: int
    stackless_samples: int     # samples with no usable frame (stack_id NULL)
    weird_lines: int
    first_event: str | None    # what inferno-collapse-perf would keep by default
    events: dict[str, tuple[int, int]]  # event ('' for none) -> (samples, summed weight)
    ts_min_ns: int | None
    ts_max_ns: int | None


def _source(source: Source, name: str | None = None) -> str | bytes:
    return native_source(source, name)


def _path(source: Source) -> Path | None:
    """The file the native side reads, for naming the line a damaged gzip stream reaches."""
    return None if isinstance(source, bytes) or os.fspath(source) == "-" else Path(os.fspath(source))


def _options(o: FoldOptions) -> dict:
    return {"pid": o.pid, "tid": o.tid, "kernel": o.kernel, "jit": o.jit, "addrs": o.addrs,
            "event_filter": o.event_filter, "skip_after": list(o.skip_after)}


def _info(d: dict) -> FoldInfo:
    return FoldInfo(d["bytes"], d["event"], d["stacks"], d["total"], d["weird_lines"])


def fold(source: Source, options: FoldOptions = FoldOptions(), *, nthreads: int = 0,
         chunk_bytes: int = 0) -> tuple[dict[str, int], FoldInfo]:
    """Folded stack -> count. nthreads 0: one per CPU; chunk_bytes 0: 4 MiB (tests use tiny ones)."""
    with gz.native_reads(_path(source), str(source)):
        counts, info = iolens_native.fold(_source(source), nthreads=nthreads, chunk_bytes=chunk_bytes,
                                          **_options(options))
    return counts, _info(info)


def write_folded(source: Source, fd: int, options: FoldOptions = FoldOptions(), *, nthreads: int = 0,
                 chunk_bytes: int = 0) -> FoldInfo:
    """Writes inferno's output ("stack count" lines, sorted by stack) to file descriptor fd."""
    with gz.native_reads(_path(source), str(source)):
        return _info(iolens_native.fold_write(_source(source), fd, nthreads=nthreads, chunk_bytes=chunk_bytes,
                                              **_options(options)))


def write_tables_arrow(source: Source, stream: TableStream, *, name: str | None = None, nthreads: int = 0,
                       chunk_bytes: int = 0) -> TablesSummary:
    """Parses every sample and the distinct stacks into `stream` (read by DuckDB meanwhile). Stack
    ids count from 0 in order of first appearance. The stream ends after its last batch only
    when the pass succeeds (else reading it fails)."""
    with gz.native_reads(_path(source), name or str(source)):
        d = iolens_native.write_tables_arrow(_source(source, name), stream, nthreads=nthreads,
                                             chunk_bytes=chunk_bytes)
    return _summary(d)


def write_tables_arrow_raw(member: tuple[str, int, int], stream: TableStream, *, nthreads: int = 0,
                           chunk_bytes: int = 0) -> dict:
    """write_tables_arrow's pass over `size` bytes at `offset` of the file `path` (`member`: a member
    of a plain tar, read before the bundle is unpacked: ingest/early.py), without its checks (a
    perf.data file, the line a damaged gzip stream reaches): `tables_summary` makes them, on the
    unpacked member, when the pass is taken. Returns iolens_native's dict."""
    return iolens_native.write_tables_arrow(member, stream, nthreads=nthreads, chunk_bytes=chunk_bytes)


def tables_summary(wait: Callable[[], dict], source: Source, *, name: str) -> TablesSummary:
    """The summary of a pass started by `write_tables_arrow_raw` over the same bytes as `source`
    (`wait` returns its dict or raises its error), checked and its errors told as by
    write_tables_arrow."""
    _source(source, name)  # a perf.data file: refused with what to do instead
    with gz.native_reads(_path(source), name):
        return _summary(wait())


def _summary(d: dict) -> TablesSummary:
    return TablesSummary(
        d["bytes"], d["samples"], d["stacks"], d["stackless_samples"], d["weird_lines"], d["first_event"],
        {k: tuple(v) for k, v in d["events"].items()}, d["ts_min_ns"], d["ts_max_ns"],
    )
