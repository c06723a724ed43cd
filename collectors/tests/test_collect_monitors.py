"""--monitors: the sampler over a fake /proc and /sys (every source, a missing one), the options,
and a real capture (fio; /proc of this host)."""

import gzip
import os
import re
import time

import pytest
from collect_helpers import open_bundle

from iolens_collect.cli import main
from iolens_collect.monitors import MARK, MonitorProbe


def _fake_root(tmp_path):
    (tmp_path / "proc" / "fs" / "xfs").mkdir(parents=True)
    (tmp_path / "proc" / "vmstat").write_text("nr_free_pages 10\npgfault 100\n")
    (tmp_path / "proc" / "meminfo").write_text("MemTotal: 100 kB\nDirty: 8 kB\n")
    (tmp_path / "proc" / "stat").write_text("cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nctxt 5\n")
    (tmp_path / "proc" / "fs" / "xfs" / "stat").write_text("log 1 8 0 2 0\n")
    e = tmp_path / "sys" / "fs" / "ext4" / "vdb"
    e.mkdir(parents=True)
    (e / "lifetime_write_kbytes").write_text("1234\n")
    (e / "first_error_func").write_text("\n")
    (e / "trigger_fs_error").write_text("must not be read\n")
    (tmp_path / "sys" / "fs" / "ext4" / "features").mkdir()
    return tmp_path


def test_sampler_on_a_fake_root(tmp_path):
    root = _fake_root(tmp_path / "root")
    p = MonitorProbe(interval_ms=20, root=str(root))
    assert p.setup() is None
    assert [n for n, _ in p.sources] == ["vmstat", "meminfo", "stat", "xfs", "ext4"] and p.missing == ["slabinfo"]
    scratch, stage = tmp_path / "scratch", tmp_path / "stage"
    scratch.mkdir()
    stage.mkdir()
    p.launch("r000", str(scratch))
    p.enable(True)
    # the sampler's thread samples every 20 ms, when it gets a CPU: wait for five samples (a fixed sleep
    # of 0.2 s saw four under make test's load), then change the file, which the last sample, taken by
    # disable(), has to show
    deadline = time.monotonic() + 60
    while p._samples < 5 and time.monotonic() < deadline:
        time.sleep(0.02)
    (root / "proc" / "vmstat").write_text("nr_free_pages 9\npgfault 150\n")
    p.disable(True)
    arts, info, notes = p.finish("r000", str(stage), 12345)
    assert [(a.rel, a.kind, a.extra["source"]) for a in arts][0] == ("runs/r000/monitors/vmstat.txt.gz", "monitor", "vmstat")
    assert all(a.extra["interval_ms"] == 20 and a.extra["trace_clock_at_start_ns"] == 12345 for a in arts)
    assert info["samples"] >= 6 and notes == []
    text = gzip.decompress((stage / "runs/r000/monitors/vmstat.txt.gz").read_bytes()).decode()
    times = [int(m) for m in re.findall(rf"^{MARK} t_ns=(\d+)$", text, re.M)]
    assert len(times) == info["samples"] and times == sorted(times)
    assert all(b - a >= 19_000_000 for a, b in zip(times[:-2], times[1:-1]))  # the thread's, 20 ms apart or more
    assert text.rstrip().endswith("pgfault 150")  # the last sample is taken at the end of the run
    ext4 = gzip.decompress((stage / "runs/r000/monitors/ext4.txt.gz").read_bytes()).decode()
    assert "vdb lifetime_write_kbytes 1234" in ext4 and "trigger_fs_error" not in ext4 and "first_error_func" not in ext4


@pytest.mark.parametrize("args, message", [
    (["--monitor-interval", "100"], "--monitor-interval needs --monitors"),
    (["--monitors", "--monitor-interval", "5"], "expected 10-60000 ms"),
])
def test_bad_monitor_options(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--label", "x", "--fio-args", "--name=w --rw=write --size=1m --filename=/dev/null",
                 "-o", "x.iolens.tar.gz"] + args)
    err = capsys.readouterr().err
    assert code == 2 and message in err, err


@pytest.mark.capture
def test_monitors_in_a_real_capture(collect, tmp_path, fio_bin):
    code, out, err = collect("run", "--label", "mon", "--repeat", "2", "--monitors", "--monitor-interval", "200",
                             "--fio-args", f"--name=w --rw=randwrite --bs=4k --size=4m --runtime=1 --time_based "
                             f"--rate_iops=500 --filename={tmp_path / 'w.dat'}", "-o", "m.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "m.iolens.tar.gz"))
    for run in m["runs"]:
        mon = {a["source"]: a for a in run["artifacts"] if a["kind"] == "monitor"}
        assert {"vmstat", "meminfo", "stat"} <= set(mon)
        p = run["probes"]["monitors"]
        assert p["samples"] >= 5 and p["interval_ms"] == 200
        stat = gzip.decompress(files[mon["stat"]["path"]]).decode()
        assert stat.count(MARK) == p["samples"] and re.search(r"^cpu0 \d+", stat, re.M)
        if os.geteuid() == 0:
            assert "slabinfo" in mon
    assert re.search(r"^r001  monitors  \d+ samples every 200 ms of vmstat, meminfo, stat", out, re.M), out
