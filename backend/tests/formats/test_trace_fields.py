"""iolens.formats.trace_fields over a real `iolens-collect --trace` capture (block_rq_issue and
writeback:writeback_dirty_* under fio; samples/trace), and its errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.trace_fields import coerce, iter_events, parse_formats

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
