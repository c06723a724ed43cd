"""Real captures with fio on this host (marker ``capture``): small jobs, a few seconds in all."""

import json
import os

import pytest
from collect_helpers import open_bundle

from iolens_collect.fio import load_fio_json

pytestmark = pytest.mark.capture


def _job(target):
    return f"""\
; tiny random-write job for the collector tests
[global]
ioengine=psync
bs=4k
size=8m
runtime=1   ; cap, not time_based: stops after 8 MiB or 1 s

[randwrite-4k]
rw=randwrite
filename={target}
"""


def test_jobfile_capture_with_repeats(collect, tmp_path, fio_bin):
    target = tmp_path / "data" / "fio.0"  # the directory does not exist: fio creates it
    job = tmp_path / "job.fio"
    job.write_text(_job(target))
    code, out, err = collect("run", "--label", "psync-4k", "--tag", "fs=tmp", "--tag", "k=v=w",
                             "--repeat", "2", "--fio", "job.fio", "-o", "cap.iolens.tar.gz")
    assert code == 0, err

    # what the user saw: the plan, one start and one end line per repeat (not a TTY), summary
    assert f"will create and remove: {target}" in err
    assert "[repeat 1/2] randwrite-4k  started" in err
    assert "[repeat 2/2] randwrite-4k  done in" in err and "IOPS" in err
    assert "\r" not in err
    assert out.splitlines()[0].startswith("r000  exit 0  write ")
    assert "bundle: " + str(tmp_path / "cap.iolens.tar.gz") in out

    # fio's files are gone, and so is the directory fio made for them
    assert not target.exists() and not target.parent.exists()

    m, files = open_bundle(str(tmp_path / "cap.iolens.tar.gz"))
    assert m["label"] == "psync-4k" and m["tags"] == {"fs": "tmp", "k": "v=w"}
    assert m["collector"]["argv"][:2] == ["iolens-collect", "run"]
    assert files["workload/job.fio"] == job.read_bytes()  # byte for byte
    assert m["artifacts"] == [dict(m["artifacts"][0], kind="fio-jobfile", path="workload/job.fio")]
    w = m["workload"]
    assert w["kind"] == "fio" and w["jobfile"] == "workload/job.fio" and w["fio_args"] is None
    assert w["targets"] == [str(target)]
    assert w["fio_version"] and w["fio_version"].startswith("fio-")

    assert [r["id"] for r in m["runs"]] == ["r000", "r001"]
    for i, run in enumerate(m["runs"]):
        assert run["repeat"] == i and run["params"] == {} and run["exit_code"] == 0
        assert run["cmdline"] == ["fio", "--output-format=json+",
                                  f"--output=runs/r00{i}/fio.json", "workload/job.fio"]
        kinds = {a["kind"]: a["path"] for a in run["artifacts"]}
        assert kinds["fio-json"] == f"runs/r00{i}/fio.json"
        assert kinds["fio-stderr"] == f"runs/r00{i}/fio.stderr"
        result = load_fio_json(files[kinds["fio-json"]].decode())
        assert result["jobs"] and result["jobs"][0]["jobname"] == "randwrite-4k"
        assert result["jobs"][0]["write"]["io_bytes"] > 0

    h = m["host"]
    assert h["kernel"]["release"] == os.uname().release
    assert h["tools"]["fio"] == w["fio_version"]
    t = h["targets"][0]
    assert t["path"] == str(target)
    assert t["filesystem"]["type"] and t["filesystem"]["mountpoint"]
    assert str(tmp_path).startswith(t["filesystem"]["mountpoint"].rstrip("/") + "/") or \
        t["filesystem"]["mountpoint"] == "/"
    if t["filesystem"]["source"].startswith("/dev/"):
        assert t["device"]["name"] and t["device"]["dev"]
    json.dumps(m)  # plain JSON types only

    # a second capture to the same -o needs --force
    code, out, err = collect("run", "--label", "again", "--fio", "job.fio", "-o", "cap.iolens.tar.gz")
    assert code == 2 and "--force" in err
    code, out, err = collect("run", "--label", "again", "--fio", "job.fio", "--force",
                             "-o", "cap.iolens.tar.gz")
    assert code == 0, err
    assert open_bundle(str(tmp_path / "cap.iolens.tar.gz"))[0]["label"] == "again"


def test_fio_args_capture(collect, tmp_path, fio_bin):
    target = tmp_path / "args.dat"
    args = f"--ioengine=psync --name=seqwrite --rw=write --bs=64k --size=4m --filename={target}"
    code, out, err = collect("run", "--label", "args", f"--fio-args={args}", "-o", "a.tar.gz")
    assert code == 0, err
    assert not target.exists()
    m, files = open_bundle(str(tmp_path / "a.tar.gz"))
    assert m["workload"]["fio_args"] == args.split()
    assert m["runs"][0]["cmdline"] == ["fio", "--output-format=json+",
                                       "--output=runs/r000/fio.json"] + args.split()
    text = files["workload/job.fio"].decode()
    assert "[global]\nioengine=psync\n[seqwrite]\nrw=write\n" in text
    assert load_fio_json(files["runs/r000/fio.json"].decode())["jobs"][0]["jobname"] == "seqwrite"


def test_failing_fio_still_writes_bundle(collect, tmp_path, fio_bin):
    # job v verifies a pattern that job w did not write: fio exits 1 after writing JSON
    f = tmp_path / "v.dat"
    args = (f"--ioengine=psync --bs=4k --size=64k --filename={f} --verify=pattern "
            "--name=w --rw=write --verify_pattern=0xaa --do_verify=0 "
            "--name=v --stonewall --rw=read --verify_pattern=0xbb --verify_only")
    code, out, err = collect("run", "--label", "fails", "--repeat", "3", f"--fio-args={args}",
                             "-o", "f.tar.gz")
    assert code == 1
    assert "fio exited 1 on repeat 1/3; stopping" in err and "verify" in err
    assert "the bundle holds the 1 run(s)" in err
    m, files = open_bundle(str(tmp_path / "f.tar.gz"))
    assert len(m["runs"]) == 1 and m["runs"][0]["exit_code"] == 1
    assert any("fio exited 1" in n for n in m["notes"])
    # fio's verify state files and the data file were removed
    assert sorted(os.listdir(tmp_path)) == ["f.tar.gz"]


def test_fio_without_json_writes_no_bundle(collect, tmp_path, fio_bin):
    code, out, err = collect("run", "--label", "bad", "--fio-args=--name=w --no-such-option=1",
                             "-o", "n.tar.gz")
    assert code == 1
    assert "unrecognized option" in err and "no bundle written" in err
    assert not (tmp_path / "n.tar.gz").exists()
