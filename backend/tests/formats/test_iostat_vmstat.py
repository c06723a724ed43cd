"""iolens.formats.iostat and .vmstat over real sysstat 12.6.1 / procps-ng 4.0.2 output
(samples/README.md has the commands), and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.iostat import parse_iostat
from iolens.formats.vmstat import parse_vmstat

SAMPLES = Path(__file__).resolve().parent / "samples"
IOSTAT = ["iostat-x.txt", "iostat-x-t-y.txt", "iostat-x-p.txt", "iostat-dxz.txt"]
VMSTAT = ["vmstat.txt", "vmstat-t-w.txt", "vmstat-a.txt"]


@pytest.mark.parametrize("name", IOSTAT)
def test_iostat_golden(golden, name: str) -> None:
    r = parse_iostat((SAMPLES / "iostat" / name).read_text(encoding="utf-8"), name)
    golden(f"iostat/{Path(name).stem}.json", r)


def test_iostat_reports_and_columns() -> None:
    r = parse_iostat((SAMPLES / "iostat" / "iostat-x.txt").read_text(encoding="utf-8"))
    assert r.system is not None and (r.system.release, r.system.cpus) == ("6.18.44-fc-v669", 2)
    assert len(r.reports) == 3 and all(set(x.devices) == {"vda"} for x in r.reports)
    assert r.columns[:3] == ["r/s", "rkB/s", "rrqm/s"] and r.columns[-2:] == ["aqu-sz", "%util"]
    assert r.reports[1].devices["vda"]["w/s"] == 9552.0 and r.reports[1].cpu["%system"] == 37.0
    t = parse_iostat((SAMPLES / "iostat" / "iostat-x-t-y.txt").read_text(encoding="utf-8"))
    assert [x.time for x in t.reports] == ["11/25/26 13:51:56", "11/25/26 13:51:57"]
    z = parse_iostat((SAMPLES / "iostat" / "iostat-dxz.txt").read_text(encoding="utf-8"))
    assert [list(x.devices) for x in z.reports] == [["vda"], []] and all(not x.cpu for x in z.reports)


def test_iostat_old_sysstat_columns_and_decimal_comma() -> None:
    # sysstat 10.x layout ("Device:" and avgqu-sz/svctm), printed in a locale with a decimal comma
    text = ("Linux 4.4.0 (db1) \t01/02/2017 \t_x86_64_\t(8 CPU)\n\n"
            "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n           1,00    0,00    0,50    2,00    0,00   96,50\n\n"
            "Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n"
            "sda               0,00     1,00    2,00    3,00    8,00   12,00     8,00     0,01    1,20    1,00    1,33   0,40   0,20\n")
    r = parse_iostat(text, "old.txt")
    assert r.columns[0] == "rrqm/s" and r.reports[0].devices["sda"]["svctm"] == 0.4 and r.reports[0].cpu["%iowait"] == 2.0


@pytest.mark.parametrize("text, line, fld", [
    ("avg-cpu:  %user   %nice\n  1.0\n", 2, "avg-cpu"),
    ("Device r/s w/s\nsda 1.0\n", 2, "Device"),
    ("Device r/s w/s\nsda 1.0 x\n", 2, "sda.w/s"),
    ("hello\n", 1, None),
])
def test_iostat_errors(text: str, line: int, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_iostat(text, "bad-iostat.txt")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("bad-iostat.txt", line, fld)


@pytest.mark.parametrize("name", VMSTAT)
def test_vmstat_golden(golden, name: str) -> None:
    r = parse_vmstat((SAMPLES / "vmstat" / name).read_text(encoding="utf-8"), name)
    golden(f"vmstat/{Path(name).stem}.json", r)


def test_vmstat_columns_time_and_first_row() -> None:
    r = parse_vmstat((SAMPLES / "vmstat" / "vmstat-t-w.txt").read_text(encoding="utf-8"))
    assert r.timezone == "UTC" and r.columns[-1] == "gu" and r.rows[1].time == "2026-11-25 13:51:56"
    assert r.rows[0].since_boot and not r.rows[1].since_boot and r.rows[1].values["bo"] == 69964
    a = parse_vmstat((SAMPLES / "vmstat" / "vmstat-a.txt").read_text(encoding="utf-8"))
    assert "inact" in a.columns and "buff" not in a.columns


@pytest.mark.parametrize("text, line, fld", [
    ("procs ---\n r  b\n 1  x\n", 3, "b"),
    ("procs ---\n r  b\n 1  2 3\n", 3, "row"),
    ("procs ---\n free used\n", 2, "header"),
    ("disk- ------------reads------------\n", 1, None),
])
def test_vmstat_errors(text: str, line: int, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_vmstat(text, "bad-vmstat.txt")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("bad-vmstat.txt", line, fld)
