"""Sweep plans: the TOML subset reader (checked against tomllib where Python has it), the plan's
checks and messages, the order of points, and the options of `sweep` and `cmd`."""

import os
import sys

import pytest

from iolens_collect import plan as plan_mod
from iolens_collect import tomlsub
from iolens_collect.plan import PlanError, parse_plan

DOCS = [
    'a = 1\nb = "two"\nc = \'lit\\\\eral\'\nd = true\ne = false\n',
    "# comment\n\n  x = 1_000  # trailing\ny = -17\nz = +3\nh = 0x1F\no = 0o17\nbb = 0b101\n",
    "f1 = 0.5\nf2 = -2e3\nf3 = 1E-2\nf4 = inf\nf5 = -inf\nf6 = 6.02e+23\n",
    's = "tab\\tnew\\nquote\\" back\\\\ uni\\u00e9 big\\U0001F600"\n',
    'arr = [1, 2, 3]\nmixed = ["a", 1, 2.5, true]\nnested = [[1, 2], ["x"]]\nempty = []\n',
    'multi = [\n  "randread",   # the first\n  "randwrite",\n]\n',
    'tags = { fs = "xfs", "a b" = "c", n = 1 }\ninline_empty = {}\n',
    '[fio]\nargs = "--name=x"\n[fio.job]\nname = "dio"\ndirect = 1\n[sweep]\nbs = ["4k", "16k"]\n',
    'a.b.c = 1\na.d = 2\n"quoted key" = 3\n\'lit key\' = 4\n',
    '[ spaced . table ]\nk = "v"\n',
    'key-with-dash = 1\n_under = 2\n3key = 3\n',
]


@pytest.mark.parametrize("doc", DOCS)
def test_subset_reads_what_tomllib_reads(doc):
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    assert tomlsub.loads(doc) == tomllib.loads(doc)


@pytest.mark.parametrize("doc,line,words", [
    ('a = """x"""\n', 1, "multi-line strings"),
    ("a = '''x'''\n", 1, "multi-line strings"),
    ("[[runs]]\nx = 1\n", 1, "arrays of tables"),
    ("d = 2026-11-22\n", 1, "dates and times"),
    ("t = 07:32:00\n", 1, "dates and times"),
    ("a = 1\nb = 2\na = 3\n", 3, "defined twice"),
    ("[t]\nx = 1\n[t]\n", 3, "defined twice"),
    ("a = randread\n", 1, "strings need quotes"),
    ("a = [1, 2\n", 1, "unterminated array"),
    ('a = "x\n', 1, "unterminated string"),
    ("a = { b = 1\n", 1, "inline table"),
    ("a = 1 b = 2\n", 1, "end of the line"),
    ('a = "\\q"\n', 1, "unknown escape"),
    ("a.b = 1\n[a.b]\n", 2, "already a value"),
    ("= 1\n", 1, "expected a key"),
    ("a =\n", 1, "expected a value"),
])
def test_subset_refuses_with_line_and_reason(doc, line, words):
    with pytest.raises(tomlsub.TomlError) as exc:
        tomlsub.loads(doc)
    assert exc.value.line == line
    assert words in str(exc.value)
    assert str(exc.value).startswith(f"line {line}: ")


PLAN = """\
label = "6.18-xfs"
repeat = 3
tags = { fs = "xfs", kernel = 6.18 }

[fio]
args = "--name=dio --directory=/mnt/test --size=1g --ioengine=libaio --direct=1 --runtime=10 --time_based"
logs = 500

[sweep]
rw = ["randread", "randwrite"]
bs = ["4k", "16k"]
iodepth = [1, 8, 32]

[probes]
stacks = true
freq = 199
lock_stat = false
cpus = "1"
"""


def test_plan_points_in_nested_loop_order():
    p = parse_plan(PLAN, "dio.toml")
    assert p.kind == "fio" and p.label == "6.18-xfs" and p.repeat == 3 and p.logs == 500
    assert p.tags == {"fs": "xfs", "kernel": "6.18"}
    assert [n for n, _ in p.params] == ["rw", "bs", "iodepth"]
    points = p.points()
    assert len(points) == 12
    assert points[0] == {"rw": "randread", "bs": "4k", "iodepth": 1}
    assert points[1] == {"rw": "randread", "bs": "4k", "iodepth": 8}  # the last parameter changes fastest
    assert points[3] == {"rw": "randread", "bs": "16k", "iodepth": 1}
    assert points[-1] == {"rw": "randwrite", "bs": "16k", "iodepth": 32}
    assert plan_mod.point_name(points[0]) == "rw=randread bs=4k iodepth=1"
    assert p.probes == ["--stacks", "--freq", "199", "--cpus", "1"]  # false: left out
    assert p.schedule(2)[:3] == [(0, 0), (0, 1), (1, 0)]
    p.order = "rounds"
    assert p.schedule(2)[:3] == [(0, 0), (1, 0), (2, 0)] and p.schedule(2)[12] == (0, 1)


@pytest.mark.parametrize("text,words", [
    ("[fio]\nargs = '--name=x'\n[cmd]\ncommand = ['true']\n", "one of them"),
    ("label = 'x'\n", "one of them"),
    ("[fio]\n", "give the base job"),
    ("[fio]\nargs = '--name=x'\njobfile = 'j.fio'\n", "(got jobfile, args)"),
    ("[fio]\nargs = '--name=x'\n[sweep]\nbs = []\n", "is empty"),
    ("[fio]\nargs = '--name=x'\n[sweep]\nbs = ['4k', '4k']\n", "listed twice"),
    ("[fio]\nargs = '--name=x'\n[sweep]\nname = ['a', 'b']\n", "cannot be swept"),
    ("[fio]\nargs = '--name=x'\n[sweep]\n'a b' = [1]\n", "letters, digits"),
    ("[fio]\nargs = '--name=x'\nrepeat = 0\n", "unknown key"),
    ("repeat = 0\n[fio]\nargs = '--name=x'\n", "whole number >= 1"),
    ("order = 'random'\n[fio]\nargs = '--name=x'\n", "points\" or \"rounds"),
    ("[fio]\nargs = '--name=x'\nlogs = true\n", "log_avg_msec"),
    ("[fio]\nargs = '--name=x'\n[scheduler]\ndevice = 'loop0'\n", "has no scheduler"),
    ("[cmd]\ncommand = ['sleep', '1']\n[sweep]\nn = [1, 2]\n", "does not use {n}"),
    ("[cmd]\ncommand = []\n", "list of strings"),
    ("surprise = 1\n[fio]\nargs = '--name=x'\n", "unknown key 'surprise'"),
    ("[fio]\nargs = '--name=x'\n[sweep]\nbs = { a = 1 }\n", "expected a list"),
    ("[fio]\nargs = \"--name=x\nbs = 1\n", "line 2: unterminated string"),
])
def test_plan_errors_name_the_key(text, words):
    with pytest.raises(PlanError) as exc:
        parse_plan(text, "p.toml")
    assert "plan p.toml" in str(exc.value)
    assert words in str(exc.value)


def test_cmd_plan_and_sweep_option():
    p = parse_plan("[cmd]\ncommand = \"sh -c 'bulkstat {n}'\"\ndevices = 'loop0'\n[sweep]\nn = [64, 4096]\n", "b.toml")
    assert p.kind == "cmd" and p.command == ["sh", "-c", "bulkstat {n}"] and p.devices == ["loop0"]
    assert plan_mod.parse_sweep_option("ninodes=64,256") == ("ninodes", ["64", "256"])
    for bad in ("ninodes", "n=", "n=1,,2", "n=1,1", "9n=1"):
        with pytest.raises(ValueError):
            plan_mod.parse_sweep_option(bad)


def test_plan_file_relative_jobfile(tmp_path):
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "p.toml"
    path.write_text("[fio]\njobfile = 'base.fio'\n")
    p = plan_mod.load_plan(str(path))
    assert p.jobfile == str(tmp_path / "sub" / "base.fio")
    assert p.data == path.read_bytes()


def test_sweep_and_cmd_share_run_options_and_state_defaults():
    from iolens_collect.cli import build_parser

    choices = build_parser()._subparsers._group_actions[0].choices
    run_opts = {o for a in choices["run"]._actions for o in a.option_strings}
    for name in ("sweep", "cmd"):
        p = choices[name]
        opts = {o for a in p._actions for o in a.option_strings}
        # every probe of run is an option here too (a probe added to run comes along)
        assert {"--stacks", "--sched", "--block", "--lock-stat", "--cpus", "--cgroup", "--probe-max-mb"} <= opts
        assert not {"--fio", "--fio-args"} & opts
        missing = run_opts - opts - {"--fio", "--fio-args", "-h", "--help"}
        if name == "cmd":
            missing -= {"--allow-destructive", "--keep-files", "--fio-logs"}
        assert not missing, f"{name} lacks {missing}"
        for action in p._actions:
            if action.dest in ("help", "plan", "cmd_argv") or action.required:
                continue
            assert "default" in (action.help or ""), f"{name} --{action.dest}: help must state the default"


def test_plan_probes_become_run_options(collect, tmp_path):
    (tmp_path / "p.toml").write_text("label = 'x'\n[fio]\nargs = '--name=x --filename=/dev/null --size=1m'\n"
                                     "[probes]\nwarp_drive = true\n")
    code, out, err = collect("sweep", "p.toml", "-o", "x.iolens.tar.gz")
    assert code == 2
    assert "[probes] warp_drive is not an option of iolens-collect run" in err
    assert "stacks" in err  # the known ones are listed


def test_sweep_refuses_before_running(collect, tmp_path):
    (tmp_path / "p.toml").write_text("[fio]\nargs = '--name=x --filename=/dev/null --size=1m'\n")
    code, out, err = collect("sweep", "p.toml", "-o", "x.iolens.tar.gz")
    assert code == 2 and "no label" in err
    code, out, err = collect("sweep", "missing.toml", "-o", "x.iolens.tar.gz")
    assert code == 2 and "cannot read plan missing.toml" in err
    (tmp_path / "bad.toml").write_text("[fio]\nargs = '''x'''\n")
    code, out, err = collect("sweep", "bad.toml", "-o", "x.iolens.tar.gz")
    assert code == 2 and "line 2: multi-line strings" in err
    code, out, err = collect("cmd", "--label", "x", "-o", "x.iolens.tar.gz", "--sweep", "n=1,2", "--", "echo", "hi")
    assert code == 2 and "does not use {n}" in err
    code, out, err = collect("cmd", "--label", "x", "-o", "x.iolens.tar.gz", "--", "no-such-command-iolens")
    assert code == 2 and "command not found on PATH: no-such-command-iolens" in err
    assert not os.path.exists(tmp_path / "x.iolens.tar.gz.partial")


def test_scheduler_switch_sets_and_restores(tmp_path):
    from iolens_collect.capture import CaptureError, Point
    from iolens_collect.sweep import SchedulerSwitch

    q = tmp_path / "sys" / "block" / "loop7" / "queue"
    q.mkdir(parents=True)
    (q / "scheduler").write_text("[none] mq-deadline kyber\n")
    said = []
    sw = SchedulerSwitch(None, root=str(tmp_path))
    host = {"targets": [{"device": {"name": "loop7p1", "parent": "loop7"}}]}
    notes = sw.on_host(host, ["none", "kyber"], said.append)
    assert sw.device == "loop7" and sw.original == "none" and "set back" in notes[0]
    sw.before_run(Point(0, {"scheduler": "kyber"}), said.append)
    assert (q / "scheduler").read_text() == "kyber"  # sysfs takes the name alone
    sw.before_run(Point(1, {"scheduler": "kyber"}), said.append)  # unchanged: not written again
    assert sw.restore(said.append) == [] and (q / "scheduler").read_text() == "none"
    with pytest.raises(CaptureError, match="has no bfq"):
        SchedulerSwitch("loop7", root=str(tmp_path)).on_host({}, ["bfq"], said.append)
    with pytest.raises(CaptureError, match="no block device"):
        SchedulerSwitch(None, root=str(tmp_path)).on_host({"targets": [{"device": None}]}, ["none"], said.append)


def test_job_options_appended_per_job():
    from iolens_collect import fio, jobedit

    w = fio.load_jobfile.__wrapped__ if hasattr(fio.load_jobfile, "__wrapped__") else None
    text = "[global]\nbs=4k\n\n[a]\nrw=read\n; trailing comment of a\n\n[b]\nrw=write\niodepth=4\n"
    sections = fio.parse_jobfile(text)
    base = fio.Workload(jobfile_bytes=text.encode(), sections=sections, jobs=fio.jobs_from_sections(sections))
    out = jobedit.add_job_options(base, lambda k, n: [("iodepth", "32")], "point p000")
    jobs = {j.name: j.options for j in out.jobs}
    assert jobs["a"]["iodepth"] == "32" and jobs["b"]["iodepth"] == "32"  # b's own 4 is overridden
    assert jobs["a"]["bs"] == "4k" and jobs["a"]["rw"] == "read"
    assert out.jobfile_bytes.decode().count("; point p000") == 2
    args = fio.parse_fio_args("--bs=4k --name=a --rw=read --name=b --iodepth=4")
    out = jobedit.add_job_options(args, lambda k, n: [("iodepth", "32")], "x")
    assert out.fio_args == ["--bs=4k", "--name=a", "--rw=read", "--iodepth=32", "--name=b", "--iodepth=4",
                            "--iodepth=32"]
    assert w is None
    assert sys.version_info >= (3, 9)


def test_scheduler_sweep_without_a_device_is_refused_before_staging(collect, tmp_path, fio_bin):
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    if shm is None:
        pytest.skip("no /dev/shm (tmpfs) here")
    (tmp_path / "p.toml").write_text(f"label = 'x'\n[fio]\nargs = '--name=x --filename={shm}/iolens-test-{os.getpid()} "
                                     "--size=1m'\n[sweep]\nscheduler = ['none']\n")
    code, out, err = collect("sweep", "p.toml", "-o", "x.iolens.tar.gz")
    assert code == 2 and "no block device is under the job's files" in err
    assert not (tmp_path / "x.iolens.tar.gz.partial").exists()
