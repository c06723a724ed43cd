"""iolens.formats.blkparse against blkparse's own text for a real trace (shared corpus), and the
line shapes of blkparse_fmt.c that the corpus trace does not have, written out by hand."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from iolens.formats.blkparse import parse_blkparse
from iolens.formats.errors import FormatError
from iolens.ingest.block import IoMatcher


def _corpus(corpus: Path, name: str) -> str:
    return (corpus / "blktrace" / name).read_text(encoding="utf-8")


def _matched(events) -> dict:
    m = IoMatcher()
    rows = list(m.feed(events)) + list(m.finish())
    lat = sorted(r[8] for r in rows if r[8] is not None)
    return {"ios": len(rows), "counts": dict(sorted(m.counts.items())), "devices": dict(m.devices),
            "latency_ns": {"min": lat[0], "median": lat[len(lat) // 2], "max": lat[-1]} if lat else None,
            "first_rows": [list(r) for r in rows[:3]]}


def test_corpus_default_golden(corpus: Path, golden) -> None:
    r = parse_blkparse(_corpus(corpus, "sample.blktrace.0.blkparse-default.txt"), "sample.blktrace.0.blkparse-default.txt")
    golden("blkparse/sample.blktrace.0.blkparse-default.json", {
        "actions": r.actions, "passthrough": r.passthrough, "summary": r.summary,
        "events_head": [e._asdict() for e in r.events[:7]], "events_tail": [e._asdict() for e in r.events[-7:]],
        "matched": _matched(r.events),
    })


def test_corpus_counts_agree_with_blkparse_summary(corpus: Path) -> None:
    r = parse_blkparse(_corpus(corpus, "sample.blktrace.0.blkparse-default.txt"))
    [cpu1] = r.summary.blocks
    assert (cpu1.scope, cpu1.device) == ("CPU1", "259,0")
    assert sum(r.actions.values()) == r.summary.events["259,0"] == 6741
    assert r.actions["D"] == cpu1.stats["read_dispatches"] == 963
    assert r.actions["C"] == cpu1.stats["reads_completed"] == 963
    assert cpu1.stats["reads_completed_kib"] == 963 * 4
    assert r.summary.skipped_events == {"259,0": 0}
    m = _matched(r.events)
    assert m["ios"] == 963 and m["counts"] == {"matched": 963}


def test_quiet_output_has_the_same_events_and_no_summary(corpus: Path) -> None:
    full = parse_blkparse(_corpus(corpus, "sample.blktrace.0.blkparse-default.txt"))
    quiet = parse_blkparse(_corpus(corpus, "sample.blktrace.0.blkparse-q.txt"))
    assert quiet.events == full.events
    assert quiet.summary.blocks == [] and quiet.summary.events == {}


def test_remap_line_uses_the_target_device() -> None:
    [a] = parse_blkparse("259,0    1        1     0.000000000 21279  A  RA 2348060440 + 8 <- (259,3) 2345510680\n").events
    assert (a.action, a.dev, a.sector, a.nr_sectors, a.pid, a.comm) == ("remap", "259,0", 2348060440, 8, 21279, None)


# Line shapes from blkparse_fmt.c process_default (blktrace 1.2.0) not present in the corpus trace.
HAND = """\
  8,0    0        1     0.000000000  4162  Q  WS 73992 + 8 [fs_mark]
  8,0    0        2     0.000001000  4162  M  WS 74000 + 8 [fs_mark]
  8,0    0        3     0.000002000  4162  F  WS 73984 + 8 [fs_mark]
  8,0    0        4     0.000003000  4162  G  WS 73984 + 24 [fs_mark]
  8,0    0        5     0.000003500  4162  P   N [fs_mark]
  8,0    0        6     0.000004000  4162  I  WS 73984 + 24 [fs_mark]
  8,0    0        7     0.000004500  4162  U   N [fs_mark] 1
  8,0    0        8     0.000005000  4162  D  WS 73984 + 24 (    1000) [fs_mark]
  8,0    1        1     0.000006000     0  R  WS 73984 + 24 [0]
  8,0    1        2     0.000007000   211  D  WS 73984 + 24 [kworker/1:1H]
  8,0    0        0     0.000007500     0  m   N cfq4162S / dispatched a request
  8,0    1        3     0.000009000     0  C  WS 73984 + 24 [0]
  8,0    0        9     0.000010000  4162  D FWS [fs_mark]
  8,0    0       10     0.000011000     0  C FWS 0 [0]
  8,0    0       11     0.000012000  4162  D   R 36 (12 00 00 00 24 00 ..) [sg_inq]
  8,0    0       12     0.000013000     0  C   R (12 00 00 00 24 00 ..) [0]
  8,0    0       13     0.000014000  4162  X  WS 100 / 108 [fs_mark]
  8,0    0       14     0.000015000  4162  T   N [kworker/0:1] 2
  8,0    0       15     0.000016000  4162  D  DS 2048 + 2048 [(null)]
  8,0    0       16     0.000017000     0  C  DS 2048 + 2048 [-5]
^CCPU0 (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:     143,304,    1,146MiB
 Read Dispatches:        0,        0KiB\t Write Dispatches:      3,       12KiB
 Reads Requeued:         0\t\t Writes Requeued:         1
 Read depth:             0        \t Write depth:             1
 IO unplugs:             1        \t Timer unplugs:           1
CPU1 (8,0):
 Writes Completed:       1,       12KiB
Total (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:     143,304,    1,146MiB
 IO unplugs:             1        \t Timer unplugs:           1

Throughput (R/W): 0KiB/s / 9,119KiB/s
Events (8,0): 1,002,880 entries
Skips: 2 forward (17 -   0.0%)
"""


def test_input_file_lines_are_skipped_after_the_summary_too(corpus: Path, tmp_path: Path) -> None:
    """`blkparse -i NAME > f 2>&1` writes "Input file NAME.blktrace.N added" on stderr, unbuffered,
    and its events on stdout, flushed at exit: in the file the line comes after the summary (the
    lab's first real captures had it there). Tolerated there and before the events."""
    plain = parse_blkparse(_corpus(corpus, "sample.blktrace.0.blkparse-default.txt"))
    if shutil.which("blkparse"):  # the real tool: the corpus trace holds CPU 1's events
        (tmp_path / "s.blktrace.0").write_bytes(b"")
        shutil.copy(corpus / "blktrace" / "sample.blktrace.0", tmp_path / "s.blktrace.1")
        with open(tmp_path / "both.txt", "wb") as out:
            subprocess.run(["blkparse", "-i", "s"], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, check=True)
        text = (tmp_path / "both.txt").read_text(encoding="utf-8")
        assert text.splitlines()[-1] == "Input file s.blktrace.1 added"
    else:  # what it writes, as above (the summary then names the device by the trace's name)
        text = _corpus(corpus, "sample.blktrace.0.blkparse-default.txt") + "Input file s.blktrace.1 added\n"
    moved = "Input file s.blktrace.1 added\n" + text.replace("Input file s.blktrace.1 added\n", "")
    for shape in (text, moved):
        r = parse_blkparse(shape, "both.txt")
        assert r.events == plain.events and r.actions == plain.actions
        assert [b.stats for b in r.summary.blocks] == [b.stats for b in plain.summary.blocks]
        assert list(r.summary.skips.values()) == list(plain.summary.skips.values()) == [0]


def test_hand_written_line_shapes() -> None:
    r = parse_blkparse(HAND, "hand.txt")
    by_seq = [(e.action, e.rwbs, e.sector, e.nr_sectors, e.comm, e.error) for e in r.events]
    assert by_seq == [
        ("queue", "WS", 73992, 8, "fs_mark", None),
        ("backmerge", "WS", 74000, 8, "fs_mark", None),
        ("frontmerge", "WS", 73984, 8, "fs_mark", None),
        ("getrq", "WS", 73984, 24, "fs_mark", None),
        ("plug", "N", None, None, "fs_mark", None),
        ("insert", "WS", 73984, 24, "fs_mark", None),
        ("unplug", "N", None, None, "fs_mark", None),
        ("issue", "WS", 73984, 24, "fs_mark", None),          # -t elapsed "(    1000)" skipped
        ("requeue", "WS", 73984, 24, None, 0),
        ("issue", "WS", 73984, 24, "kworker/1:1H", None),
        ("complete", "WS", 73984, 24, None, 0),               # the message line (m) is counted only
        ("issue", "FWS", None, None, "fs_mark", None),       # no sectors: "[name]" only
        ("complete", "FWS", 0, 0, None, 0),                  # "sector [error]"
        ("split", "WS", 100, None, "fs_mark", None),
        ("unplug", "N", None, None, "kworker/0:1", None),    # timer unplug T
        ("issue", "DS", 2048, 2048, None, None),             # [(null)] -> None
        ("complete", "DS", 2048, 2048, None, -5),
    ]
    assert r.passthrough == 2  # the SCSI inquiry's D and C
    assert r.actions["m"] == 1 and r.actions["D"] == 5
    assert [b.scope for b in r.summary.blocks] == ["CPU0", "CPU1", "Total"]
    total = r.summary.blocks[2].stats
    assert total["writes_queued"] == 143_304 and total["writes_queued_kib"] == 1146 * 1024
    assert r.summary.blocks[0].stats["write_depth"] == 1
    assert r.summary.events == {"8,0": 1_002_880}
    assert r.summary.skips == {"8,0": 2} and r.summary.skipped_events == {"8,0": 17}
    assert r.summary.throughput == {"8,0": "0KiB/s / 9,119KiB/s"}


def test_hand_written_requeue_and_flush_match() -> None:
    m = IoMatcher(t0_ns=0)
    rows = list(m.feed(parse_blkparse(HAND).events)) + list(m.finish())
    io = [r for r in rows if r[1] == 73984]
    # dev, sector, bytes, op, rwbs, insert, issue (the last one), complete, latency, bin, cpu, pid, comm, error, requeues
    assert io == [("8,0", 73984, 24 * 512, "write", "WS", 4000, 7000, 9000, 2000, 87, 1, 211, "kworker/1:1H", 0, 1)]
    discard = [r for r in rows if r[3] == "discard"]
    assert discard[0][13] == -5
    # the flush issued without sectors has no key: counted, not matched; its completion (sector 0) is unmatched
    assert m.counts["issue_without_sector"] == 1 and m.counts["complete_without_issue"] == 1


@pytest.mark.parametrize("text, line, fld", [
    ("  8,0    0        1     0.000000000  4162  Z  WS 73992 + 8 [fs_mark]\n", 1, "action"),
    ("  8,0    0        1     0.00000000x  4162  Q  WS 73992 + 8 [fs_mark]\n", 1, "header"),
    ("  8,0    0        1     0.000000000  4162  Q  WS 73992 + 8 [fs_mark]\n"
     "  8,0    0        2     0.000000001  4162  Q  WS 7399x + 8 [fs_mark]\n", 2, "sector"),
    ("  8,0    0        1     0.000000000  4162  C  WS 73992 + 8\n", 1, "error"),
    ("hello\n", 1, None),
    ("CPU0 (8,0):\n Reads Queued: 1, 4KiB\nsomething else\n", 3, None),
])
def test_errors_name_the_line_and_field(text: str, line: int, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_blkparse(text, "bad.txt")
    assert exc.value.file == "bad.txt" and exc.value.line == line and exc.value.field == fld
