"""fio's logs on CLOCK_MONOTONIC (fiologs.py): the probe of fio's options, what is added to the jobs,
the artifacts' clock and trace_clock_at_start_ns, and real captures whose log times are read against
the clock of this process (marker ``capture`` for those)."""

import json
import os
import stat
import statistics
import sys
import textwrap
import time

import pytest
from collect_helpers import device_of, gz_text, need, open_bundle

from iolens_collect import fio, fiologs


def _fake_fio(tmp_path, cmdhelp_out, rc=0):
    """A stand-in fio that prints `cmdhelp_out` for --cmdhelp and exits `rc`."""
    script = tmp_path / "fio"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import sys
        if sys.argv[1].startswith("--cmdhelp="):
            sys.stdout.write({cmdhelp_out!r})
            sys.exit({rc})
        sys.exit(1)
    """))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@pytest.mark.parametrize("out, rc, known", [
    ("log_alternate_epoch_clock_id: If log_alternate_epoch or log_unix_epoch is true, ...\n"
     "                type: integer value (opt=100)\n", 0, True),
    # fio exits 0 for an unknown option too, printing the closest one (fio 3.2x)
    (" - showing closest match\nlog_unix_epoch: Use Unix time in log files\n", 0, False),
    ("", 1, False),
])
def test_probe_reads_what_fio_prints(tmp_path, out, rc, known):
    fiologs._PROBED.clear()
    assert fiologs.knows_monotonic(_fake_fio(tmp_path, out, rc)) is known
    fiologs._PROBED.clear()


def test_probe_of_the_real_fio(fio_bin):
    version = os.popen(f"{fio_bin} --version").read().strip()
    if version != "fio-3.33":
        pytest.skip(f"measured with fio-3.33, this is {version}")
    fiologs._PROBED.clear()
    assert fiologs.knows_monotonic(fio_bin) is True


def test_inject_adds_the_clock_options_to_every_job():
    w = fio.parse_fio_args("--name=a --filename=/tmp/x --size=1m --name=b --filename=/tmp/y --size=1m")
    mono = fiologs.inject(w, 100, monotonic=True)
    assert [fiologs.clock_of(j) for j in mono.jobs] == ["CLOCK_MONOTONIC", "CLOCK_MONOTONIC"]
    assert mono.fio_args[-2:] == ["--log_alternate_epoch=1", "--log_alternate_epoch_clock_id=1"]
    assert fiologs.clock_note([mono], "fio-3.33") is None
    old = fiologs.inject(w, 100, monotonic=False)
    assert "log_alternate_epoch" not in old.jobfile_bytes.decode()
    assert fiologs.clocks(old) == ["job", "job"]
    note = fiologs.clock_note([old], "fio-3.20")
    assert note.startswith("fio logs: fio-3.20 does not know log_alternate_epoch_clock_id") and "zero-based" in note
    # a job file: the options go at the end of each job section, the last value wins over the job's
    jf = fio.Workload(b"[a]\nfilename=/tmp/x\nlog_alternate_epoch_clock_id=0\n", [], [])
    jf.sections = fio.parse_jobfile(jf.jobfile_bytes.decode())
    jf.jobs = fio.jobs_from_sections(jf.sections)
    assert fiologs.clocks(fiologs.inject(jf, 50, monotonic=True)) == ["CLOCK_MONOTONIC"]


def test_collect_gives_each_log_its_clock_and_t0(tmp_path):
    logs = tmp_path / "runs" / "r000" / "logs"
    logs.mkdir(parents=True)
    for n in ("0-a_iops.1.log", "1-b_iops.1.log", "1-b_clat.2.log"):
        (logs / n).write_text("1, 1, 0, 0, 0\n")
    out = fiologs.collect(str(tmp_path), "runs/r000", 100, ["a", "b"], ["CLOCK_MONOTONIC", "job"], 123456789)
    assert [(p, e["job"], e["clone"], e["clock"], e["trace_clock_at_start_ns"]) for p, e in out] == [
        ("runs/r000/logs/0-a_iops.1.log", "a", 1, "CLOCK_MONOTONIC", 123456789),
        ("runs/r000/logs/1-b_clat.2.log", "b", 2, "job", 123456789),
        ("runs/r000/logs/1-b_iops.1.log", "b", 1, "job", 123456789),
    ]


def _entries(text):
    return [int(ln.split(",")[0]) for ln in text.splitlines() if ln.strip()]


@pytest.mark.capture
def test_fio_logs_are_on_clock_monotonic(collect, tmp_path, fio_bin):
    """A real capture: the logs' times are CLOCK_MONOTONIC ms, read here before and after the
    capture; every log carries the run's trace_clock_at_start_ns."""
    fiologs._PROBED.clear()
    if not fiologs.knows_monotonic(fio_bin):
        pytest.skip("this fio has no log_alternate_epoch_clock_id")
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    code, out, err = collect("run", "--label", "mono", "--repeat", "2", "--fio-logs", "100", "--fio-args",
                             f"--name=a --filename={tmp_path / 'f'} --size=2m --ioengine=psync --rw=randread "
                             "--runtime=1 --time_based --rate_iops=500", "-o", "m.iolens.tar.gz")
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "m.iolens.tar.gz"))
    assert not any(n.startswith("fio logs:") for n in m["notes"]), m["notes"]
    t0s = []
    for run in m["runs"]:
        assert "--log_alternate_epoch_clock_id=1" in run["cmdline"]
        logs = [a for a in run["artifacts"] if a["kind"] == "fio-log"]
        assert {a["log"] for a in logs} >= {"bw", "iops", "lat", "clat"}
        assert {a["clock"] for a in logs} == {"CLOCK_MONOTONIC"}
        (t0,) = {a["trace_clock_at_start_ns"] for a in logs}
        assert before < t0 < after
        t0s.append(t0)
        iops = next(a for a in logs if a["log"] == "iops")
        times = _entries(files[iops["path"]].decode())
        assert len(times) >= 5
        # ms on CLOCK_MONOTONIC after the run's start, within the run (1 s of I/O after fio's setup)
        assert t0 // 10**6 <= times[0] and times[-1] <= after // 10**6
        assert times[-1] - times[0] < 1100
        # fio rate-limited to 500 reads/s: its own count over the run says so (after a stall fio catches up)
        (fj,) = [a for a in run["artifacts"] if a["kind"] == "fio-json"]
        read = json.loads(files[fj["path"]])["jobs"][0]["read"]
        assert read["iops"] == pytest.approx(500, rel=0.1)
        # and the log's entries are fio's IOPS samples, those its json sums up (an entry is the mean of
        # the samples in its 100 ms, one as a rule). Not each against 500: a sample is the I/Os since the
        # one before over the time since the slot due before it, which a stall stretches. Under make
        # test's load their plain mean read 981/s for entries of ~500; beside six busy loops their
        # median read 366/s, where fio's own count over such runs was 500/s.
        values = [float(ln.split(",")[1]) for ln in files[iops["path"]].decode().splitlines() if ln.strip()]
        assert read["iops_min"] <= min(values) and max(values) <= read["iops_max"], (values, read)
        if len(values) == read["iops_samples"]:
            assert (min(values), max(values), statistics.mean(values)) == (
                read["iops_min"], read["iops_max"], pytest.approx(read["iops_mean"], abs=0.01)), (values, read)
    assert t0s[0] < t0s[1]  # each run its own start


@pytest.mark.capture
def test_fio_logs_with_the_block_probe_share_its_t0(collect, tmp_path, fio_bin):
    """--block with --fio-logs: the logs' trace_clock_at_start_ns is the block recording's, and fio's
    IOPS log lies inside the time the block events cover (both on CLOCK_MONOTONIC)."""
    import shutil
    import subprocess

    need(shutil.which("perf") is not None and os.geteuid() == 0, "perf and root needed for --block")
    fiologs._PROBED.clear()
    need(fiologs.knows_monotonic(fio_bin), "this fio has no log_alternate_epoch_clock_id")
    dev = device_of(tmp_path)
    need(dev is not None, f"{tmp_path} is on no block device (tmpfs?)")
    assert subprocess.run(["perf", "--version"], stdout=subprocess.DEVNULL).returncode == 0
    code, out, err = collect("run", "--label", "blockfio", "--block", dev["name"], "--fio-logs", "100", "--fio-args",
                             f"--name=w --rw=randwrite --bs=4k --size=4m --runtime=1 --time_based "
                             f"--filename={tmp_path / 'w.dat'} --direct=1 --rate_iops=1000", "-o", "b.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "b.iolens.tar.gz"))
    (run,) = m["runs"]
    blk = next(a for a in run["artifacts"] if a["kind"] in ("perf-block", "blkparse"))
    logs = [a for a in run["artifacts"] if a["kind"] == "fio-log"]
    assert logs and {a["clock"] for a in logs} == {"CLOCK_MONOTONIC"}
    if blk["kind"] != "perf-block":
        return  # blktrace's times start at its first event: nothing to compare
    t0 = blk["trace_clock_at_start_ns"]
    assert {a["trace_clock_at_start_ns"] for a in logs} == {t0}
    text = gz_text(files, blk["path"])
    # Issues and completions both: at --rate_iops=1000 the CPUs idle and perf drops completions, which
    # are raised in interrupt context (DESIGN.md; the first one kept came 56 ms after fio's first log
    # entry in one run); issues are raised in fio's own context and kept.
    done = [float(ln.split(": ", 1)[0].split()[-1]) for ln in text.splitlines()
            if " block:block_rq_complete: " in ln or " block:block_rq_issue: " in ln]
    assert done
    iops = next(a for a in logs if a["log"] == "iops")
    times = _entries(files[iops["path"]].decode())
    # fio's entries close windows in which the device took its writes: the first comes after the first
    # issue. The last one is written by fio's helper thread as the job exits: 311 ms after the last
    # completion was seen on a loaded 2-CPU machine, so allow the 1 s runtime. Another clock
    # (job-relative times, or CLOCK_REALTIME) would be off by the machine's uptime or the epoch,
    # hours to decades: still caught.
    first_io_ms, last_io_ms = min(done) * 1000, max(done) * 1000
    assert first_io_ms - 50 <= times[0] <= last_io_ms + 1 and times[-1] <= last_io_ms + 1000
    assert t0 // 10**6 <= times[0]
