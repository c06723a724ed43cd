"""Numbers no tool prints (NaN, Infinity, 1e309, 5,000 digits, negative times and pids) through the
parsers, `iolens convert`, `iolens ingest` and the HTTP API: refused with file, line and field (or
dropped and counted), never a traceback, a 500 or a non-JSON NaN."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from lockstat_dumps import HEADER
from sched_traces import HAND, sched_bundle
from server import running_server

from iolens.formats.errors import FormatError
from iolens.formats.fio_json import parse_fio_json
from iolens.formats.fio_log import parse_fio_log
from iolens.formats.perf_sched import iter_sched_events, parse_timehist
from iolens.formats.perf_stat import parse_perf_stat

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"
BAD = ["NaN", "nan", "Infinity", "-inf", "1e309", "9" * 5000]


def iolens(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iolens", *args], input=stdin.decode() if stdin else None,
                          capture_output=True, text=True, timeout=120)


def one_line_error(r: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert r.returncode == 1, (r.stdout[:500], r.stderr[:2000])
    assert "Traceback" not in r.stderr, r.stderr[:3000]
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines and len(lines[-1]) < 1000, r.stderr[:2000]
    for n in needles:
        assert n in r.stderr, (n, r.stderr[:2000])


# --------------------------------------------------------------------------------------------
# lock_stat (item 7): a number of 5,000 digits, a call site offset followed by 4,000 letters

NUMBERS = ["1", "1"] + ["1.00"] * 4 + ["3", "3"] + ["2.00"] * 4


def lock_dump(contentions: str = "1", symbol: str = "f+0x1/0x2") -> str:
    nums = [contentions] + NUMBERS[1:]
    return (HEADER + "x:".rjust(41) + "".join(f" {t:>14s}" for t in nums) + "\n" + " " * 39 + "-\n"
            + f"{'x':>40s} {5:14d} {'[<00000000000000a0>]':>29s} {symbol}\n")


def test_convert_lock_stat_huge_number_is_one_line(tmp_path: Path) -> None:
    p = tmp_path / "ls.txt"
    p.write_text(lock_dump("9" * 5000))
    one_line_error(iolens("convert", "lock-stat", str(p)), "ls.txt line 6", "field con-bounces", "below 2^63")


def test_convert_lock_stat_long_symbol_prints_json(tmp_path: Path) -> None:
    p = tmp_path / "ls.txt"
    p.write_text(lock_dump(symbol="f+0x" + "a" * 4000 + "/0x10"))
    r = iolens("convert", "lock-stat", str(p))
    assert r.returncode == 0, r.stderr[-2000:]
    point = json.loads(r.stdout)["classes"][0]["contention_points"][0]
    assert point["function"] is None and point["symbol"].startswith("f+0xaaaa")


def test_ingest_huge_lock_stat_number_is_one_line(tmp_path: Path) -> None:
    m, files = fio_capture("ls", [[{"name": "rw", "iops": 1000}]])
    add_file(m, files, "runs/r000/lock_stat.txt", lock_dump("9" * 5000), "lock-stat", run=0)
    bundle = write_bundle(tmp_path / "ls.iolens.tar.gz", m, files)
    r = iolens("ingest", "--db", str(tmp_path / "db" / "iolens.duckdb"), str(bundle))
    one_line_error(r, "runs/r000/lock_stat.txt line 6", "field con-bounces", "nothing stored")


# --------------------------------------------------------------------------------------------
# perf-stat (items 7, 8): NaN used to ingest and then fail GET /api/compare/sched


@pytest.mark.parametrize("bad", BAD + ["-5"])
def test_perf_stat_refuses(bad: str) -> None:
    text = (SAMPLES / "sched" / "perf-stat-workload-total.csv").read_text().replace("10207,,", f"{bad},,", 1)
    with pytest.raises(FormatError) as e:
        parse_perf_stat(text, source="perf-stat.csv")
    assert (e.value.file, e.value.line, e.value.field) == ("perf-stat.csv", 2, "value")


def test_perf_stat_nan_is_refused_at_upload_and_compare_answers(tmp_path: Path) -> None:
    good = "".join(f"     0.{i}00000000,CPU0,{i},,context-switches,100000000,100.00,,\n" for i in (1, 2))
    with running_server(tmp_path / "data") as client:
        ids = []
        for label, stat in (("a", good), ("b", good), ("nan", good.replace(",2,,", ",NaN,,"))):
            path = sched_bundle(tmp_path, label, HAND, stat)
            with path.open("rb") as f:
                r = client.post("/api/captures", files={"file": (path.name, f, "application/gzip")})
            if label == "nan":
                assert r.status_code == 422, r.text
                assert r.json()["detail"] | {"run": None} == {"file": "runs/r000/perf-stat.csv", "line": 2,
                                                               "field": "value", "run": None}
            else:
                assert r.status_code == 201, r.text
                ids.append(r.json()["id"])
        r = client.get("/api/compare/sched", params={"captures": ",".join(ids)})
        assert r.status_code == 200, r.text


# --------------------------------------------------------------------------------------------
# fio logs (items 8, 9)

FIO_LOG = SAMPLES / "fio-log" / "fio-3.33-randwrite-16k-qd16_iops.1.log"


@pytest.mark.parametrize(("column", "field"), [(0, "time"), (1, "value"), (3, "block size")])
@pytest.mark.parametrize("bad", BAD + ["-1"])
def test_fio_log_refuses(column: int, field: str, bad: str) -> None:
    lines = FIO_LOG.read_text().splitlines()
    parts = lines[2].split(", ")
    parts[column] = bad
    lines[2] = ", ".join(parts)
    with pytest.raises(FormatError) as e:
        parse_fio_log("\n".join(lines), source="j_iops.1.log")
    assert (e.value.line, e.value.field) == (3, field)


def test_convert_fio_log_csv_keeps_every_digit(tmp_path: Path) -> None:
    p = tmp_path / "job_iops.1.log"
    p.write_text("100, 1273222, 1, 4096, 0\n200, 0.5, 0, 4096, 0\n")
    r = iolens("convert", "fio-log", str(p), "--to", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2:] == ["100,1273222,write,4096,0,", "200,0.5,read,4096,0,"]
    bw = tmp_path / "job_bw.1.log"
    bw.write_text("100, 1243381, 1, 4096, 0\n")  # KiB/s -> bytes/s, all digits
    assert iolens("convert", "fio-log", str(bw)).stdout.splitlines()[2] == f"100,{1243381 * 1024},write,4096,0,"


# --------------------------------------------------------------------------------------------
# perf sched script and timehist (item 8)

SWITCH = ("  fio  4242 [001]  2065.406546: sched:sched_switch: prev_comm=fio prev_pid=4242 prev_prio=120 "
          "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120")


@pytest.mark.parametrize(("old", "new", "field"), [
    ("next_pid=0", "next_pid=-5", "next_pid"), ("prev_pid=4242", "prev_pid=" + "9" * 5000, "prev_pid"),
    ("next_prio=120", "next_prio=NaN", "next_prio"), ("[001]", "[" + "1" * 30 + "]", "header"),
    ("2065.406546", "9" * 30 + ".406546", "header"),
])
def test_perf_sched_refuses(old: str, new: str, field: str) -> None:
    with pytest.raises(FormatError) as e:
        list(iter_sched_events([SWITCH, SWITCH.replace(old, new)], source="sched.txt"))
    assert (e.value.file, e.value.line, e.value.field) == ("sched.txt", 2, field)


def test_timehist_negative_times_are_dropped_and_counted() -> None:
    import gzip

    text = gzip.decompress((SAMPLES / "sched" / "pingpong.timehist-default.txt.gz").read_bytes()).decode()
    lines = text.splitlines()
    rows_before = len(parse_timehist(text).rows)
    lines[4] = lines[4].replace("0.004 ", "-0.004 ")
    lines[5] = lines[5].replace(" 5.188", "-5.188")
    th = parse_timehist("\n".join(lines), source="th.txt")
    assert len(th.rows) == rows_before - 2
    assert th.notes[-1] == "iolens: 2 row(s) with a negative wait, sch delay or run time dropped (line 5, 6)"
    with pytest.raises(FormatError) as e:
        stamp = lines[6].split()[0]
        parse_timehist("\n".join(lines[:6] + [lines[6].replace(stamp, "9" * 40 + ".5")]), source="th.txt")
    assert (e.value.line, e.value.field) == (7, "time")


# --------------------------------------------------------------------------------------------
# fio JSON (item 8) and convert's JSON: never NaN

FIO_JSON = SAMPLES / "fio-3.33-dio-4k-r0.json"


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e309", "9" * 5000])
def test_fio_json_refuses_and_convert_prints_no_nan(tmp_path: Path, bad: str) -> None:
    text = FIO_JSON.read_text()
    key = '"iops" : '
    i = text.index(key) + len(key)
    j = text.index(",", i)
    broken = text[:i] + bad + text[j:]
    with pytest.raises(FormatError) as e:
        parse_fio_json(broken, source="fio.json")
    assert e.value.line == text[:i].count("\n") + 1
    p = tmp_path / "fio.json"
    p.write_text(broken)
    r = iolens("convert", "fio-json", str(p))
    one_line_error(r, f"fio.json line {e.value.line}")
    assert "NaN" not in r.stdout and "Infinity" not in r.stdout


# --------------------------------------------------------------------------------------------
# text cells (item 13): a protocol-relative link is another server, never an in-app link


@pytest.mark.parametrize("url", ["//evil.example/x", "/\\evil.example/x", "//EVIL.example"])
def test_protocol_relative_links_are_not_links(url: str) -> None:
    from iolens.exports.markdown import inline, to_html

    page = to_html(f"see [x]({url}) and [v](/n/abcdefghjk)")
    assert page.count("<a ") == 1 and 'href="/n/abcdefghjk"' in page
    assert [s.kind for s in inline(f"[x]({url})") if s.kind == "link"] == []
