"""iolens.formats.lock_stat against the kernel documentation's dumps (shared corpus), dumps laid out
like the kernel prints them (tests/formats/samples/lock_stat), and inputs that must be refused."""

from __future__ import annotations

import pickle
import re
import textwrap
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.lock_stat import COLUMNS, parse_lock_stat

CORPUS_DIR = "lock_stat"
# Dumps of the corpus, as the kernel prints them (denumbered: the document's line numbers removed).
CORPUS_FILES = [
    "linux-doc-lockstat.rst_example1_denumbered.txt",  # -W/-R rows, a plain row, 4 + 4 points
    "linux-doc-lockstat.rst_example2-subclass_denumbered.txt",  # an excerpt: /1 subclass, 1 + 4 points
    # A real /proc/lock_stat: Linux 6.12.117 built with CONFIG_LOCK_STAT, 8 fio jobs on XFS (the lab).
    # Cut names with spaces, braces, "=" and ":", and names printed by several classes.
    "linux-6.12.117-lockstat-xfs-fio8.txt",
]
REAL = CORPUS_FILES[2]
# The same dumps as the document lists them, with line numbers: refused, with a message.
NUMBERED_FILES = [
    "linux-doc-lockstat.rst_example1_numbered.txt",
    "linux-doc-lockstat.rst_example2-subclass_numbered.txt",
]
SAMPLES = Path(__file__).resolve().parent / "samples" / "lock_stat"
SAMPLE_FILES = ["every-row-kind.txt", "debug-locks-off.txt"]


def _corpus(corpus: Path, name: str) -> str:
    return (corpus / CORPUS_DIR / name).read_text(encoding="utf-8")


def _sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Golden dumps


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_golden(corpus: Path, golden, name: str) -> None:
    golden(f"lock_stat/{Path(name).stem}.json", parse_lock_stat(_corpus(corpus, name), source=name))


@pytest.mark.parametrize("name", NUMBERED_FILES)
def test_corpus_numbered_listing_is_refused(corpus: Path, golden, name: str) -> None:
    with pytest.raises(FormatError) as exc:
        parse_lock_stat(_corpus(corpus, name), source=name)
    golden(f"lock_stat/{Path(name).stem}.error.json",
           {"file": exc.value.file, "line": exc.value.line, "field": exc.value.field, "message": exc.value.message})


def test_corpus_files_all_covered(corpus: Path) -> None:
    present = {p.name for p in (corpus / CORPUS_DIR).iterdir()}
    assert present == set(CORPUS_FILES) | set(NUMBERED_FILES), "new lock_stat file in the corpus: add it here"


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_samples_golden(golden, name: str) -> None:
    golden(f"lock_stat/{Path(name).stem}.json", parse_lock_stat(_sample(name), source=name))


# --------------------------------------------------------------------------------------------
# Values, checked against the text


def test_doc_example_values(corpus: Path) -> None:
    d = parse_lock_stat(_corpus(corpus, CORPUS_FILES[0]))
    assert d.version == "0.4" and not d.debug_locks_off and d.warnings == []
    mmap, unix = d.classes
    assert mmap.name == "&mm->mmap_sem" and mmap.subclass == 0 and mmap.occurrence == 0
    w, r = mmap.rows
    # &mm->mmap_sem-W:  46  84  0.26  939.10  16371.53  194.90  47291  2922365  0.16  2220301.69  17464026916.32  5975.99
    assert (w.rw, w.rw_shown, w.con_bounces, w.contentions) == ("W", True, 46, 84)
    assert (w.wait_min_ns, w.wait_max_ns, w.wait_total_ns, w.wait_avg_ns) == (260, 939_100, 16_371_530, 194_900)
    assert (w.acq_bounces, w.acquisitions) == (47291, 2922365)
    assert (w.hold_min_ns, w.hold_max_ns, w.hold_total_ns, w.hold_avg_ns) == (160, 2_220_301_690, 17_464_026_916_320, 5_975_990)
    assert (r.rw, r.rw_shown, r.contentions, r.acquisitions) == ("R", True, 100, 34316685)
    assert [p.count for p in mmap.contention_points] == [1, 96, 34, 17]
    assert [p.count for p in mmap.contending_points] == [1, 60, 41, 68]
    p = mmap.contention_points[1]
    assert (p.kind, p.index, p.address, p.symbol) == ("contention", 1, "ffffffff815351c4", "__do_page_fault+0x1d4/0x510")
    assert (p.function, p.offset, p.size, p.module) == ("__do_page_fault", 0x1D4, 0x510, None)
    # a class without -W/-R holds write (exclusive) statistics
    (u,) = unix.rows
    assert (u.rw, u.rw_shown, u.contentions, u.wait_total_ns) == ("W", False, 112, 163_910)
    assert unix.contending_points[-1].symbol == "unix_autobind+0x11f/0x1b0"


def test_subclass_excerpt(corpus: Path) -> None:
    d = parse_lock_stat(_corpus(corpus, CORPUS_FILES[1]))
    assert d.version is None and d.warnings and "excerpt" in d.warnings[0]
    rq, rq1 = d.classes
    assert (rq.name, rq.subclass) == ("&rq->lock", 0)
    assert (rq1.name, rq1.base_name, rq1.subclass, rq1.name_version) == ("&rq->lock/1", "&rq->lock", 1, None)
    assert len(rq1.contention_points) == 1 and len(rq1.contending_points) == 4
    assert rq1.rows[0].contentions == 11488


def test_every_row_kind() -> None:
    d = parse_lock_stat(_sample("every-row-kind.txt"))
    by = {(c.name, c.occurrence): c for c in d.classes}
    head = by[("&head->lock", 0)]
    assert [r.rw for r in head.rows] == ["W"] and not head.rows[0].rw_shown
    assert len(head.contention_points) == 4 and len(head.contending_points) == 4
    assert head.contention_points[0].module == "xfs" and head.contention_points[0].function == "xlog_grant_head_check"
    ilock = by[("&xfs_nondir_ilock_class", 0)]
    assert [(r.rw, r.rw_shown) for r in ilock.rows] == [("W", True), ("R", True)]
    assert len(ilock.contention_points) == 3 and len(ilock.contending_points) == 2
    tl = by[("tasklist_lock", 0)]
    assert [(r.rw, r.rw_shown) for r in tl.rows] == [("R", True)]
    assert tl.contention_points[0].address == "(____ptrval____)" and tl.contending_points == []
    mutex = by[("&type->i_mutex_dir_key#3/1", 0)]
    assert (mutex.base_name, mutex.name_version, mutex.subclass) == ("&type->i_mutex_dir_key", 3, 1)
    bare = mutex.contention_points[0]
    assert bare.symbol == "0xffffffffc0a1b2c3" and bare.function is None and bare.offset is None
    cut = "(work_completion)(&(&sbi->s_err_repor"
    assert by[(cut, 0)].rows[0].acquisitions == 14 and by[(cut, 1)].rows[0].acquisitions == 3
    assert any("printed before" in w for w in d.warnings)
    # the kernel's 14-character time buffer: one decimal left, or the integer part cut
    rcu = by[("rcu_read_lock", 0)].rows[0]
    assert rcu.hold_total_ns == 123_456_789_012_300 and rcu.hold_avg_ns == 1_250_000
    assert by[("&mapping->i_mmap_rwsem", 0)].rows[0].hold_total_ns is None
    assert sum("cut by the kernel" in w for w in d.warnings) == 2
    # uncontended classes have no points
    assert by[("&mapping->i_mmap_rwsem", 0)].contention_points == []


def test_real_dump_cut_names_and_duplicates(corpus: Path) -> None:
    d = parse_lock_stat(_corpus(corpus, REAL), source=REAL)
    assert d.version == "0.4" and not d.debug_locks_off
    assert len(d.classes) == 265 and sum(len(c.rows) for c in d.classes) == 277
    assert sum(len(c.contention_points) + len(c.contending_points) for c in d.classes) == 71
    by = {(c.name, c.occurrence): c for c in d.classes}
    assert len(by) == len(d.classes)  # every class keeps its own row
    # line 353: a per-CPU lock's name cut inside its macro, 37 characters ending with a space
    vpp = by[("&(({ do { const void *__vpp_verify = ", 0)]
    assert vpp.line == 353 and len(vpp.name) == 37
    assert [(r.rw, r.rw_shown, r.acquisitions, r.hold_total_ns) for r in vpp.rows] == [("W", False, 22, 311_480)]
    assert by[("(work_completion)(&(({ do { const voi", 0)].line == 330
    assert by[("mm/vmstat.c:2079", 0)].rows[0].line == 327  # a ':' inside the name
    assert by[("bit_wait_table + i", 0)].rows[0].rw == "W"
    # one digit of a name version above 9: four classes print "&sb->s_type->i_lock_key#2"
    keys = [c for c in d.classes if c.name == "&sb->s_type->i_lock_key#2"]
    assert [(c.occurrence, c.line, c.rows[0].acquisitions) for c in keys] == [
        (0, 354, 13), (1, 356, 375), (2, 362, 390), (3, 409, keys[3].rows[0].acquisitions)]
    assert {(c.base_name, c.name_version) for c in keys} == {("&sb->s_type->i_lock_key", 2)}
    assert sum("printed before (the kernel prints only the first digit" in w for w in d.warnings) == 9
    # the most contended class: -W and -R rows and both lists of points, as the kernel printed them
    ilock = d.classes[0]
    assert ilock.name == "&xfs_nondir_ilock_class" and [r.rw for r in ilock.rows] == ["W", "R"]
    assert ilock.rows[0].contentions == 1477 and ilock.rows[0].wait_total_ns == 2_381_116_100
    assert [p.count for p in ilock.contention_points] == [567, 910, 297]
    assert [p.count for p in ilock.contending_points] == [1447, 96, 231]
    assert ilock.contending_points[0].function == "xfs_trans_alloc_inode"


def test_names_are_split_at_column_40() -> None:
    """A cut name may hold ':', spaces and digits; the kernel's 40 columns tell where it ends."""
    nums = " ".join(["%14d" % 1] * 2 + ["%14s" % "1.00"] * 4 + ["%14d" % 3] * 2 + ["%14s" % "2.00"] * 4)
    names = ["a: 1 2 3 4 5 6 7 8 9 10 11 12", "x = ", "q", "tail-R"]
    rows = [f"{n:>40s}:{nums}" for n in names]
    pts = [" " * 39 + "-", f"{'q':>40s} {5:14d} {'[<00000000000000a0>]':>29s} f+0x1/0x2", "", "." * 221]
    text = "lock_stat version 0.4\n" + "\n".join(rows[:3] + pts + rows[3:]) + "\n"
    d = parse_lock_stat(text)
    assert [(c.name, [r.rw for r in c.rows]) for c in d.classes] == [
        ("a: 1 2 3 4 5 6 7 8 9 10 11 12", ["W"]), ("x = ", ["W"]), ("q", ["W"]), ("tail", ["R"])]
    assert d.classes[0].rows[0].acquisitions == 3 and d.classes[2].contention_points[0].count == 5


@pytest.mark.parametrize(
    "field, value, needle",
    [("contentions", "9" * 5000, "below 2^63"), ("acquisitions", "\u00b2", "whole number"),
     ("waittime-max", "9" * 5000 + ".00", "at most 15 digits"), ("holdtime-min", "\u0661.00", "microseconds")],
)
def test_numbers_out_of_the_kernel_range_are_refused(field: str, value: str, needle: str) -> None:
    tokens = ["1", "1", "1.00", "1.00", "1.00", "1.00", "3", "3", "2.00", "2.00", "2.00", "2.00"]
    tokens[COLUMNS.index(field) - 1] = value
    text = "lock_stat version 0.4\n" + "x:".rjust(41) + "".join(f" {t:>14s}" for t in tokens) + "\n"
    with pytest.raises(FormatError) as exc:
        parse_lock_stat(text, source="ls.txt")
    assert needle in exc.value.message and (exc.value.line, exc.value.field) == (2, field)
    assert len(str(exc.value)) < 300  # the value is shown cut


def test_a_long_symbol_offset_is_kept_as_text() -> None:
    """`f+0x` followed by thousands of hex letters is no symbol the kernel prints: kept as text."""
    row = "x:".rjust(41) + "".join(f" {t:>14s}" for t in ["1", "1"] + ["1.00"] * 4 + ["3", "3"] + ["2.00"] * 4)
    sym = "f+0x" + "a" * 4000 + "/0x10"
    text = "\n".join(["lock_stat version 0.4", row, " " * 39 + "-",
                     f"{'x':>40s} {5:14d} {'[<00000000000000a0>]':>29s} {sym}", ""])
    (p,) = parse_lock_stat(text).classes[0].contention_points
    assert p.symbol == sym and (p.function, p.offset, p.size) == (None, None, None)


def test_debug_locks_off() -> None:
    d = parse_lock_stat(_sample("debug-locks-off.txt"))
    assert d.debug_locks_off and any("lock debugging was disabled" in w for w in d.warnings)
    assert d.classes[0].name == "&rq->__lock"


def test_leading_spaces_and_crlf_do_not_matter(corpus: Path) -> None:
    text = _corpus(corpus, CORPUS_FILES[0])
    plain = parse_lock_stat(text)
    stripped = "\r\n".join(ln.lstrip() for ln in text.split("\n"))
    again = parse_lock_stat(stripped)
    assert [(c.name, [r.contentions for r in c.rows], len(c.contending_points)) for c in again.classes] == \
        [(c.name, [r.contentions for r in c.rows], len(c.contending_points)) for c in plain.classes]


# --------------------------------------------------------------------------------------------
# Refused inputs: never misread


def _wrap(text: str, width: int) -> str:
    """What an email client does: break lines at spaces to `width` columns (long words stay)."""
    return "\n".join(
        textwrap.fill(ln, width, break_long_words=False, break_on_hyphens=False, drop_whitespace=True) if ln else ln
        for ln in text.split("\n")
    )


@pytest.mark.parametrize("width", [72, 76, 78])
def test_email_wrapped_dump_is_refused(corpus: Path, width: int) -> None:
    text = _wrap(_corpus(corpus, CORPUS_FILES[0]), width)
    with pytest.raises(FormatError) as exc:
        parse_lock_stat(text, source="mail.txt")
    msg = str(exc.value)
    assert "wrapped by an email client" in msg and "221" in msg
    m = re.search(r"wider than (\d+) columns", msg)
    assert m and width - 16 <= int(m.group(1)) <= width  # the width the client broke the lines at
    assert exc.value.line == 3  # the header: the first line it breaks


@pytest.mark.parametrize("width", [72, 78])
def test_wrapped_rows_without_header_are_refused(corpus: Path, width: int) -> None:
    text = _wrap(_corpus(corpus, CORPUS_FILES[1]), width)  # an excerpt: no header to give it away
    with pytest.raises(FormatError, match="wrapped by an email client"):
        parse_lock_stat(text)


def test_wrapped_class_row_says_how_many_numbers_it_holds() -> None:
    text = "\n".join([
        "lock_stat version 0.4",
        "                         &dentry->d_lock:      24924207       24987328",
        "          0.05        2306.93     9523158.78           0.38",
    ])
    with pytest.raises(FormatError, match="holds 2 of its 12 numbers") as exc:
        parse_lock_stat(text)
    assert exc.value.line == 2


@pytest.mark.parametrize(
    "text, needle, line, field",
    [
        ("", "empty file", None, None),
        ("lock_stat version 0.3\n", "version 0.3 is not supported", 1, None),
        ('{"jobs": []}\n', "not a line of /proc/lock_stat", 1, None),
        ("> lock_stat version 0.4\n> ----\n", "quoted email", 1, None),
        ("lock_stat version 0.4\n" + " " * 20 + "x: 1 1" + " 1.00" * 4 + " 1 1" + " 1.00" * 3 + " 1.2x\n",
         "expected microseconds", 2, "holdtime-avg"),
        ("lock_stat version 0.4\n" + " " * 20 + "x:" + " -1" + " 1" * 11 + "\n", "whole number", 2, "con-bounces"),
        ("lock_stat version 0.4\n" + " " * 20 + "x 5 [<ffff>] f+0x1/0x2\n", "outside a class", 2, None),
        ("lock_stat version 0.4\nlock_stat version 0.4\n", "two dumps", 2, None),
    ],
)
def test_bad_input(text: str, needle: str, line: int | None, field: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_lock_stat(text, source="ls.txt")
    assert needle in str(exc.value)
    assert (exc.value.file, exc.value.line, exc.value.field) == ("ls.txt", line, field)


def test_point_of_another_class_is_refused(corpus: Path) -> None:
    text = _corpus(corpus, CORPUS_FILES[0]).replace(
        "  &mm->mmap_sem             96", "  &mm->other_sem            96")
    with pytest.raises(FormatError, match="a point of class '&mm->other_sem'"):
        parse_lock_stat(text)


def test_format_error_pickles() -> None:
    try:
        parse_lock_stat("lock_stat version 9\n", source="x")
    except FormatError as exc:
        again = pickle.loads(pickle.dumps(exc))
        assert str(again) == str(exc)


# --------------------------------------------------------------------------------------------
# iolens convert lock-stat


def _convert(*args: str, stdin: bytes | None = None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "iolens", "convert", "lock-stat", *args], input=stdin,
                          capture_output=True, timeout=60)


def test_convert_json_and_csv(corpus: Path) -> None:
    import csv
    import gzip
    import io
    import json

    path = corpus / CORPUS_DIR / CORPUS_FILES[0]
    as_json = _convert(str(path))
    assert as_json.returncode == 0, as_json.stderr
    doc = json.loads(as_json.stdout)
    assert doc["version"] == "0.4" and doc["classes"][0]["rows"][0]["wait_total_ns"] == 16_371_530
    rows = list(csv.DictReader(io.StringIO(_convert(str(path), "--to", "csv").stdout.decode())))
    assert [(r["class"], r["rw"], r["contentions"]) for r in rows] == [
        ("&mm->mmap_sem", "W", "84"), ("&mm->mmap_sem", "R", "100"), ("unix_table_lock", "W", "112")]
    assert rows[0]["hold_total_ns"] == "17464026916320"
    pts = list(csv.DictReader(io.StringIO(_convert("-", "--to", "csv", "--points",
                                                   stdin=gzip.compress(path.read_bytes())).stdout.decode())))
    assert len(pts) == 16 and pts[0]["kind"] == "contention" and pts[0]["function"] == "khugepaged_scan_mm_slot"


def test_convert_refuses_with_a_message(corpus: Path) -> None:
    bad = _convert(str(corpus / CORPUS_DIR / NUMBERED_FILES[0]))
    assert bad.returncode == 1 and b"line number" in bad.stderr and bad.stdout == b""
    excerpt = _convert(str(corpus / CORPUS_DIR / CORPUS_FILES[1]), "--to", "csv")
    assert excerpt.returncode == 0 and b"warning: no 'lock_stat version' line" in excerpt.stderr
