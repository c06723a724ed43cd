"""Helpers of the notebook and export tests (not a test module): save a notebook over HTTP, make an
export's save time stable for golden files, and check that text survives a mailing list."""

from __future__ import annotations

import re


def save(client, doc: dict, parent: str | None = None, **kw):
    return client.post("/api/notebooks", json={"document": doc, "parent": parent}, **kw)


def stable(text: str) -> str:
    return re.sub(r"saved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "saved YYYY-MM-DD HH:MM:SS UTC", text)


def check_mail_safe(text: str) -> None:
    for n, line in enumerate(text.split("\n"), 1):
        assert len(line) <= 72, (n, line)
        assert "\t" not in line and line == line.rstrip(), (n, line)
        assert all(" " <= ch <= "~" for ch in line), (n, line)
        # quoted in a reply, it still fits an 80-column terminal
        assert len("> > " + line) <= 80
