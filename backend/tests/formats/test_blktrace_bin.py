"""iolens.formats.blktrace_bin: blktrace's binary per-CPU files read directly, checked event for
event against what blkparse 1.2.0 printed for the same trace (shared corpus), and its errors."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from iolens.formats.blkparse import parse_blkparse
from iolens.formats.blktrace_bin import HEADER, is_blktrace, parse_blktrace, rwbs
from iolens.formats.errors import FormatError


def _sample(corpus: Path) -> bytes:
    return (corpus / "blktrace" / "sample.blktrace.0").read_bytes()


def _records(data: bytes) -> list[bytes]:
    out, off = [], 0
    while off < len(data):
        pdu = struct.unpack_from("<H", data, off + 46)[0]
        out.append(data[off:off + HEADER + pdu])
        off += HEADER + pdu
    return out


def test_every_event_equals_blkparse_text(corpus: Path) -> None:
    b = parse_blktrace([("sample.blktrace.0", _sample(corpus))])
    t = parse_blkparse((corpus / "blktrace" / "sample.blktrace.0.blkparse-default.txt").read_text(encoding="utf-8"))
    assert len(b.events) == len(t.events) == 6741
    for i, (mine, theirs) in enumerate(zip(b.events, t.events)):
        assert mine == theirs, f"event {i}: {mine} != {theirs}"
    assert b.actions == t.actions
    # blkparse's summary: "Events (259,0): 6741 entries", "Skips: 0 forward (0 - 0.0%)"
    assert b.devices == t.summary.events == {"259,0": 6741}
    assert b.lost == {} and t.summary.skipped_events == {"259,0": 0}
    assert b.passthrough == t.passthrough == 0


def test_golden(corpus: Path, golden) -> None:
    b = parse_blktrace([("sample.blktrace.0", _sample(corpus))])
    golden("blktrace-bin/sample.blktrace.0.json", {
        "genesis_ns": b.genesis_ns, "records": b.records, "actions": b.actions, "devices": b.devices,
        "processes": b.processes, "lost": b.lost, "messages": b.messages,
        "events_head": [e._asdict() for e in b.events[:8]], "events_tail": [e._asdict() for e in b.events[-3:]],
    })


def test_per_cpu_files_are_merged_in_time_order(corpus: Path) -> None:
    recs = _records(_sample(corpus))
    whole = parse_blktrace([("a", b"".join(recs))]).events
    # the same records dealt into two files (as two CPUs' files would be): merged back by time
    split = parse_blktrace([("x.blktrace.0", b"".join(recs[0::2])), ("x.blktrace.1", b"".join(recs[1::2]))])
    assert split.events == whole
    assert split.files == ["x.blktrace.0", "x.blktrace.1"]


def test_a_gap_in_the_sequence_is_lost_events(corpus: Path) -> None:
    recs = _records(_sample(corpus))
    gappy = recs[:100] + recs[103:]  # three events (sequence numbers) missing
    r = parse_blktrace([("gap.blktrace.1", b"".join(gappy))])
    assert r.lost == {"259,0 cpu1": 3}


def test_truncated_file_names_file_and_record(corpus: Path) -> None:
    data = _sample(corpus)
    with pytest.raises(FormatError) as exc:
        parse_blktrace([("cut.blktrace.1", data[:-10])])
    assert exc.value.file == "cut.blktrace.1"
    assert "truncated" in exc.value.message and exc.value.field.startswith("record 6743 (byte ")
    with pytest.raises(FormatError) as exc:
        parse_blktrace([("cut.blktrace.1", data[:HEADER + 20])])
    assert exc.value.field.startswith("record 2 (byte 64)")


@pytest.mark.parametrize("data, what", [
    (b"hello world, not a trace", "not a blktrace file"),
    (b"", "empty file"),
    (struct.pack("<I", 0x65617406) + bytes(44), "version 6"),
])
def test_not_blktrace(data: bytes, what: str) -> None:
    with pytest.raises(FormatError) as exc:
        parse_blktrace([("f.bin", data)])
    assert exc.value.file == "f.bin" and what in str(exc.value)


def test_damaged_magic_in_the_middle(corpus: Path) -> None:
    recs = _records(_sample(corpus))
    bad = bytearray(recs[5])
    bad[0] ^= 0xFF
    with pytest.raises(FormatError) as exc:
        parse_blktrace([("d.blktrace.1", b"".join(recs[:5]) + bytes(bad))])
    assert exc.value.field.endswith(": magic") and exc.value.field.startswith("record 6 ")


def test_big_endian_trace_reads_the_same(corpus: Path) -> None:
    le = _records(_sample(corpus))
    be = []
    for r in le:
        fields = struct.unpack_from("<IIQQIIIIIHH", r)
        be.append(struct.pack(">IIQQIIIIIHH", *fields) + r[HEADER:])  # payloads are big-endian already
    assert is_blktrace(b"".join(be))
    assert parse_blktrace([("be", b"".join(be))]).events == parse_blktrace([("le", b"".join(le))]).events


def test_rwbs_letters() -> None:
    write, sync, flush, fua, discard, ahead, meta = 1 << 17, 1 << 19, 1 << 18, 1 << 31, 1 << 29, 1 << 27, 1 << 28
    assert rwbs(write | sync, 4096) == "WS"
    assert rwbs(flush | write | fua | sync, 4096) == "FWFS"
    assert rwbs(0, 4096) == "R" and rwbs(ahead, 4096) == "RA" and rwbs(0, 0) == "N"
    assert rwbs(discard | sync, 0) == "DS" and rwbs(write | meta, 512) == "WM"
