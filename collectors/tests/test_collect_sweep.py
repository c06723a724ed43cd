"""Real sweeps with fio and real commands on this host (marker ``capture``): tiny jobs, a few
seconds in all. Resuming an interrupted sweep, the `cmd` workload and fio's time-series logs."""

import json
import os

import pytest
from collect_helpers import open_bundle

pytestmark = pytest.mark.capture


def _plan(tmp_path, extra="", logs=""):
    target = tmp_path / "data" / "f"
    (tmp_path / "p.toml").write_text(f"""\
label = "tiny-sweep"
repeat = 2
tags = {{ fs = "tmp" }}
[fio]
args = "--name=t --filename={target} --size=1m --ioengine=psync --runtime=1"
{logs}
[sweep]
rw = ["randread", "randwrite"]
bs = ["4k", "16k"]
{extra}
""")
    return target


def test_sweep_runs_every_point_and_records_params(collect, tmp_path, fio_bin):
    target = _plan(tmp_path, logs="logs = 50")
    code, out, err = collect("sweep", "p.toml", "--tag", "k=v", "-o", "s.iolens.tar.gz")
    assert code == 0, err
    # progress: overall position, point, repeat and time left; then the stdout summary per point
    assert "[run 1/8] rw=randread bs=4k (repeat 1/2)  started" in err
    assert "[run 8/8] rw=randwrite bs=16k (repeat 2/2)  done in" in err
    assert "left in all" in err
    assert "mean  rw=randwrite bs=16k  over 2 runs  write" in out
    assert not target.exists() and not (tmp_path / "s.iolens.tar.gz.partial").exists()

    m, files = open_bundle(str(tmp_path / "s.iolens.tar.gz"))
    assert m["label"] == "tiny-sweep" and m["tags"] == {"fs": "tmp", "k": "v"}
    assert [(r["id"], r["repeat"], r["params"]) for r in m["runs"]][:3] == [
        ("r000", 0, {"rw": "randread", "bs": "4k"}), ("r001", 1, {"rw": "randread", "bs": "4k"}),
        ("r002", 0, {"rw": "randread", "bs": "16k"})]
    assert len(m["runs"]) == 8
    sweep = m["workload"]["sweep"]
    assert sweep["parameters"] == [{"name": "rw", "values": ["randread", "randwrite"]},
                                   {"name": "bs", "values": ["4k", "16k"]}]
    assert sweep["repeat"] == 2 and sweep["points"] == 4 and sweep["plan"] == "workload/plan.toml"
    assert files["workload/plan.toml"] == (tmp_path / "p.toml").read_bytes()
    kinds = {a["path"]: a["kind"] for a in m["artifacts"]}
    assert kinds["workload/points/p003.fio"] == "fio-jobfile" and kinds["workload/plan.toml"] == "sweep-plan"
    # the base job has no sweep values; each point's job ends with them
    assert b"rw=" not in files["workload/job.fio"].split(b"\n[", 1)[1].replace(b"write_", b"")
    assert m["workload"]["fio_args"][:2] == ["--name=t", f"--filename={target}"]
    assert "--rw=randwrite" in m["runs"][6]["cmdline"] and "--bs=16k" in m["runs"][6]["cmdline"]
    for run in m["runs"]:
        doc = json.loads(files[f"runs/{run['id']}/fio.json"])
        opts = doc["jobs"][0]["job options"]
        assert (opts["rw"], opts["bs"]) == (run["params"]["rw"], run["params"]["bs"])
        logs = [a for a in run["artifacts"] if a["kind"] == "fio-log"]
        assert {a["log"] for a in logs} >= {"bw", "iops", "lat", "clat"}
        assert all(a["avg_msec"] == 50 and a["job"] == "t" and a["clone"] == 1 for a in logs)
    assert m["workload"]["fio_logs"] == {"avg_msec": 50}
    assert not any("not in the bundle" in n for n in m["notes"])


def test_interrupted_sweep_resumes_where_it_stopped(collect, tmp_path, fio_bin, monkeypatch):
    import iolens_collect.fio as fio_mod

    _plan(tmp_path)
    real = fio_mod.run_fio
    calls = []

    def interrupt_third(*a, **kw):
        calls.append(a[2])
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C while run r002 is running
        return real(*a, **kw)

    monkeypatch.setattr(fio_mod, "run_fio", interrupt_third)
    code, out, err = collect("sweep", "p.toml", "-o", "s.iolens.tar.gz")
    assert code == 130
    assert "the 2 run(s) made so far are kept in" in err and "run the same command again to resume" in err
    partial = tmp_path / "s.iolens.tar.gz.partial"
    assert (partial / "journal.json").exists() and not (tmp_path / "s.iolens.tar.gz").exists()
    assert not (tmp_path / "data").exists()  # fio's files are removed even so

    # Another plan is refused; the same command goes on from r002.
    (tmp_path / "q.toml").write_text((tmp_path / "p.toml").read_text().replace("16k", "64k"))
    code, out, err = collect("sweep", "q.toml", "-o", "s.iolens.tar.gz")
    assert code == 2 and "holds the runs of a different capture" in err and "plan_sha256" in err

    calls.clear()
    monkeypatch.setattr(fio_mod, "run_fio", lambda *a, **kw: (calls.append(a[2]), real(*a, **kw))[1])
    code, out, err = collect("sweep", "p.toml", "-o", "s.iolens.tar.gz")
    assert code == 0, err
    assert "resuming the capture staged in" in err and "2 run(s) already made" in err
    assert calls == ["r002", "r003", "r004", "r005", "r006", "r007"]
    assert not partial.exists()
    m, files = open_bundle(str(tmp_path / "s.iolens.tar.gz"))
    assert [r["id"] for r in m["runs"]] == [f"r{i:03d}" for i in range(8)]
    assert all(f"runs/r{i:03d}/fio.json" in files for i in range(8))
    assert any(n.startswith("made in 2 sessions (interrupted and resumed)") for n in m["notes"])


def test_restart_throws_the_partial_runs_away(collect, tmp_path, fio_bin, monkeypatch):
    import iolens_collect.fio as fio_mod

    _plan(tmp_path)
    (tmp_path / "p.toml").write_text((tmp_path / "p.toml").read_text().replace('rw = ["randread", "randwrite"]\n', ""))
    real = fio_mod.run_fio
    n = []

    def interrupt_second(*a, **kw):
        n.append(1)
        if len(n) == 2:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(fio_mod, "run_fio", interrupt_second)
    assert collect("sweep", "p.toml", "-o", "s.iolens.tar.gz")[0] == 130
    n.clear()
    monkeypatch.setattr(fio_mod, "run_fio", lambda *a, **kw: (n.append(1), real(*a, **kw))[1])
    code, out, err = collect("sweep", "p.toml", "--restart", "-o", "s.iolens.tar.gz")
    assert code == 0 and "--restart: removed the runs of an earlier session" in err
    assert len(n) == 4  # 2 points x 2 repeats, all of them again


def test_failing_point_skips_its_repeats_only(collect, tmp_path, fio_bin):
    target = tmp_path / "f"
    (tmp_path / "p.toml").write_text(f"""\
label = "bad-point"
repeat = 2
[fio]
args = "--name=t --filename={target} --size=1m"
[sweep]
ioengine = ["psync", "no-such-engine"]
""")
    code, out, err = collect("sweep", "p.toml", "-o", "b.iolens.tar.gz")
    assert code == 1
    assert "on run 3/4 (ioengine=no-such-engine, repeat 1/2); the other repeats of this point are skipped" in err
    m, _ = open_bundle(str(tmp_path / "b.iolens.tar.gz"))
    assert [r["id"] for r in m["runs"]] == ["r000", "r001", "r002"]
    assert any("the other repeats of point ioengine=no-such-engine were not run" in n for n in m["notes"])


def test_cmd_sweep_records_rusage_diskstats_and_metrics(collect, tmp_path):
    script = ("head -c {kib}000 /dev/zero > /dev/null; echo noise; echo 'iolens-metric kib {kib} KiB'; "
              "echo '  iolens-metric rate 12.5 items/s'")
    code, out, err = collect("cmd", "--label", "cmd-sweep", "--repeat", "2", "--sweep", "kib=1,20",
                             "-o", "c.iolens.tar.gz", "--", "sh", "-c", script)
    assert code == 0, err
    assert "[run 4/4] kib=20 (repeat 2/2)  done in" in err
    assert "kib 20 KiB; rate 12.5 items/s" in out
    m, files = open_bundle(str(tmp_path / "c.iolens.tar.gz"))
    w = m["workload"]
    assert w["kind"] == "cmd" and w["command"] == ["sh", "-c", script] and w["devices"]
    assert w["sweep"]["parameters"] == [{"name": "kib", "values": ["1", "20"]}]
    run = m["runs"][2]
    assert run["params"] == {"kib": "20"} and run["cmdline"][2].startswith("head -c 20000 ")
    kinds = sorted(a["kind"] for a in run["artifacts"])
    assert kinds == ["cmd-rusage", "cmd-stdout", "diskstats", "diskstats", "stderr"]
    phases = {a.get("phase"): a for a in run["artifacts"] if a["kind"] == "diskstats"}
    assert set(phases) == {"before", "after"} and phases["after"]["clock_ns"] > phases["before"]["clock_ns"]
    ru = json.loads(files[f"runs/{run['id']}/rusage.json"])
    assert ru["exit_code"] == 0 and ru["wall_ns"] > 0 and ru["utime_s"] >= 0 and ru["stime_s"] >= 0
    assert b"iolens-metric kib 20 KiB" in files[f"runs/{run['id']}/cmd.stdout"]


def test_cmd_failure_and_resume(collect, tmp_path, monkeypatch):
    from iolens_collect import cmdrun

    real = cmdrun.CmdDriver.run_one
    calls = []

    def interrupt(self, stage, run_id, *a, **kw):
        calls.append(run_id)
        if run_id == "r001" and len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, stage, run_id, *a, **kw)

    monkeypatch.setattr(cmdrun.CmdDriver, "run_one", interrupt)
    argv = ("cmd", "--label", "c", "--sweep", "code=0,3", "-o", "c.iolens.tar.gz", "--", "sh", "-c", "exit {code}")
    code, out, err = collect(*argv)
    assert code == 130 and "kept in" in err
    code, out, err = collect(*argv)
    assert code == 1  # the point code=3 fails: exit status 1, the bundle holds both runs
    assert calls == ["r000", "r001", "r001"]
    assert "the command exited 3 on run 2/2" in err
    m, _ = open_bundle(str(tmp_path / "c.iolens.tar.gz"))
    assert [(r["id"], r["exit_code"]) for r in m["runs"]] == [("r000", 0), ("r001", 3)]


def test_run_with_fio_logs(collect, tmp_path, fio_bin):
    target = tmp_path / "f"
    code, out, err = collect("run", "--label", "logs", "--fio-logs", "100", "--fio-args",
                             f"--name=a --filename={target} --size=2m --ioengine=psync --rw=randwrite --runtime=1",
                             "-o", "l.iolens.tar.gz")
    assert code == 0, err
    m, files = open_bundle(str(tmp_path / "l.iolens.tar.gz"))
    logs = [a for a in m["runs"][0]["artifacts"] if a["kind"] == "fio-log"]
    assert {a["path"] for a in logs} >= {"runs/r000/logs/0-a_iops.1.log", "runs/r000/logs/0-a_clat.1.log"}
    # the recorded command names the bundle's folder, not the stage fio really wrote into
    assert "--write_iops_log=runs/r000/logs/0-a" in m["runs"][0]["cmdline"]
    assert not any(os.path.exists(p) for p in (tmp_path / "0-a_iops.1.log", target))


def test_sweep_from_a_bare_copy(tmp_path, fio_bin):
    """`python3 -S -E -m iolens_collect sweep` from a copy of collectors/: standard library only
    (the plan reader included), as on a bare test host."""
    import shutil
    import subprocess
    import sys

    collectors = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    copy = tmp_path / "collectors"
    shutil.copytree(collectors, str(copy), ignore=shutil.ignore_patterns("__pycache__", "tests"))
    (tmp_path / "p.toml").write_text(f"""\
label = "bare"
[fio]
args = "--name=t --filename={tmp_path / 'f'} --size=1m --ioengine=psync"
[sweep]
bs = ["4k", "8k"]
""")
    cp = subprocess.run([sys.executable, "-S", "-E", "-m", "iolens_collect", "sweep", str(tmp_path / "p.toml"),
                         "-o", str(tmp_path / "b.iolens.tar.gz")], cwd=str(copy), stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, timeout=120)
    assert cp.returncode == 0, cp.stderr.decode()
    m, _ = open_bundle(str(tmp_path / "b.iolens.tar.gz"))
    assert [r["params"] for r in m["runs"]] == [{"bs": "4k"}, {"bs": "8k"}]
