"""What the exports share: the notebook's context and the shape of one view kind's exporter.

Each view kind's exporter (a `ViewExport`: its data, its text, its HTML) lives in its own module
(fio: exports/fio.py) and is listed in exports/registry.py; text.py and html.py draw every kind
through that registry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import models
from ..store.db import Store
from ..store.sandbox import Sandbox
from ..views import captures as captures_view
from ..views import comparison, fio_compare


@dataclass
class ExportContext:
    store: Store
    sandbox: Sandbox
    version: models.NotebookVersion
    base_url: str
    captures: list[models.CapturePublic] = field(default_factory=list)  # baseline first
    host_diff: list[models.HostDiff] = field(default_factory=list)
    short: dict[str, str] = field(default_factory=dict)  # capture id -> name that fits 16 columns
    # kernel release and .config options, workload differences, incomparable set-ups (views/comparison.py)
    facts: models.ComparisonFacts | None = None
    # the cell being drawn (its position and state text), for what only its chart reads (html.py sets them)
    cell_index: int | None = None
    cell_state: str = ""
    # what several cells read once per export (the shared time selection, runs' offsets: selection.py)
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def doc(self) -> models.NotebookDocument:
        return self.version.document

    @property
    def permalink(self) -> str:
        return f"{self.base_url.rstrip('/')}/n/{self.version.id}"

    def cell_link(self, index: int) -> str:
        return f"{self.permalink}#cell-{index + 1}"

    def label(self, capture_id: str) -> str:
        return next((c.label for c in self.captures if c.id == capture_id), capture_id)

    def name(self, capture_id: str) -> str:
        """The capture's name in text tables: its label, or a shorter one defined in the header."""
        return self.short.get(capture_id) or self.label(capture_id)


def context(store: Store, sandbox: Sandbox, version: models.NotebookVersion, base_url: str) -> ExportContext:
    doc = version.document
    by_id = {c.id: c for c in captures_view.list_captures(store) if c.id in doc.captures}
    order = [doc.baseline, *(c for c in doc.captures if c != doc.baseline)]
    caps = [by_id[c] for c in order if c in by_id]
    diff = fio_compare.host_diff(store, [c.id for c in caps]) if len(caps) > 1 else []
    from .textfmt import short_names

    short = dict(zip([c.id for c in caps], short_names([c.label for c in caps])))
    ids = [c.id for c in caps]
    facts = comparison.comparison_facts(store, ids, {c.id: c.label for c in caps}) if len(caps) > 1 else None
    return ExportContext(store, sandbox, version, base_url, caps, diff, short, facts)


class ViewExport(Protocol):
    title: str

    def read_state(self, state: str) -> dict[str, Any]:
        """What the export reads of the cell's state text (its URL text, cells/KIND/state.ts), in
        the frontend's field names; tested with the frontend's decode on
        testdata/vectors/cell-state.json."""
        ...

    def data(self, ctx: ExportContext, state: str) -> Any: ...

    def text(self, ctx: ExportContext, data: Any) -> list[str]: ...

    def html(self, ctx: ExportContext, data: Any) -> str: ...


def parse_state(state: str) -> dict[str, str]:
    """The common `key=value;key=value` form of cell states (kinds may use any form)."""
    out: dict[str, str] = {}
    for part in state.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


def embedded_json(obj: Any) -> str:
    """JSON safe inside <script type="application/json">."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
