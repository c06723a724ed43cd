"""Print the API's OpenAPI schema (the source of frontend/src/api/schema.d.ts).

    uv run python -m iolens.api.openapi > frontend/openapi.json
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from .app import Settings, create_app


def schema() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(db_path=Path(tmp) / "schema.duckdb", data_dir=Path(tmp), frontend_dist=None))
        doc = app.openapi()
        app.state.store.close()
        return doc


def main() -> None:
    json.dump(schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
