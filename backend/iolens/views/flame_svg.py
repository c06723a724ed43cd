"""Flame graphs as standalone SVG files, for mailing lists that still want an attachment.

Pure: a tree (views/flame.py) in, SVG text out. Static (no script): each frame has a <title>
that viewers show as a tooltip. The same layout and colours as the browser's canvas
(frontend/src/logic/flame.ts, flameDiff.ts): frames narrower than a pixel are merged with their
sub-pixel siblings into one grey block; a zoom draws the zoomed frame full width with its
ancestors above (icicle) or below (flame); a search colours matching frames and gives the share
of samples under them.

Colours and layout (store/rules/flame.py), kept identical to the frontend's (both test the same
vectors, testdata/vectors/flame.json):
- a frame: FNV-1a (32 bit) of its name's code points -> one of 64 warm colours (frame_rgb below);
  command names (depth 1) and the root in grey;
- a difference: the change of share, from neutral (#eeebe7) to red (#d6453d, grew) or blue
  (#3b6fc4, shrank), linear in |change| / the largest |change| of the tree; changes within the
  spread between repeats (noise) grey and hatched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape as _escape

from ..store.rules.flame import (
    CHAR_W,
    FONT,
    MATCH,
    MERGED,
    NOISE,
    PAD,
    ROW,
    Layout,
    dim,
    hex_rgb,
    visible,
)


def escape(text: str) -> str:
    return _escape(text, quote=False)




def wrap(text: str, px: float) -> list[str]:
    """Lines of at most px wide, cut at ' · ' where possible."""
    lines: list[str] = []
    for part in text.split(" · "):
        if lines and (len(lines[-1]) + 3 + len(part)) * CHAR_W <= px:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return lines or [""]


def fit(text: str, px: float) -> str:
    n = int((px - 6) / CHAR_W)
    if n < 3:
        return ""
    return text if len(text) <= n else text[: n - 2] + ".."


@dataclass
class SvgSpec:
    names: list[str]
    lay: Layout
    title: str
    subtitle: str
    colour: Callable[[int], str]          # node -> fill
    tooltip: Callable[[int], str]         # node -> <title> text
    zoom: list[str] = field(default_factory=list)
    search: str | None = None
    icicle: bool = False
    width: int = 1200
    legend: list[tuple[str, str]] = field(default_factory=list)  # (fill, text)
    hatch: Callable[[int], bool] = lambda _i: False
    footer: str = ""
    max_rows: int | None = None            # draw at most this many levels (a page's export); None: all


def search_match(names: list[str], pattern: str | None) -> list[bool] | None:
    """Per distinct name: does it match the regular expression (None: no search)?"""
    if not pattern:
        return None
    rx = re.compile(pattern)
    return [bool(rx.search(n)) for n in names]


def matched_share(lay: Layout, match: list[bool], root: int = 0) -> int:
    """Weight under matching frames of root's subtree, each sample once (a matching frame inside
    a matching frame is not added again)."""
    total, i, stop = 0, root, lay.end[root]
    while i < stop:
        if match[lay.name[i]]:
            total += lay.total[i]
            i = lay.end[i]
        else:
            i += 1
    return total


def render(spec: SvgSpec) -> str:
    lay, names = spec.lay, spec.names
    zoom, missing = lay.find(names, spec.zoom)
    inner = spec.width - 2 * PAD
    rects = visible(lay, zoom, inner)
    max_depth = max((r.depth for r in rects), default=0)
    cut = 0
    if spec.max_rows is not None and max_depth >= spec.max_rows:
        cut = max_depth - spec.max_rows + 1
        rects = [r for r in rects if r.depth < spec.max_rows]
        max_depth = spec.max_rows - 1
    sub = wrap(spec.subtitle, spec.width - 2 * PAD)
    head = 28 + 16 * len(sub)
    graph_h = (max_depth + 1) * ROW
    legend_rows: list[list[tuple[str, str, float]]] = []
    x = 0.0
    for fill, text in spec.legend:
        w = 16 + len(text) * CHAR_W + 18
        if not legend_rows or x + w > spec.width - 2 * PAD:
            legend_rows.append([])
            x = 0.0
        legend_rows[-1].append((fill, text, x))
        x += w
    foot = 22 + 18 * len(legend_rows)
    height = head + graph_h + foot
    match = search_match(names, spec.search)

    def y(depth: int) -> float:
        return head + (depth * ROW if spec.icicle else (max_depth - depth) * ROW)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{spec.width}" height="{height}" '
        f'viewBox="0 0 {spec.width} {height}" font-family="ui-monospace, Menlo, Consolas, \'DejaVu Sans Mono\', monospace" '
        f'font-size="{FONT}">',
        '<defs><pattern id="noise" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<rect width="6" height="6" fill="{NOISE}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#aeb3ba" stroke-width="2"/>'
        '</pattern></defs>',
        f'<rect width="{spec.width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{PAD}" y="18" font-size="13" font-weight="bold" fill="#1f2328">{escape(spec.title)}</text>',
    ]
    out += [f'<text x="{PAD}" y="{34 + 16 * k}" fill="#656d76">{escape(line)}</text>' for k, line in enumerate(sub)]
    for r in rects:
        x, w, top = PAD + r.x, r.w, y(r.depth)
        if r.node < 0:
            out.append(f'<g><title>{r.merged} frames, each narrower than a pixel</title>'
                       f'<rect x="{x:.2f}" y="{top}" width="{w:.2f}" height="{ROW - 1}" fill="{MERGED}"/></g>')
            continue
        i = r.node
        fill = spec.colour(i)
        if spec.hatch(i):
            fill = "url(#noise)"
        if match is not None and lay.depth[i] > 0:
            fill = MATCH if match[lay.name[i]] else _dimmed(fill)
        label = fit(names[lay.name[i]], w)
        text = (f'<text x="{x + 3:.2f}" y="{top + ROW - 4.5}" fill="#1f2328">{escape(label)}</text>' if label else "")
        out.append(f'<g><title>{escape(spec.tooltip(i))}</title><rect x="{x:.2f}" y="{top}" width="{w:.2f}" '
                   f'height="{ROW - 1}" rx="1" fill="{fill}"/>{text}</g>')
    base = head + graph_h + 15
    notes = []
    if spec.zoom and not missing:
        notes.append("zoomed to " + " > ".join(spec.zoom[-3:]) if len(spec.zoom) <= 3
                     else "zoomed to ... > " + " > ".join(spec.zoom[-3:]))
    if missing:
        notes.append(f"zoom path not found from {missing[0]!r}: shown from its deepest existing frame")
    if match is not None:
        share = matched_share(lay, match)
        pct = 100.0 * share / lay.total[0] if lay.total[0] else 0.0
        notes.append(f"search /{spec.search}/: {pct:.2f}% of samples matched")
    if cut:
        notes.append(f"the {cut} deepest level{'s' if cut > 1 else ''} not drawn (the app shows them)")
    if spec.footer:
        notes.append(spec.footer)
    out.append(f'<text x="{PAD}" y="{base}" fill="#656d76">{escape(" · ".join(notes))}</text>')
    for k, row in enumerate(legend_rows):
        ly = base + 7 + 18 * k
        for fill, text, lx in row:
            out.append(f'<rect x="{PAD + lx:.0f}" y="{ly}" width="12" height="10" fill="{fill}"/>')
            out.append(f'<text x="{PAD + lx + 16:.0f}" y="{ly + 9}" fill="#656d76">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _dimmed(fill: str) -> str:
    if fill.startswith("#") and len(fill) == 7:
        return hex_rgb(dim([int(fill[k:k + 2], 16) for k in (1, 3, 5)]))
    return fill
