"""The native block pass (`iolens_native.block_perf_csv`, through formats/perf_block_native.py)
against the Python reference it replaces at ingest (PerfBlockReader + IoMatcher + csv.writer, in
ingest/block.py read_block_artifact): the same CSV bytes, the same counters (in the same key order),
the same FormatError for a malformed line. On the real perf sample, on the benchmark's synthetic
stream, on hand-written lines for every parsing and matching rule, on malformed lines, and on
randomly damaged text."""

from __future__ import annotations

import csv
import gzip
import importlib.util
import io
import random
import sys
from pathlib import Path

import pytest

import iolens.ingest.block as ingest_block
from iolens.formats import perf_block_native as native
from iolens.formats.errors import FormatError
from iolens.formats.perf_block import PerfBlockReader
from iolens.ingest.block import open_text, read_block_artifact
from iolens.store.rules.bin_percentile import lat_bin

pytestmark = pytest.mark.skipif(not native.available(), reason="iolens_native has no block_perf_csv")

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"
REPO = Path(__file__).resolve().parents[2]


def L(t_ns: int, event: str, payload: str, comm: str = "fio", tid: str | int = 4242, cpu: int = 1) -> str:
    """One `perf script --ns` line, laid out as perf 6.1 prints it."""
    return f"{comm:>16} {tid:>5} [{cpu:03d}] {t_ns // 10**9:5d}.{t_ns % 10**9:09d}: {'block:' + event:>26}: {payload}\n"


def rq(dev: str, rwbs: str, sector: int, nr: int, comm: str = "fio") -> str:
    return f"{dev} {rwbs} {nr * 512} () {sector} + {nr} 0x2,0,4 [{comm}]"


def rqc(dev: str, rwbs: str, sector: int, nr: int, error: int = 0) -> str:
    return f"{dev} {rwbs} () {sector} + {nr} 0x2,0,4 [{error}]"


def python_reader(path: Path) -> dict:
    reader = PerfBlockReader("in.txt")
    with open_text(path) as f:
        for _ in reader.events(f):
            pass
    return {"tracepoints": list(reader.tracepoints.items()), "foreign": reader.foreign,
            "passthrough": reader.passthrough, "usec_times": reader.usec_times, "lost": reader.lost,
            "lines": reader.lines}


def state(run: ingest_block.BlockRun) -> dict:
    m = run.matcher
    return {"tool": run.tool, "t0": m.t0_ns, "first": m.first_ns, "last": m.last_ns,
            "counts": list(m.counts.items()), "actions": list(m.actions.items()),
            "devices": list(m.devices.items()), "most_common": m.devices.most_common(),
            "unmatched_completes": list(m._unmatched_completes), "unfinished_issues": list(m._unfinished_issues),
            "interior": m.interior_unmatched(), "row": ingest_block.block_run_row("c", "r", run)}


def outcome(path: Path, tmp: Path, *, use_native: bool, t0: int | None) -> tuple:
    out = tmp / ("native.csv" if use_native else "python.csv")
    try:
        run = read_block_artifact("perf-block", path, "in.txt", out, t0, native=use_native)
    except FormatError as e:
        return ("error", str(e), e.file, e.line, e.field)
    return ("ok", out.read_bytes(), state(run))


def both(tmp: Path, data: bytes | str, t0: int | None = None, *, chunk_bytes: int = 0,
         fallback: bool = False, name: str = "in.txt") -> tuple:
    """Runs both paths on `data`; asserts that they agree and that the native pass did not fall back
    (or did, with fallback=True). Returns the Python path's outcome."""
    path = tmp / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    py = outcome(path, tmp, use_native=False, t0=t0)
    # the compiled pass itself: no fallback, same CSV and counters as the Python reader's
    try:
        p = native.perf_block_csv(path, "in.txt", tmp / "low.csv", t0, chunk_bytes=chunk_bytes)
    except native.Fallback:
        assert fallback, "the native pass fell back to Python"
    except FormatError as e:
        assert not fallback
        assert py[0] == "error" and (str(e), e.file, e.line, e.field) == py[1:]
    else:
        assert not fallback, "the native pass did not fall back"
        if py[0] == "error":  # raised by read_block_artifact after the pass, on both paths
            assert py[1] == "in.txt: no block events in this file" and not p.actions and not p.rows
        else:
            assert (tmp / "low.csv").read_bytes() == py[1]
            assert p.rows == py[1].count(b"\n")
        assert {"tracepoints": list(p.tracepoints.items()), "foreign": p.foreign, "passthrough": p.passthrough,
                "usec_times": p.usec_times, "lost": p.lost, "lines": p.lines} == python_reader(path)
    # and through read_block_artifact (fallback included): what ingest gets
    nat = outcome(path, tmp, use_native=True, t0=t0)
    assert nat == py
    return py


# --- real and synthetic inputs --------------------------------------------------------------


@pytest.mark.parametrize("name", ["perf-6.1-block-randrw.ns.txt.gz", "perf-6.1-block-randrw.us.txt.gz",
                                  "perf-6.1-block-randrw.pid.txt.gz"])
@pytest.mark.parametrize("t0", [None, 2139_000_000_000])
def test_real_sample(tmp_path, name, t0) -> None:
    py = both(tmp_path, (SAMPLES / name).read_bytes(), t0)
    assert py[0] == "ok" and py[2]["counts"]  # 1200 matched, the rest unmatched: every row kind
    kinds = dict(py[2]["counts"])
    assert kinds["matched"] == 1200 and kinds["issue_without_complete"] > 0


def test_real_sample_in_tiny_chunks(tmp_path) -> None:
    data = gzip.decompress((SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes())
    for chunk in (1, 7, 100, 4096):
        both(tmp_path, data, chunk_bytes=chunk)


def _bench_module():
    spec = importlib.util.spec_from_file_location("bench_block_views", REPO / "bench" / "block_views.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_block_views", mod)
    spec.loader.exec_module(mod)
    return mod


def test_synthetic_stream_of_the_benchmark(tmp_path) -> None:
    bench = _bench_module()
    path = tmp_path / "synthetic.txt.gz"
    assert bench.write_text(path, 3000) == 9000
    py = both(tmp_path, path.read_bytes(), bench.T0)
    assert dict(py[2]["counts"]) == {"matched": 3000}


# --- hand-written: every rule ----------------------------------------------------------------

T = 100_000_000_000  # 100 s

CASES: dict[str, tuple[str, dict[str, int]]] = {
    # insert -> issue -> complete; the insert time goes to the row
    "insert issue complete": ("".join([
        L(T, "block_rq_insert", rq("8,0", "WS", 100, 8)),
        L(T + 10, "block_rq_issue", rq("8,0", "WS", 100, 8)),
        L(T + 3000, "block_rq_complete", rqc("8,0", "WS", 100, 8), "swapper/0", 0, 0),
    ]), {"matched": 1}),
    # a front merge moves the inserted request's key to the bio's sector
    "frontmerge": ("".join([
        L(T, "block_rq_insert", rq("8,0", "W", 108, 8)),
        L(T + 5, "block_bio_frontmerge", "8,0 W 100 + 8 [fio]"),
        L(T + 6, "block_bio_frontmerge", "8,0 W 500 + 0 [fio]"),    # nr 0: nothing
        L(T + 7, "block_bio_frontmerge", "8,0 W 900 + 8 [fio]"),    # nothing inserted at 908
        L(T + 10, "block_rq_issue", rq("8,0", "W", 100, 16)),
        L(T + 90, "block_rq_complete", rqc("8,0", "W", 100, 16)),
    ]), {"matched": 1}),
    # a request merged into another is forgotten; inserts never issued are counted
    "rq_merge and insert_without_issue": ("".join([
        L(T, "block_rq_insert", rq("8,0", "R", 200, 8)),
        L(T + 1, "block_rq_insert", rq("8,0", "R", 300, 8)),
        L(T + 2, "block_rq_insert", rq("8,0", "R", 400, 8)),
        L(T + 3, "block_rq_merge", rq("8,0", "R", 300, 8)),
        L(T + 4, "block_rq_merge", rq("8,0", "R", 700, 8)),         # nothing there
        L(T + 5, "block_rq_issue", rq("8,0", "R", 300, 8)),
        L(T + 9, "block_rq_complete", rqc("8,0", "R", 300, 8)),
    ]), {"insert_without_issue": 2}),
    # a second insert at a key: replaces (with sectors) or queues (flush: 0 sectors)
    "insert_duplicate": ("".join([
        L(T, "block_rq_insert", rq("8,0", "W", 10, 8)),
        L(T + 1, "block_rq_insert", rq("8,0", "W", 10, 8)),
        L(T + 2, "block_rq_insert", "8,0 FF 0 () 0 + 0 0x0,0,0 [kworker]"),
        L(T + 3, "block_rq_insert", "8,0 FF 0 () 0 + 0 0x0,0,0 [kworker]"),
        L(T + 4, "block_rq_issue", rq("8,0", "W", 10, 8)),
        L(T + 5, "block_rq_issue", "8,0 FF 0 () 0 + 0 0x0,0,0 [kworker]"),
        L(T + 6, "block_rq_issue", "8,0 FF 0 () 0 + 0 0x0,0,0 [kworker]"),
        L(T + 7, "block_rq_complete", "8,0 FF () 18446744073709551615 + 0 0x0,0,0 [0]"),
        L(T + 8, "block_rq_complete", rqc("8,0", "W", 10, 8)),
        L(T + 9, "block_rq_complete", "8,0 FF () 18446744073709551615 + 0 0x0,0,0 [0]"),
    ]), {"insert_duplicate": 1, "matched": 3}),
    # requeue: the next issue continues the I/O (its cpu, pid, comm); requeue without issue
    "requeue": ("".join([
        L(T, "block_rq_insert", rq("8,0", "W", 10, 8)),
        L(T + 100, "block_rq_issue", rq("8,0", "W", 10, 8)),
        L(T + 200, "block_rq_requeue", rqc("8,0", "W", 10, 8)),
        L(T + 300, "block_rq_issue", rq("8,0", "W", 10, 8, "kworker/1:1H"), "kworker/1:1H", 77, 1),
        L(T + 350, "block_rq_requeue", rqc("8,0", "W", 99, 8)),
        L(T + 900, "block_rq_complete", rqc("8,0", "W", 10, 8)),
        # requeued and never issued again, and a plain one in flight: both unfinished at the end,
        # in flight first, then requeued
        L(T + 1000, "block_rq_issue", rq("8,0", "W", 20, 8)),
        L(T + 1001, "block_rq_issue", rq("8,0", "W", 30, 8)),
        L(T + 1002, "block_rq_requeue", rqc("8,0", "W", 20, 8)),
    ]), {"requeue_without_issue": 1, "issue_without_complete": 2}),
    # a completion of fewer sectors than the request: the rest stays in flight
    "partial completion": ("".join([
        L(T, "block_rq_issue", rq("8,0", "W", 50, 16)),
        L(T + 100, "block_rq_complete", rqc("8,0", "W", 50, 8)),
        L(T + 300, "block_rq_complete", rqc("8,0", "W", 58, 8)),
        L(T + 400, "block_rq_issue", rq("8,0", "W", 90, 24)),
        L(T + 500, "block_rq_complete", rqc("8,0", "W", 90, 8)),   # 16 left at 98, never completed
    ]), {"partial_complete": 2, "matched": 1, "issue_without_complete": 1}),
    # a second issue at a key in flight: the first lost its completion; the new one keeps the
    # key's place (dict order of the unfinished rows at the end)
    "issue_duplicate": ("".join([
        L(T, "block_rq_issue", rq("8,0", "W", 80, 8)),
        L(T + 1, "block_rq_issue", rq("8,0", "W", 88, 8)),
        L(T + 2, "block_rq_issue", rq("8,0", "W", 80, 8)),
        L(T + 3, "block_rq_issue", rq("8,1", "W", 80, 8)),
        L(T + 4, "block_rq_complete", rqc("8,0", "W", 88, 8)),
        L(T + 5, "block_rq_issue", rq("8,0", "W", 88, 8)),          # re-added: goes last
    ]), {"issue_duplicate": 1, "issue_without_complete": 4}),
    # flushes (no sectors) are first in, first out at sector 0; -1 completes at 0
    "flush fifo": ("".join([
        L(T, "block_rq_issue", "7,1 FF 0 () 0 + 0 0x0,0,0 [kworker/0:1H]", "kworker/0:1H-kb", "44/44", 0),
        L(T + 10, "block_rq_issue", "7,1 FF 0 () 0 + 0 0x0,0,0 [jbd2/vda1-8]", "jbd2/vda1-8", 300, 1),
        L(T + 20, "block_rq_issue", "7,1 FWS 0 () 0 + 0 0x0,0,0 [fio]"),
        L(T + 30, "block_rq_complete", "7,1 FF () 18446744073709551615 + 0 0x0,0,0 [0]", "ksoftirqd/0", "14/14"),
        L(T + 40, "block_rq_complete", "7,1 FF () 0 + 0 0x0,0,0 [0]"),
    ]), {"matched": 2, "issue_without_complete": 1}),
    # times out of order: a completion before its issue; a completion without issue
    "negative latency and complete_without_issue": ("".join([
        L(T + 500, "block_rq_issue", rq("8,0", "R", 10, 8)),
        L(T + 400, "block_rq_complete", rqc("8,0", "R", 10, 8, -5)),
        L(T + 600, "block_rq_complete", rqc("8,0", "RA", 70, 8)),
        L(T + 700, "block_rq_complete", rqc("8,0", "DS", 90, 2048, -121)),
    ]), {"negative_latency": 1, "complete_without_issue": 2}),
    # lat_bin at 0, 1, 2, 3 ns and far
    "latency bins": ("".join([
        L(T, "block_rq_issue", rq("8,0", "W", 0 + 8 * i, 8)) for i in range(6)
    ] + [
        L(T + lat, "block_rq_complete", rqc("8,0", "W", 8 * i, 8))
        for i, lat in enumerate((0, 1, 2, 3, 181, 10**9 + 7))
    ]), {"matched": 6}),
    # ops from RWBS: FUA and pre-flush flags, discard, none, other
    "ops": ("".join([
        L(T + i, "block_rq_issue", f"8,0 {rwbs} 4096 () {8 * i} + 8 0x2,0,4 [fio]")
        for i, rwbs in enumerate(["FWFS", "FR", "WFS", "DS", "N", "FN", "RA", "X", "F", "FX"])
    ] + [L(T + 100 + i, "block_rq_complete", f"8,0 W () {8 * i} + 8 [0]") for i in range(10)]),
        {"matched": 10}),
    # bio, remap, split and plug events: actions, not rows; other block events: counted only
    "other shapes": ("".join([
        L(T, "block_plug", "[fio]"),
        L(T + 1, "block_unplug", "[fio] 1"),
        L(T + 2, "block_split", "8,0 W 200 / 208 [fio]"),
        L(T + 3, "block_bio_remap", "8,0 W 300 + 8 <- (8,1) 292"),
        L(T + 4, "block_rq_remap", "8,0 W 300 + 8 <- (8,1) 292 len 8 1"),
        L(T + 5, "block_bio_queue", "8,0 W 300 + 8 [fio]"),
        L(T + 6, "block_bio_backmerge", "8,0 W 308 + 8 [fio]"),
        L(T + 7, "block_getrq", "8,0 W 300 + 16 [fio]"),
        L(T + 8, "block_bio_bounce", "8,0 W 300 + 16 [fio]"),
        L(T + 9, "block_bio_complete", "8,0 W 300 + 16 [0]"),
        L(T + 10, "block_rq_error", "8,0 W () 300 + 16 [-5]"),
        L(T + 11, "block_io_start", rq("8,0", "W", 300, 16)),
        L(T + 12, "block_io_done", rq("8,0", "W", 300, 16)),
        L(T + 13, "block_dirty_buffer", "8,0 sector=1 size=4096"),
        "             fio  4242 [001]   100.000000014:      block:block_touch_buffer\n",  # no ": "
        L(T + 15, "block_rq_issue", rq("8,0", "W", 300, 16)),
        L(T + 16, "block_rq_complete", rqc("8,0", "W", 300, 16)),
    ]), {"matched": 1}),
    # passthrough requests (a command in the parentheses), and "+" missing after " () "
    "passthrough": ("".join([
        L(T, "block_rq_issue", "8,0 R 36 (12 00 00 00 24 00) 0 + 0 [sg_inq]", "sg_inq", 300),
        L(T + 1, "block_rq_complete", "8,0 R (12 00 00 00 24 00) 0 + 0 [0]", "sg_inq", 300),
        L(T + 2, "block_rq_issue", "8,0 W 4096 () 100 - 8 [fio]"),
        L(T + 3, "block_rq_complete", "8,0 W () 100 8 [0]"),
        L(T + 4, "block_rq_issue", "8,0 N 0 (c0 01) 0 + 0 0x2,0,4 [nvme]"),
        L(T + 5, "block_rq_issue", "8,0 R 0 () 0 + 0 0x2,0,4 [nvme]"),
    ]), {"issue_without_complete": 1}),
    # header variants: comm with spaces, pid/tid, microseconds, no decimals, long fractions
    "headers": ("".join([
        L(T, "block_rq_issue", rq("254,0", "WS", 10, 8), "opt cgu.0", 9930),
        L(T + 1, "block_rq_issue", rq("254,0", "WS", 20, 8), "a b  c", "1/2", 3),
        "             fio  4242 [001]   100.000030:      block:block_rq_complete: 254,0 WS () 10 + 8 [0]\n",
        "             fio  4242 [001]   101:      block:block_rq_complete: 254,0 WS () 20 + 8 [0]\n",
        "             fio  4242 [001]   101:      block:block_bio_queue: 254,0 WS 20 + 8 [fio]\n",
        "             fio  4242 [001]   102.0000000012345:      block:block_rq_issue: 254,0 WS 4096 () 30 + 8 [fio]\n",
        "             fio  4242 [001]   102.000_000_001:      block:block_rq_issue: 254,0 WS 4096 () 40 + 8 [fio]\n",
        "             fio  4242 [001]   102.1_2:      block:block_bio_queue: 254,0 WS 40 + 8 [fio]\n",
        "             fio  +4242 [+01]   +103.-5:      block:block_rq_issue: 254,0 WS +4096 () +50 + -8 [fio]\n",
        "             fio  4242 [07   104.5:      block:block_rq_issue: 254,0 WS 4096 () 60 + 8 [fio]\n",
        "  fio\t4242\t[001]\t105.000000001:\tblock:block_rq_issue: 254,0 WS 4096 () 70 + 8 [fio]\n",
    ]), {}),
    # text: non-ASCII and invalid UTF-8 in comm, CSV quoting, Unicode spaces, "\r\n" and "\r"
    "text": ("".join([
        L(T, "block_rq_issue", rq("8,0", "W", 10, 8), "fïo-ñ"),
        L(T + 1, "block_rq_issue", rq("8,0", "W", 20, 8), 'we,ird"comm'),
        L(T + 2, "block_rq_issue", rq("8,0", "W", 30, 8), "a\u00a0b"),
        L(T + 3, "block_rq_issue", rq("8,0", "W\u2003", 40, 8)),
        L(T + 4, "block_rq_issue", "8,0 \u00a0W 4096 () 50 + 8 0x2,0,4 [fio]").replace("\n", "\r\n"),
        L(T + 5, "block_rq_issue", rq("8,0", "W", 60, 8)).replace("\n", "\r"),
        L(T + 6, "block_rq_issue", rq("8,0", "W", 70, 8), "x\x1cy"),
        L(T + 7, "block_rq_issue", rq("8,0", "W", 80, 8), "\u3000tab"),
    ] + [L(T + 100 + i, "block_rq_complete", rqc("8,0", "W", 10 * i, 8)) for i in range(1, 9)]).encode()
        .replace(b"\xc3\xafo-", b"\xc3o\xff-").decode("latin-1"), {}),
    # lines that are not block samples: lost records, other events, comments, blank lines
    "not block lines": ("".join([
        "# ========\n# captured on: x\n#\n",
        "\n",
        "   \t  \n",
        L(T, "block_rq_issue", rq("8,0", "W", 10, 8)),
        "LOST 12 events!\n",
        "            perf     0 [001]   100.000001200: PERF_RECORD_LOST lost 30\n",
        "            perf     0 [001]   100.000001200: PERF_RECORD_LOST_SAMPLES lost 5\n",
        "PERF_RECORD_LOST_SAMPLESX 1 PERF_RECORD_LOST: 2 (3)\n",
        "xLOST 5 events!  perf 0/0 [001] 1.2:\n",
        "            fio   400 [001]   100.000001100:   sched:sched_switch: prev_comm=fio prev_pid=400\n",
        "            fio 400/401 [001]   100.000001100: cycles: ffffffff\n",
        L(T + 1, "block_rq_complete", rqc("8,0", "W", 10, 8)),
        "no newline at the end 1 [0] 1.1:",
    ]), {}),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("t0", [None, 99_999_999_000])
def test_hand_written_rules(tmp_path, name, t0) -> None:
    text, expected = CASES[name]
    py = both(tmp_path, text.encode("latin-1") if name == "text" else text, t0)
    assert py[0] == "ok", py
    counts = dict(py[2]["counts"])
    assert {k: counts.get(k, 0) for k in expected} == expected


def test_all_rules_in_one_stream_and_tiny_chunks(tmp_path) -> None:
    text = "".join(t for k, (t, _) in CASES.items() if k != "text")
    for chunk in (0, 3, 64):
        both(tmp_path, text, 5, chunk_bytes=chunk)


def test_row_order_and_values_by_hand(tmp_path) -> None:
    """A check of the reference itself on the rules above, so that both paths cannot agree on a
    wrong answer: completion order, then in flight (dict order), then requeued."""
    py = both(tmp_path, CASES["requeue"][0] + CASES["issue_duplicate"][0], T)
    rows = list(csv.reader(io.StringIO(py[1].decode())))
    # dev, sector, bytes, op, rwbs, insert, issue, complete, latency, lat_bin, cpu, pid, comm, error, requeues
    assert rows[0][1:] == ["10", "4096", "write", "W", "0", "300", "900", "600", "73", "1", "77", "kworker/1:1H",
                           "0", "1"]
    # issue_duplicate: the first issue at 80 without completion, emitted at the duplicate
    assert [(r[1], r[7], r[8]) for r in rows[1:]] == [
        ("80", "", ""),                       # 8,0 80 issued at T: its completion was lost
        ("88", "4", "3"),                     # completed
        ("30", "", ""), ("80", "", ""), ("80", "", ""), ("88", "", ""),  # in flight, dict order
        ("20", "", ""),                       # requeued, never issued again
    ]
    assert rows[4][0] == "8,0" and rows[5][0] == "8,1" and b'"8,1",80,' in py[1]
    assert [lat_bin(x) for x in (0, 1, 2, 3, 181)] == [0, 0, 8, 12, 59]


MALFORMED = [
    "not perf script at all\n",
    L(T, "block_rq_issue", rq("8,0", "W", 10, 8)) + "  fio [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001 block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1 000 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W x () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + x [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 1__0 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8\n",
    "  fio 1 [000] 1.000000001: block:block_rq_complete: 8,0 W () 100 + 8 [x]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_complete: 8,0 W () 100 + 8 0x2,0,4 [0\n",
    "  fio 1 [000] 1.000000001: block:block_rq_complete: 8,0 W (12 00) 100 + 8 [x]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_requeue: 8,0 W 100 + 8 [0]\n",
    "  fio 1 [x00] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1 [0x1] 1.000000001: block:block_rq_complete: 8,0 W () 100 + 8 [0]\n",
    "  fio p1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1/p [000] 1.000000001: block:block_bio_queue: 8,0 W 100 + 8 [fio]\n",
    "  fio 1 [000] 1x.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.00000000x: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
    "  fio 1 [000] 1.2.3: block:block_bio_queue: 8,0 W 100 + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_bio_queue: 8,0 W 100 +\n",
    "  fio 1 [000] 1.000000001: block:block_bio_queue: 8,0 W x + 8 [fio]\n",
    "  fio 1 [000] 1.000000001: block:block_split: 8,0 W\n",
    "  fio 1 [000] 1.000000001: block:block_rq_issue\n",
    "  fio 1 [000] 1.000000001: block:block_bio_queue:\n",
    "  fio 1 [000] 1.000000001: block:block_rq_complete:: 8,0 W () 100 + 8 [0]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_complete: () 100 + 8 [0]\n",
    "  fio 1 [000] 1.000000001: block:block_rq_complete:\u00e9 \u00e9\n",
    "  fïo 1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [f\"'\\\x7fio]\n".replace("4096", "4o96"),
    "  fio 1 [000] 1.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n" + "x" * 200 + "\n",
    "perf 0 [000] 1.0: LOST x events!\n",
    "             fio  4242 [0]]   104.5:      block:block_rq_issue: 254,0 WS 4096 () 60 + 8 [fio]\n",
    "\t'quoted' \"and\" \\ \x01 line\n",
    "",  # no block events at all
    "# only a comment\n",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_lines_give_the_same_error(tmp_path, text) -> None:
    py = both(tmp_path, text)
    assert py[0] == "error"


# Inputs the native pass leaves to Python (it cannot tell what Python's int() or re would read):
# the result is still the Python path's, through read_block_artifact.
FALLBACKS = [
    L(T, "block_rq_issue", "8,0 W 4096 () \u0661\u0660 + 8 0x2,0,4 [fio]"),       # Arabic-Indic digits
    L(T, "block_rq_issue", "8,0 W 4096 () 100 + 8 0x2,0,4 [fio]").replace("4242", "\u0664\u0662"),
    L(T, "block_rq_issue", rq("8,0", "W", 2**70, 8)) + L(T + 1, "block_rq_complete", rqc("8,0", "W", 2**70, 8)),
    "héllo wörld\n",                                                              # error, from Python
    "perf 0 [000] 1.0: PERF_RECORD_LOST lost \u0663 ünïcode\n" + L(T, "block_rq_issue", rq("8,0", "W", 1, 8)),
    "  fio 1 [000] \u0661.000000001: block:block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]\n",
]


@pytest.mark.parametrize("text", FALLBACKS)
def test_what_the_native_pass_leaves_to_python(tmp_path, text) -> None:
    both(tmp_path, text, fallback=True)


def test_t0_beyond_64_bits_falls_back(tmp_path) -> None:
    text = L(T, "block_rq_issue", rq("8,0", "W", 1, 8))
    both(tmp_path, text, 2**64, fallback=True)


def test_environment_turns_the_native_pass_off(tmp_path, monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(native, "perf_block_csv", lambda *a, **k: calls.append(a) or pytest.fail("native used"))
    monkeypatch.setenv(native.ENV, "0")
    path = tmp_path / "in.txt"
    path.write_text(CASES["requeue"][0])
    read_block_artifact("perf-block", path, "in.txt", tmp_path / "o.csv")
    assert not calls and not native.enabled()
    monkeypatch.delenv(native.ENV)
    assert native.enabled()


def test_lat_bin_is_the_same_double_arithmetic() -> None:
    import iolens_native

    values = list(range(-3, 70_000))
    for k in range(1, 8 * 62):  # around each bin edge 2^(k/8)
        x = int(2 ** (k / 8))
        values.extend(range(max(0, x - 3), x + 4))
    rnd = random.Random(8)
    values.extend(rnd.randrange(1 << 63) for _ in range(20_000))
    values.append((1 << 63) - 1)
    assert [iolens_native.block_lat_bin(v) for v in values] == [lat_bin(v) for v in values]


# --- damaged text: random edits of real lines ---------------------------------------------------

_CHARS = [" ", "\t", "(", ")", "[", "]", ":", ".", "/", "+", "-", "_", ",", '"', "0", "9", "\r", "\n", "\x1c",
          "\u00a0", "é", "#", "block:", " () ", "18446744073709551615", "LOST "]


def test_damaged_text_gives_the_same_result(tmp_path) -> None:
    lines = gzip.decompress((SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes()).decode().splitlines(True)
    pool = lines[:40] + [t for t, _ in CASES.values()]
    rnd = random.Random(2024)
    fell_back = 0
    for i in range(300):
        doc = list(rnd.sample(pool, 12))
        for _ in range(rnd.randint(1, 4)):
            j = rnd.randrange(len(doc))
            s = doc[j]
            p = rnd.randrange(len(s) + 1)
            op = rnd.random()
            if op < 0.4:
                s = s[:p] + rnd.choice(_CHARS) + s[p:]
            elif op < 0.7:
                s = s[:p] + s[p + rnd.randint(1, 6):]
            else:
                s = s[:p] + rnd.choice(_CHARS) + s[p + 1:]
            doc[j] = s
        d = tmp_path / f"d{i}"
        d.mkdir()
        try:
            both(d, "".join(doc), rnd.choice([None, T]), chunk_bytes=rnd.choice([0, 5, 50]))
        except AssertionError as e:
            if "fell back" not in str(e):
                raise
            fell_back += 1
            assert outcome(d / "in.txt", d, use_native=True, t0=None) == outcome(d / "in.txt", d, use_native=False, t0=None)
    assert fell_back < 60


@pytest.mark.parametrize("damage", ["truncated", "no trailer", "crc", "garbage after", "zero padding", "two members"])
def test_damaged_gzip_gives_what_python_gives(tmp_path, damage) -> None:
    """Read and gzip errors are left to Python (its own exceptions); what flate2 reads differently
    (zero padding after the last member) too."""
    data = (SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes()
    data = {"truncated": data[:len(data) // 2], "no trailer": data[:-4],
            "crc": data[:-8] + bytes([data[-8] ^ 1]) + data[-7:], "garbage after": data + b"xx",
            "zero padding": data + b"\0" * 10, "two members": data + data}[damage]
    path = tmp_path / "in.txt.gz"
    path.write_bytes(data)
    got = []
    for use_native in (False, True):
        try:
            read_block_artifact("perf-block", path, "in.txt", tmp_path / f"{use_native}.csv", native=use_native)
            got.append(("ok", (tmp_path / f"{use_native}.csv").read_bytes()))
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            got.append((type(e), str(e)))
    assert got[0] == got[1]
    if damage == "two members":
        assert native.perf_block_csv(path, "in.txt", tmp_path / "n.csv").rows == 2 * 2053
    else:
        with pytest.raises(native.Fallback, match="read error"):
            native.perf_block_csv(path, "in.txt", tmp_path / "n.csv")
