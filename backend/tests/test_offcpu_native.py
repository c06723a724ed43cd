"""The native off-CPU pass (`iolens_native.offcpu_csv`, src/offcpu.rs) against the Python reference
it replaces at ingest (OffcpuReader + read_offcpu + write_offcpu_csv, ingest/offcpu.py): the same
four CSV files byte for byte, the same counters, the same FormatError for a rejected line. On the
real capture of datasets/offcpu-xfs-dio, on the corpus's perf script and perf sched texts, on
hand-written lines for every rule (the header's lazy comm and optional period, the trace regexes,
numeric states, frames), on malformed lines and on randomly damaged text."""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import tarfile
from pathlib import Path

import pytest
from offcpu_texts import TEXT

from iolens.formats.errors import FormatError
from iolens.formats.perf_offcpu import OffcpuReader, OffcpuSwitch
from iolens.formats.perf_sched import Wake, iter_sched_events
from iolens.ingest import offcpu
from iolens.ingest.offcpu import Fallback, OffcpuFiles, native_pass, offcpu_pass

pytestmark = pytest.mark.skipif(not offcpu.native_available(), reason="iolens_native has no offcpu_csv")

REPO = Path(__file__).resolve().parents[2]
DATASET = REPO / "datasets" / "offcpu-xfs-dio" / "6.18.44-fc-v669-offcpu-xfs-dio.iolens.tar.gz"
K = "([kernel.kallsyms])"


def dataset_text() -> bytes:
    with tarfile.open(DATASET) as tar:
        return gzip.decompress(tar.extractfile("runs/r000/offcpu.script.gz").read())


def outcome(path: Path, tmp: Path, *, use_native: bool, chunk_bytes: int = 0) -> tuple:
    d = tmp / ("native" if use_native else "python")
    d.mkdir(exist_ok=True)
    files = OffcpuFiles.in_dir(d)
    try:
        if use_native:
            counts = native_pass(path, "in.txt", files, chunk_bytes=chunk_bytes)
        else:
            counts = offcpu_pass(path, "in.txt", files, native=False)
    except FormatError as e:
        return ("error", str(e), e.file, e.line, e.field)
    return ("ok", counts, *(p.read_bytes() for p in files))


def both(tmp: Path, data: bytes | str, *, chunk_bytes: int = 0, fallback: bool = False, name: str = "in.txt") -> tuple:
    """Both paths on `data`: asserts that they agree (or, with fallback=True, that the native pass
    declines); returns the reference's outcome."""
    path = tmp / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    py = outcome(path, tmp, use_native=False)
    if fallback:
        with pytest.raises(Fallback):
            outcome(path, tmp, use_native=True, chunk_bytes=chunk_bytes)
        return py
    nat = outcome(path, tmp, use_native=True, chunk_bytes=chunk_bytes)
    assert nat == py
    return py


def test_the_real_capture_gives_the_same_bytes(tmp_path):
    text = dataset_text()
    py = both(tmp_path, text)
    assert py[0] == "ok"
    counts = py[1]
    assert counts.switches > 9000 and counts.n_wakings > 6000 and counts.paired > 8000
    assert py[2].count(b"\n") == counts.paired and py[3].count(b"\n") == counts.n_wakings
    # gzip, as the bundle stores it, and tiny read blocks
    gz = both(tmp_path, gzip.compress(text), name="in.txt.gz")
    assert gz == py
    path = tmp_path / "in.txt"
    assert outcome(path, tmp_path, use_native=True, chunk_bytes=4093) == py


def test_the_corpus_gives_the_same_outcome(tmp_path, corpus):
    files = sorted((corpus / "perf-script" / "input").iterdir()) + sorted((corpus / "perf-sched").iterdir())
    assert files
    seen = set()
    for f in files:
        data = f.read_bytes()
        if f.suffix == ".gz":
            data = gzip.decompress(data)
        path = tmp_path / "in.txt"
        path.write_bytes(data)
        py = outcome(path, tmp_path, use_native=False)
        try:
            nat = outcome(path, tmp_path, use_native=True)
        except Fallback:
            continue  # non-ASCII event lines: the reference reads them at ingest
        assert nat == py, f.name
        seen.add(py[0])
    assert seen == {"ok", "error"}


EDGE = f"""\
# a comment line
\x0b7/7 [001] 1.000000001: sched:sched_waking: comm=a "q" pid=101 prio=-1 success=1 target_cpu=0000001
\t  ffffffff813aa9c4 try_to_wake_up+0x1b {K}
\tffffffff813aa9c4 foo+0x {K}
\tffffffff813aa9c4 (anon) {K}
\tffffffff813aa9c4 [unknown] (/usr/lib/libx.so)
\tffffffff813aa9c4 [unknown] ([unknown])
\tffffffff813aa9c4 a;b(int, char) {K}
\tffffffff813aa9c4 std::vector<int (*)()>::size() {K}
\tffffffff813aa9c4 _$LT$alloc..vec..Vec$LT$T$GT$$GT$::push::h0123456789abcdef (/bin/rs)
\tffffffff813aa9c4  (/lib/x.so)
\tnot a frame

a b 1 2 3  100/101  [000] 2.5: 12345 sched:sched_switch: prev_comm=a b prev_pid=1 prev_pid=101 prev_prio=120 prev_state=0x102 ==> next_comm=x next_pid=5 next_prio=-3
\tffffffff821facd8 __schedule {K}
x 5 [000] 2.600000000: sched:sched_switch: prev_comm=x prev_pid=5 prev_prio=1 prev_state=3 ==> next_comm=a b next_pid=101 next_prio=1
x 5 [000] 2.700000000: sched:sched_switch: prev_comm=x prev_pid=5 prev_prio=1 prev_state=01 ==> next_comm=y next_pid=6 next_prio=1
\t ffff +0x10 {K}

y 6 [001] 2.8: sched:sched_switch: prev_comm=y prev_pid=6 prev_prio=1 prev_state=256 ==> next_comm=x next_pid=5 next_prio=1

y 6 [001] 2.9: sched:sched_switch: prev_comm=y prev_pid=6 prev_prio=1 prev_state=R ==> next_comm=y next_pid=6 next_prio=1
y 6 [001] 3.0: sched:sched_wakeup: comm=x pid=5 prio=1 target_cpu=001
y 6 [001] 3.1: 7 cycles:u: ffff abc {K}
:-1 -1/-1 [001] 3.2: sched:sched_waking: comm= pid=6 prio=1
y;z 7 [001] 3.3: sched:sched_switch: prev_comm=y;z prev_pid=7 prev_prio=1 prev_state=D|K ==> next_comm=w next_pid=6 next_prio=1
"""


def test_every_rule_gives_the_same_bytes(tmp_path):
    py = both(tmp_path, EDGE)
    assert py[0] == "ok", py
    counts = py[1]
    assert counts.skipped == {"sched:sched_wakeup": 1, "cycles:u": 1}
    stacks = py[4].decode()
    # the lazy comm, the numeric states, the frames as the reference names them
    assert '"a_b_1_2_3;[state D+];__schedule"' not in stacks  # prev_comm is "a b prev_pid=1"
    assert "[state S|D]" in stacks and "[state 01]" in stacks and "y;[state R]" in stacks  # 256: R+
    assert "[state D+]" in stacks and '"y:z;[state D|K]"' in stacks and '":-1;[wakes [unnamed]]"' in stacks
    for chunk in (1, 7, 64):
        both(tmp_path, EDGE, chunk_bytes=chunk)
    both(tmp_path, EDGE.replace("\n", "\r\n"))
    both(tmp_path, EDGE.replace("\n", "\r"))
    assert both(tmp_path, TEXT)[0] == "ok"
    assert both(tmp_path, TEXT.rstrip("\n"))[0] == "ok"


def test_text_beyond_ascii(tmp_path):
    # invalid UTF-8 and non-ASCII in frame lines: read natively, as Python decodes them
    text = TEXT.replace("read_events", "read_év\u2003ents").encode().replace(b"aio_complete", b"aio_\xff\xfecomplete")
    text = text.replace(b"[001] 10.000012000", b"[001] 10.000012000")
    assert both(tmp_path, text)[0] == "ok"
    # a non-ASCII event line: the reference reads the file (Python's regex classes are Unicode)
    assert both(tmp_path, TEXT.replace("fio  100/101", "fïo  100/101"), fallback=True)[0] == "ok"
    assert both(tmp_path, TEXT.replace("fio  100/101", "fio\u2003100/101"), fallback=True)[0] == "ok"
    # a time beyond 64 bits
    assert both(tmp_path, TEXT.replace("10.000040000", "9999999999.000040000"), fallback=True)[0] == "ok"


@pytest.mark.parametrize("bad, where", [
    (TEXT.replace("sched:sched_switch: prev_comm=lto", "sched:sched_switch: prev_kom=lto"), (16, "trace")),
    (TEXT.replace("comm=fio pid=101", "comm=fio pid=x101"), (7, "trace")),
    (TEXT.replace("kworker/1:1-eve    50/50    [001] 10.000010000", "kworker/1:1-eve    50/50    [001] 10.00001x"),
     (7, "header")),
    ("\tffff schedule (x)\n" + TEXT, (1, None)),
    (TEXT + "x 5 [000] 2.6: sched:sched_switch: prev_comm=x", (25, "trace")),
])
def test_errors_name_the_same_line(tmp_path, bad, where):
    py = both(tmp_path, bad)
    assert py[0] == "error" and py[3:] == where, py


def test_randomly_damaged_text(tmp_path):
    text = dataset_text().decode()
    lines = text.splitlines(keepends=True)
    alphabet = [" ", "\t", "0", "9", "-", "/", ":", "[", "]", ".", "a", "=", ";", '"', "+", "x", "(", ")", "\n", "#",
                "_", ">", "$", "h", "\r"]
    rng = random.Random(17)
    kinds = set()
    for _ in range(150):
        start = rng.randrange(0, len(lines) - 60)
        window = list("".join(lines[start:start + 60]))
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(window))
            op = rng.random()
            if op < 0.6:
                window[i] = rng.choice(alphabet)
            elif op < 0.8:
                del window[i]
            else:
                window.insert(i, rng.choice(alphabet))
        py = both(tmp_path, "".join(window))
        kinds.add(py[0])
    assert kinds == {"ok", "error"}


def test_a_bad_line_fails_the_ingest_with_nothing_stored(tmp_path):
    """At ingest (the native pass): the error names the file and the line, and the store holds
    nothing of the bundle."""
    from iolens.bundle import BundleError
    from iolens.ingest import loose
    from iolens.ingest.pipeline import ingest_file
    from iolens.store.db import Store

    text = dataset_text().split(b"\n")
    bad_line = next(i for i, ln in enumerate(text) if i > 5000 and b"sched:sched_switch:" in ln)
    text[bad_line] = text[bad_line].replace(b"prev_pid=", b"prev_pid=x")
    p = loose.plan([("offcpu.script.gz", gzip.compress(b"\n".join(text)))], "bad off-CPU", find_perf=False)
    assert [f.kind for f in p.files] == ["perf-offcpu"]
    bundle = tmp_path / "bad.iolens.tar.gz"
    loose.write(p, bundle)
    store = Store(tmp_path / "db" / "x.duckdb")
    with pytest.raises(BundleError) as err:
        ingest_file(store, bundle, bundles_dir=tmp_path / "db" / "bundles")
    assert "offcpu.script.gz" in str(err.value) and f"line {bad_line + 1}" in str(err.value), str(err.value)
    assert "sched_switch fields not as expected" in str(err.value)
    for table in ("captures", "offcpu_runs", "offcpu_intervals", "offcpu_wakings", "perf_samples", "perf_stacks"):
        assert store.query(f"SELECT count(*) FROM {table}").scalar() == 0, table


def test_a_truncated_gzip_file_is_a_clear_error(tmp_path):
    """The native pass leaves a damaged gzip stream to the reference, whose error names the file
    and the line it stopped after; nothing is stored."""
    from iolens.bundle import BundleError
    from iolens.ingest import loose
    from iolens.ingest.pipeline import ingest_file
    from iolens.store.db import Store

    gz = gzip.compress(dataset_text())
    path = tmp_path / "cut.gz"
    path.write_bytes(gz[: len(gz) // 2])
    with pytest.raises(Fallback, match="read error"):
        native_pass(path, "cut.gz", OffcpuFiles.in_dir(tmp_path))
    p = loose.plan([("offcpu.script.gz", gz[: len(gz) // 2])], "cut off-CPU", find_perf=False)
    bundle = tmp_path / "cut.iolens.tar.gz"
    loose.write(p, bundle)
    store = Store(tmp_path / "db" / "x.duckdb")
    with pytest.raises(BundleError, match=r"offcpu\.script\.gz line \d+: damaged gzip stream: cannot read past line \d+"):
        ingest_file(store, bundle, bundles_dir=tmp_path / "db" / "bundles")
    assert store.query("SELECT count(*) FROM captures").scalar() == 0


EVENT_LINE = json.loads((REPO / "testdata" / "vectors" / "offcpu-event-line.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", EVENT_LINE["cases"], ids=[c["name"][:60] for c in EVENT_LINE["cases"]])
def test_the_event_line_vectors(tmp_path, case):
    """testdata/vectors/offcpu-event-line.json: which line is an event line (an empty comm, perf's
    16-column padding); the reference and the native pass agree byte for byte (`both`), and the
    scheduler reader reads the same event lines."""
    text = "\n".join(case["text"]) + "\n"
    py = both(tmp_path, text)
    if "error" in case:
        assert py[0] == "error" and py[1] == case["error"], py
        return
    assert py[0] == "ok", py
    events = list(OffcpuReader("in.txt").events(text.splitlines(keepends=True)))
    assert len(events) == len(case["events"])
    for ev, want in zip(events, case["events"], strict=True):
        kind = "switch" if isinstance(ev, OffcpuSwitch) else "waking"
        assert {"event": kind, **{k: getattr(ev, k) for k in want if k != "event"}} == want
    stacks = [row[1] for row in csv.reader(io.StringIO(py[4].decode()))]
    assert stacks == case["stacks"]
    intervals = py[2].decode().splitlines()
    assert len(intervals) == len(case["intervals"])
    for raw, want in zip(intervals, case["intervals"], strict=True):
        row = next(csv.reader([raw]))
        assert (int(row[0]), row[2], row[3], int(row[8])) == (want["tid"], want["comm"], want["state"],
                                                             want["blocked_ns"])
        if want["waker_tid"] is None:
            assert raw.endswith(",,"), raw
        else:
            assert int(row[10]) == want["waker_tid"] and row[11] == want["waker_comm"]
            assert raw.endswith(f',"{want["waker_comm"]}"'), raw  # an empty comm is "", not unknown
    wakes = [w for w in iter_sched_events(text.splitlines(keepends=True), "in.txt") if isinstance(w, Wake)]
    assert [{k: getattr(w, k) for k in want} for w, want in zip(wakes, case["sched_wakes"], strict=False)] \
        == case["sched_wakes"] and len(wakes) == len(case["sched_wakes"])
