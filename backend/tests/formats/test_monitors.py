"""iolens.formats.monitors over the collector's real monitor files (samples/monitors), by hand-made
snapshots for the arithmetic, and its errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.monitors import SOURCES, deltas, parse_monitor

SAMPLES = Path(__file__).resolve().parent / "samples" / "monitors"


@pytest.mark.parametrize("source", SOURCES)
def test_real_files(golden, source: str) -> None:
    name = f"6.18-fio-randwrite-{source}.txt.gz"
    f = parse_monitor(gzip.decompress((SAMPLES / name).read_bytes()).decode(), source, name)
    assert len(f.samples) == 7 and all(a.t_ns < b.t_ns for a, b in zip(f.samples, f.samples[1:]))
    d = deltas(f)
    keys = sorted(d)[:12]
    golden(f"monitors/{source}.json", {"samples": len(f.samples), "keys": len(f.samples[-1].values),
                                       "counters": len(f.counters), "first_keys": {k: d[k][0] for k in keys}})


def test_counters_and_levels_by_hand() -> None:
    text = ("#@iolens-monitor t_ns=1000000000\npgfault 100\nnr_dirty 10\n"
            "#@iolens-monitor t_ns=3000000000\npgfault 160\nnr_dirty 30\n")
    f = parse_monitor(text, "vmstat")
    assert deltas(f) == {"pgfault": (60.0, 2.0), "nr_dirty": (20.0, 2.0)}
    stat = parse_monitor("#@iolens-monitor t_ns=1\ncpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
                         "ctxt 50\nprocs_running 3\n#@iolens-monitor t_ns=2\ncpu  2 2 5 4 5 6 7 9 0 0\n"
                         "cpu0 2 2 5 4 5 6 7 9 0 0\nctxt 80\nprocs_running 1\n", "stat")
    d = deltas(stat)
    assert d["cpu0.system"][0] == 2 and d["cpu0.steal"][0] == 1 and d["ctxt"][0] == 30 and d["procs_running"][0] == 2
    xfs = parse_monitor("#@iolens-monitor t_ns=1\nlog 1 8 0 2 0\n#@iolens-monitor t_ns=2\nlog 5 40 0 3 0\n", "xfs")
    assert deltas(xfs)["log.writes"][0] == 4 and deltas(xfs)["log.blocks"][0] == 32
    mem = parse_monitor("#@iolens-monitor t_ns=1\nDirty:  8 kB\nHugePages_Total: 0\n", "meminfo")
    assert mem.samples[0].values == {"Dirty": 8192.0, "HugePages_Total": 0.0}
    ext4 = parse_monitor("#@iolens-monitor t_ns=1\nvda lifetime_write_kbytes 10\nvda first_error_func \n"
                         "#@iolens-monitor t_ns=2\nvda lifetime_write_kbytes 14\n", "ext4")
    assert deltas(ext4) == {"vda/lifetime_write_kbytes": (4.0, 1e-9)}


@pytest.mark.parametrize("text, source, line, fld", [
    ("pgfault 1\n", "vmstat", 1, None),
    ("#@iolens-monitor t_ns=x\n", "vmstat", 1, "t_ns"),
    ("#@iolens-monitor t_ns=5\na 1\n#@iolens-monitor t_ns=4\na 2\n", "vmstat", 3, "t_ns"),
    ("#@iolens-monitor t_ns=5\nkmalloc-8 x 2 8\n", "slabinfo", 2, "kmalloc-8"),
    ("", "vmstat", None, None),
    ("#@iolens-monitor t_ns=5\n", "nosuch", None, "source"),
])
def test_errors(text: str, source: str, line: int | None, fld: str | None) -> None:
    with pytest.raises(FormatError) as exc:
        parse_monitor(text, source, "m.txt")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("m.txt", line, fld)
