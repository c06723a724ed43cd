"""Transforms of call stacks and the left-heavy order: the rules the flame cell applies in the
browser (frontend/src/logic/flameStacks.ts) and the flame exports (folded text, SVG) apply on the
server, so an export draws what the cell shows. Both test the same vectors
(testdata/vectors/flame-transforms.json).

- A stack is a tuple of frame names, root side first; its first frame is the task's command name
  (folded stacks' first field), which no transform touches, until a focus makes a function the
  root (`comm` False from then on).
- Transforms (Firefox Profiler's), applied in their order, each on one function name; one whose
  function is in no stack (command names aside) is skipped and reported as missing:
    focus  samples without the function go; the frames above its outermost call go
    merge  its frames go; their samples become their callers' own
    drop   samples with the function anywhere go
    rec    recursion collapsed: between its outermost and innermost call, frames go (A F B F C -> A F C)
    drec   direct recursion collapsed: a run of consecutive frames of it becomes one (A F F F B -> A F B);
           on `[unknown]`, the chains perf's frame-pointer unwinder makes in code without frame pointers
- Their text (the cell's `x=` field and the exports' `transforms` parameter): `OP:NAME` items
  separated by ',', NAME percent-encoded (a function name may hold ',' or ':').
- Order: 'name' sorts siblings by name (inferno's); 'heavy' puts the heaviest sibling first, left
  (speedscope's left heavy), ties by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, unquote

TransformOp = Literal["focus", "merge", "drop", "rec", "drec"]
OPS: tuple[TransformOp, ...] = ("focus", "merge", "drop", "rec", "drec")
Order = Literal["name", "heavy"]
MAX_TRANSFORMS = 50
TRANSFORM_LABEL: dict[str, str] = {"focus": "Focus on", "merge": "Merge into callers", "drop": "Drop samples with",
                                   "rec": "Collapse recursion of", "drec": "Collapse direct recursion of"}
MAX_NAME = 2000


@dataclass(frozen=True)
class Transform:
    op: TransformOp
    name: str

    def text(self) -> str:
        return f"{self.op}:{quote(self.name, safe='')}"


class BadTransforms(ValueError):
    """The text of a list of transforms cannot be read (the message names the item)."""


def parse_transforms(text: str | None) -> list[Transform]:
    """`focus:NAME,merge:NAME,...` (NAME percent-encoded) -> transforms; '' or None -> []."""
    if not text:
        return []
    out: list[Transform] = []
    for item in text.split(","):
        op, colon, name = item.partition(":")
        if not colon or op not in OPS:
            raise BadTransforms(f"transforms: '{item[:40]}' is not OP:NAME (OP one of {', '.join(OPS)})")
        try:
            name = unquote(name, errors="strict")
        except UnicodeDecodeError as exc:
            raise BadTransforms(f"transforms: '{item[:40]}' is not percent-encoded UTF-8 text") from exc
        if not name or len(name) > MAX_NAME:
            raise BadTransforms(f"transforms: {op} needs a function name of 1 to {MAX_NAME} characters")
        out.append(Transform(op, name))  # type: ignore[arg-type]
    if len(out) > MAX_TRANSFORMS:
        raise BadTransforms(f"transforms: more than {MAX_TRANSFORMS}")
    return out


def format_transforms(items: Iterable[Transform]) -> str:
    return ",".join(t.text() for t in items)


Stack = tuple[str, ...]


@dataclass
class Applied:
    stacks: dict[Stack, list[int]]   # stack -> values (summed where transforms made stacks equal)
    comm: bool                       # the first frame is still the command name
    missing: list[Transform]         # skipped: their function is in no stack


def apply_transforms(stacks: Mapping[Stack, Sequence[int]], items: Sequence[Transform], *,
                     comm: bool = True) -> Applied:
    """Apply the transforms in order to stacks with values (weight, samples, ...)."""
    cur: dict[Stack, list[int]] = {k: list(v) for k, v in stacks.items()}
    missing: list[Transform] = []
    for t in items:
        lo = 1 if comm else 0
        if not any(t.name in s[lo:] for s in cur):
            missing.append(t)
            continue
        nxt: dict[Stack, list[int]] = {}
        for s, vals in cur.items():
            out = _one(s, t, lo)
            if out is None:
                continue
            acc = nxt.get(out)
            if acc is None:
                nxt[out] = list(vals)
            else:
                for i, v in enumerate(vals):
                    acc[i] += v
        cur = nxt
        if t.op == "focus":
            comm = False
    return Applied(cur, comm, missing)


def _one(s: Stack, t: Transform, lo: int) -> Stack | None:
    f = t.name
    at = [p for p in range(lo, len(s)) if s[p] == f]
    if t.op == "focus":
        return s[at[0]:] if at else None
    if t.op == "drop":
        return None if at else s
    if t.op == "merge":
        return s[:lo] + tuple(x for x in s[lo:] if x != f) if at else s
    if not at:
        return s
    if t.op == "drec":  # a frame of f right after a frame of f (from its first call on) goes
        return s[:at[0] + 1] + tuple(x for p, x in enumerate(s[at[0] + 1:], at[0] + 1) if x != f or s[p - 1] != f)
    # rec: keep up to the outermost call, then what follows the innermost
    return s[:at[0] + 1] + s[at[-1] + 1:]


def ordered(stacks: Mapping[Stack, Sequence[int]], order: Order, col: int = 0) -> list[Stack]:
    """The stacks in the order their leaves appear in the tree: by name (as inferno sorts folded
    lines: the stack text), or left heavy (pre-order of the tree with the heaviest sibling first by
    column `col`'s subtree total, ties by name)."""
    if order == "name":
        return sorted(stacks, key=lambda s: ";".join(s))
    # a trie of the stacks with subtree totals
    root: dict = {}
    totals: dict[int, int] = {}
    for s, vals in stacks.items():
        node = root
        totals[id(node)] = totals.get(id(node), 0) + vals[col]
        for fr in s:
            node = node.setdefault(fr, {})
            totals[id(node)] = totals.get(id(node), 0) + vals[col]
    ends = set(stacks)
    out: list[Stack] = []
    todo: list[tuple[dict, Stack]] = [(root, ())]
    while todo:
        node, path = todo.pop()
        if path in ends:
            out.append(path)
        kids = sorted(node.items(), key=lambda kv: (-totals[id(kv[1])], kv[0]))
        for name, child in reversed(kids):
            todo.append((child, path + (name,)))
    return out


def reorder(name: Sequence[int], depth: Sequence[int], names: Sequence[str], values: Sequence[Sequence[int]],
            order: Order, col: int = 0) -> tuple[list[int], list[int], list[list[int]]]:
    """A tree's pre-order columns (name index, depth, per-node self values) with its siblings in
    another order; 'heavy' by the subtree total of values[col]. Returns (name, depth, values)."""
    n = len(depth)
    parent = [-1] * n
    path: list[int] = []
    kids: list[list[int]] = [[] for _ in range(n)]
    for i, d in enumerate(depth):
        del path[d:]
        if path:
            parent[i] = path[-1]
            kids[path[-1]].append(i)
        path.append(i)
    total = list(values[col]) if n else []
    for i in range(n - 1, 0, -1):
        total[parent[i]] += total[i]
    if order == "heavy":
        for k in kids:
            k.sort(key=lambda i: (-total[i], names[name[i]]))
    else:
        for k in kids:
            k.sort(key=lambda i: names[name[i]])
    out_name: list[int] = []
    out_depth: list[int] = []
    out_vals: list[list[int]] = [[] for _ in values]
    todo = [0] if n else []
    while todo:
        i = todo.pop()
        out_name.append(name[i])
        out_depth.append(depth[i])
        for c, v in zip(out_vals, values):
            c.append(v[i])
        todo.extend(reversed(kids[i]))
    return out_name, out_depth, out_vals
