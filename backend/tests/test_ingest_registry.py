"""The ingest registry (ingest/registry.py): every line names a handler that exists, the tables
every domain fills are known, and an ingest imports only the handler modules of the kinds its
bundle holds (issue 17: the fixed start-up cost of `iolens ingest`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iolens.bundle import KEPT_KINDS, PARSED_KINDS
from iolens.ingest import registry
from iolens.store.db import Store

REPO = Path(__file__).resolve().parents[2]
STACKS_XFS = next((REPO / "datasets" / "stacks-xfs").glob("*.iolens.tar.gz"))


def test_every_line_names_a_callable_and_kinds_not_parsed_have_none():
    for kind in PARSED_KINDS:
        assert callable(registry.handler(kind)), kind
    for kind in [*KEPT_KINDS, "no-such-kind"]:
        assert registry.handler(kind) is None, kind


def test_every_domain_table_has_its_columns():
    import importlib

    for module in registry.DOMAINS:
        for table, columns in getattr(importlib.import_module(f"iolens.ingest.{module}"), "TABLE_COLUMNS", {}).items():
            assert registry.table_columns(table) == columns


_PROBE = """
import json, sys
from pathlib import Path
from iolens.ingest import ingest_file
from iolens.store.db import Store
store = Store(Path(sys.argv[1]))
result = ingest_file(store, Path(sys.argv[2]), bundles_dir=Path(sys.argv[3]))
store.close()
print(json.dumps({"created": result.created, "modules": sorted(m for m in sys.modules if m.startswith("iolens."))}))
"""


def test_a_stacks_bundle_imports_only_the_handlers_of_its_kinds(tmp_path):
    # datasets/stacks-xfs: fio-jobfile, fio-json, fio-stderr (kept) and perf-script artifacts.
    done = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / "s.duckdb"), str(STACKS_XFS), str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["created"]
    loaded = {m.removeprefix("iolens.ingest.") for m in out["modules"] if m.startswith("iolens.ingest.")}
    wanted = {registry.HANDLERS[k][0] for k in ("fio-jobfile", "fio-json", "perf-script")}
    assert wanted <= loaded
    assert not (set(registry.DOMAINS) - wanted) & loaded, sorted(loaded)
    # The same rows as any ingest: the stacks and the fio jobs are in.
    store = Store(tmp_path / "s.duckdb")
    try:
        assert store.query("SELECT count(*) FROM perf_samples").rows[0][0] > 0
        assert store.query("SELECT count(*) FROM fio_jobs").rows[0][0] > 0
    finally:
        store.close()
