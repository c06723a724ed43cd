"""Shared fixtures: the corpus of real inputs (shared/corpus, cloned beside the checkout)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# backend/tests/conftest.py -> parents[2] is the repository root; the corpus lives beside it.
_DEFAULT_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """Path of the shared corpus (`<repo>/../shared/corpus`, or $IOLENS_CORPUS)."""
    override = os.environ.get("IOLENS_CORPUS")
    path = Path(override) if override else _DEFAULT_CORPUS
    if not path.is_dir():
        message = f"corpus not found at {path}; clone shared/ beside the checkout"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def block_path(request, monkeypatch) -> str:
    """Tests parametrized with block_path ("native", "python") ingest perf-block artifacts both ways:
    the native pass (the default) and the Python path (IOLENS_BLOCK_NATIVE=0), which is the reference
    the native pass is compared with (test_block_native.py) and the fallback when iolens_native is
    missing, so it must keep passing them too."""
    from iolens.formats import perf_block_native

    if request.param == "python":
        monkeypatch.setenv(perf_block_native.ENV, "0")
        assert not perf_block_native.enabled()
    return request.param

