"""The job files shipped in collectors/jobs/ (the README runs them): each one parses as the
collector reads it, puts every file it writes under $DIR, and fio itself accepts it."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iolens_collect.fio import load_jobfile, resolve_targets

JOBS = sorted((Path(__file__).resolve().parent.parent / "jobs").glob("*.fio"))


def test_the_readme_job_is_shipped():
    names = {p.name for p in JOBS}
    assert "randwrite-4k.fio" in names
    assert len(names) >= 5, names


@pytest.mark.parametrize("job", JOBS, ids=lambda p: p.name)
def test_job_writes_only_under_dir(job: Path, tmp_path, monkeypatch):
    monkeypatch.setenv("DIR", str(tmp_path))
    w = load_jobfile(str(job))
    r = resolve_targets(w.jobs, cwd="/", env={"DIR": str(tmp_path)})
    assert not r.unknown, r.unknown
    assert r.targets, f"{job.name}: no file"
    for t in r.targets:
        assert t.startswith(str(tmp_path) + os.sep), f"{job.name}: {t} is not under $DIR"
    assert job.read_text().startswith(";"), f"{job.name}: starts with a comment saying what it measures"


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (make deps installs it)")
@pytest.mark.parametrize("job", JOBS, ids=lambda p: p.name)
def test_fio_parses_job(job: Path, tmp_path):
    r = subprocess.run(["fio", "--parse-only", str(job)], env={**os.environ, "DIR": str(tmp_path)}, capture_output=True, text=True)
    assert r.returncode == 0, f"{job.name}: {r.stderr}"
