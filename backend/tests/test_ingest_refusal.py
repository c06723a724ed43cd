"""A handler's own refusal (a BundleError naming the file and field, e.g. a run-only kind listed at
the bundle's level) reaches the user as it is: not rewrapped as a parser failure ('cannot read this
perf-stat file (BundleError: ...)') nor logged with a traceback as one; nothing is stored."""

from __future__ import annotations

import logging

import pytest
from bundles import add_file, fio_capture, write_bundle

from iolens.bundle import BundleError
from iolens.ingest.pipeline import ingest_file
from iolens.store.db import Store


def test_a_handlers_refusal_is_not_a_parser_failure(tmp_path, caplog):
    m, files = fio_capture("refused", [[{"iops": 5}]])
    add_file(m, files, "perf-stat.csv", "1,,task-clock\n", "perf-stat")  # at the bundle's level: needs a run
    archive = write_bundle(tmp_path / "b.iolens.tar.gz", m, files)
    store = Store(tmp_path / "x.duckdb")
    with caplog.at_level(logging.ERROR, logger="iolens.ingest"), pytest.raises(BundleError) as err:
        ingest_file(store, archive, bundles_dir=tmp_path / "bundles")
    e = err.value
    assert str(e) == "perf-stat artifact must belong to a run (file=perf-stat.csv, field=kind)"
    assert e.status == 422 and e.detail == {"file": "perf-stat.csv", "field": "kind"}
    assert not [r for r in caplog.records if "parser failed" in r.getMessage()]
    assert store.query("SELECT count(*) FROM captures").scalar() == 0
    store.close()
