"""The safety rule: existing files and block devices are refused unless --allow-destructive.

Refusal tests never run fio: ``fio.run_fio`` is replaced by a function that fails the test.
"""

import os
import stat

import pytest

from iolens_collect import fio, safety


@pytest.fixture
def no_fio(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("fio must not run when a target is refused")

    monkeypatch.setattr(fio, "run_fio", forbidden)


def _block_device():
    for name in sorted(os.listdir("/dev")):
        path = os.path.join("/dev", name)
        try:
            if stat.S_ISBLK(os.stat(path).st_mode):
                return path
        except OSError:
            continue
    return None


def test_plan_sorts_targets(tmp_path):
    (tmp_path / "old.dat").write_text("x")
    new = str(tmp_path / "a" / "b" / "new.dat")
    plan = safety.check_targets([new, "/dev/null"], allow_destructive=False)
    assert plan.create == [new] and plan.harmless == ["/dev/null"]
    assert plan.created_dirs == [str(tmp_path / "a"), str(tmp_path / "a" / "b")]
    plan = safety.check_targets([str(tmp_path / "old.dat")], allow_destructive=True)
    assert plan.existing == [str(tmp_path / "old.dat")] and not plan.create


def test_cleanup_removes_only_what_the_capture_created(tmp_path):
    (tmp_path / "old.dat").write_text("keep me")
    new = tmp_path / "d" / "new.dat"
    plan = safety.check_targets([str(new), str(tmp_path / "old.dat")], allow_destructive=True)
    new.parent.mkdir()
    new.write_text("fio data")
    assert safety.cleanup(plan) == []
    assert not new.exists() and not new.parent.exists()
    assert (tmp_path / "old.dat").read_text() == "keep me"


def test_dangling_symlink_and_directory(tmp_path):
    os.symlink(str(tmp_path / "nowhere"), str(tmp_path / "link"))
    with pytest.raises(safety.Refused, match="dangling symbolic link"):
        safety.check_targets([str(tmp_path / "link")], allow_destructive=False)
    with pytest.raises(safety.Refused, match="is a directory"):
        safety.check_targets([str(tmp_path)], allow_destructive=True)


def test_existing_file_refused(collect, tmp_path, no_fio):
    victim = tmp_path / "precious.dat"
    victim.write_bytes(b"data" * 1024)
    code, out, err = collect("run", "--label", "t", "--fio-args",
                             f"--name=w --rw=write --size=1m --filename={victim}",
                             "-o", "b.iolens.tar.gz")
    assert code == 3
    assert str(victim) in err and "--allow-destructive" in err and "existing regular file" in err
    assert victim.read_bytes() == b"data" * 1024
    assert not (tmp_path / "b.iolens.tar.gz").exists()


def test_existing_file_refused_in_jobfile_default_name(collect, tmp_path, no_fio):
    (tmp_path / "seq.0.0").write_text("old")  # fio's default name for job [seq]
    (tmp_path / "j.fio").write_text("[seq]\nrw=write\nsize=1m\n")
    code, out, err = collect("run", "--label", "t", "--fio", "j.fio", "-o", "b.tar.gz")
    assert code == 3 and str(tmp_path / "seq.0.0") in err


def test_block_device_refused(collect, no_fio):
    dev = _block_device()
    if dev is None:
        pytest.skip("no block device under /dev")
    # read-only job: even so the collector refuses, and fio never runs (no_fio)
    code, out, err = collect("run", "--label", "t",
                             f"--fio-args=--name=r --rw=read --readonly --filename={dev}",
                             "-o", "b.tar.gz")
    assert code == 3
    assert dev in err and "is a block device" in err and "--allow-destructive" in err


def test_refuses_existing_output(collect, tmp_path, no_fio):
    (tmp_path / "b.tar.gz").write_text("old bundle")
    code, out, err = collect("run", "--label", "t", "--fio-args=--name=w --size=1m --rw=write",
                             "-o", "b.tar.gz")
    assert code == 2 and "already exists; pass --force" in err
    assert (tmp_path / "b.tar.gz").read_text() == "old bundle"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--tag", "novalue"], "expected K=V"),
        (["--tag", "=v"], "expected K=V"),
        (["--repeat", "0"], "must be at least 1"),
    ],
)
def test_usage_errors(collect, argv, message, no_fio):
    with pytest.raises(SystemExit) as exc:
        collect("run", "--label", "t", "--fio-args=--name=w", "-o", "b.tar.gz", *argv)
    assert exc.value.code == 2


def test_label_length(collect, no_fio):
    code, out, err = collect("run", "--label", "x" * 201, "--fio-args=--name=w", "-o", "b.tar.gz")
    assert code == 2 and "--label must be 1-200 characters" in err


@pytest.mark.capture
def test_allow_destructive_accepts_existing_file(collect, tmp_path, fio_bin):
    victim = tmp_path / "existing.dat"
    victim.write_bytes(b"\0" * (1 << 20))
    code, out, err = collect("run", "--label", "t", "--allow-destructive", "--fio-args",
                             f"--name=w --ioengine=psync --rw=write --bs=4k --size=1m --filename={victim}",
                             "-o", "b.tar.gz")
    assert code == 0, err
    assert "will write to existing (--allow-destructive, not removed)" in err
    assert victim.exists()  # not created by the capture, so not removed
    assert (tmp_path / "b.tar.gz").exists()
