"""What iolens-collect cmd records: iolens-metric lines, rusage JSON, /proc/diskstats pairs."""

from __future__ import annotations

import json

import pytest

from iolens.formats.cmd_output import parse_metric_lines, parse_rusage
from iolens.formats.diskstats import delta, parse_diskstats
from iolens.formats.errors import FormatError

# /proc/diskstats of Linux 6.18 (20 fields: discards and flushes), two reads around a run.
BEFORE = """\
   7       0 loop0 25 0 2162 3 0 0 0 0 0 12 3 0 0 0 0 0 0
 253       0 vda 71010 1560 4916786 21893 455170 330573 27402480 605411 0 299768 654427 0 0 0 0 30123 27122
 253       1 vda1 100 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0
"""
AFTER = """\
   7       0 loop0 1025 0 10162 53 200 0 1600 40 0 112 93 0 0 0 0 0 0
 253       0 vda 71010 1560 4916786 21893 455171 330573 27402488 605412 0 299769 654428 0 0 0 0 30124 27122
   8       0 sdz 1 0 8 1 0 0 0 0 0 1 1
"""


def test_metric_lines():
    text = ("bulkstat done\niolens-metric inodes 50000 inodes\n  iolens-metric rate 51234.5 inodes/s\n"
            "iolens-metric seconds 1e-3\niolens-metric bad\niolens-metric x nan u\nnot iolens-metric y 1\n")
    metrics, warnings = parse_metric_lines(text)
    assert [(m.name, m.value, m.unit, m.line) for m in metrics] == [
        ("inodes", 50000.0, "inodes", 2), ("rate", 51234.5, "inodes/s", 3), ("seconds", 0.001, "", 4)]
    assert len(warnings) == 2 and warnings[0].startswith("line 5:") and "line 6" in warnings[1]


def test_rusage():
    r = parse_rusage(json.dumps({"wall_ns": 1_500_000_000, "utime_s": 0.25, "stime_s": 1.0, "maxrss_kb": 4096,
                                 "nvcsw": 10, "nivcsw": 2, "exit_code": 0}))
    assert (r.wall_s, r.user_s, r.sys_s, r.maxrss_kib, r.nvcsw, r.exit_code) == (1.5, 0.25, 1.0, 4096, 10, 0)
    with pytest.raises(FormatError, match="field wall_ns"):
        parse_rusage('{"utime_s": 0, "stime_s": 0}', "r.json")
    with pytest.raises(FormatError, match="invalid JSON"):
        parse_rusage("{", "r.json")
    with pytest.raises(FormatError, match="expected a number >= 0"):
        parse_rusage('{"wall_ns": -1, "utime_s": 0, "stime_s": 0}')


def test_diskstats_delta():
    before, after = parse_diskstats(BEFORE), parse_diskstats(AFTER)
    assert before[0].counters["flush_ms"] == 0 and len(before[0].counters) == 17
    assert len(after[2].counters) == 11  # an old kernel's 14-field line
    d = {x.name: x for x in delta(before, after)}
    assert set(d) == {"loop0", "vda"}  # vda1 gone, sdz new: not in both
    assert (d["loop0"].reads, d["loop0"].writes, d["loop0"].read_bytes, d["loop0"].write_bytes) == (1000, 200, 8000 * 512,
                                                                                                       1600 * 512)
    assert d["loop0"].io_ms == 100 and d["vda"].writes == 1
    wrapped = delta(parse_diskstats("7 0 l 4294967290 0 0 0 0 0 0 0 0 0 0\n"), parse_diskstats("7 0 l 5 0 0 0 0 0 0 0 0 0 0\n"))
    assert wrapped[0].reads == 11  # a 32-bit counter that wrapped
    with pytest.raises(FormatError, match="line 1"):
        parse_diskstats("7 0 loop0 1 2 3\n")
