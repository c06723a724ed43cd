"""The flame graph answer as columns (`Accept: application/vnd.iolens.flame-columns`): the same
FlameGraph as the JSON answer, its call tree as little-endian typed arrays that the browser views
in place (frontend/src/logic/flameWire.ts reads it), instead of 12.7 MB of JSON numbers at 450k
nodes that the page's main thread had to parse before it could lay the graph out.

Version 1, every integer little-endian:

    header, 16 bytes        magic b"IOLF", u32 version (1), u32 section count S,
                            u32 byte length of the whole answer (a cut answer is caught by it)
    section table, S x 24   8-byte name (ASCII, NUL-padded), u32 type, u32 count,
                            u32 offset (from the answer's start, a multiple of 8), u32 byte length
    sections                each at its offset, zeros between

    types   1 json: UTF-8 JSON text, count = its bytes
            2 text: UTF-8 strings joined by NUL, count = how many
            3 u8, 4 u16, 5 u32, 6 f64: count numbers

A flame answer has these sections (a reader finds them by name; unknown ones are skipped):

    head    json   models.FlameGraphHead: the FlameGraph without its tree (capture, filters,
                   totals, events, runs, CPUs, tasks, command names, notes)
    names   text   the tree's distinct frame names (names[0] = 'all'); none holds a NUL (the tree
                   is cut at NULs: views/flame.py _tree_sql), so one split cuts them apart
    name    u16|u32         per node, pre-order: index into names
    depth   u8|u16|u32      per node: 0 for the root, 1 for the command name, then the frames
    self_w  u8|u16|u32|f64  per node: self weight (FlameTree.self_weight)
    self_n  u8|u16|u32|f64  per node: self samples (FlameTree.self_samples)

A column takes the narrowest of its allowed types that holds its largest value; integers past
2^32 go as f64, exact up to 2^53 (a JS number's limit, as for the JSON answer's numbers).

The difference of two captures (`GET /api/compare/flame`, the same Accept) is the same format with
the FlameDiffTree's columns (encode_diff, decode_diff):

    head    json   the FlameDiff without its tree (both sides, filters, noise, functions, notes)
    names, name, depth      as above
    self_a, self_b, samp_a, samp_b   u8|u16|u32|f64   per node: self weight and self samples of
                   the first (a) and the second (b) capture
    noise_s, noise_t  u8   per node, 1 or 0: the change of its self (total) share is within the
                   spread between repeats; both absent when the answer has no repeats (null)

The shared test vectors: testdata/vectors/flame-wire.json (this module and flameWire.ts).
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

MEDIA_TYPE = "application/vnd.iolens.flame-columns"
MAGIC = b"IOLF"
VERSION = 1
HEADER = struct.Struct("<4sIII")
ENTRY = struct.Struct("<8sIIII")
ALIGN = 8

JSON, TEXT, U8, U16, U32, F64 = 1, 2, 3, 4, 5, 6
TYPE_NAMES = {JSON: "json", TEXT: "text", U8: "u8", U16: "u16", U32: "u32", F64: "f64"}
_ARRAY = {U8: "B", U16: "H", U32: "I", F64: "d"}
_SIZE = {U8: 1, U16: 2, U32: 4, F64: 8}
_LIMIT = {U8: 1 << 8, U16: 1 << 16, U32: 1 << 32}
# the types each column may take, narrowest first
COLUMNS: dict[str, tuple[int, ...]] = {
    "name": (U16, U32),
    "depth": (U8, U16, U32),
    "self_w": (U8, U16, U32, F64),
    "self_n": (U8, U16, U32, F64),
}
# the difference's tree (encode_diff): name and depth as above, then these
DIFF_COLUMNS: dict[str, tuple[int, ...]] = {
    "name": COLUMNS["name"],
    "depth": COLUMNS["depth"],
    "self_a": (U8, U16, U32, F64),
    "self_b": (U8, U16, U32, F64),
    "samp_a": (U8, U16, U32, F64),
    "samp_b": (U8, U16, U32, F64),
}
NOISE_COLUMNS = ("noise_s", "noise_t")
MAX_EXACT = 1 << 53


class BadAnswer(ValueError):
    """A columns answer that cannot be read: the message names the section or field."""


def column_type(name: str, values: Sequence[int], types: tuple[int, ...]) -> int:
    """The narrowest of `types` that holds every value (none is negative: see _numbers)."""
    hi = max(values, default=0)
    for t in types:
        if t == F64:
            if hi > MAX_EXACT:
                raise BadAnswer(f"column {name!r}: value {hi} is past 2^53, not exact as a number")
            return t
        if hi < _LIMIT[t]:
            return t
    raise BadAnswer(f"column {name!r}: value {hi} does not fit in {TYPE_NAMES[types[-1]]}")


def _numbers(name: str, t: int, values: Sequence[int]) -> bytes:
    try:
        a = array(_ARRAY[t], values if t != F64 else map(float, values))
    except OverflowError as exc:  # a negative value in an unsigned column
        raise BadAnswer(f"column {name!r}: {exc} (a negative value?)") from exc
    if t == F64 and any(x < 0 for x in a):
        raise BadAnswer(f"column {name!r}: a negative value")
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def _narrow(values: Sequence[int], types: tuple[int, ...]) -> tuple[int, bytes] | None:
    """column_type and _numbers of a typed array of unsigned or signed integers ('I' or 'q', as
    the difference's columns come: views/flame.py DiffColumns) without a Python step per value:
    on a little-endian machine, a value fits in k bytes when its bytes past the k-th are zero,
    so the narrowest integer type is found by counting zero bytes at each byte position, and
    its bytes are the values' first k bytes each (extended slices). None where this does not
    apply (another sequence, a big-endian machine, a value that needs f64 or is negative): the
    caller then takes the general path, which also raises for what does not fit."""
    if not isinstance(values, array) or values.typecode not in ("I", "q") or sys.byteorder != "little":
        return None
    raw, width, n = values.tobytes(), values.itemsize, len(values)
    needed = max((j + 1 for j in range(width) if raw[j::width].count(0) != n), default=1)
    t = next((t for t in types if t != F64 and _SIZE[t] >= needed), None)
    if t is None:
        return None
    size = _SIZE[t]
    if size == width:
        return t, raw
    out = bytearray(n * size)
    for j in range(size):
        out[j::size] = raw[j::width]
    return t, bytes(out)


def encode(head: bytes, names: Sequence[str], name: Sequence[int], depth: Sequence[int],
           self_w: Sequence[int], self_n: Sequence[int]) -> bytes:
    """The columns answer of a tree (pre-order columns, as models.FlameTree) and its head, the
    FlameGraphHead's JSON bytes."""
    return _encode(head, names, [("name", name), ("depth", depth), ("self_w", self_w), ("self_n", self_n)], COLUMNS)


def encode_diff(head: bytes, names: Sequence[str], name: Sequence[int], depth: Sequence[int],
                self_a: Sequence[int], self_b: Sequence[int], samples_a: Sequence[int], samples_b: Sequence[int],
                noise_self: Sequence[bool] | None, noise_total: Sequence[bool] | None) -> bytes:
    """The columns answer of a difference (models.FlameDiffTree's columns) and its head, the
    FlameDiff's JSON bytes without its tree. The noise flags go both or neither."""
    if (noise_self is None) != (noise_total is None):
        raise BadAnswer("noise_self and noise_total: one is null, the other not")
    cols: list[tuple[str, Sequence[int]]] = [("name", name), ("depth", depth), ("self_a", self_a), ("self_b", self_b),
                                             ("samp_a", samples_a), ("samp_b", samples_b)]
    types = dict(DIFF_COLUMNS)
    if noise_self is not None and noise_total is not None:
        # bools are the ints 0 and 1 (array('B') takes them as they are: no pass per node)
        cols += [("noise_s", noise_self), ("noise_t", noise_total)]
        types.update({c: (U8,) for c in NOISE_COLUMNS})
    return _encode(head, names, cols, types)


def _encode(head: bytes, names: Sequence[str], columns: Sequence[tuple[str, Sequence[int]]],
            types: dict[str, tuple[int, ...]]) -> bytes:
    n = len(columns[0][1])
    if any(len(v) != n for _c, v in columns):
        raise BadAnswer("columns of different lengths: " + ", ".join(f"{c} {len(v)}" for c, v in columns))
    text = "\0".join(names)
    if text.count("\0") != max(len(names) - 1, 0):
        bad = next(i for i, s in enumerate(names) if "\0" in s)
        raise BadAnswer(f"names: name {bad} holds a NUL character, the names' separator")
    sections: list[tuple[str, int, int, bytes]] = [
        ("head", JSON, len(head), head),
        ("names", TEXT, len(names), text.encode("utf-8")),
    ]
    for col, values in columns:
        narrow = _narrow(values, types[col])
        if narrow is not None:
            sections.append((col, narrow[0], n, narrow[1]))
            continue
        t = column_type(col, values, types[col])
        sections.append((col, t, n, _numbers(col, t, values)))
    table_end = HEADER.size + ENTRY.size * len(sections)
    offset = -(-table_end // ALIGN) * ALIGN
    entries, body = [], []
    for sname, t, count, data in sections:
        entries.append(ENTRY.pack(sname.encode("ascii"), t, count, offset, len(data)))
        pad = -len(data) % ALIGN
        body.append(data + b"\0" * pad)
        offset += len(data) + pad
    head_bytes = HEADER.pack(MAGIC, VERSION, len(sections), offset) + b"".join(entries)
    return head_bytes + b"\0" * (-len(head_bytes) % ALIGN) + b"".join(body)


# --- reading (tests and API consumers in Python; the browser's copy is flameWire.ts) ---------


@dataclass
class Decoded:
    head: dict
    names: list[str]
    name: list[int]
    depth: list[int]
    self_w: list[int]
    self_n: list[int]

    def graph(self) -> dict:
        """The FlameGraph's JSON form (the JSON answer's, parsed)."""
        return {**self.head, "tree": {"names": self.names, "name": self.name, "depth": self.depth,
                                      "self_weight": self.self_w, "self_samples": self.self_n}}


@dataclass
class DecodedDiff:
    head: dict
    names: list[str]
    columns: dict[str, list[int]]

    def graph(self) -> dict:
        """The FlameDiff's JSON form (the JSON answer's, parsed)."""
        c = self.columns
        noise = "noise_s" in c
        return {**self.head, "tree": {
            "names": self.names, "name": c["name"], "depth": c["depth"], "self_a": c["self_a"],
            "self_b": c["self_b"], "samples_a": c["samp_a"], "samples_b": c["samp_b"],
            "noise_self": [bool(x) for x in c["noise_s"]] if noise else None,
            "noise_total": [bool(x) for x in c["noise_t"]] if noise else None}}


def decode(buf: bytes) -> Decoded:
    """Read a columns answer; BadAnswer names what is wrong (the same checks as flameWire.ts)."""
    head, names, cols = _decode(buf, COLUMNS, ())
    return Decoded(head, names, cols["name"], cols["depth"], cols["self_w"], cols["self_n"])


def decode_diff(buf: bytes) -> DecodedDiff:
    """Read a difference's columns answer (encode_diff), with the same checks; the noise columns
    both or neither, each 0 or 1."""
    head, names, cols = _decode(buf, DIFF_COLUMNS, NOISE_COLUMNS)
    present = [c for c in NOISE_COLUMNS if c in cols]
    if len(present) == 1:
        raise BadAnswer(f"flame answer: section {present[0]!r} without its pair")
    for c in present:
        bad = next((i for i, x in enumerate(cols[c]) if x > 1), None)
        if bad is not None:
            raise BadAnswer(f"flame answer: column {c!r}: node {bad} is {cols[c][bad]}, not 0 or 1")
    return DecodedDiff(head, names, cols)


def _decode(buf: bytes, required: dict[str, tuple[int, ...]],
            optional: tuple[str, ...]) -> tuple[dict, list[str], dict[str, list[int]]]:
    size = len(buf)
    if size < HEADER.size:
        raise BadAnswer(f"flame answer: {size} bytes, shorter than its {HEADER.size}-byte header")
    magic, version, count, length = HEADER.unpack_from(buf, 0)
    if magic != MAGIC:
        raise BadAnswer("flame answer: no IOLF magic at its start (not a columns answer)")
    if version != VERSION:
        raise BadAnswer(f"flame answer: version {version}, this reader reads {VERSION}")
    if length != size:
        raise BadAnswer(f"flame answer: header says {length} bytes, got {size} (truncated?)")
    if HEADER.size + count * ENTRY.size > size:
        raise BadAnswer(f"flame answer: section table of {count} entries ends past the answer's {size} bytes")
    found: dict[str, tuple[int, int, int, int]] = {}
    for k in range(count):
        raw, t, n, off, nbytes = ENTRY.unpack_from(buf, HEADER.size + k * ENTRY.size)
        sname = raw.rstrip(b"\0").decode("ascii", "replace")
        if off % ALIGN:
            raise BadAnswer(f"flame answer: section {sname!r} at byte {off}, not a multiple of {ALIGN}")
        if off + nbytes > size:
            raise BadAnswer(f"flame answer: section {sname!r} ends at byte {off + nbytes}, past the answer's {size} bytes")
        if t in _SIZE and nbytes != n * _SIZE[t]:
            raise BadAnswer(f"flame answer: section {sname!r}: {nbytes} bytes for {n} {TYPE_NAMES[t]} values")
        found[sname] = (t, n, off, nbytes)

    def section(sname: str, types: tuple[int, ...]) -> tuple[int, int, int, int]:
        if sname not in found:
            raise BadAnswer(f"flame answer: no section {sname!r}")
        t, n, off, nbytes = found[sname]
        if t not in types:
            raise BadAnswer(f"flame answer: section {sname!r} of type {TYPE_NAMES.get(t, t)}, "
                            f"expected {' or '.join(TYPE_NAMES[x] for x in types)}")
        return t, n, off, nbytes

    def numbers(sname: str, types: tuple[int, ...]) -> list[int]:
        t, _n, off, nbytes = section(sname, types)
        a = array(_ARRAY[t])
        a.frombytes(buf[off:off + nbytes])
        if sys.byteorder != "little":
            a.byteswap()
        return [int(x) for x in a] if t == F64 else a.tolist()

    _t, _n, off, nbytes = section("head", (JSON,))
    try:
        head = json.loads(buf[off:off + nbytes].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadAnswer(f"flame answer: section 'head' is not JSON ({exc})") from exc
    _t, count, off, nbytes = section("names", (TEXT,))
    try:
        names = buf[off:off + nbytes].decode("utf-8").split("\0") if count else []
    except UnicodeDecodeError as exc:
        raise BadAnswer("flame answer: section 'names' is not UTF-8") from exc
    if len(names) != count:
        raise BadAnswer(f"flame answer: section 'names' holds {len(names)} names, its count says {count}")
    cols = {c: numbers(c, required[c]) for c in required}
    cols.update({c: numbers(c, (U8,)) for c in optional if c in found})
    n = len(cols["name"])
    for c, v in cols.items():
        if len(v) != n:
            raise BadAnswer(f"flame answer: column {c!r} has {len(v)} values, 'name' has {n}")
    for i, k in enumerate(cols["name"]):
        if k >= len(names):
            raise BadAnswer(f"flame answer: column 'name': node {i} names {k}, past the {len(names)} names")
    prev = -1
    for i, d in enumerate(cols["depth"]):
        if d > prev + 1 or (i > 0 and d == 0):
            raise BadAnswer(f"flame answer: column 'depth': node {i} at depth {d} after depth {prev} "
                            "(not a pre-order tree)")
        prev = d
    return head, names, cols
