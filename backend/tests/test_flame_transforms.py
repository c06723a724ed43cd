"""The flame cell's transforms and left-heavy order on the server (store/rules/flame_stacks.py),
tested on the vectors the browser's copy (frontend/src/logic/flameStacks.ts) is tested on:
testdata/vectors/flame-transforms.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolens.store.rules import flame_stacks as fx

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "testdata" / "vectors" / "flame-transforms.json")
                     .read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in VECTORS["cases"]])
def test_transform_vectors(case):
    given = VECTORS[case.get("stacks", "stacks")]
    stacks = {tuple(k.split(";")): [w, 1] for k, w in given.items()}
    items = fx.parse_transforms(case["x"])
    assert fx.format_transforms(items) == case["x"]
    got = fx.apply_transforms(stacks, items)
    assert [f"{';'.join(k)} {got.stacks[k][0]}" for k in fx.ordered(got.stacks, case["order"]) if k] == case["folded"]
    assert sum(v[0] for k, v in got.stacks.items() if not k) == case["root_weight"]
    assert got.comm == case["comm"]
    assert [[t.op, t.name] for t in got.missing] == case["missing"]
    # weight is neither made nor lost, except by drop and focus
    if not any(t.op in ("drop", "focus") for t in items):
        assert sum(v[0] for v in got.stacks.values()) == sum(given.values())


def test_reorder_puts_the_heaviest_sibling_first():
    # all(0) > a(1) > [x(2) self 1, y(2) self 5], b(1) self 3
    names = ["all", "a", "x", "y", "b"]
    name, depth, vals = fx.reorder([0, 1, 2, 3, 4], [0, 1, 2, 2, 1], names, [[0, 0, 1, 5, 3]], "heavy")
    assert [names[i] for i in name] == ["all", "a", "y", "x", "b"] and depth == [0, 1, 2, 2, 1]
    assert vals == [[0, 0, 5, 1, 3]]
    name, _, _ = fx.reorder(name, depth, names, vals, "name")
    assert [names[i] for i in name] == ["all", "a", "x", "y", "b"]


@pytest.mark.parametrize(("text", "message"), [
    ("focus", "'focus' is not OP:NAME"),
    ("zoom:f", "'zoom:f' is not OP:NAME"),
    ("drop:", "drop needs a function name"),
    ("merge:%ff", "not percent-encoded UTF-8"),
    (",".join(["drop:f"] * 51), "more than 50"),
])
def test_bad_transforms_are_named(text, message):
    with pytest.raises(fx.BadTransforms, match=message):
        fx.parse_transforms(text)
