"""Real captures with the perf probes and the workload's cgroup (marker ``capture``): perf 6.x and
fio on this host, root for the cgroup and the system-wide tracepoints. Short runs (1 s).

Skipped with the reason when perf, fio or root is missing, except under CI=true, where that fails."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from collect_helpers import device_of, gz_text, need, open_bundle

from iolens_collect import cgroup

pytestmark = pytest.mark.capture


@pytest.fixture
def perf_root(fio_bin):
    """perf on PATH, working, and root (system-wide tracepoints, cgroups)."""
    perf = shutil.which("perf")
    need(perf is not None, "perf is not on PATH")
    cp = subprocess.run([perf, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    need(cp.returncode == 0, f"perf does not run: {cp.stdout.decode(errors='replace').strip()[:120]}")
    need(os.geteuid() == 0, "not root: system-wide perf recording and cgroups need root")
    return perf


def _fio_args(target, extra=""):
    return (f"--name=w --rw=randwrite --bs=4k --size=4m --runtime=1 --time_based "
            f"--filename={target} {extra}").strip()


def test_stacks_one_perf_script_per_run(collect, tmp_path, perf_root):
    code, out, err = collect("run", "--label", "stacks", "--repeat", "2", "--stacks", "--freq", "199",
                             "--fio-args", _fio_args(tmp_path / "w.dat", "--rate_iops=2000"),
                             "-o", "s.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "s.iolens.tar.gz"))
    assert not [n for n in m["notes"] if n.startswith("stacks")], m["notes"]
    for run in m["runs"]:
        scripts = [a for a in run["artifacts"] if a["kind"] == "perf-script"]
        assert [a["path"] for a in scripts] == [f"runs/{run['id']}/perf.script.gz"]  # exactly one
        assert isinstance(scripts[0]["trace_clock_at_start_ns"], int)
        text = gz_text(files, scripts[0]["path"])
        first = text.splitlines()[0]
        # perf script -F +pid: "comm pid/tid [cpu] secs: period event:" then the stack, indented
        assert re.match(r"^\s*\S.*\s\d+/\d+\s+\[\d{3}\]\s+\d+\.\d+:\s+\d+\s+\S+:", first), first
        assert re.search(r"^\t\s*[0-9a-f]+ \S+", text, re.M), "no stack lines"
        p = run["probes"]["stacks"]
        assert p["tool"].startswith("perf version")
        assert p["cmd"][:2] == ["perf", "record"] and "-g" in p["cmd"] and "-a" in p["cmd"]
        assert p["cmd"][p["cmd"].index("-F") + 1] == "199" and p["cmd"][p["cmd"].index("--call-graph") + 1] == "fp"
        assert "--max-size" in p["cmd"] and p["size_cap_mb"] == 512
        assert p["script_cmd"] == ["perf", "script", "-F", "+pid", "-i", "perf.data"]
        assert p["samples"] > 0 and p["perf_data_bytes"] > 0 and p["bytes"] == scripts[0]["size"]
        assert 0.5 < p["duration_s"] < 10 and p["perf_cpu_s"] is not None and p["perf_data_bytes_per_s"] > 0
    assert re.search(r"^r001  stacks  \d+ samples in .* perf\.data .*/s\)", out, re.M), out


def test_sched_records_and_counts(collect, tmp_path, perf_root):
    code, out, err = collect("run", "--label", "sched", "--sched",
                             "--fio-args", _fio_args(tmp_path / "w.dat", "--rate_iops=1000"),
                             "-o", "c.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "c.iolens.tar.gz"))
    (run,) = m["runs"]
    kinds = {a["kind"]: a for a in run["artifacts"]}
    assert kinds["perf-sched"]["path"] == "runs/r000/sched.script.gz"
    assert kinds["perf-stat"]["path"] == "runs/r000/perf-stat.csv" and kinds["perf-stat"]["scope"] == "system"
    text = gz_text(files, "runs/r000/sched.script.gz")
    switch = re.compile(r"^\s*\S.*\s\d+/\d+\s+\[\d{3}\]\s+\d+\.\d{9}:\s+sched:sched_switch: prev_comm=.* "
                        r"prev_pid=\d+ prev_prio=\d+ prev_state=\S+ ==> next_comm=.* next_pid=\d+ next_prio=\d+$")
    assert any(switch.match(ln) for ln in text.splitlines()[:2000])
    assert "sched:sched_waking: comm=" in text
    csv = files["runs/r000/perf-stat.csv"].decode()
    rows = [ln.split(",") for ln in csv.splitlines() if ln.strip() and not ln.startswith("#")]
    cs = [r for r in rows if r[4] == "context-switches"]
    assert cs and all(re.match(r"^CPU\d+$", r[1]) for r in cs)  # per CPU (-A), per second (-I)
    assert {r[4] for r in rows} >= {"context-switches", "cpu-migrations", "task-clock", "sched:sched_switch",
                                    "sched:sched_waking"}
    p = run["probes"]["sched"]
    assert p["recorded"]["sched:sched_switch"] > 0 and p["counted"]["context-switches"] > 0
    assert p["counted"]["sched:sched_switch"] >= 0.5 * p["recorded"]["sched:sched_switch"]
    assert p["stat_cmd"][:2] == ["perf", "stat"] and "-A" in p["stat_cmd"] and "1000" in p["stat_cmd"]
    assert p["events_per_s"] > 0 and p["perf_data_bytes"] > 0
    assert "r000  sched  " in out
    # perf stat's time 0 on the trace's clock: before the run's start (perf stat starts first); placed
    # there, the trace's events begin inside the span perf stat's intervals cover (the capture enables
    # the counters first and disables them last). (Not "the first interval ends after the first
    # event": perf record's set-up after the counters' enable, 0.3 s here, took 1.8 s at load 16 on
    # 2 CPUs, longer than perf stat's 1 s interval. Nor "enabled, by the first interval's end less
    # the counters' running time, before the first event": under load perf reads the counters late,
    # their running time then reaches back before time 0.)
    zero = kinds["perf-stat"]["stat_clock_at_start_ns"]
    t0 = kinds["perf-sched"]["trace_clock_at_start_ns"]
    assert isinstance(zero, int) and 0 < t0 - zero < 10 * 10**9
    first_event_ns = int(round(float(re.search(r"\s(\d+\.\d{9}):\s", text).group(1)) * 1e9))
    last_end_ns = zero + int(round(float(cs[-1][0]) * 1e9))
    assert zero < first_event_ns < last_end_ns, (zero, first_event_ns, last_end_ns)


def test_perf_stat_time_zero_is_the_ping_answer(tmp_path, perf_root):
    """The collector's perf stat session with a real perf: the time 0 it records (the answer to
    `ping`) is the one perf's interval times count from. Counters are enabled at a time the test
    reads; an interval that ends at T on perf's axis finds each CPU's counter run R in all (the
    intervals' running times summed since the enable), so perf enabled it at T - R, minus how late
    perf read the counters after T. That lands on the enable, within 2 ms, only if the recorded time
    0 is perf's (perf stat takes ~40 ms to start here, more under load).
    How late perf reads is how long it waits for a CPU: the test and perf run at real-time priority
    where the kernel allows it (root, as the test already needs), and of the intervals counted the
    one read soonest is taken (the latest estimate; every estimate must be before the enable's ack)."""
    import time

    from iolens_collect import perfrec
    perf = perfrec.Perf(perf_root, subprocess.run([perf_root, "--version"], stdout=subprocess.PIPE).stdout.decode().strip())
    need(perfrec.answers_ping(perf.version), f"{perf.version} has no 'ping' control command")
    out = tmp_path / "stat.csv"
    s = perfrec.Session([perf_root, "stat", "-x,", "-I", "100", "-A", "-a", "-e", "context-switches", "-o", str(out)],
                        ["perf", "stat"], str(tmp_path / "stat.stderr"), counter=True, ping=True)
    policy = os.sched_getscheduler(0), os.sched_getparam(0)
    try:  # perf inherits it: its ping answer and its reads are then on time whatever else runs
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except OSError:
        pass  # not allowed here: the estimates carry the machine's scheduling delays
    try:
        s.launch()
        assert isinstance(s.started_ns, int)
        time.sleep(0.25)
        before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        s.enable()
        after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            time.sleep(0.0005)  # context switches to count
        stop = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        s.disable()
    finally:
        s.stop()
        os.sched_setscheduler(0, policy[0], policy[1])
    rows = [ln.split(",") for ln in out.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    counted = [r for r in rows if r[2] != "<not counted>" and int(r[5]) > 0]
    assert counted, rows
    ran: dict = {}  # CPU -> its counter's running time since the enable, in ns
    estimates = []
    for r in counted:
        t_ns = int(round(float(r[0]) * 1e9))
        ran[r[1]] = ran.get(r[1], 0) + int(r[5])
        if s.started_ns + t_ns < stop - 150_000_000:  # intervals that end well before the disable
            estimates.append(s.started_ns + t_ns - ran[r[1]])
    assert len(estimates) >= 2, rows
    for e in estimates:  # perf enables the counters between the command's write and its ack
        assert e < after + 2_000_000, (before, e, after)
    assert before - 2_000_000 < max(estimates) < after + 2_000_000, (before, sorted(estimates)[-3:], after)


def test_block_records_the_temp_dirs_device(collect, tmp_path, perf_root):
    dev = device_of(tmp_path)
    need(dev is not None, f"{tmp_path} is on no block device (tmpfs?)")
    name = dev["name"]
    code, out, err = collect("run", "--label", "block", "--block", name,
                             "--fio-args", _fio_args(tmp_path / "w.dat", "--direct=1 --rate_iops=1000"),
                             "-o", "b.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "b.iolens.tar.gz"))
    (run,) = m["runs"]
    p = run["probes"]["block"]
    if p["source"] == "blktrace":  # a host where the kernel lets blktrace run
        assert [a["kind"] for a in run["artifacts"] if a["kind"] == "blkparse"] == ["blkparse"]
        return
    assert p["source"] == "perf" and p["blktrace_refused"]  # why blktrace was not used, in its words
    assert any(n.startswith("block: blktrace not used: ") for n in m["notes"]), m["notes"]
    kinds = {a["kind"]: a for a in run["artifacts"]}
    assert kinds["perf-block"]["path"] == "runs/r000/block.script.gz"
    assert kinds["perf-stat-block"]["path"] == "runs/r000/perf-stat-block.csv"
    traced = p["traced"][0]["dev"].replace(":", ",")  # a partition is traced as its disk
    text = gz_text(files, "runs/r000/block.script.gz")
    issue = [ln for ln in text.splitlines() if " block:block_rq_issue: " in ln]
    complete = [ln for ln in text.splitlines() if " block:block_rq_complete: " in ln]
    assert issue and complete
    devs = {ln.split(": ", 2)[2].split()[0] for ln in issue + complete}
    assert devs == {traced}, devs  # filtered to the device in the kernel
    assert re.search(r"\d+\.\d{9}:", issue[0])  # --ns
    assert p["counted"]["block:block_rq_issue"] >= len(issue) * 0.9
    csv = files["runs/r000/perf-stat-block.csv"].decode()
    assert "block:block_rq_issue" in csv and "block:block_rq_complete" in csv
    assert p["filter"].startswith("dev == ") and p["events_per_s"] > 0
    assert "r000  block  " in out


def _poller(directory, out):
    """A separate process that records the commands of the processes in a cgroup directory."""
    code = textwrap_poller
    return subprocess.Popen([sys.executable, "-c", code, directory, out])


textwrap_poller = """
import os, sys, time
d, out = sys.argv[1], sys.argv[2]
seen = set()
end = time.time() + 20
while time.time() < end and not os.path.exists(out + ".stop"):
    try:
        for pid in open(os.path.join(d, "cgroup.procs")).read().split():
            try:
                seen.add(open(f"/proc/{pid}/comm").read().strip())
            except OSError:
                pass
    except OSError:
        pass
    time.sleep(0.02)
open(out, "w").write("\\n".join(sorted(seen)))
"""


def test_cgroup_weight_and_cpus(collect, tmp_path, perf_root):
    name = f"iolens-test-{os.getpid()}"
    cg = cgroup.WorkloadCgroup(name, 1000)
    cg.plan()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    seen = tmp_path / "seen.txt"
    poll = _poller(cg.dir, str(seen))
    try:
        code, out, err = collect("run", "--label", "cg", "--cgroup", name, "--cpu-weight", "1000",
                                 "--cpus", str(cpu), "--fio-args", _fio_args(tmp_path / "w.dat", "--rate_iops=500"),
                                 "-o", "g.iolens.tar.gz")
    finally:
        open(str(seen) + ".stop", "w").close()
        poll.wait(timeout=30)
    assert code == 0, err
    assert "fio" in seen.read_text().split("\n"), "fio was never seen in the cgroup"
    assert not os.path.exists(cg.dir), "the cgroup was not removed"
    m, _ = open_bundle(str(tmp_path / "g.iolens.tar.gz"))
    c = m["host"]["cgroup"]
    assert c["path"] == cg.path and c["created"]["removed"] is True
    assert c["created"]["cpu_weight"] == 1000 and c["created"]["cpus"] == str(cpu)
    if cg.version == 1:
        assert c["controllers"]["cpu.shares"] == "10240" and c["created"]["cpu.shares"] == 10240
    else:
        assert c["controllers"]["cpu.weight"] == "1000"
    assert m["host"]["cpu"]["affinity"] == str(cpu) and m["workload"]["cpus"] == str(cpu)
    w = m["runs"][0]["probes"]["workload"]
    assert w["cpus_allowed_list"] == str(cpu)
    assert any(ln.endswith(":" + cg.path) for ln in w["proc_cgroup"]), w["proc_cgroup"]


def test_cgroup_removed_when_fio_fails(collect, tmp_path, perf_root):
    name = f"iolens-fail-{os.getpid()}"
    cg = cgroup.WorkloadCgroup(name, 200)
    cg.plan()
    code, out, err = collect("run", "--label", "cg", "--cgroup", name, "--cpu-weight", "200",
                             "--fio-args", f"--name=w --rw=write --size=1m --filename={tmp_path / 'w.dat'} "
                                           "--ioengine=no-such-engine", "-o", "g.iolens.tar.gz")
    assert code == 1, err
    assert not os.path.exists(cg.dir)


def test_probes_without_perf_are_noted_and_the_capture_goes_on(collect, tmp_path, fio_bin, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(fio_bin, bindir / "fio")
    monkeypatch.setenv("PATH", str(bindir))  # no perf here
    code, out, err = collect("run", "--label", "noperf", "--stacks", "--sched",
                             "--fio-args", f"--name=w --rw=write --size=1m --filename={tmp_path / 'w.dat'}",
                             "-o", "n.iolens.tar.gz")
    assert code == 0, err
    m, _ = open_bundle(str(tmp_path / "n.iolens.tar.gz"))
    assert any(n.startswith("stacks: perf not found on PATH") and "no stacks in this capture" in n
               for n in m["notes"]), m["notes"]
    assert any(n.startswith("sched: perf not found on PATH") for n in m["notes"]), m["notes"]
    assert [a["kind"] for a in m["runs"][0]["artifacts"]] == ["fio-json", "fio-stderr"]
    assert "probes" not in m["runs"][0]
