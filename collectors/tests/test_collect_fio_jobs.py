"""Job file and --fio-args parsing, and target resolution (no fio needed)."""

import os

import pytest

from iolens_collect import fio
from iolens_collect.fio import (
    FioError,
    jobs_from_sections,
    parse_fio_args,
    parse_jobfile,
    resolve_targets,
    split_fio_list,
)

JOB = """\
; a comment
# another comment
[global]
ioengine=libaio
bs = 4k            ; trailing comment
direct=1 # and this one
time_based
filename=${IOLENS_TEST_DIR}/data.0

[randwrite-4k]
rw=randwrite
runtime=10s

[global]
bs=64k

[seqread]
rw=read
stonewall
"""


def test_sections_options_and_comments():
    sections = parse_jobfile(JOB)
    assert [s.name for s in sections] == ["global", "randwrite-4k", "global", "seqread"]
    assert sections[0].options == [
        ("ioengine", "libaio"),
        ("bs", "4k"),
        ("direct", "1"),
        ("time_based", None),
        ("filename", "${IOLENS_TEST_DIR}/data.0"),  # kept as written
    ]
    assert sections[1].line == 10


def test_global_applies_to_later_jobs_only():
    jobs = jobs_from_sections(parse_jobfile(JOB))
    assert [j.name for j in jobs] == ["randwrite-4k", "seqread"]
    first, second = jobs
    assert first.get("bs") == "4k" and second.get("bs") == "64k"
    assert first.flag("time_based") and second.flag("stonewall")
    assert not first.flag("stonewall")
    assert first.get("runtime") == "10s"


def test_aliases_and_flag_values():
    jobs = jobs_from_sections(parse_jobfile("[j]\nreadwrite=randread\nnr_files=3\ntimeout=5\n"
                                            "wait_for_previous\ntime_based=0\n"))
    j = jobs[0]
    assert j.get("rw") == "randread" and j.get("nrfiles") == "3" and j.get("runtime") == "5"
    assert j.flag("stonewall") and not j.flag("time_based")


def test_global_prefix_quirk():
    # fio compares only 6 characters: [global-defaults] is a global section
    jobs = jobs_from_sections(parse_jobfile("[global-defaults]\nbs=8k\n[j]\n"))
    assert [j.name for j in jobs] == ["j"] and jobs[0].get("bs") == "8k"


@pytest.mark.parametrize(
    "text, message",
    [
        ("bs=4k\n[j]\n", "line 1: option 'bs=4k' is outside of a [section]"),
        ("[j]\ninclude other.fio\n", "line 2: 'include' is not supported"),
        ("[j\nbs=4k\n", "line 1: malformed section header"),
        ("[j]\n=4k\n", "line 2: option '=4k' has no name"),
    ],
)
def test_jobfile_errors_name_the_line(text, message):
    with pytest.raises(FioError) as exc:
        parse_jobfile(text, source="job file x.fio")
    assert "job file x.fio" in str(exc.value) and message in str(exc.value)


def test_load_jobfile_keeps_bytes_and_needs_a_job(tmp_path):
    p = tmp_path / "j.fio"
    p.write_bytes(b"[global]\nbs=4k\n")
    with pytest.raises(FioError, match="no job sections"):
        fio.load_jobfile(str(p))
    p.write_bytes(b"[w]\r\nrw=write\r\n")
    w = fio.load_jobfile(str(p))
    assert w.jobfile_bytes == b"[w]\r\nrw=write\r\n" and w.jobs[0].get("rw") == "write"
    with pytest.raises(FioError, match="cannot read job file"):
        fio.load_jobfile(str(tmp_path / "missing.fio"))


def test_fio_args_build_equivalent_jobfile():
    w = parse_fio_args("--ioengine=psync --bs=4k --name=a --rw=write --time_based "
                       "--name=b --rw=read --filename='/tmp/x y' --eta=never")
    assert w.fio_args[-2:] == ["--filename=/tmp/x y", "--eta=never"]
    assert [j.name for j in w.jobs] == ["a", "b"]
    assert w.jobs[1].get("filename") == "/tmp/x y" and w.jobs[1].get("bs") == "4k"
    assert w.cmdline_only == ["--eta=never"]
    assert not w.jobs[0].substitute_env  # fio does not substitute ${VAR} on its command line
    text = w.jobfile_bytes.decode()
    assert "[global]\nioengine=psync\nbs=4k\n[a]\nrw=write\ntime_based\n[b]" in text
    # the stored job file parses back into the same jobs
    again = jobs_from_sections(parse_jobfile(text))
    assert [(j.name, j.options) for j in again] == [(j.name, j.options) for j in w.jobs]


@pytest.mark.parametrize(
    "args, message",
    [
        ("--rw=write --size=1m", "fio needs --name=JOB"),
        ("--name=a job.fio", "expected options written as --key=value"),
        ("--name=a --output=x.json", "--output is not allowed"),
        ("--name=a --output-format=normal", "--output-format is not allowed"),
        ("--name=", "--name needs a value"),
        ("--name='unclosed", "cannot split"),
        ("", "--fio-args is empty"),
    ],
)
def test_fio_args_errors(args, message):
    with pytest.raises(FioError, match=message.replace("+", r"\+")):
        parse_fio_args(args)


def test_split_fio_list():
    assert split_fio_list("/a:/b") == ["/a", "/b"]
    assert split_fio_list(r"C\:/x:/y") == ["C:/x", "/y"]  # "\:" escapes a colon
    assert split_fio_list(":/a") == ["/a"]  # a leading colon is skipped
    assert split_fio_list("/a::/b") == ["/a"]  # fio stops at an empty entry
    assert split_fio_list("") == []


def _jobs(text):
    return jobs_from_sections(parse_jobfile(text))


def test_targets_filename_relative_and_directory(tmp_path):
    r = resolve_targets(_jobs("[j]\nfilename=a.dat:sub/b.dat\nnumjobs=4\n"), cwd=str(tmp_path))
    assert r.targets == [str(tmp_path / "a.dat"), str(tmp_path / "sub/b.dat")]  # clones share
    r = resolve_targets(_jobs("[j]\ndirectory=/mnt/t\nfilename=x\n"), cwd=str(tmp_path))
    assert r.targets == ["/mnt/t/x"]
    # fio quirk: directory= is prefixed even to an absolute filename
    r = resolve_targets(_jobs("[j]\ndirectory=/mnt/t\nfilename=/abs/x\n"), cwd=str(tmp_path))
    assert r.targets == ["/mnt/t/abs/x"]


def test_targets_default_names(tmp_path):
    r = resolve_targets(_jobs("[w]\nnumjobs=2\nnrfiles=2\n"), cwd=str(tmp_path))
    assert r.targets == [str(tmp_path / n) for n in ("w.0.0", "w.0.1", "w.1.0", "w.1.1")]
    # several directories: clone j uses directory j modulo their number
    r = resolve_targets(_jobs("[u]\ndirectory=/d1:/d2\nnumjobs=3\n"), cwd=str(tmp_path))
    assert r.targets == ["/d1/u.0.0", "/d2/u.1.0", "/d1/u.2.0"]
    r = resolve_targets(_jobs("[w]\nfilename_format=f.$jobnum.$filenum.$jobname\nnumjobs=2\n"),
                        cwd=str(tmp_path))
    assert r.targets == [str(tmp_path / "f.0.0.w"), str(tmp_path / "f.1.0.w")]
    assert r.by_job == {"w": r.targets}


def test_targets_jobname_that_is_a_device(tmp_path):
    # [/dev/sdb] without filename= makes fio use /dev/sdb; same for any non-regular file
    os.mkfifo(str(tmp_path / "pipe"))
    r = resolve_targets(_jobs("[pipe]\nrw=read\n"), cwd=str(tmp_path))
    assert r.targets == [str(tmp_path / "pipe")]


def test_targets_env_substitution_like_fio(tmp_path):
    env = {"IOLENS_TEST_DIR": "/mnt/x"}
    r = resolve_targets(_jobs(JOB), cwd=str(tmp_path), env=env)
    assert r.targets == ["/mnt/x/data.0"]
    r = resolve_targets(_jobs(JOB), cwd=str(tmp_path), env={})
    assert r.targets == ["/data.0"]  # unset: fio substitutes an empty string
    assert any("${IOLENS_TEST_DIR}" in n and "not set" in n for n in r.notes)
    # on the command line, fio leaves ${VAR} alone
    w = parse_fio_args("--name=a --filename=${IOLENS_TEST_DIR}/d")
    r = resolve_targets(w.jobs, cwd=str(tmp_path), env=env)
    assert r.targets == [str(tmp_path / "${IOLENS_TEST_DIR}/d")]


def test_targets_special_cases(tmp_path):
    r = resolve_targets(_jobs("[n]\nioengine=null\nsize=1g\n[c]\nioengine=cpuio\n"), cwd=str(tmp_path))
    assert r.targets == [] and not r.unknown and len(r.notes) == 2
    r = resolve_targets(_jobs("[o]\nopendir=/data\n[l]\nread_iolog=x.log\n"), cwd=str(tmp_path))
    assert r.targets == [] and len(r.unknown) == 2
    r = resolve_targets(_jobs("[w]\nwrite_bw_log=w\n"), cwd=str(tmp_path))
    assert any("write_bw_log" in n for n in r.notes)
    with pytest.raises(FioError, match=r"job \[w\]: cannot read numjobs='many'"):
        resolve_targets(_jobs("[w]\nnumjobs=many\n"), cwd=str(tmp_path))


def test_verify_state_files(tmp_path):
    r = resolve_targets(_jobs("[a]\nverify=crc32c\nnumjobs=2\n[b]\nverify=md5\n[c]\n"
                              "[d]\nverify=md5\nverify_state_save=0\n"), cwd=str(tmp_path))
    assert r.side_files == [str(tmp_path / f) for f in
                            ("local-a-0-verify.state", "local-a-1-verify.state", "local-b-2-verify.state")]
    w = parse_fio_args("--aux-path=/var/tmp --name=a --verify=md5")
    r = resolve_targets(w.jobs, cwd=str(tmp_path), aux_path=w.aux_path)
    assert r.side_files == ["/var/tmp/local-a-0-verify.state"]


def test_load_fio_json_skips_leading_error_lines():
    text = 'fio: some warning\nfio: another {not json\n{\n  "jobs": [1]\n}\ntrailing\n'
    assert fio.load_fio_json(text) == {"jobs": [1]}
    assert fio.load_fio_json("fio: only errors\n") is None
    assert fio.load_fio_json('{"jobs": [') is None  # cut short


def test_fio_args_value_may_be_a_single_option():
    from iolens_collect.cli import _attach_fio_args

    assert _attach_fio_args(["--label", "x", "--fio-args", "--bs=4k", "-o", "b"]) == [
        "--label", "x", "--fio-args=--bs=4k", "-o", "b"]
    assert _attach_fio_args(["--fio-args", "--name=a --bs=4k"]) == ["--fio-args=--name=a --bs=4k"]
