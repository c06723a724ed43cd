"""The start of a local `iolens ingest` (issue 17: its fixed cost): the store is opened (file
created, schema applied) on a thread of its own from before the ingest modules are imported, so
that their import and the first bundle's check run beside DuckDB's DDL instead of before it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iolens.store.db import Store

REPO = Path(__file__).resolve().parents[2]
STACKS_XFS = next((REPO / "datasets" / "stacks-xfs").glob("*.iolens.tar.gz"))

# Records, in order, when the store starts opening and when the ingest modules are imported.
_PROBE = """
import json, sys
events = []

def hook(event, args):
    if event == "import" and args[0] in ("iolens.ingest.pipeline", "iolens.bundle.manifest", "pydantic"):
        events.append("import " + args[0])

sys.addaudithook(hook)
from iolens.store import db
real = db.StoreOpening.__init__

def init(self, *a, **k):
    events.append("store opening")
    real(self, *a, **k)

db.StoreOpening.__init__ = init
from iolens.cli.main import main
rc = main(["ingest", "--db", sys.argv[1], sys.argv[2]])
print(json.dumps({"rc": rc, "events": events}))
"""


def test_the_store_opens_before_the_ingest_modules_are_imported(tmp_path):
    done = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / "s.duckdb"), str(STACKS_XFS)],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["rc"] == 0, done.stderr
    events = out["events"]
    assert events[0] == "store opening", events
    assert {"import iolens.ingest.pipeline", "import iolens.bundle.manifest", "import pydantic"} <= set(events)
    store = Store(tmp_path / "s.duckdb")
    try:
        assert store.query("SELECT count(*) FROM captures").scalar() == 1
        assert store.query("SELECT count(*) FROM perf_samples").scalar() > 0
    finally:
        store.close()
