"""The probes' plumbing without running perf or fio: cgroup v2 and v1 on fake trees, CPU lists,
device resolution and tracepoint filters, tracefs, perf stat totals, `perf script` to gzip, the
blktrace path with stand-in programs, and the option checks of the command line."""

import gzip
import json
import os
import shutil
import stat
import textwrap

import pytest

from iolens_collect import block, cgroup, perfrec
from iolens_collect.cli import main

# -- the lost-events rule, on the vectors the backend and the frontend test too -------------------

_LOST = json.loads(open(os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "vectors",
                                     "lost-events.json"), encoding="utf-8").read())


@pytest.mark.parametrize("case", _LOST["cases"], ids=[c["name"] for c in _LOST["cases"]])
def test_lost_events_rule_vectors(case):
    assert (perfrec.LOSS_THRESHOLD, perfrec.MIN_MISSING) == (_LOST["threshold"], _LOST["min_missing"])
    assert perfrec.recorded_short(case["recorded"], case["counted"]) is case["lost"]
    lost = perfrec.compare({"ev": case["recorded"]}, {"ev": case["counted"]}, ["ev"])
    assert lost == ([("ev", case["recorded"], case["counted"])] if case["lost"] else [])

# -- cgroup -------------------------------------------------------------------------------------

V2_MOUNTINFO = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
V1_MOUNTINFO = (
    "25 24 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
    "26 25 0:23 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
    "27 25 0:24 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n"
    "28 25 0:25 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
)


def _tree(tmp_path, files):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return str(tmp_path)


def test_cgroup_v2_cpu_weight_on_a_fake_root(tmp_path):
    root = _tree(tmp_path, {
        "proc/self/mountinfo": V2_MOUNTINFO,
        "proc/self/cgroup": "0::/user.slice/session-1.scope\n",
        "sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n",
        "sys/fs/cgroup/cgroup.subtree_control": "memory pids\n",
    })
    cg = cgroup.WorkloadCgroup("iolens-w1000", 1000, root=root, rmdir=shutil.rmtree)
    cg.plan()
    assert (cg.version, cg.dir, cg.path) == (2, "/sys/fs/cgroup/iolens-w1000", "/iolens-w1000")
    cg.create()
    # the cpu controller was not enabled for children: the collector enabled it
    assert (tmp_path / "sys/fs/cgroup/cgroup.subtree_control").read_text() == "+cpu"
    assert (tmp_path / "sys/fs/cgroup/iolens-w1000/cpu.weight").read_text() == "1000\n"
    cg.preexec()  # what the fio child does: writes its pid
    assert (tmp_path / "sys/fs/cgroup/iolens-w1000/cgroup.procs").read_text() == str(os.getpid())
    facts = cg.facts("1")
    assert facts["version"] == 2 and facts["path"] == "/iolens-w1000"
    assert facts["controllers"]["cpu.weight"] == "1000"
    assert facts["collector_path"] == "/user.slice/session-1.scope"
    assert facts["created"] == {"name": "iolens-w1000", "version": 2, "path": "/iolens-w1000",
                                "dir": "/sys/fs/cgroup/iolens-w1000", "cpu_weight": 1000, "cpus": "1",
                                "cpu.weight": 1000, "enabled_cpu_controller": True}
    assert cg.remove() == []
    assert not (tmp_path / "sys/fs/cgroup/iolens-w1000").exists()
    assert (tmp_path / "sys/fs/cgroup/cgroup.subtree_control").read_text() == "-cpu"  # given back


def test_cgroup_v2_without_cpu_controller_is_refused(tmp_path):
    root = _tree(tmp_path, {
        "proc/self/mountinfo": V2_MOUNTINFO,
        "proc/self/cgroup": "0::/\n",
        "sys/fs/cgroup/cgroup.controllers": "hugetlb\n",
    })
    with pytest.raises(cgroup.CgroupError, match="no cpu controller"):
        cgroup.WorkloadCgroup("x", 1000, root=root).plan()
    # without a weight the cgroup is only a grouping: fine
    cgroup.WorkloadCgroup("x", None, root=root).plan()


def test_cgroup_v1_cpu_shares_on_a_fake_root(tmp_path):
    root = _tree(tmp_path, {
        "proc/self/mountinfo": V1_MOUNTINFO,
        "proc/self/cgroup": "5:memory:/sys\n2:cpu,cpuacct:/\n0::/\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.shares": "1024\n",
        "sys/fs/cgroup/memory/sys/memory.limit_in_bytes": "9223372036854771712\n",
    })
    cg = cgroup.WorkloadCgroup("storm", 1000, root=root, rmdir=shutil.rmtree)
    cg.plan()  # hybrid: the v1 cpu hierarchy wins over the v2 one without controllers
    assert (cg.version, cg.dir, cg.path) == (1, "/sys/fs/cgroup/cpu,cpuacct/storm", "/storm")
    cg.create()
    assert (tmp_path / "sys/fs/cgroup/cpu,cpuacct/storm/cpu.shares").read_text() == "10240\n"
    facts = cg.facts(None)
    assert facts["version"] == 1 and facts["mode"] == "hybrid"
    assert facts["path"] == "/storm"
    assert facts["paths"] == {"cpu": "/storm", "cpuacct": "/storm", "memory": "/sys"}  # memory left alone
    assert facts["controllers"]["cpu.shares"] == "10240"
    assert facts["controllers"]["memory.limit_in_bytes"] == "9223372036854771712"
    assert facts["created"]["cpu.shares"] == 10240 and facts["created"]["cpu_weight"] == 1000
    assert cg.remove() == []
    assert not (tmp_path / "sys/fs/cgroup/cpu,cpuacct/storm").exists()


def test_cgroup_refuses_existing_and_bad_names(tmp_path):
    root = _tree(tmp_path, {"proc/self/mountinfo": V1_MOUNTINFO, "proc/self/cgroup": "2:cpu,cpuacct:/\n",
                            "sys/fs/cgroup/cpu,cpuacct/taken/cpu.shares": "2\n"})
    with pytest.raises(cgroup.CgroupError, match="already exists"):
        cgroup.WorkloadCgroup("taken", None, root=root).plan()
    for bad in ("", "a/b", "..", ".hidden", "-x", "x" * 65):
        with pytest.raises(cgroup.CgroupError, match="1-64 characters"):
            cgroup.WorkloadCgroup(bad, None, root=root)
    with pytest.raises(cgroup.CgroupError, match="1-10000"):
        cgroup.WorkloadCgroup("ok", 20000, root=root)


def test_cgroup_remove_reports_what_it_could_not_do(tmp_path):
    root = _tree(tmp_path, {"proc/self/mountinfo": V1_MOUNTINFO, "proc/self/cgroup": "2:cpu,cpuacct:/\n",
                            "sys/fs/cgroup/cpu,cpuacct/cpu.shares": "1024\n"})

    def busy(path):
        raise OSError(16, "Device or resource busy")

    cg = cgroup.WorkloadCgroup("stuck", 100, root=root, rmdir=busy)
    cg.create()
    problems = cg.remove(wait=0.1)
    assert len(problems) == 1 and "rmdir /sys/fs/cgroup/cpu,cpuacct/stuck" in problems[0]


def test_weight_to_shares_and_cpu_lists():
    assert cgroup.weight_to_shares(100) == 1024
    assert cgroup.weight_to_shares(1000) == 10240
    assert cgroup.weight_to_shares(1) == 10
    assert cgroup.weight_to_shares(10000) == 102400
    assert cgroup.parse_cpus("1") == [1]
    assert cgroup.parse_cpus("0-2,5") == [0, 1, 2, 5]
    assert cgroup.format_cpus([0, 1, 2, 5]) == "0-2,5"
    for bad in ("", "a", "3-1", "1,,2"):
        with pytest.raises(ValueError):
            cgroup.parse_cpus(bad)


# -- block devices and filters --------------------------------------------------------------------

def _sysblock(tmp_path):
    """A fake /sys: vda with partition vda1, loop0, dm-0 on loop1."""
    sysfs = tmp_path / "sys"
    devices = sysfs / "devices"
    for path, dev in (("virtual/block/vda", "254:0"), ("virtual/block/vda/vda1", "254:1"),
                      ("virtual/block/loop0", "7:0"), ("virtual/block/loop1", "7:1"),
                      ("virtual/block/dm-0", "253:0")):
        d = devices / path
        d.mkdir(parents=True)
        (d / "dev").write_text(dev + "\n")
    (devices / "virtual/block/vda/vda1/partition").write_text("1\n")
    (devices / "virtual/block/dm-0/slaves").mkdir()
    (devices / "virtual/block/dm-0/slaves/loop1").mkdir()
    cls = sysfs / "class/block"
    cls.mkdir(parents=True)
    (sysfs / "dev/block").mkdir(parents=True)
    for path in ("vda", "vda/vda1", "loop0", "loop1", "dm-0"):
        name = path.split("/")[-1]
        os.symlink(devices / "virtual/block" / path, cls / name)
        os.symlink(devices / "virtual/block" / path,
                   sysfs / "dev/block" / (devices / "virtual/block" / path / "dev").read_text().strip())
    return str(tmp_path)


def test_resolve_device_and_filter(tmp_path):
    root = _sysblock(tmp_path)
    d = block.resolve_device("loop0", root)
    assert d["dev"] == "7:0" and d["traced"] == [{"name": "loop0", "dev": "7:0"}] and d["note"] is None
    assert block.dev_filter(d["traced"]) == f"dev == {7 << 20}"
    assert block.resolve_device("7:0", root)["name"] == "loop0"
    part = block.resolve_device("vda1", root)
    assert part["traced"] == [{"name": "vda", "dev": "254:0"}] and "partition of vda" in part["note"]
    dm = block.resolve_device("dm-0", root)
    assert dm["traced"] == [{"name": "dm-0", "dev": "253:0"}, {"name": "loop1", "dev": "7:1"}]
    assert block.dev_filter(dm["traced"]) == f"dev == {253 << 20} || dev == {(7 << 20) | 1}"
    with pytest.raises(block.BlockError, match="no such block device"):
        block.resolve_device("nvme9n9", root)


# -- tracefs, perf stat, perf script ----------------------------------------------------------------

def test_ensure_tracefs(tmp_path):
    (tmp_path / "sys/kernel/tracing/events/sched/sched_switch").mkdir(parents=True)
    ev, problem, mounted = perfrec.ensure_tracefs(str(tmp_path))
    assert ev.endswith("sys/kernel/tracing/events") and problem is None and not mounted
    assert perfrec.missing_tracepoints(ev, ["sched:sched_switch", "sched:sched_waking"]) == ["sched:sched_waking"]

    bare = tmp_path / "bare"
    (bare / "sys/kernel/tracing").mkdir(parents=True)
    ev, problem, mounted = perfrec.ensure_tracefs(str(bare), root_user=False)
    assert ev is None and "needs root" in problem and not mounted

    calls = []

    def fake_mount(target):
        calls.append(target)
        os.makedirs(os.path.join(target, "events"))
        return None

    ev, problem, mounted = perfrec.ensure_tracefs(str(bare), root_user=True, mount=fake_mount)
    assert calls == [str(bare / "sys/kernel/tracing")] and mounted and problem is None
    ev, problem, mounted = perfrec.ensure_tracefs(str(tmp_path / "other"), root_user=True,
                                                  mount=lambda t: "mount: permission denied")
    assert ev is None and "mount: permission denied" in problem


def test_count_stat_csv(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text(textwrap.dedent("""\
        # started on Sun Nov 22 03:25:53 2026

             1.001152902,CPU0,1069,,context-switches,1001175244,100.00,1.068,K/sec
             1.001152902,CPU1,2107,,context-switches,1003328919,100.00,2.100,K/sec
             1.001152902,CPU0,1001.17,msec,task-clock,1001174229,100.00,1.001,CPUs utilized
             1.001152902,CPU0,1066,,sched:sched_switch,1001174494,100.00,1.065,K/sec
             2.503536383,CPU0,3080,,sched:sched_switch,475075820,100.00,6.483,K/sec
             2.503536383,CPU1,<not counted>,,sched:sched_waking,0,100.00,,
        70651,,block:block_rq_issue,3206271521,100.00,,
        """))
    assert perfrec.count_stat_csv(str(p)) == {"context-switches": 3176, "sched:sched_switch": 4146,
                                              "sched:sched_waking": None, "block:block_rq_issue": 70651}


def test_script_to_gzip_counts_events_across_reads(tmp_path):
    line = b"            fio 15735/15735 [001]  4522.849741006:    block:block_rq_complete: 254,0 W () 8 + 8 [0]\n"
    src = tmp_path / "text"
    src.write_bytes(line * 30000)  # ~3 MB: several 1 MiB reads, names split between them
    dest = tmp_path / "out.gz"
    res = perfrec.script_to_gzip(["cat", str(src)], str(dest), count=[b" block:block_rq_complete:",
                                                                      b" block:block_rq_issue:"])
    assert res["exit_code"] == 0 and res["text_bytes"] == len(line) * 30000 and res["lines"] == 30000
    assert res["counts"] == {"block:block_rq_complete": 30000, "block:block_rq_issue": 0}
    assert gzip.decompress(dest.read_bytes()) == src.read_bytes()
    # equal text gives equal bytes (no name or time in the gzip header)
    res2 = perfrec.script_to_gzip(["cat", str(src)], str(tmp_path / "again.gz"))
    assert (tmp_path / "again.gz").read_bytes() == dest.read_bytes() and res2["counts"] == {}


def test_stderr_tail_keeps_perfs_reason(tmp_path):
    err = tmp_path / "e"
    err.write_text("Events disabled\nError:\nAccess to performance monitoring and observability operations "
                   "is limited.\nConsider adjusting /proc/sys/kernel/perf_event_paranoid setting to open\n"
                   "access to ...\n>= 2: Disallow kernel profiling\nTo make the adjusted setting permanent\n")
    assert perfrec.stderr_tail(str(err)) == ("Error: Access to performance monitoring and observability operations "
                                             "is limited. / Consider adjusting /proc/sys/kernel/perf_event_paranoid "
                                             "setting to open")
    err.write_text("Events disabled\nsome warning\nevent syntax error: 'block:nope'\n")
    assert perfrec.stderr_tail(str(err)) == "some warning / event syntax error: 'block:nope'"


def test_find_perf_reports_why(tmp_path):
    perf, why = perfrec.find_perf(which=lambda name: None)
    assert perf is None and "not found on PATH" in why
    wrapper = tmp_path / "perf"  # Debian's wrapper without the kernel's perf package
    wrapper.write_text("#!/bin/sh\necho 'WARNING: perf not found for kernel 6.18'\nexit 2\n")
    wrapper.chmod(0o755)
    perf, why = perfrec.find_perf(which=lambda name: str(wrapper))
    assert perf is None and "exited 2 (WARNING: perf not found for kernel 6.18)" in why


# -- the blktrace path, with stand-ins for blktrace and blkparse --------------------------------------

FAKE_BLKTRACE = """#!/usr/bin/env python3
import os, signal, sys, time
args = sys.argv[1:]
d = args[args.index("-D") + 1] if "-D" in args else "."
o = args[args.index("-o") + 1]
if "-w" in args:
    print("=== loop0 ===\\n  CPU  0:  0 events,  0 KiB data\\n  Total:  0 events (dropped 0),  0 KiB data")
    sys.exit(0)
stop = []
signal.signal(signal.SIGINT, lambda *a: stop.append(1))
with open(os.path.join(d, o + ".blktrace.0"), "wb") as f:
    while not stop:
        f.write(b"x" * 64)
        f.flush()
        time.sleep(0.01)
"""
FAKE_BLKPARSE = """#!/bin/sh
echo "  7,0    1        1     0.000000000  1234  Q  WS 2048 + 8 [fio]"
echo "  7,0    1        2     0.000010000  1234  C  WS 2048 + 8 [0]"
"""


def test_block_probe_uses_blktrace_where_it_works(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, text in (("blktrace", FAKE_BLKTRACE), ("blkparse", FAKE_BLKPARSE)):
        (bindir / name).write_text(text)
        (bindir / name).chmod(0o755)
    root = _sysblock(tmp_path / "root")
    (tmp_path / "root/proc/self").mkdir(parents=True)
    (tmp_path / "root/proc/self/mountinfo").write_text(
        "40 22 0:7 / /sys/kernel/debug rw,nosuid - debugfs debugfs rw\n")
    dev = block.resolve_device("loop0", root)
    p = block.BlockProbe(None, dev, None, root=root, which=lambda n: str(bindir / n), root_user=False)
    assert p.setup() is None and p.source == "blktrace" and p.setup_note() is None
    stage = tmp_path / "stage"
    (stage / "runs/r000").mkdir(parents=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    p.launch("r000", str(scratch))
    p.enable(counters=True)  # nothing: blktrace is a recording
    p.enable(counters=False)
    p.disable(counters=False)
    arts, info, notes = p.finish("r000", str(stage), 0)
    assert [(a.rel, a.kind) for a in arts] == [("runs/r000/blkparse.txt.gz", "blkparse")]
    assert info["source"] == "blktrace" and info["trace_bytes"] > 0 and notes == []
    text = gzip.decompress((stage / "runs/r000/blkparse.txt.gz").read_bytes()).decode()
    assert " Q  WS 2048 + 8 [fio]" in text


def test_block_probe_says_why_blktrace_was_not_used(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "blktrace").write_text("#!/bin/sh\necho 'BLKTRACESETUP(2) /dev/loop0 failed: 1/Operation not permitted' >&2\nexit 1\n")
    (bindir / "blktrace").chmod(0o755)
    (bindir / "blkparse").write_text("#!/bin/sh\n")
    (bindir / "blkparse").chmod(0o755)
    root = _sysblock(tmp_path / "root")
    (tmp_path / "root/proc/self").mkdir(parents=True)
    (tmp_path / "root/proc/self/mountinfo").write_text("40 22 0:7 / /sys/kernel/debug rw - debugfs debugfs rw\n")
    events = tmp_path / "events"
    for e in ("block_rq_insert", "block_rq_issue", "block_rq_complete", "block_rq_merge"):
        (events / "block" / e).mkdir(parents=True)
    dev = block.resolve_device("loop0", root)
    perf = perfrec.Perf("/usr/bin/perf", "perf version 6.1")
    p = block.BlockProbe(perf, dev, str(events), root=root, which=lambda n: str(bindir / n), root_user=False)
    assert p.setup() is None and p.source == "perf"
    assert "Operation not permitted" in p.blktrace_refused and "Operation not permitted" in p.setup_note()
    assert p.record_events == ["block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete",
                        "block:block_rq_merge"]
    assert p.missing == ["block:block_rq_requeue", "block:block_bio_backmerge", "block:block_bio_frontmerge"]
    argv = p._record_argv("perf.data")
    assert argv[argv.index("block:block_rq_issue") + 1:][:2] == ["--filter", f"dev == {7 << 20}"]
    # without perf as well: nothing to record with, and the note says both reasons
    q = block.BlockProbe(None, dev, None, perf_problem="perf not found on PATH", root=root,
                         which=lambda n: None, root_user=False)
    problem = q.setup()
    assert "blktrace/blkparse not found" in problem and "perf not found on PATH" in problem


def test_offcpu_records_call_chains_of_switches_and_wakeups_on_every_cpu():
    from iolens_collect.offcpu import OffcpuProbe
    from iolens_collect.perfrec import Perf

    p = OffcpuProbe(Perf("/usr/bin/perf", "perf version 6.1"), "/sys/kernel/tracing/events", 64)
    argv = p._record_argv("perf.data")
    assert argv[1:4] == ["record", "-a", "-g"] and "--kernel-callchains" not in argv
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "-e"] == ["sched:sched_switch", "sched:sched_waking"]
    assert argv[argv.index("-m") + 1] == "4096" and argv[argv.index("--max-size") + 1] == "64M"
    k = OffcpuProbe(Perf("/usr/bin/perf", "perf version 6.1"), "/sys/kernel/tracing/events", 64, "kernel")
    assert "--kernel-callchains" in k._record_argv("perf.data") and k._info()["stacks"] == "kernel"
    assert p._stat_argv("s.csv")[-4:] == ["-e", "sched:sched_switch,sched:sched_waking", "-o", "s.csv"]


# -- the command line ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--freq", "99"], "--freq needs --stacks"),
    (["--call-graph", "fp"], "--call-graph needs --stacks"),
    (["--offcpu-stacks", "kernel"], "--offcpu-stacks needs --offcpu"),
    (["--cpu-weight", "1000"], "--cpu-weight needs --cgroup"),
    (["--probe-max-mb", "10"], "--probe-max-mb needs"),
    (["--cpus", "0-"], "--cpus: bad CPU list"),
    (["--cpus", "4096"], "is not available here"),
    (["--block", "nosuchdisk0"], "no such block device"),
    (["--cgroup", "a/b"], "1-64 characters"),
])
def test_bad_probe_options_exit_2_before_anything_runs(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    fio = tmp_path / "fio"  # the options are checked before fio could run
    fio.write_text("#!/bin/sh\necho 'fio ran' >&2\nexit 1\n")
    fio.chmod(fio.stat().st_mode | stat.S_IEXEC)
    code = main(["run", "--label", "x", "--fio-args", "--name=w --rw=write --size=1m --filename=/dev/null",
                 "-o", "x.iolens.tar.gz"] + args)
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert "fio ran" not in err and not (tmp_path / "x.iolens.tar.gz").exists()


def test_call_graph_choices_and_defaults_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    for needle in ("--stacks", "(default: 99)", "(default: fp)", "--sched", "--block DEV",
                   "--probe-max-mb MB", "(default: 512)", "--cgroup NAME", "--cpu-weight N", "--cpus LIST"):
        assert needle in text
    with pytest.raises(SystemExit):
        main(["run", "--label", "x", "--stacks", "--call-graph", "bogus", "--fio-args", "--name=w", "-o", "x"])


def test_ping_only_to_a_perf_that_answers_it():
    """A perf without the `ping` control command never acks it: the collector would wait for nothing."""
    from iolens_collect.perfrec import answers_ping
    assert answers_ping("perf version 6.1.187") and answers_ping("perf version 6.12.0-rc3") and answers_ping("perf version 10.0")
    assert not answers_ping("perf version 5.15.0") and not answers_ping("perf version 6.0.9") and not answers_ping("perf")
