"""iolens.formats.trace_fields over a real `iolens-collect --trace` capture (block_rq_issue and
writeback:writeback_dirty_* under fio; samples/trace), and its errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.trace_fields import coerce, field_value, iter_events, parse_formats

SAMPLES = Path(__file__).resolve().parent / "samples" / "trace"


def test_formats_golden(golden) -> None:
    f = parse_formats((SAMPLES / "block-writeback.trace-formats.txt").read_text(), "f")
    golden("trace/block-writeback.formats.json", {k: [(x.name, x.ctype, x.size, x.signed, x.column_type) for x in v.fields]
                                                  for k, v in f.items()})
    issue = f["block:block_rq_issue"]
    assert issue.id and [x.name for x in issue.fields] == ["dev", "sector", "nr_sector", "bytes", "ioprio", "rwbs", "comm", "cmd"]
    assert {x.name: x.column_type for x in issue.fields}["sector"] == "UBIGINT"  # sector_t: u64
    assert {x.name: x.column_type for x in issue.fields}["cmd"] == "VARCHAR"     # __data_loc char[]


def test_events_have_every_field_of_their_format() -> None:
    formats = parse_formats((SAMPLES / "block-writeback.trace-formats.txt").read_text())
    lines = gzip.decompress((SAMPLES / "block-writeback.trace.fields.jsonl.gz").read_bytes()).decode().splitlines()
    events = list(iter_events(lines))
    assert len(events) == 761 and {e.event for e in events} <= set(formats)
    for e in events:
        cols = {x.name: x.column_type for x in formats[e.event].fields}
        assert set(e.fields) == set(cols), e.event
        for k, v in e.fields.items():
            assert coerce(v, cols[k]) is not None or v is None, (e.event, k, v)
        assert isinstance(e.time_ns, int) and isinstance(e.cpu, int)


def test_coerce() -> None:
    assert coerce(2**64 - 1, "UBIGINT") == 2**64 - 1 and coerce(-1, "UBIGINT") == 2**64 - 1
    assert coerce(2**63, "BIGINT") is None and coerce("x", "BIGINT") is None and coerce(5, "VARCHAR") == "5"


@pytest.mark.parametrize("text, line, fld", [
    ("name: x\n", 1, "system"),
    ("system: a\nname: b\n\tfield:int x\n", 3, "a:b"),
    ("system: a\nname: b\nID: q\n", 3, "ID"),
    ("", None, None),
])
def test_format_errors(text: str, line: int | None, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_formats(text, "f.txt")
    assert (exc.value.line, exc.value.field) == (line, fld)


@pytest.mark.parametrize("line, fld", [("{not json", None), ('{"event": 1}', "event"),
                                      ('{"event": "a:b", "fields": {}, "time_ns": "1"}', "time_ns")])
def test_event_errors(line: str, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        list(iter_events(['{"event": "a:b", "fields": {}, "time_ns": 1}', line], "e.jsonl"))
    assert (exc.value.file, exc.value.line, exc.value.field) == ("e.jsonl", 2, fld)


def test_char_arrays_read_as_text_up_to_the_nul() -> None:
    """perf's Python gives a char array as hex bytes once it held bytes after its NUL (the stale
    end of block's rwbs[10]); the array reads as its text, other arrays stay hex."""
    f = parse_formats((SAMPLES / "block-writeback.trace-formats.txt").read_text(), "f")
    fields = {x.name: x for x in f["block:block_rq_issue"].fields}
    rwbs, comm, cmd = fields["rwbs"], fields["comm"], fields["cmd"]
    assert rwbs.is_char_array and comm.is_char_array and not cmd.is_char_array and not fields["dev"].is_char_array
    assert field_value("57530000000057090600", rwbs) == "WS"
    assert field_value("WS", rwbs) == "WS" and field_value("", rwbs) == ""
    assert field_value("0" * 20, rwbs) == ""
    assert field_value(b"kworker/1:1H\0\x07\x08\x09".hex(), comm) == "kworker/1:1H"
    assert field_value("5753", rwbs) == "5753"  # text (at most 9 characters), not the array's 20 hex digits
    assert field_value("57530000", cmd) == "57530000"  # a __data_loc string is perf's text as it is
    u8 = parse_formats("system: a\nname: b\nID: 1\nformat:\n\tfield:__u8 uuid[4];\toffset:8;\tsize:4;\tsigned:0;\n")
    assert field_value("00ff0000", u8["a:b"].fields[0]) == "00ff0000"  # not a char array: hex
