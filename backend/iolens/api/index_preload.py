"""The API answers a page asks for first, named in the index.html served for its URL.

A notebook link's page starts its requests from its URL before React renders (frontend/src/boot.ts,
each cell kind's `prefetch`); naming the same requests as `<link rel="preload" as="fetch"
crossorigin>` in the HTML starts them while the HTML is parsed, before the page's scripts have been
fetched, compiled and run (issue 17: the flame graph's first paint). The browser gives the page's
own request the preloaded answer when the two are the same request: the same URL, no header of its
own (the flame graph's columns answer is asked for with `format=columns`, not by Accept).

The rule (testdata/vectors/index-preload.json, read by this module's tests and by boot.ts's): only
requests the page surely makes, so a rule that names fewer than the page asks for loses time, never
makes a request the page does not use.
"""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl, quote

__all__ = ["inject", "preloads"]

URL_VERSION = 1  # frontend/src/state/url.ts URL_VERSION
CAPTURE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # url.ts CAPTURE_ID
NOTEBOOK_ID = re.compile(r"[0-9a-z]{10,52}")  # url.ts NOTEBOOK_ID
# a flame cell of the default state (url.ts CELL_TOKEN: the kind, its modifiers, no ':' state)
FLAME_DEFAULT = {"flame", "flame.full"}
EVERY_PAGE = ["/api/captures", "/api/health"]  # boot.ts: what every notebook page asks for


def _norm_path(path: str) -> str:
    p = re.sub(r"/{2,}", "/", path)
    return p.rstrip("/") if len(p) > 1 else p


def preloads(path: str, query: str) -> list[str]:
    """The answers to preload for the page at `path` with the query string `query` (no '?')."""
    path = _norm_path(path)
    if path.startswith("/n/"):
        nb = path[3:]
        return [f"/api/notebooks/{nb}", *EVERY_PAGE] if NOTEBOOK_ID.fullmatch(nb) else []
    if path != "/compare":
        return []
    params = parse_qsl(query, keep_blank_values=True)
    first = {}
    for k, v in params:
        first.setdefault(k, v)
    # links of the version this page writes only: an older one is upgraded by the page's rules
    if first.get("v") != str(URL_VERSION):
        return []
    raw = [c.strip() for c in first.get("captures", "").split(",") if c.strip()]
    if not raw or not all(CAPTURE_ID.fullmatch(c) for c in raw):
        return []
    captures = list(dict.fromkeys(raw))
    baseline = first.get("baseline", "")
    if baseline not in captures:
        baseline = captures[0]
    cells = [v for k, v in params if k == "cell"]
    # a timeline cell with a state may hold the notebook's shared time selection, which changes
    # the flame graph's request (boot.ts leaves it to the cell)
    timed = any(c.split(":", 1)[0].split(".", 1)[0] == "timeline" and ":" in c for c in cells)
    out = []
    if not timed and any(c in FLAME_DEFAULT for c in cells):
        out.append(f"/api/captures/{quote(baseline, safe='')}/flame?format=columns")
    return out + EVERY_PAGE


def inject(index_html: str, path: str, query: str) -> str:
    """index.html with the preloads of `path`?`query` at the end of its head (after the page's
    own scripts, styles and font, which the browser asks for first)."""
    links = "".join(f'    <link rel="preload" as="fetch" crossorigin href="{html.escape(u)}">\n'
                    for u in preloads(path, query))
    at = index_html.find("</head>")
    if not links or at < 0:
        return index_html
    at = index_html.rfind("\n", 0, at) + 1  # the line of </head>
    return index_html[:at] + links + index_html[at:]
