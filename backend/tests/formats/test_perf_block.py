"""iolens.formats.perf_block against real `perf script` output of the block tracepoints (perf 6.1,
Linux 6.18: tests/formats/samples/perf-6.1-block-randrw.*, see the README there), and the payload
shapes of other kernels written out by hand."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.perf_block import parse_perf_block
from iolens.formats.perf_stat import parse_perf_stat_csv
from iolens.ingest.block import IoMatcher

SAMPLES = Path(__file__).resolve().parent / "samples"
NS = "perf-6.1-block-randrw.ns.txt.gz"     # perf script --ns
US = "perf-6.1-block-randrw.us.txt.gz"     # perf script (microseconds)
PID = "perf-6.1-block-randrw.pid.txt.gz"   # perf script --ns -F comm,pid,tid,cpu,time,event,trace
STAT = "perf-6.1-block-randrw.stat.csv"    # perf stat -x, of the same tracepoints around it


def _text(name: str) -> str:
    return gzip.decompress((SAMPLES / name).read_bytes()).decode()


def test_sample_golden(golden) -> None:
    r = parse_perf_block(_text(NS), NS)
    m = IoMatcher()
    rows = list(m.feed(r.events)) + list(m.finish())
    golden("perf-block/perf-6.1-block-randrw.json", {
        "tracepoints": r.tracepoints, "foreign": r.foreign, "passthrough": r.passthrough, "lost": r.lost,
        "events_head": [e._asdict() for e in r.events[:6]],
        "requeue": [e._asdict() for e in r.events if e.action == "requeue"],
        "matched": {"ios": len(rows), "counts": dict(sorted(m.counts.items())),
                    "ops": {op: sum(1 for x in rows if x[3] == op) for op in sorted({x[3] for x in rows})},
                    "first_rows": [list(x) for x in rows[:3]]},
    })


def test_sample_event_counts_and_layout() -> None:
    r = parse_perf_block(_text(NS))
    assert r.tracepoints == {"block_bio_backmerge": 3, "block_rq_complete": 1200, "block_rq_insert": 2043,
                             "block_rq_issue": 2054, "block_rq_requeue": 1}
    first = r.events[0]
    # "fio 10567 [000]  2139.379428991: block:block_rq_insert: 254,0 RS 4096 () 39076528 + 8 0x2,0,4 [fio]"
    assert first == (2139379428991, 0, 10567, "fio", "insert", "254,0", "RS", 39076528, 8, 4096, None)
    assert r.usec_times == 0 and r.foreign == 0


def test_microsecond_and_pid_variants_give_the_same_events() -> None:
    ns = parse_perf_block(_text(NS)).events
    us = parse_perf_block(_text(US))
    pid = parse_perf_block(_text(PID)).events
    assert pid == ns  # "pid/tid": the thread id is the one kept
    assert us.usec_times == len(us.events) == len(ns)
    assert [e._replace(t_ns=e.t_ns // 1000) for e in ns] == [e._replace(t_ns=e.t_ns // 1000) for e in us.events]


def test_perf_stat_counts_of_the_same_capture() -> None:
    counts = parse_perf_stat_csv((SAMPLES / STAT).read_text(), STAT).counts
    assert counts["block:block_rq_issue"] == 2081
    assert counts["block:block_rq_complete"] == 2077  # the recording kept 1200 of them
    assert counts["block:block_rq_merge"] == 0


# Payloads of other kernels and perf versions (include/trace/events/block.h TP_printk), by hand.
HAND = """\
       opt cgu.0  9930 [001]  2115.938050123:   block:block_rq_complete: 254,0 WS () 39068624 + 2032 be,0,4 [0]
  kworker/0:1H   211 [000]   100.000000100:      block:block_rq_issue: 8,0 W 4096 () 100 + 8 [kworker/0:1H]
  kworker/0:1H   211 [000]   100.000000200:   block:block_rq_complete: 8,0 W () 100 + 8 [0]
          sg_inq   300 [001]   100.000000300:      block:block_rq_issue: 8,0 R 36 (12 00 00 00 24 00) 0 + 0 [sg_inq]
          sg_inq   300 [001]   100.000000400:   block:block_rq_complete: 8,0 R (12 00 00 00 24 00) 0 + 0 [0]
            fio   400 [001]   100.000000500:           block:block_plug: [fio]
            fio   400 [001]   100.000000600:         block:block_unplug: [fio] 1
            fio   400 [001]   100.000000700:          block:block_split: 8,0 W 200 / 208 [fio]
            fio   400 [001]   100.000000800:      block:block_bio_remap: 8,0 W 300 + 8 <- (8,1) 292
            fio   400 [001]   100.000000900:     block:block_bio_queue: 8,0 W 300 + 8 [fio]
            fio   400 [001]   100.000001000:   block:block_bio_complete: 8,0 W 300 + 8 [0]
            fio   400 [001]   100.000001100:   sched:sched_switch: prev_comm=fio prev_pid=400
LOST 12 events!
            perf     0 [001]   100.000001200: PERF_RECORD_LOST lost 30
"""


def test_hand_written_payloads() -> None:
    r = parse_perf_block(HAND, "hand.txt")
    got = [(e.comm, e.pid, e.action, e.dev, e.rwbs, e.sector, e.nr_sectors, e.bytes, e.error) for e in r.events]
    assert got == [
        ("opt cgu.0", 9930, "complete", "254,0", "WS", 39068624, 2032, 2032 * 512, 0),  # comm with a space
        ("kworker/0:1H", 211, "issue", "8,0", "W", 100, 8, 4096, None),                # no ioprio (< 6.10)
        ("kworker/0:1H", 211, "complete", "8,0", "W", 100, 8, 4096, 0),
        ("fio", 400, "plug", "", "N", None, None, None, None),
        ("fio", 400, "unplug", "", "N", None, None, None, None),
        ("fio", 400, "split", "8,0", "W", 200, None, None, None),
        ("fio", 400, "remap", "8,0", "W", 300, 8, 4096, None),
        ("fio", 400, "queue", "8,0", "W", 300, 8, 4096, None),
    ]
    assert r.tracepoints["block_bio_complete"] == 1  # counted, not an event of its own
    assert r.foreign == 1 and r.lost == 42
    assert r.passthrough == 2  # sg_inq's issue and completion: a command in "(...)", sector 0 + 0


@pytest.mark.parametrize("text, line, fld", [
    ("  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W x () 100 + 8 [fio]\n", 1, "block_rq_issue"),
    ("  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n"
     "  fio [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n", 2, "header"),
    ("not perf script at all\n", 1, None),
])
def test_errors_name_the_line_and_field(text: str, line: int, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_perf_block(text, "bad.txt")
    assert exc.value.line == line and exc.value.field == fld


def test_flush_completes_at_sector_minus_one() -> None:
    # Linux 6.18, a loop device: the flush is issued at 0 and completes at (sector_t)-1
    text = ("kworker/0:1H-kb    44/44    [000]  4909.364971661:       block:block_rq_issue: 7,1 FF 0 () 0 + 0 0x0,0,0 [kworker/0:1H]\n"
            "     ksoftirqd/0    14/14    [000]  4909.396706670:    block:block_rq_complete: 7,1 FF () 18446744073709551615 + 0 0x0,0,0 [0]\n")
    r = parse_perf_block(text, "flush.txt")
    assert [(e.action, e.sector, e.nr_sectors) for e in r.events] == [("issue", 0, 0), ("complete", 0, 0)]
    m = IoMatcher()
    rows = list(m.feed(r.events)) + list(m.finish())
    assert len(rows) == 1 and m.counts.get("complete_without_issue", 0) == 0


def test_convert_to_ios_says_what_it_matched_and_what_it_did_not(corpus: Path) -> None:
    """`iolens convert perf-block|blkparse FILE --to ios`: the rows, and on stderr the I/Os matched
    and every kind of event left unmatched (never dropped in silence)."""
    import subprocess
    import sys

    def convert(kind: str, path: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "iolens", "convert", kind, str(path), "--to", "ios"],
                              capture_output=True, text=True, timeout=120)

    r = convert("perf-block", SAMPLES / "perf-6.1-block-randrw.ns.txt.gz")  # perf lost completions here
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ("iolens convert: 1,200 I/Os matched issue to completion; "
                                "unmatched events: issue duplicate 16, issue without complete 853")
    # header, matched, and the issues without completion kept as rows (the first of each duplicate
    # issue is one of them: docs/block.md)
    assert len(r.stdout.splitlines()) == 1 + 1200 + 853
    r = convert("blkparse", corpus / "blktrace" / "sample.blktrace.0.blkparse-default.txt")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == "iolens convert: 963 I/Os matched issue to completion; no event left unmatched"
