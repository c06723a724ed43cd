"""Shared fixtures of the collector tests. The collector is imported from this checkout's
collectors/ folder, so the tests also run where the project is not installed."""

import os
import shutil
import sys

import pytest

COLLECTORS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if COLLECTORS not in sys.path:
    sys.path.insert(0, COLLECTORS)


@pytest.fixture
def fio_bin():
    """Path of fio; skipped when fio is missing, except under CI=true where that fails."""
    path = shutil.which("fio")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("fio is not on PATH, and CI=true: the capture tests must run in CI")
        pytest.skip("fio is not on PATH")
    return path


@pytest.fixture
def collect(monkeypatch, capsys, tmp_path):
    """Run ``iolens-collect`` in-process from ``tmp_path``: returns (exit code, stdout, stderr)."""
    from iolens_collect.cli import main

    monkeypatch.chdir(tmp_path)

    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
