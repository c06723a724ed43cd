"""Failure paths that real fio does not produce on demand, with a stand-in ``fio`` on PATH:
the first repeat succeeds, the second writes no JSON (or is killed)."""

import os
import stat
import sys
import textwrap

import pytest
from collect_helpers import open_bundle

FAKE_FIO = textwrap.dedent("""\
    #!{python}
    import json, os, signal, sys
    if sys.argv[1:] == ["--version"]:
        print("fio-3.99-fake")
        sys.exit(0)
    out = [a for a in sys.argv if a.startswith("--output=")][0][len("--output="):]
    counter = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls")
    n = int(open(counter).read()) if os.path.exists(counter) else 0
    open(counter, "w").write(str(n + 1))
    target = os.environ["FAKE_FIO_TARGET"]
    open(target, "w").write("data")  # like fio laying out its file
    if n == 0:
        with open(out, "w") as f:
            f.write("fio: a warning before the JSON\\n")
            json.dump({{"fio version": "fio-3.99-fake", "jobs": [{{"jobname": "w", "error": 0,
                       "write": {{"iops": 100.0, "bw_bytes": 409600}}}}]}}, f)
        sys.exit(0)
    if os.environ.get("FAKE_FIO_MODE") == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    with open(out, "w") as f:
        f.write("fio: something went wrong\\n")
    sys.stderr.write("fio: job w failed to start\\n")
    sys.exit(1)
""")


@pytest.fixture
def fake_fio(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "fio"
    script.write_text(FAKE_FIO.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ.get("PATH", ""))
    target = tmp_path / "work" / "w.dat"
    monkeypatch.setenv("FAKE_FIO_TARGET", str(target))
    (tmp_path / "work").mkdir()
    return target


def test_run_without_json_is_kept_as_fio_output(collect, tmp_path, fake_fio):
    code, out, err = collect("run", "--label", "flaky", "--repeat", "3",
                             f"--fio-args=--name=w --rw=write --filename={fake_fio}", "-o", "b.tar.gz")
    assert code == 1
    assert "fio exited 1 on repeat 2/3; stopping" in err
    assert "fio: job w failed to start" in err and "fio: something went wrong" in err
    assert not fake_fio.exists()  # created by the capture, so removed
    m, files = open_bundle(str(tmp_path / "b.tar.gz"))
    assert m["workload"]["fio_version"] == "fio-3.99-fake"
    assert [r["exit_code"] for r in m["runs"]] == [0, 1]
    assert [a["kind"] for a in m["runs"][0]["artifacts"]] == ["fio-json", "fio-stderr"]
    assert [a["kind"] for a in m["runs"][1]["artifacts"]] == ["fio-output", "fio-stderr"]
    assert any("r001: fio wrote no JSON" in n for n in m["notes"])
    assert out.startswith("r000  exit 0  write 100 IOPS 400.0 KiB/s\nr001  exit 1  no JSON result\n")


def test_killed_fio_exit_code(collect, tmp_path, fake_fio, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_MODE", "kill")
    code, out, err = collect("run", "--label", "killed", "--repeat", "2",
                             f"--fio-args=--name=w --filename={fake_fio}", "-o", "b.tar.gz")
    assert code == 1 and "was killed by signal 9" in err
    m, _ = open_bundle(str(tmp_path / "b.tar.gz"))
    assert m["runs"][1]["exit_code"] == 128 + 9
