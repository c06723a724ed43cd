"""The difference flame graph made by native code (views/flame.py diff, iolens_native.FlameDiffInput) is the
answer the Python implementation gave before it (flame_diff_reference.old_diff: build_tree over the
union of both sides' stacks, each run's totals walked per node, the function table from each side's
rows): the same tree columns in the same pre-order, names in the same order, the same noise flags,
the same function rows (floats bit for bit) in the same order and count, the same sides and notes,
in the JSON answer and in the columns answer; on the real stacks of datasets/stacks-xfs and
stacks-ext4 (four repeats each: noise marked) under every kind of selection, and on stacks made to
trap the sort, the name numbering, recursion, one-sided frames and the noise rule; and the noise
rule, repeats needed included, held to the compared-metric tables' (testdata/vectors/ratio-tone.json)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from flame_diff_reference import old_diff

from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import flame as fv
from iolens.views import flame_answer as fa
from iolens.views import flame_wire

REPO = Path(__file__).resolve().parents[2]
DATASETS = [next((REPO / "datasets" / d).glob("*.iolens.tar.gz")) for d in ("stacks-xfs", "stacks-ext4")]


def answer(d) -> dict:
    return json.loads(d.model_dump_json()) | {"elapsed_ms": 0}


def assert_same(store: Store, a: str, b: str, **kw) -> dict:
    """diff(...) == old_diff(...), as JSON (lists in order; floats as pydantic writes them, i.e. the
    shortest repr that reads back to the same double) and as the columns answer."""
    want = answer(old_diff(store, a, b, **kw))
    got = answer(fv.diff(store, a, b, **kw))
    assert got.keys() == want.keys()
    for k in want:
        if k == "tree":
            for col in want[k]:
                assert got[k][col] == want[k][col], (k, col, kw)
        else:
            assert got[k] == want[k], (k, kw)
    # the columns answer (what the page reads) holds the same graph
    with store.write() as w:   # a new store generation: nothing kept from another call
        w.execute("SELECT 1")
    f = kw.get("f", fv.Filters())
    cols = fa.diff_answer(store, a, b, f, kw.get("runs_a"), kw.get("runs_b"), kw.get("limit", fv.DEFAULT_FUNCTIONS),
                          kw.get("range_b"), fmt="columns")
    assert flame_wire.decode_diff(cols.body).graph() | {"elapsed_ms": 0} == want
    return want


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("diff")
    store = Store(tmp / "iolens.duckdb")
    ids = [ingest_file(store, b, bundles_dir=tmp / "bundles", source=b.name).capture_id for b in DATASETS]
    yield store, ids
    store.close()


def test_diff_is_the_python_answer_on_real_stacks(real):
    store, (x, e) = real
    runs_x = [r.id for r in fv._capture(store, x).runs]
    d = assert_same(store, x, e)
    assert d["noise_available"] and len(d["tree"]["name"]) > 1000 and d["functions_count"] > 100
    assert any(d["tree"]["noise_self"]) and any(d["tree"]["noise_total"]) and not all(d["tree"]["noise_total"])
    assert {r["noise_self"] for r in d["functions"]} == {True, False}
    assert_same(store, e, x)
    for limit in (0, 1, 7, 100_000):
        d = assert_same(store, x, e, limit=limit)
        assert len(d["functions"]) == (d["functions_count"] if limit == 100_000 else len(d["functions"]))
    # one run on a side: no noise
    d = assert_same(store, x, e, runs_a=(runs_x[0],))
    assert d["noise_available"] is False and d["tree"]["noise_self"] is None
    assert_same(store, x, e, runs_b=("r001",), runs_a=tuple(runs_x))
    assert_same(store, x, e, f=fv.Filters(cpus=(0, 1)))
    assert_same(store, x, e, f=fv.Filters(comm="fio"))
    assert_same(store, x, e, f=fv.Filters(from_ns=500_000_000, to_ns=2_500_000_000))
    assert_same(store, x, e, f=fv.Filters(event="cpu-clock"))
    # two ranges of one capture
    assert_same(store, x, x, f=fv.Filters(to_ns=1_000_000_000), range_b=(1_000_000_000, None))
    # nothing on one side, then on both
    d = assert_same(store, x, e, f=fv.Filters(comm="no such command"))
    assert len(d["notes"]) == 2 and d["tree"]["name"] == [0] and d["functions"] == []


def sample(comm: str, t: float, frames: list[str], period: int) -> str:
    head = f"{comm} 7/7 [000] {t:12.6f}: {period:10d} cpu-clock:pppH: \n"
    return head + "".join(f"\tffffffff81{i:06x} {f}+0x1 ([kernel.kallsyms])\n" for i, f in enumerate(reversed(frames))) + "\n"


def capture(tmp: Path, store: Store, label: str, runs: list[list[tuple[list[str], int]]]) -> str:
    """A capture of len(runs) repeats, each a perf script of (stack, period) samples."""
    m, files = fio_capture(label, [[{"iops": 1}] for _ in runs])
    for i, samples in enumerate(runs):
        text = "".join(sample("fio", 1.0 + k / 1000, s, p) for k, (s, p) in enumerate(samples))
        add_file(m, files, f"runs/r{i:03d}/perf.script.gz", gzip.compress(text.encode(), mtime=0), "perf-script", run=i)
    bundle = write_bundle(tmp / f"{label}.iolens.tar.gz", m, files)
    return ingest_file(store, bundle, bundles_dir=tmp / "bundles", source=bundle.name).capture_id


def test_diff_is_the_python_answer_on_traps(tmp_path):
    # names that sort around ';', a stack that is another's prefix (its own samples on an inner node),
    # a frame named like the root ('all': name 0 wherever it is), recursion (a function counted once
    # per stack), frames on one side only, non-ASCII names, shares equal on both sides
    common = [(["a", "b"], 7), (["a", "b", "c"], 5), (["a", "b c"], 3), (["a", "b.c"], 2), (["a", "b:x"], 4),
              (["a", "b<x>"], 1), (["a", "b", "b", "b"], 6), (["a", "x", "c"], 9), (["é", "ß"], 2), (["a"], 8),
              (["z", "all", "b"], 3), (["all"], 2), (["a", "b", "c", "d"], 5)]
    only_a = [(["gone", "a"], 4), (["a", "b", "gone"], 2)]
    only_b = [(["new", "x"], 6), (["a", "new", "new"], 3)]
    store = Store(tmp_path / "iolens.duckdb")
    try:
        def scaled(samples, k):
            return [(s, p * k) for s, p in samples]

        # three repeats against two, each run's weights a little different
        a3 = capture(tmp_path, store, "a3", [scaled(common, 10) + only_a, scaled(common, 11) + only_a,
                                             scaled(common, 9) + only_a[:1]])
        b3 = capture(tmp_path, store, "b3", [scaled(common, 10) + only_b, scaled(common, 12) + only_b[1:],
                                             scaled(common, 11) + only_b])
        b2 = capture(tmp_path, store, "b2", [scaled(common, 10) + only_b, scaled(common, 12) + only_b[1:]])
        b1 = capture(tmp_path, store, "b1", [scaled(common, 10)])
        for a, b in ((a3, b3), (b3, a3), (a3, b2), (b2, a3), (a3, b1), (b1, b1), (a3, a3)):
            for limit in (0, 3, 100):
                d = assert_same(store, a, b, limit=limit)
        d = assert_same(store, a3, b3)
        assert d["noise_available"] and any(d["tree"]["noise_total"]) and not all(d["tree"]["noise_total"])
        assert assert_same(store, a3, b2)["noise_available"] is False   # two repeats: too few
        names = d["tree"]["names"]
        assert names[0] == "all" and names.count("all") == 1
        assert d["tree"]["name"].count(0) == 3   # the root and the two frames named 'all'
        assert assert_same(store, a3, b1)["noise_available"] is False
        assert_same(store, a3, b3, runs_a=("r000", "r002"), runs_b=("r001",))
        assert_same(store, a3, b3, f=fv.Filters(from_ns=5_000_000))
    finally:
        store.close()


TONE = json.loads((REPO / "testdata" / "vectors" / "ratio-tone.json").read_text())


def runs_of(cell: dict) -> list[int]:
    """n per-run values (in tenths) with the cell's min, max and mean."""
    n, lo, hi = cell["n"], round(cell["min"] * 10), round(cell["max"] * 10)
    if n == 1:
        return [lo]
    rest = (round(cell["mean"] * 10 * n) - lo - hi) / (n - 2) if n > 2 else None
    mid = [] if rest is None else [int(rest)] * (n - 2)
    assert rest is None or (rest == int(rest) and lo <= rest <= hi)
    return [lo, *mid, hi]


def test_noise_rule_is_the_tables_tone_rule():
    # The flame difference's noise rule (is_noise in backend/native/iolens_native/src/flame_diff.rs,
    # iolens_native.flame_noise) is the compared-metric tables' (testdata/vectors/ratio-tone.json,
    # ratio.ts / textfmt.tone): on each case with enough repeats, 'same' (ranges overlap, touching
    # counts, or equal means) is a change within the noise or no change at all; better / worse /
    # neutral is a change outside it. Each run's value is a share: v tenths of a run total of 1000 is
    # v / 10 percent.
    import iolens_native

    checked = 0
    for case in TONE["cases"]:
        cell, base, tone = case["cell"], case["base"], case["tone"]
        if tone in ("", "few"):
            # missing means; fewer than min_repeats on a side: test_noise_needs_the_tables_repeats
            continue
        a, b = runs_of(base), runs_of(cell)
        noise = iolens_native.flame_noise(a, [1000] * len(a), b, [1000] * len(b))
        moved = sum(a) * len(b) != sum(b) * len(a)
        if tone == "same":
            assert noise or not moved, case["name"]
        else:
            assert moved and not noise, case["name"]
        checked += 1
    assert checked >= 5


def test_noise_needs_the_tables_repeats(tmp_path):
    # Every case of the shared vectors as two real captures: n runs a side, each run's weight of
    # frame 'x' the case's value in tenths, of a run of 10,000 (the rule compares shares' ranges and
    # means: a common scale changes nothing). Where the tables say 'few' (fewer than
    # min_repeats on a side: grey '?', too few to judge a change) the difference marks no noise and
    # says why; with enough repeats it marks it, by the tables' rule ('same': noise or unchanged).
    assert TONE["min_repeats"] == fv.MIN_REPEATS == 3
    store = Store(tmp_path / "iolens.duckdb")
    try:
        made: dict[tuple[int, ...], str] = {}

        def of(values: list[int]) -> str:
            key = tuple(values)
            if key not in made:
                made[key] = capture(tmp_path, store, f"c{len(made)}", [[(["x"], v), (["y"], 10_000 - v)] for v in values])
            return made[key]

        seen = set()
        for case in TONE["cases"]:
            if case["tone"] == "":
                continue
            a, b = runs_of(case["base"]), runs_of(case["cell"])
            d = answer(fv.diff(store, of(a), of(b)))
            few = min(len(a), len(b)) < TONE["min_repeats"]
            assert (case["tone"] == "few") == few, case["name"]
            # the graph's colours follow the same rule: with too few repeats no frame is red or blue
            # (every fill a grey, its channels within a few units), the legend says why
            svg = fv.diff_svg(store, of(a), of(b))
            fills = [tuple(int(h[k:k + 2], 16) for k in (0, 2, 4)) for h in re.findall(r'<rect [^>]*fill="#([0-9a-f]{6})"', svg)]
            hued = [c for c in fills if max(c) - min(c) > 20]
            if few:
                assert not hued and "too few to tell a change from noise" in svg, case["name"]
            elif case["tone"] in ("better", "worse", "neutral"):
                assert hued and "too few" not in svg, case["name"]
            if few:
                assert d["noise_available"] is False and d["tree"]["noise_total"] is None, case["name"]
                side, n = ("first", len(a)) if len(a) < TONE["min_repeats"] else ("second", len(b))
                assert d["noise_reason"].startswith(f"the {side} capture has {fv._runs_text(n)} with samples"), case["name"]
                assert f"noise needs {TONE['min_repeats']} or more repeats on each side" in d["noise_reason"]
            else:
                assert d["noise_available"] is True and d["noise_reason"] is None, case["name"]
                names = [d["tree"]["names"][i] for i in d["tree"]["name"]]
                x = names.index("x")
                noise = d["tree"]["noise_total"][x]
                moved = sum(a) / len(a) != sum(b) / len(b)
                assert (noise or not moved) if case["tone"] == "same" else (moved and not noise), case["name"]
            seen.add(case["tone"])
        assert {"few", "same"} <= seen and seen & {"better", "worse", "neutral"}
    finally:
        store.close()


def test_native_input_sums_samples_per_stack_and_checks_its_columns():
    # FlameDiffInput's own rules, on relations made by hand: samples summed per run and stack id;
    # a sample without a stack (NULL) counted apart; a stack id no stack row has, and the stacks
    # of a run without selected samples, left out (the inner join of the SQL it replaced); a
    # relation of the wrong shape named in the error.
    import duckdb

    import iolens_native

    con = duckdb.connect()

    def rel(sql: str):
        return con.cursor().sql(sql)

    samples = ("SELECT * FROM (VALUES ('r0', 0, 5), ('r0', 1, 7), ('r0', 0, 1), ('r0', NULL, 2), ('r0', 9, 100)) "
               "t(run_id, stack_id, weight)")
    stacks = "SELECT * FROM (VALUES ('r0', 0, 'c;a'), ('r0', 1, 'c;a;a'), ('r1', 0, 'c;zz')) t(run_id, stack_id, folded_stack)"
    typed_samples = f"SELECT run_id, stack_id::INTEGER AS stack_id, weight::BIGINT AS weight FROM ({samples})"
    typed_stacks = f"SELECT run_id, stack_id::INTEGER AS stack_id, folded_stack FROM ({stacks})"
    none_samples, none_stacks = typed_samples + " WHERE false", typed_stacks + " WHERE false"
    inp = iolens_native.FlameDiffInput(rel(typed_samples), rel(typed_stacks), rel(none_samples), rel(none_stacks))
    assert inp.runs(0) == [("r0", 13, 3, 1)] and inp.runs(1) == []
    names, name, depth, self_a, self_b, samp_a, samp_b, noise_s, noise_t, functions, count = inp.diff([], [], 13, 0, 10, 100)
    assert names == ["all", "c", "a"]
    assert list(fv._little("I", name)) == [0, 1, 2, 2] and list(fv._little("I", depth)) == [0, 1, 2, 3]
    assert list(fv._little("q", self_a)) == [0, 0, 6, 7] and list(fv._little("q", samp_a)) == [0, 0, 2, 1]
    assert list(fv._little("q", self_b)) == [0, 0, 0, 0] and noise_s is None and noise_t is None
    # 'a' is in both stacks (recursive in one: counted once), self in both
    assert count == 1 and functions == [("a", 100.0, 0.0, 100.0, 0.0, -100.0, -100.0, 3, 0, None, None)]
    assert inp.diff([], [], 13, 0, 10, 3) is None   # more nodes than max_nodes
    with pytest.raises(ValueError, match="noise_a and noise_b: both or neither"):
        inp.diff(["r0"], [], 13, 0, 10, 100)
    with pytest.raises(ValueError, match="the samples: 2 columns"):
        iolens_native.FlameDiffInput(rel("SELECT 'r0' AS run_id, 0::INTEGER AS stack_id"), rel(typed_stacks),
                                     rel(none_samples), rel(none_stacks))
    with pytest.raises(ValueError, match="stack_id of type Int64, expected INTEGER"):
        iolens_native.FlameDiffInput(rel(typed_samples), rel("SELECT 'r0' AS run_id, 0::BIGINT AS s, 'x' AS f"),
                                     rel(none_samples), rel(none_stacks))
