"""Saved notebook versions: immutable rows of `notebook_versions`, each with a short id.

Id scheme: the first 10 characters (50 bits) of the lower-case Crockford base32 of
sha256(canonical JSON of {"document": ..., "parent": ...}). The same document saved again from
the same parent is the same version (saving is idempotent); the same text saved from another
parent is another version (its history differs). Should two different contents ever share 10
characters, the newer one gets 12, then 14... (the full hash is stored to tell).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

from .. import models
from ..models import notebook_upgrade as doc_format
from ..models.common import iso
from .db import Store

ID_LENGTH = 10
NOTEBOOK_ID = re.compile(r"^[0-9a-z]{10,52}$")
MAX_DOCUMENT_BYTES = 2 << 20


class NotebookError(Exception):
    def __init__(self, status: int, message: str, detail: object = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.detail = detail


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


_B32 = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789abcdefghjkmnpqrstvwxyz")


def content_hash(document: dict[str, Any], parent: str | None) -> tuple[str, str]:
    """(full sha256 hex, base32 text to cut the id from)."""
    digest = hashlib.sha256(canonical({"document": document, "parent": parent})).digest()
    return digest.hex(), base64.b32encode(digest).decode().rstrip("=").translate(_B32)


def _search_text(d: models.NotebookDocument, caps: dict[str, dict[str, Any]]) -> str:
    parts = [d.title]
    for c in d.cells:
        if isinstance(c, models.MarkdownCell):
            parts.append(c.text)
        elif isinstance(c, models.SqlCell):
            parts.append(c.sql)
        else:
            parts.append(c.kind)
    for cid in d.captures:
        c = caps.get(cid)
        parts.append(cid)
        if c:
            tags = json.loads(c["tags"])
            parts += [c["label"], c["kernel"] or "", c["hostname"] or "", *(f"{k}={v} {v}" for k, v in tags.items())]
    return " ".join(" ".join(parts).split()).lower()


def _captures(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    rows = store.query(
        "SELECT capture_id, label, kernel, hostname, tags FROM captures WHERE list_contains($ids, capture_id)",
        {"ids": ids},
    ).dicts()
    return {r["capture_id"]: r for r in rows}


def save(store: Store, body: models.NotebookCreate) -> models.NotebookSaved:
    d = body.document
    if d.baseline not in d.captures:
        raise NotebookError(422, f"baseline {d.baseline} is not one of the notebook's captures",
                            {"field": "document.baseline"})
    if len(set(d.captures)) != len(d.captures):
        raise NotebookError(422, "a capture is listed twice", {"field": "document.captures"})
    caps = _captures(store, d.captures)
    missing = [c for c in d.captures if c not in caps]
    if missing:
        raise NotebookError(422, f"unknown capture id(s): {', '.join(missing)}", {"missing": missing})
    parent = body.parent
    if parent is not None and store.query(
            "SELECT 1 FROM notebook_versions WHERE notebook_id = ?", [parent]).scalar() is None:
        raise NotebookError(422, f"parent {parent} is not a saved notebook", {"field": "parent"})

    doc = d.model_dump(mode="json")
    raw = canonical(doc)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise NotebookError(413, f"the notebook is {len(raw)} bytes; at most {MAX_DOCUMENT_BYTES}")
    sha, text = content_hash(doc, parent)
    now = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    with store.write() as w:
        length = ID_LENGTH
        while True:
            nid = text[:length]
            found = w.query("SELECT sha256, created_at FROM notebook_versions WHERE notebook_id = ?", [nid]).rows
            if not found:
                break
            if found[0][0] == sha:
                return models.NotebookSaved(id=nid, parent=parent, created=False, created_at=iso(found[0][1]) or "",
                                            url=f"/n/{nid}")
            length += 2
        w.execute(
            """INSERT INTO notebook_versions (notebook_id, sha256, parent_id, format_version, title, captures,
                   document, search_text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [nid, sha, parent, d.format_version, d.title, d.captures, raw.decode("utf-8"),
             _search_text(d, caps), now],
        )
    return models.NotebookSaved(id=nid, parent=parent, created=True, created_at=iso(now) or "", url=f"/n/{nid}")


_COLUMNS = "notebook_id, parent_id, format_version, title, captures, document, created_at"


def _summary(store: Store, rows: list[dict[str, Any]], with_document: bool) -> list[Any]:
    ids = [r["notebook_id"] for r in rows]
    kids: dict[str, list[str]] = {}
    for parent, child in store.query(
            """SELECT parent_id, notebook_id FROM notebook_versions WHERE list_contains($ids, parent_id)
               ORDER BY created_at DESC, notebook_id""", {"ids": ids}).rows:
        kids.setdefault(parent, []).append(child)
    caps = _captures(store, sorted({c for r in rows for c in r["captures"]}))
    out = []
    for r in rows:
        try:
            d = doc_format.load(json.loads(r["document"]))
        except doc_format.DocumentError as exc:
            if with_document:
                raise NotebookError(422, f"notebook {r['notebook_id']}: {exc.message}", exc.detail) from exc
            continue
        fields = dict(
            id=r["notebook_id"],
            parent=r["parent_id"],
            title=d.title,
            created_at=iso(r["created_at"]) or "",
            format_version=r["format_version"],
            captures=[
                models.NotebookCapture(id=c, label=caps[c]["label"], kernel=caps[c]["kernel"],
                                       tags=json.loads(caps[c]["tags"]))
                for c in d.captures if c in caps
            ],
            cells=len(d.cells),
            kinds=[c.kind if isinstance(c, models.ViewCell) else c.type for c in d.cells],
            children=kids.get(r["notebook_id"], []),
        )
        out.append(models.NotebookVersion(**fields, document=d) if with_document else models.NotebookSummary(**fields))
    return out


def get(store: Store, notebook_id: str) -> models.NotebookVersion:
    if not NOTEBOOK_ID.match(notebook_id):
        raise NotebookError(404, f"'{notebook_id}' is not a notebook id (10 or more letters and digits)")
    rows = store.query(f"SELECT {_COLUMNS} FROM notebook_versions WHERE notebook_id = ?", [notebook_id]).dicts()
    if not rows:
        raise NotebookError(404, f"no notebook with id {notebook_id}")
    return _summary(store, rows, with_document=True)[0]


def search(store: Store, q: str = "", limit: int = 200) -> models.NotebookList:
    """Versions, newest first; every word of `q` must occur in the title, text, SQL, capture
    labels, tags, kernels or hosts (case-insensitive), or `q` is a version id's prefix."""
    words = q.lower().split()
    where = " AND ".join(f"(contains(search_text, ${i + 1}) OR starts_with(notebook_id, ${i + 1}))"
                         for i in range(len(words))) or "TRUE"
    total = store.query(f"SELECT count(*) FROM notebook_versions WHERE {where}", words).scalar()
    rows = store.query(
        f"SELECT {_COLUMNS} FROM notebook_versions WHERE {where} ORDER BY created_at DESC, notebook_id LIMIT {int(limit)}",
        words,
    ).dicts()
    return models.NotebookList(notebooks=_summary(store, rows, with_document=False), total=total)
