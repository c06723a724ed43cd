"""The tests that ingest perf-block artifacts, run again with the native pass turned off
(IOLENS_BLOCK_NATIVE=0): the Python path is the reference the native pass is compared with
(test_block_native.py) and the fallback when iolens_native is missing, so it must keep passing
them too. By default (the other modules) ingest takes the native pass."""

from __future__ import annotations

import pytest
from test_block import (  # noqa: F401 - collected here a second time, on the Python path
    test_block_api_over_http,
    test_perf_sample_with_perf_stat_is_flagged,
    test_tiles_equal_rows_on_the_real_sample,
)
from test_block_export import test_block_cell_in_text_and_html_exports  # noqa: F401

from iolens.formats import perf_block_native


@pytest.fixture(autouse=True)
def _python_path(monkeypatch) -> None:
    monkeypatch.setenv(perf_block_native.ENV, "0")
    assert not perf_block_native.enabled()
