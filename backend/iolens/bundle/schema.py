"""The JSON Schema of manifest.json, generated from the model in manifest.py.

`python -m iolens.bundle.schema > docs/bundle-manifest.schema.json` (make bundle-schema) writes it;
a backend test checks that the committed file is current, and the collector's tests validate every
bundle they write against it, so the collector and the server agree on every field's type.
"""

from __future__ import annotations

import json
from typing import Any

from .manifest import SUPPORTED_FORMAT_VERSIONS, Manifest


def manifest_schema() -> dict[str, Any]:
    schema = Manifest.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "iolens bundle manifest (docs/bundle-format.md)"
    # The model checks the version with a validator; the schema says it with an enum.
    schema["properties"]["format_version"]["enum"] = list(SUPPORTED_FORMAT_VERSIONS)
    return schema


def schema_text() -> str:
    return json.dumps(manifest_schema(), indent=1, sort_keys=False) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
