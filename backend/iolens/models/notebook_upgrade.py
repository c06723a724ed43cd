"""The notebook document: its format version and one upgrade function per version.

The document's schema is `models.notebook.NotebookDocument` (pydantic; the frontend's type is
generated from it). A saved version keeps the JSON exactly as it was saved; reading it runs the
upgraders from its format_version up to FORMAT_VERSION, then validates. The frontend keeps the
same table in src/state/document.ts.

To change the format: bump NOTEBOOK_FORMAT_VERSION in models/notebook.py (and the Literal of
NotebookDocument.format_version), add `UPGRADERS[n]` turning a version n-1 dict into version n,
keep every older one forever, and keep tests/fixtures/notebook-v1.json opening (test_notebooks.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from .notebook import NOTEBOOK_FORMAT_VERSION, NotebookDocument

FORMAT_VERSION = NOTEBOOK_FORMAT_VERSION

Upgrader = Callable[[dict[str, Any]], dict[str, Any]]

# UPGRADERS[n]: a version n-1 document (a dict) -> version n. Version 1 is the first format.
UPGRADERS: dict[int, Upgrader] = {}


class DocumentError(ValueError):
    """A document that cannot be read: not an object, unknown or newer version, wrong shape."""

    def __init__(self, message: str, detail: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


def upgrade(raw: Any, upgraders: dict[int, Upgrader] | None = None, current: int | None = None) -> dict[str, Any]:
    """Run the upgraders on a document dict up to the current version (a copy; the input is kept)."""
    table = UPGRADERS if upgraders is None else upgraders
    target = FORMAT_VERSION if current is None else current
    if not isinstance(raw, dict):
        raise DocumentError("a notebook document is a JSON object")
    version = raw.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise DocumentError(f"format_version must be a positive integer, not {version!r}")
    if version > target:
        raise DocumentError(
            f"this notebook has format version {version}, made by a newer iolens; this one reads up to {target}",
            {"format_version": version, "supported": target},
        )
    doc = copy.deepcopy(raw)
    for v in range(version + 1, target + 1):
        if v not in table:
            raise DocumentError(f"no upgrader to format version {v}")
        doc = table[v](doc)
        doc["format_version"] = v
    return doc


def load(raw: Any) -> NotebookDocument:
    """A stored or uploaded document dict -> the current NotebookDocument (upgraded, validated)."""
    doc = upgrade(raw)
    try:
        return NotebookDocument.model_validate(doc)
    except ValidationError as exc:
        errors = [{"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()]
        raise DocumentError(f"not a valid notebook document: {errors[0]['field']}: {errors[0]['message']}", errors) from None
