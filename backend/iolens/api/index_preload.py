"""The API answers a page asks for first, named in the index.html served for its URL.

A notebook link's page starts its requests from its URL before React renders (frontend/src/boot.ts,
each cell kind's `prefetch`); naming the same requests as `<link rel="preload" as="fetch"
crossorigin>` in the HTML starts them while the HTML is parsed, before the page's scripts have been
fetched, compiled and run (issue 17: the flame graph's first paint). The browser gives the page's
own request the preloaded answer when the two are the same request: the same URL, no header of its
own (the flame graph's columns answer is asked for with `format=columns`, not by Accept).

The rule (testdata/vectors/index-preload.json, read by this module's tests and by boot.ts's): only
requests the page surely makes, so a rule that names fewer than the page asks for loses time, never
makes a request the page does not use. Nor one the server knows is a 404: a capture of the link
that the store holds without call stacks has no flame answer; it is not preloaded, and the page is
told which of its captures those are (`<meta name="iolens-without-stacks">`), so that boot.ts does
not ask for it either (a hand-made link whose baseline has no stacks: no 404 in the console).
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Sequence
from urllib.parse import parse_qsl, quote

__all__ = ["inject", "preloads", "without_stacks"]

URL_VERSION = 1  # frontend/src/state/url.ts URL_VERSION
CAPTURE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # url.ts CAPTURE_ID
NOTEBOOK_ID = re.compile(r"[0-9a-z]{10,52}")  # url.ts NOTEBOOK_ID
# a flame cell of the default state (url.ts CELL_TOKEN: the kind, its modifiers, no ':' state)
FLAME_DEFAULT = {"flame", "flame.full"}
EVERY_PAGE = ["/api/captures", "/api/health"]  # boot.ts: what every notebook page asks for


def _norm_path(path: str) -> str:
    p = re.sub(r"/{2,}", "/", path)
    return p.rstrip("/") if len(p) > 1 else p


def _link_captures(query: str) -> tuple[list[str], str, list[tuple[str, str]]] | None:
    """A notebook link's captures, baseline and parameters; None when it is not one of this version."""
    params = parse_qsl(query, keep_blank_values=True)
    first: dict[str, str] = {}
    for k, v in params:
        first.setdefault(k, v)
    # links of the version this page writes only: an older one is upgraded by the page's rules
    if first.get("v") != str(URL_VERSION):
        return None
    raw = [c.strip() for c in first.get("captures", "").split(",") if c.strip()]
    if not raw or not all(CAPTURE_ID.fullmatch(c) for c in raw):
        return None
    captures = list(dict.fromkeys(raw))
    baseline = first.get("baseline", "")
    return captures, baseline if baseline in captures else captures[0], params


def without_stacks(path: str, query: str, stackless: Collection[str] = (),
                   saved: Sequence[str] | None = None) -> list[str]:
    """The captures of a notebook link (in its order) that the server holds without call stacks
    (`stackless`: the store's captures without perf samples): their flame answer is a 404. A saved
    notebook's page (/n/ID) names no captures in its URL: `saved` is its document's captures."""
    path = _norm_path(path)
    if path.startswith("/n/"):
        return [c for c in saved if c in stackless] if saved is not None and NOTEBOOK_ID.fullmatch(path[3:]) else []
    link = _link_captures(query) if path == "/compare" else None
    return [c for c in link[0] if c in stackless] if link else []


def preloads(path: str, query: str, stackless: Collection[str] = ()) -> list[str]:
    """The answers to preload for the page at `path` with the query string `query` (no '?');
    `stackless`: captures the store holds without call stacks (no flame answer to preload)."""
    path = _norm_path(path)
    if path.startswith("/n/"):
        nb = path[3:]
        return [f"/api/notebooks/{nb}", *EVERY_PAGE] if NOTEBOOK_ID.fullmatch(nb) else []
    if path != "/compare":
        return []
    link = _link_captures(query)
    if link is None:
        return []
    _captures, baseline, params = link
    cells = [v for k, v in params if k == "cell"]
    # a timeline cell with a state may hold the notebook's shared time selection, which changes
    # the flame graph's request (boot.ts leaves it to the cell)
    timed = any(c.split(":", 1)[0].split(".", 1)[0] == "timeline" and ":" in c for c in cells)
    out = []
    if not timed and baseline not in stackless and any(c in FLAME_DEFAULT for c in cells):
        out.append(f"/api/captures/{quote(baseline, safe='')}/flame?format=columns")
    return out + EVERY_PAGE


def inject(index_html: str, path: str, query: str, stackless: Collection[str] = (),
           saved: Sequence[str] | None = None) -> str:
    """index.html with the preloads of `path`?`query` at the end of its head (after the page's
    own scripts, styles and font, which the browser asks for first), and the link's captures
    without call stacks (`stackless`, the store's) named for boot.ts; `saved`: a saved notebook's
    captures (its page's URL names none)."""
    links = "".join(f'    <link rel="preload" as="fetch" crossorigin href="{html.escape(u)}">\n'
                    for u in preloads(path, query, stackless))
    told = without_stacks(path, query, stackless, saved)
    if told:
        links += f'    <meta name="iolens-without-stacks" content="{html.escape(",".join(told))}">\n'
    at = index_html.find("</head>")
    if not links or at < 0:
        return index_html
    at = index_html.rfind("\n", 0, at) + 1  # the line of </head>
    return index_html[:at] + links + index_html[at:]
