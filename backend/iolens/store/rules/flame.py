"""Flame graph colours and layout, the rules the browser's canvas (frontend/src/logic/flame.ts,
flameDiff.ts) and the SVG export (views/flame_svg.py) share: both test the same vectors
(testdata/vectors/flame.json).

- A frame: FNV-1a (32 bit) of its name's code points -> one of 64 warm colours (frame_rgb);
  command names (depth 1) and the root in grey.
- A difference: the change of share, from neutral (#eeebe7) to red (#d6453d, grew) or blue
  (#3b6fc4, shrank), linear in |change| / the largest |change| of the tree (diff_rgb).
- Layout: frames narrower than a pixel are merged with their sub-pixel siblings into one block;
  a zoom draws the zoomed frame full width with its ancestors (visible).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ROW = 16
FONT = 11
CHAR_W = 6.6          # width of one character of an 11px monospace font
PAD = 10
MIN_PX = 1.0          # frames narrower than this are merged with their narrow siblings

NEUTRAL = (238, 235, 231)
GREW = (214, 69, 61)
SHRANK = (59, 111, 196)
NOISE = "#d3d6db"
MERGED = "#c9ccd1"
FEW = (122, 127, 135)   # a change not coloured red or blue: too few repeats to judge it
GREY = "#d5d9de"      # the root and the command names
MATCH = "#b44fcf"


def fnv1a(text: str) -> int:
    h = 2166136261
    for ch in text:
        h ^= ord(ch)
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def frame_rgb(name: str) -> tuple[int, int, int]:
    """One of 64 warm colours, picked by the name's hash (the same name always gets the same
    colour; few distinct fills keep the canvas fast)."""
    k = fnv1a(name) % 64
    lo, hi = (k % 8) * 8192 + 4096, (k // 8) * 8192 + 4096
    return 232 + (20 * hi) // 65536, 128 + (92 * lo) // 65536, 64 + (48 * hi) // 65536


def hex_rgb(c: Sequence[int]) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in c)


def dim(c: Sequence[int]) -> tuple[int, int, int]:
    """A frame that does not match the search: 60% towards white."""
    return tuple((2 * v + 3 * 255) // 5 for v in c)  # type: ignore[return-value]


def diff_rgb(delta: float, max_abs: float) -> tuple[int, int, int]:
    """Red when the share grew, blue when it shrank, intensity |delta| / max_abs."""
    t = min(1.0, abs(delta) / max_abs) if max_abs > 0 else 0.0
    target = GREW if delta > 0 else SHRANK
    return tuple(int(b + (x - b) * t + 0.5) for b, x in zip(NEUTRAL, target))  # type: ignore[return-value]


def few_rgb(delta: float, max_abs: float) -> tuple[int, int, int]:
    """A change between sides with too few repeats to judge it (stats.too_few_repeats, the tables'
    grey '?'): grey, darker by |delta| / max_abs, the same whether it grew or shrank."""
    t = min(1.0, abs(delta) / max_abs) if max_abs > 0 else 0.0
    return tuple(int(b + (x - b) * t + 0.5) for b, x in zip(NEUTRAL, FEW))  # type: ignore[return-value]


@dataclass
class Layout:
    """Pre-order arrays of a tree with each node's total, start and subtree end."""

    name: list[int]
    depth: list[int]
    total: list[int]
    x0: list[int]
    end: list[int]          # index after the node's last descendant
    parent: list[int]

    @classmethod
    def of(cls, name: list[int], depth: list[int], self_values: Sequence[int]) -> Layout:
        n = len(depth)
        parent = [-1] * n
        stack: list[int] = []
        for i, d in enumerate(depth):
            del stack[d:]
            if stack:
                parent[i] = stack[-1]
            stack.append(i)
        total = list(self_values)
        for i in range(n - 1, 0, -1):
            total[parent[i]] += total[i]
        x0 = [0] * n
        nxt = [0] * n
        for i in range(1, n):
            p = parent[i]
            x0[i] = nxt[p]
            nxt[p] += total[i]
            nxt[i] = x0[i]
        end = [n] * n
        stack = []
        for i, d in enumerate(depth):
            while stack and depth[stack[-1]] >= d:
                end[stack.pop()] = i
            stack.append(i)
        return cls(name, depth, total, x0, end, parent)

    def find(self, names: list[str], path: Sequence[str]) -> tuple[int, list[str]]:
        """The node at the end of path (frame names below the root), or the deepest that exists,
        and the part of the path that was not found."""
        node = 0
        for k, frame in enumerate(path):
            i, found = node + 1, -1
            while i < self.end[node]:
                if names[self.name[i]] == frame:
                    found = i
                    break
                i = self.end[i]
            if found < 0 or self.total[found] == 0:
                return node, list(path[k:])
            node = found
        return node, []


@dataclass
class Rect:
    x: float
    w: float
    depth: int
    node: int           # -1 for a merged block
    merged: int = 0     # frames in a merged block


def visible(lay: Layout, zoom: int, width: float) -> list[Rect]:
    """The frames to draw: the zoomed node's ancestors full width, its subtree scaled to width,
    runs of sibling frames narrower than MIN_PX merged."""
    out: list[Rect] = []
    node = lay.parent[zoom]
    while node >= 0:
        out.append(Rect(0.0, width, lay.depth[node], node))
        node = lay.parent[node]
    total = lay.total[zoom]
    if total <= 0:
        return out
    scale = width / total
    origin = lay.x0[zoom]
    out.append(Rect(0.0, width, lay.depth[zoom], zoom))
    i, stop = zoom + 1, lay.end[zoom]
    while i < stop:
        w = lay.total[i] * scale
        if w >= MIN_PX:
            out.append(Rect((lay.x0[i] - origin) * scale, w, lay.depth[i], i))
            i += 1
            continue
        # merge this frame and its following narrow siblings; skip their subtrees
        x, count, j, d, p = (lay.x0[i] - origin) * scale, 0, i, lay.depth[i], lay.parent[i]
        weight = 0
        while j < stop and lay.depth[j] == d and lay.parent[j] == p and lay.total[j] * scale < MIN_PX:
            weight += lay.total[j]
            count += 1
            j = lay.end[j]
        if weight * scale >= 0.5 and count:
            out.append(Rect(x, weight * scale, d, -1, count))
        i = j
    return out
