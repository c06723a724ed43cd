"""The flame graph's columns answer (views/flame_wire.py), on the shared vectors that the page's
reader (frontend/src/logic/flameWire.ts) is tested on too: testdata/vectors/flame-wire.json. The
writer makes the vectors' bytes from their trees, the reader reads them back, and names what is
wrong in each damaged answer. The answer of a real capture is the JSON answer's graph: in
test_flame_answer.py."""

from __future__ import annotations

import json
import re
from array import array
from pathlib import Path

import pytest

from iolens.views import flame_wire as w

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "testdata" / "vectors" / "flame-wire.json")
                     .read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_writer_makes_the_vectors_bytes(case):
    t = case["tree"]
    got = w.encode(case["head_json"].encode(), t["names"], t["name"], t["depth"], t["self_weight"], t["self_samples"])
    assert got.hex() == case["hex"]


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_reader_reads_the_vectors_tree(case):
    d = w.decode(bytes.fromhex(case["hex"]))
    assert d.graph() == {**json.loads(case["head_json"]), "tree": case["tree"]}
    b = bytes.fromhex(case["hex"])
    sections = []
    for k in range(w.HEADER.unpack_from(b, 0)[2]):
        raw, t, count, _off, _n = w.ENTRY.unpack_from(b, w.HEADER.size + k * w.ENTRY.size)
        sections.append([raw.rstrip(b"\0").decode(), w.TYPE_NAMES[t], count])
    assert sections == case["sections"]


@pytest.mark.parametrize("case", VECTORS["bad"], ids=lambda c: c["name"])
def test_reader_names_what_is_wrong(case):
    with pytest.raises(w.BadAnswer) as exc:
        w.decode(bytes.fromhex(case["hex"]))
    assert case["error"] in str(exc.value)
    assert str(exc.value).startswith("flame answer: ")


def test_every_cut_of_an_answer_is_an_error():
    b = bytes.fromhex(VECTORS["cases"][0]["hex"])
    for n in range(len(b)):
        with pytest.raises(w.BadAnswer):
            w.decode(b[:n])


def test_column_types_narrowest_that_holds():
    assert w.column_type("name", [0, 65535], w.COLUMNS["name"]) == w.U16
    assert w.column_type("name", [65536], w.COLUMNS["name"]) == w.U32
    assert w.column_type("depth", [255], w.COLUMNS["depth"]) == w.U8
    assert w.column_type("self_w", [2 ** 32 - 1], w.COLUMNS["self_w"]) == w.U32
    assert w.column_type("self_w", [2 ** 32], w.COLUMNS["self_w"]) == w.F64
    assert w.column_type("self_w", [], w.COLUMNS["self_w"]) == w.U8
    with pytest.raises(w.BadAnswer, match="past 2\\^53"):
        w.column_type("self_w", [2 ** 53 + 1], w.COLUMNS["self_w"])
    with pytest.raises(w.BadAnswer, match="does not fit in u32"):
        w.column_type("name", [2 ** 32], w.COLUMNS["name"])


def test_writer_refuses_what_it_cannot_send():
    with pytest.raises(w.BadAnswer, match="column 'depth'.*negative"):
        w.encode(b"{}", ["all"], [0], [-1], [0], [0])
    with pytest.raises(w.BadAnswer, match="column 'self_w'.*negative"):
        w.encode(b"{}", ["all", "f"], [0, 1], [0, 1], [0, -2 ** 40], [0, 1])
    with pytest.raises(w.BadAnswer, match="name 1 holds a NUL"):
        w.encode(b"{}", ["all", "a\0b"], [0, 1], [0, 1], [0, 1], [0, 1])
    with pytest.raises(w.BadAnswer, match="different lengths"):
        w.encode(b"{}", ["all"], [0], [0, 1], [0], [0])


# --- the difference of two captures (encode_diff / decode_diff), same vectors file ---------


@pytest.mark.parametrize("case", VECTORS["diff_cases"], ids=lambda c: c["name"])
def test_diff_writer_makes_the_vectors_bytes(case):
    t = case["tree"]
    got = w.encode_diff(case["head_json"].encode(), t["names"], t["name"], t["depth"], t["self_a"], t["self_b"],
                        t["samples_a"], t["samples_b"], t["noise_self"], t["noise_total"])
    assert got.hex() == case["hex"]


@pytest.mark.parametrize("case", VECTORS["diff_cases"], ids=lambda c: c["name"])
def test_diff_writer_takes_typed_arrays_as_lists(case):
    # the difference's columns come as arrays ('I' name and depth, 'q' weights: views/flame.py
    # DiffColumns), narrowed without a step per value (flame_wire._narrow): the same bytes
    t = case["tree"]
    got = w.encode_diff(case["head_json"].encode(), t["names"], array("I", t["name"]), array("I", t["depth"]),
                        array("q", t["self_a"]), array("q", t["self_b"]), array("q", t["samples_a"]),
                        array("q", t["samples_b"]), t["noise_self"], t["noise_total"])
    assert got.hex() == case["hex"]


@pytest.mark.parametrize("values", [[], [0], [255], [0, 256], [65535, 1], [65536], [2 ** 24 + 3, 7], [2 ** 32 - 1],
                                    [2 ** 32], [2 ** 40 + 5, 1], [2 ** 53]])
@pytest.mark.parametrize("code", ["I", "q"])
def test_typed_arrays_narrow_as_lists(values, code):
    if code == "I" and values and max(values) >= 2 ** 32:
        pytest.skip("not an u32")
    for col, types in (("depth", w.COLUMNS["depth"]), ("self_w", w.COLUMNS["self_w"]), ("name", w.COLUMNS["name"])):
        try:
            want = w._encode(b"{}", [], [(col, values)], {col: types})
        except w.BadAnswer as exc:
            with pytest.raises(w.BadAnswer, match=re.escape(str(exc))):
                w._encode(b"{}", [], [(col, array(code, values))], {col: types})
        else:
            assert w._encode(b"{}", [], [(col, array(code, values))], {col: types}) == want


def test_typed_arrays_refuse_what_lists_refuse():
    with pytest.raises(w.BadAnswer, match="column 'self_w'.*negative"):
        w.encode(b"{}", ["all", "f"], array("I", [0, 1]), array("I", [0, 1]), array("q", [0, -2 ** 40]),
                 array("q", [0, 1]))
    with pytest.raises(w.BadAnswer, match="column 'self_w'.*negative"):
        w.encode(b"{}", ["all", "f"], array("I", [0, 1]), array("I", [0, 1]), array("q", [0, -1]), array("q", [0, 1]))
    with pytest.raises(w.BadAnswer, match="past 2\\^53"):
        w.encode(b"{}", ["all"], array("I", [0]), array("I", [0]), array("q", [2 ** 53 + 1]), array("q", [0]))


@pytest.mark.parametrize("case", VECTORS["diff_cases"], ids=lambda c: c["name"])
def test_diff_reader_reads_the_vectors_tree(case):
    d = w.decode_diff(bytes.fromhex(case["hex"]))
    assert d.graph() == {**json.loads(case["head_json"]), "tree": case["tree"]}


@pytest.mark.parametrize("case", VECTORS["diff_bad"], ids=lambda c: c["name"])
def test_diff_reader_names_what_is_wrong(case):
    with pytest.raises(w.BadAnswer) as exc:
        w.decode_diff(bytes.fromhex(case["hex"]))
    assert case["error"] in str(exc.value)
    assert str(exc.value).startswith("flame answer: ")


def test_a_graph_is_not_a_difference_nor_the_reverse():
    graph = bytes.fromhex(VECTORS["cases"][0]["hex"])
    difference = bytes.fromhex(VECTORS["diff_cases"][0]["hex"])
    with pytest.raises(w.BadAnswer, match="no section 'self_a'"):
        w.decode_diff(graph)
    with pytest.raises(w.BadAnswer, match="no section 'self_w'"):
        w.decode(difference)


def test_diff_writer_refuses_half_the_noise():
    with pytest.raises(w.BadAnswer, match="one is null"):
        w.encode_diff(b"{}", ["all"], [0], [0], [0], [0], [0], [0], [False], None)
