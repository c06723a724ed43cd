"""The lock_stat probe (--lock-stat, --lock-stat-snapshot). This machine's kernel has no
/proc/lock_stat (CONFIG_LOCK_STAT off), so the probe is pointed at a fake /proc tree, and a
stand-in fio on PATH plays the kernel: it checks that the table was cleared and the setting
turned on when it starts, and writes the "statistics" the probe then keeps."""

import io
import os
import signal
import stat
import sys
import textwrap

import pytest
from collect_helpers import open_bundle

from iolens_collect import capture, lockstat

DUMP = textwrap.dedent("""\
    lock_stat version 0.4
    -----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
                                  class name    con-bounces    contentions   waittime-min   waittime-max waittime-total   waittime-avg    acq-bounces   acquisitions   holdtime-min   holdtime-max holdtime-total   holdtime-avg
    -----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------

                             unix_table_lock:           110            112           0.21          49.24         163.91           1.46          21094          66312           0.12         624.42       31589.81           0.48
                             ---------------
                             unix_table_lock             45          [<ffffffff8150ad8e>] unix_create1+0x16e/0x1b0
    """)

# Plays fio and the kernel: the table must be "0" (cleared) and the setting "1" when a run
# starts; the run then "collects" a line naming the call. FAKE_FIO_SIGINT=N interrupts the
# collector (SIGINT to its parent) during call N.
FAKE_FIO = textwrap.dedent("""\
    #!{python}
    import json, os, signal, sys
    if sys.argv[1:] == ["--version"]:
        print("fio-3.99-fake")
        sys.exit(0)
    proc = os.environ["FAKE_PROC"]
    table = os.path.join(proc, "proc", "lock_stat")
    sysctl = os.path.join(proc, "proc", "sys", "kernel", "lock_stat")
    counter = os.path.join(proc, "calls")
    n = int(open(counter).read()) if os.path.exists(counter) else 0
    open(counter, "w").write(str(n + 1))
    if os.path.isfile(table):
        before, setting = open(table).read(), open(sysctl).read()
        with open(table, "w") as f:
            f.write("lock_stat version 0.4\\n# call %d: table was %r, setting %r\\n" % (n, before, setting))
    if os.environ.get("FAKE_FIO_SIGINT") == str(n):
        signal.signal(signal.SIGINT, signal.default_int_handler)  # stopped by the collector's SIGINT
        os.kill(os.getppid(), signal.SIGINT)
        signal.pause()
    out = [a for a in sys.argv if a.startswith("--output=")][0][len("--output="):]
    with open(out, "w") as f:
        json.dump({{"fio version": "fio-3.99-fake", "jobs": [{{"jobname": "w", "error": 0,
                   "write": {{"iops": 100.0, "bw_bytes": 409600, "total_ios": 1000}}}}]}}, f)
""")


def fake_proc(root, setting="0\n", table=True):
    sysdir = root / "proc" / "sys" / "kernel"
    sysdir.mkdir(parents=True)
    (sysdir / "lock_stat").write_text(setting)
    if table:
        (root / "proc" / "lock_stat").write_text(DUMP)
    return root


@pytest.fixture
def fake_fio(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "fio"
    script.write_text(FAKE_FIO.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("FAKE_PROC", str(tmp_path / "fake"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def run(tmp_path, repeat=2, **opts):
    """capture.run with the probe on the fake /proc; returns (exit code, stdout, stderr)."""
    o = capture.Options(label="locks", output=str(tmp_path / "work" / "b.iolens.tar.gz"), repeat=repeat,
                        fio_args=f"--name=w --rw=write --size=64k --filename={tmp_path / 'work' / 'w.dat'}",
                        argv=["run"], **opts)
    out, err = io.StringIO(), io.StringIO()
    code = capture.run(o, err=err, out=out, proc_root=str(tmp_path / "fake"))
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------
# The probe alone


def test_probe_enables_clears_keeps_and_restores(tmp_path):
    root = fake_proc(tmp_path / "fake")
    p = lockstat.Probe(str(root))
    assert p.start() is None
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "1\n"
    assert (root / "proc/lock_stat").read_text() == "0\n"  # cleared
    (root / "proc/lock_stat").write_text(DUMP)
    assert p.snapshot(str(tmp_path / "copy.txt")) == len(DUMP)
    assert (tmp_path / "copy.txt").read_text() == DUMP
    assert p.restore() is None
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "0\n"
    assert p.restore() is None  # twice is fine


def test_probe_leaves_an_enabled_setting_alone(tmp_path):
    root = fake_proc(tmp_path / "fake", setting="1\n")
    p = lockstat.Probe(str(root))
    assert p.start() is None and p.previous == "1"
    p.restore()
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "1\n"


def test_probe_says_why_without_config_lock_stat(tmp_path):
    root = fake_proc(tmp_path / "fake", table=False)
    why = lockstat.Probe(str(root)).start()
    assert why.startswith("lock_stat: /proc/lock_stat does not exist")
    assert "CONFIG_LOCK_STAT" in why and os.uname().release in why
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "0\n"  # untouched


def test_probe_that_cannot_clear_puts_the_setting_back(tmp_path):
    root = fake_proc(tmp_path / "fake", table=False)
    (root / "proc" / "lock_stat").mkdir()  # exists but cannot be written: like a non-root user
    why = lockstat.Probe(str(root)).start()
    assert why.startswith("lock_stat: cannot use") and "root" in why
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "0\n"


def test_the_real_proc_of_this_machine():
    # On this kernel the file is absent; where it exists, the probe must not be started here
    # (it would clear the machine's statistics), so only the absent case is checked.
    if os.path.exists(lockstat.PROC):
        pytest.skip("this kernel has /proc/lock_stat")
    assert "does not exist" in lockstat.Probe().start()


@pytest.mark.parametrize("text, needle", [
    ("", "empty"),
    ("lock_stat version 0.3\n", "version 0.3"),
    ("hello\nworld\n", "does not look like"),
    ("\n".join(f"{i:02d} {ln}" for i, ln in enumerate(DUMP.splitlines(), 1)), "line numbers"),
    ("\n".join(textwrap.wrap(DUMP, 76)), "wrapped"),
    (DUMP.replace("   holdtime-avg", "\n   holdtime-avg"), "wrapped"),
])
def test_check_dump_refuses(text, needle):
    assert needle in lockstat.check_dump(text)


def test_check_dump_accepts_dumps_and_excerpts():
    assert lockstat.check_dump(DUMP) is None
    assert lockstat.check_dump(DUMP.split("\n", 5)[5]) is None  # rows only


# ---------------------------------------------------------------------------------------
# Captures


def test_lock_stat_per_repeat(tmp_path, fake_fio):
    root = fake_proc(tmp_path / "fake")
    code, out, err = run(tmp_path, repeat=2, lock_stat=True)
    assert code == 0, err
    assert "lock_stat: collecting (it was 0; set back at the end)" in err
    m, files = open_bundle(str(fake_fio / "b.iolens.tar.gz"))
    for i, r in enumerate(m["runs"]):
        (art,) = [a for a in r["artifacts"] if a["kind"] == "lock-stat"]
        assert art["path"] == f"runs/r00{i}/lock_stat.txt"
        # each run started on a cleared table with collection on, and its dump is its own
        assert files[art["path"]].decode() == (
            f"lock_stat version 0.4\n# call {i}: table was '0\\n', setting '1\\n'\n")
    assert not any(n.startswith("lock_stat") for n in m["notes"])
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "0\n"  # restored


def test_lock_stat_absent_is_noted_and_the_capture_goes_on(tmp_path, fake_fio):
    fake_proc(tmp_path / "fake", table=False)
    code, out, err = run(tmp_path, repeat=1, lock_stat=True)
    assert code == 0, err
    assert "lock_stat: /proc/lock_stat does not exist" in err and "perf lock contention" in err
    m, files = open_bundle(str(fake_fio / "b.iolens.tar.gz"))
    assert [n for n in m["notes"] if n.startswith("lock_stat:")] and "CONFIG_LOCK_STAT" in " ".join(m["notes"])
    assert all(a["kind"] != "lock-stat" for r in m["runs"] for a in r["artifacts"])


def test_setting_is_restored_after_an_interrupt(tmp_path, fake_fio, monkeypatch, request):
    root = fake_proc(tmp_path / "fake")
    monkeypatch.setenv("FAKE_FIO_SIGINT", "1")  # during the second repeat
    # A Ctrl-C: where pytest started with SIGINT ignored (a job put in the background by a shell
    # without job control, as CI may start `make test`), Python set no handler and the SIGINT was lost:
    # the fake fio then waited for ever.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, repeat=3, lock_stat=True)
    assert (root / "proc/sys/kernel/lock_stat").read_text() == "0\n"
    assert not (fake_fio / "b.iolens.tar.gz").exists()


def test_snapshot_by_hand(collect, tmp_path, fake_fio):
    fake_proc(tmp_path / "fake")
    dump = tmp_path / "after run.txt"
    dump.write_text(DUMP)
    code, out, err = collect("run", "--label", "by-hand", "--lock-stat-snapshot", str(dump),
                             f"--fio-args=--name=w --rw=write --size=64k --filename={fake_fio / 'w.dat'}",
                             "-o", "h.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(fake_fio / "h.iolens.tar.gz"))
    wide = [a for a in m["artifacts"] if a["kind"] == "lock-stat"]
    assert [a["path"] for a in wide] == ["lock_stat/after_run.txt"]
    assert files["lock_stat/after_run.txt"] == dump.read_bytes()
    assert all(a["kind"] != "lock-stat" for r in m["runs"] for a in r["artifacts"])


def test_bad_snapshot_is_refused_before_anything_runs(collect, tmp_path, fake_fio):
    fake_proc(tmp_path / "fake")
    bad = tmp_path / "mail.txt"
    bad.write_text("\n".join(textwrap.wrap(DUMP, 72)))
    code, out, err = collect("run", "--label", "x", "--lock-stat-snapshot", str(bad),
                             "--fio-args=--name=w --rw=write --size=64k --filename=w.dat", "-o", "x.tar.gz")
    assert code == 2 and "not a usable /proc/lock_stat dump" in err and "wrapped" in err
    assert not (tmp_path / "fake" / "calls").exists()  # fio never ran
    code, out, err = collect("run", "--label", "x", "--lock-stat-snapshot", str(tmp_path / "absent"),
                             "--fio-args=--name=w --rw=write --size=64k --filename=w.dat", "-o", "x.tar.gz")
    assert code == 2 and "No such file" in err


def test_lock_stat_options_exclude_each_other(collect, tmp_path, fake_fio):
    with pytest.raises(SystemExit) as exc:
        collect("run", "--label", "x", "--lock-stat", "--lock-stat-snapshot", "f",
                "--fio-args=--name=w", "-o", "x.tar.gz")
    assert exc.value.code == 2

