"""The bundle, the contract between the collector and the server (docs/bundle-format.md): every
artifact kind the collector declares is one the server lists, ingest has a handler for every kind
it parses and none other, the committed JSON Schema is the one generated from the manifest model,
and a kind the server keeps without parsing is not warned about."""

from __future__ import annotations

import argparse
from pathlib import Path

from bundles import add_file, fio_capture, write_bundle

from iolens.bundle import KEPT_KINDS, KINDS, PARSED_KINDS
from iolens.bundle.schema import schema_text
from iolens.ingest import ingest_file
from iolens.ingest.registry import HANDLERS
from iolens.store.db import Store
from iolens_collect import probes
from iolens_collect.cli import build_parser

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "bundle-manifest.schema.json"


def test_every_kind_the_collector_writes_is_known_to_ingest():
    assert sorted(set(probes.KINDS) - set(KINDS)) == []


def test_ingest_has_a_handler_for_every_parsed_kind_and_no_other():
    assert sorted(set(PARSED_KINDS) - set(HANDLERS)) == []
    assert sorted(set(HANDLERS) - set(PARSED_KINDS)) == []
    assert not PARSED_KINDS & KEPT_KINDS


def test_every_probe_flag_is_an_option_of_iolens_collect_run():
    run = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    options = set(run._option_string_actions)
    assert sorted(f for p in probes.PROBES for f in p.flags if f not in options) == []
    assert len({p.name for p in probes.PROBES}) == len(probes.PROBES)


def test_the_committed_schema_is_generated_from_the_model():
    assert SCHEMA.read_text(encoding="utf-8") == schema_text(), "run `make bundle-schema` and commit the file"


def test_kept_kinds_are_kept_quietly_and_unknown_kinds_are_named(tmp_path):
    m, files = fio_capture("fio-output", [[{"name": "t", "iops": 1000}], [{"name": "t", "iops": 1000}]])
    add_file(m, files, "runs/r001/fio.out", "fio: job refused\n", "fio-output", run=1)
    add_file(m, files, "runs/r001/later.bin", "?", "made-up-kind", run=1)
    store = Store(tmp_path / "s.duckdb")
    try:
        res = ingest_file(store, write_bundle(tmp_path / "b.iolens.tar.gz", m, files), bundles_dir=tmp_path / "bundles")
    finally:
        store.close()
    assert res.created
    assert not any("fio-output" in w for w in res.warnings), res.warnings
    assert any("'made-up-kind' is not known to this server" in w for w in res.warnings), res.warnings
