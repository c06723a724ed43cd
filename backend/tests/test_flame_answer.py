"""The flame answer's speed-ups keep it the same: the call tree made by DuckDB (views/flame.py
_tree_sql) is build_tree's, column for column, on the real stacks of datasets/stacks-xfs and
stacks-ext4 under every kind of selection and on stacks made to trap a sort; the answer kept per
store generation (views/flame_answer.py) is the model's JSON, is dropped by any write, and is sent
gzip-compressed only to a client that accepts it; the columns answer (views/flame_wire.py, asked for
by Accept) holds the same graph."""

from __future__ import annotations

import gzip
import json
import threading
import time
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from flame_diff_reference import _side as reference_side
from server import running_server

from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import flame as fv
from iolens.views import flame_answer as fa
from iolens.views import flame_wire

REPO = Path(__file__).resolve().parents[2]
DATASETS = [next((REPO / "datasets" / d).glob("*.iolens.tar.gz")) for d in ("stacks-xfs", "stacks-ext4")]


def reference(store: Store, cid: str, f: fv.Filters) -> fv.Tree:
    return fv.build_tree(fv._sum_by_stack(fv._stack_rows(store, cid, f)), 2)


def assert_same(store: Store, cid: str, f: fv.Filters) -> int:
    f = fv._resolve(fv._capture(store, cid), f)
    got, ref = fv._tree_sql(store, cid, f), reference(store, cid, f)
    assert got.names == ref.names
    assert got.name == ref.name
    assert got.depth == ref.depth
    assert got.values == ref.values
    return len(got)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("answer")
    store = Store(tmp / "iolens.duckdb")
    ids = [ingest_file(store, b, bundles_dir=tmp / "bundles", source=b.name).capture_id for b in DATASETS]
    yield store, ids
    store.close()


def test_tree_of_duckdb_is_build_tree_on_real_stacks(real):
    store, ids = real
    for cid in ids:
        cap = fv._capture(store, cid)
        runs = [r.id for r in cap.runs]
        top_tid = max(fv._facets(store, cid, fv._resolve(cap, fv.Filters()))[1], key=lambda t: t.samples).tid
        selections = [fv.Filters(), fv.Filters(runs=(runs[0],)), fv.Filters(cpus=(0,)), fv.Filters(comm="fio"),
                      fv.Filters(tid=top_tid), fv.Filters(from_ns=1_000_000_000, to_ns=3_000_000_000),
                      fv.Filters(comm="no such command")]
        sizes = [assert_same(store, cid, f) for f in selections]
        assert sizes[0] > 1000          # real trees, not empty ones
        assert sizes[-1] == 1           # an empty selection: the root alone


def sample(comm: str, t: float, frames: list[str], period: int = 10) -> str:
    head = f"{comm} 7/7 [000] {t:12.6f}: {period:10d} cpu-clock:pppH: \n"
    return head + "".join(f"\tffffffff81{i:06x} {f}+0x1 ([kernel.kallsyms])\n" for i, f in enumerate(reversed(frames))) + "\n"


def test_tree_of_duckdb_sorts_frame_wise(tmp_path):
    # a stack that is another's prefix, names that sort around ';' (' ' '.' ':' '<' are next to it),
    # a frame shared deep down after a difference, recursion, and non-ASCII names
    stacks = [["a", "b"], ["a", "b", "c"], ["a", "b c"], ["a", "b.c"], ["a", "b:x"], ["a", "b<x>"], ["a", "b", "b", "b"],
              ["a", "x", "c"], ["a", "y", "c"], ["é", "ß"], ["a"], ["z", "a", "b"], ["a", "b", "c", "d"]]
    text = "".join(sample("fio", 1.0 + k / 1000, s, period=k + 1) for k, s in enumerate(stacks))
    m, files = fio_capture("sorts", [[{"iops": 1}]])
    add_file(m, files, "runs/r000/perf.script.gz", gzip.compress(text.encode(), mtime=0), "perf-script", run=0)
    bundle = write_bundle(tmp_path / "sorts.iolens.tar.gz", m, files)
    store = Store(tmp_path / "iolens.duckdb")
    try:
        cid = ingest_file(store, bundle, bundles_dir=tmp_path / "bundles", source=bundle.name).capture_id
        assert assert_same(store, cid, fv.Filters()) > len(stacks)
    finally:
        store.close()


def test_answer_is_kept_until_the_store_changes(real):
    store, ids = real
    cid = ids[0]
    first = fa.flame_answer(store, cid)
    assert json.loads(first.body) == json.loads(fv.flame(store, cid).model_dump_json()) | {
        "elapsed_ms": json.loads(first.body)["elapsed_ms"]}
    assert fa.flame_answer(store, cid) is first                       # kept
    assert fa.flame_answer(store, cid, fv.Filters(cpus=(0,))) is not first   # another selection
    # a write (here: the samples of CPU 0 of that capture dropped) makes a new answer, from the new rows
    with store.write() as w:
        w.execute("DELETE FROM perf_samples WHERE capture_id = ? AND cpu = 0", [cid])
    after = fa.flame_answer(store, cid)
    assert after is not first
    body = json.loads(after.body)
    assert body["total_samples"] < json.loads(first.body)["total_samples"]
    assert body["cpus"] == [c for c in json.loads(first.body)["cpus"] if c["cpu"] != 0]
    assert gzip.decompress(after.gzipped()) == after.body


def test_gzip_only_when_accepted(tmp_path):
    a = fa.Answer(b"x" * (fa.GZIP_MIN_BYTES + 1))
    assert fa.wants_gzip("gzip, deflate, br", a)
    assert fa.wants_gzip("br;q=1.0, GZIP;q=0.5", a)
    assert not fa.wants_gzip("gzip;q=0", a)
    assert not fa.wants_gzip("br", a)
    assert not fa.wants_gzip(None, a)
    assert not fa.wants_gzip("gzip", fa.Answer(b"{}"))   # small answers go as they are


def test_over_http_the_same_answer_either_way(tmp_path, monkeypatch):
    monkeypatch.setattr(fa, "GZIP_MIN_BYTES", 1024)   # the dataset's answer is small
    with running_server(tmp_path / "data") as client:
        b = DATASETS[0]
        r = client.post("/api/captures", files={"file": (b.name, b.read_bytes(), "application/gzip")})
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        zipped = client.get(f"/api/captures/{cid}/flame", headers={"Accept-Encoding": "gzip"})
        plain = client.get(f"/api/captures/{cid}/flame", headers={"Accept-Encoding": "identity"})
        assert zipped.status_code == plain.status_code == 200
        assert zipped.headers["content-encoding"] == "gzip"
        assert "content-encoding" not in plain.headers
        assert zipped.headers["content-type"] == plain.headers["content-type"] == "application/json"
        assert zipped.json() == plain.json()      # httpx undoes the gzip
        g = plain.json()
        assert sum(g["tree"]["self_samples"]) == g["total_samples"] > 1000
        assert int(zipped.headers["content-length"]) < len(plain.content) / 3
        bad = client.get("/api/captures/nope/flame")
        assert bad.status_code == 404


def test_columns_answer_is_the_json_answer(real):
    # the page's answer and the API's JSON: the same graph, on the real stacks under several selections
    store, ids = real
    for cid in ids:
        cap = fv._capture(store, cid)
        for f in (fv.Filters(), fv.Filters(runs=(cap.runs[0].id,)), fv.Filters(comm="fio"),
                  fv.Filters(from_ns=1_000_000_000, to_ns=3_000_000_000), fv.Filters(comm="no such command")):
            cols = flame_wire.decode(fa.flame_answer(store, cid, f, fmt="columns").body).graph()
            as_json = json.loads(fa.flame_answer(store, cid, f).body)
            assert cols | {"elapsed_ms": 0} == as_json | {"elapsed_ms": 0}
            assert len(cols["tree"]["name"]) >= 1


def test_columns_over_http_by_accept(tmp_path, monkeypatch):
    monkeypatch.setattr(fa, "GZIP_MIN_BYTES", 1024)
    with running_server(tmp_path / "data") as client:
        b = DATASETS[0]
        r = client.post("/api/captures", files={"file": (b.name, b.read_bytes(), "application/gzip")})
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        url = f"/api/captures/{cid}/flame?comm=fio"
        page = f"{flame_wire.MEDIA_TYPE}, application/json;q=0.5"   # what the page sends (queries.ts)
        cols = client.get(url, headers={"Accept": page, "Accept-Encoding": "gzip"})
        assert cols.status_code == 200
        assert cols.headers["content-type"] == flame_wire.MEDIA_TYPE
        assert cols.headers["content-encoding"] == "gzip"
        assert cols.headers["vary"] == "Accept, Accept-Encoding"
        plain = client.get(url, headers={"Accept": flame_wire.MEDIA_TYPE, "Accept-Encoding": "identity"})
        assert plain.content == cols.content and "content-encoding" not in plain.headers
        as_json = client.get(url).json()   # no Accept (or */*): the JSON answer, as before
        assert flame_wire.decode(cols.content).graph() | {"elapsed_ms": 0} == as_json | {"elapsed_ms": 0}
        for accept in ("application/json", f"{flame_wire.MEDIA_TYPE};q=0, application/json", "*/*"):
            r = client.get(url, headers={"Accept": accept})
            assert r.headers["content-type"] == "application/json", accept
        # errors stay JSON, whatever was asked for
        bad = client.get("/api/captures/nope/flame", headers={"Accept": page})
        assert bad.status_code == 404 and "error" in bad.json()
        # the OpenAPI schema documents both answers of the route
        content = client.get("/openapi.json").json()["paths"]["/api/captures/{capture_id}/flame"]["get"]["responses"]["200"]["content"]
        assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/FlameGraph"}
        assert content[flame_wire.MEDIA_TYPE]["schema"]["format"] == "binary"
        assert "IOLF" in content[flame_wire.MEDIA_TYPE]["schema"]["description"]


def test_one_answer_is_made_once_at_a_time(real, monkeypatch):
    # two requests for an answer nobody has yet: the second waits for the first's, never makes its own
    store, ids = real
    with store.write() as w:   # a new generation: nothing kept from the other tests
        w.execute("SELECT 1")
    calls: list[str] = []
    made = fv.flame

    def slow(store_, cid, f=fv.Filters()):
        calls.append(cid)
        time.sleep(0.3)
        return made(store_, cid, f)

    monkeypatch.setattr(fv, "flame", slow)
    got: list[fa.Answer] = []
    threads = [threading.Thread(target=lambda: got.append(fa.flame_answer(store, ids[1]))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [ids[1]]
    assert got[0] is got[1] is got[2]
    assert not fa._cache(store).making                 # nothing left behind


def test_warm_makes_each_capture_with_stacks_newest_first(real, tmp_path):
    store, ids = real
    with store.write() as w:
        w.execute("SELECT 1")
    made = fa.warm(store)
    newest_first = [r[0] for r in store.query("SELECT capture_id FROM captures ORDER BY ingested_at DESC, capture_id").rows]
    assert made == [c for c in newest_first if c in ids] and sorted(made) == sorted(ids)
    for cid in ids:
        # the page's answer (columns) is made ahead; the JSON one when asked for
        kept = fa._cache(store).get(store.generation, ("flame", cid, fv.Filters(), "columns"))
        assert kept is not None and kept is fa.flame_answer(store, cid, fmt="columns")
        assert flame_wire.decode(kept.body).head["capture"]["id"] == cid
        assert fa._cache(store).get(store.generation, ("flame", cid, fv.Filters(), "json")) is None
    stop = threading.Event()
    stop.set()
    with store.write() as w:
        w.execute("SELECT 1")
    assert fa.warm(store, stop) == []                  # a server stopping: nothing more is made
    asked: list[int] = []
    assert fa.warm(store, before_each=lambda: asked.append(1) is not None) == []   # never a quiet moment
    assert asked == [1]
    empty = Store(tmp_path / "empty.duckdb")
    try:
        assert fa.warm(empty) == []                    # no capture with stacks
    finally:
        empty.close()


def test_server_start_makes_the_answers_ahead(tmp_path):
    data = tmp_path / "data"
    store = Store(data / "iolens.duckdb")
    cid = ingest_file(store, DATASETS[0], bundles_dir=data / "bundles", source=DATASETS[0].name).capture_id
    store.close()
    with running_server(data) as client:
        deadline = time.monotonic() + 30
        r = client.get("/api/health")
        assert r.status_code == 200
        # the answer shows up in the cache without any request for it
        found = None
        while time.monotonic() < deadline and found is None:
            for s, c in list(fa._caches.items()):
                if s.path == data / "iolens.duckdb":
                    found = c.get(s.generation, ("flame", cid, fv.Filters(), "columns"))
            time.sleep(0.05)
        assert found is not None
        assert client.get(f"/api/captures/{cid}/flame", headers={"Accept": flame_wire.MEDIA_TYPE}).content == found.body


# --- the difference of two captures (GET /api/compare/flame): its function table and its answer ---


def reference_functions(store: Store, a: str, b: str, limit: int) -> list[tuple]:
    """The function table as it was made before the speed-up: every function's row, each ranking
    sorted in full, cut at `limit`, the union ordered by the larger change."""
    event = fv._capture(store, a).default_event
    sa, sb = reference_side(store, a, fv.Filters(event=event)), reference_side(store, b, fv.Filters(event=event))
    ta, tb = sum(sa.run_weight.values()), sum(sb.run_weight.values())
    fa_, fb_ = fv._functions(fv._function_rows(store, a, sa.filters)), fv._functions(fv._function_rows(store, b, sb.filters))
    rows = []
    for name in set(fa_) | set(fb_):
        va, vb = fa_.get(name, [0, 0, 0, 0]), fb_.get(name, [0, 0, 0, 0])
        rows.append(dict(name=name, self_a=fv._pct(va[1], ta), self_b=fv._pct(vb[1], tb), total_a=fv._pct(va[0], ta),
                         total_b=fv._pct(vb[0], tb), delta_self=fv._pct(vb[1], tb) - fv._pct(va[1], ta),
                         delta_total=fv._pct(vb[0], tb) - fv._pct(va[0], ta), samples_a=va[2], samples_b=vb[2]))
    keep = {}
    for key in ("delta_self", "delta_total"):
        for r in sorted(rows, key=lambda r: (-abs(r[key]), r["name"]))[:limit]:
            keep[r["name"]] = r
    ordered = sorted(keep.values(), key=lambda r: (-max(abs(r["delta_self"]), abs(r["delta_total"])), r["name"]))
    return [tuple(r.values()) for r in ordered]


def test_diff_functions_are_the_full_sorts_rows(real):
    # ranked as tuples, models made for the kept rows only: the same rows, values and order as
    # sorting every function's row, on the real stacks, both ways round and at several cuts
    store, ids = real
    for a, b in ((ids[0], ids[1]), (ids[1], ids[0])):
        for limit in (0, 1, 7, 50, 100_000):
            d = fv.diff(store, a, b, limit=limit)
            got = [(r.name, r.self_a, r.self_b, r.total_a, r.total_b, r.delta_self, r.delta_total, r.samples_a,
                    r.samples_b) for r in d.functions]
            want = reference_functions(store, a, b, limit)
            assert got == want, (a, b, limit)
            assert d.functions_count > 100
            if limit == 100_000:
                assert len(got) == d.functions_count


def test_diff_answer_is_kept_until_the_store_changes(real):
    store, ids = real
    a, b = ids
    with store.write() as w:   # a new generation: nothing kept from the other tests
        w.execute("SELECT 1")
    first = fa.diff_answer(store, a, b)
    assert json.loads(first.body) | {"elapsed_ms": 0} == json.loads(fv.diff(store, a, b).model_dump_json()) | {"elapsed_ms": 0}
    assert fa.diff_answer(store, a, b) is first                                  # kept
    cols = fa.diff_answer(store, a, b, fmt="columns")
    assert cols is not first and fa.diff_answer(store, a, b, fmt="columns") is cols
    assert flame_wire.decode_diff(cols.body).graph() | {"elapsed_ms": 0} == json.loads(first.body) | {"elapsed_ms": 0}
    # every part of the question is in the key
    others = [fa.diff_answer(store, b, a), fa.diff_answer(store, a, b, fv.Filters(cpus=(0,))),
              fa.diff_answer(store, a, b, limit=3), fa.diff_answer(store, a, b, runs_a=(fv._capture(store, a).runs[0].id,)),
              fa.diff_answer(store, a, b, range_b=(0, 2_000_000_000))]
    assert all(o is not first for o in others)
    assert len({o.body for o in others} | {first.body}) == len(others) + 1
    assert len(json.loads(fa.diff_answer(store, a, b, limit=3).body)["functions"]) <= 6
    # a write (the second capture's samples of CPU 0 dropped) makes a new answer from the new rows
    with store.write() as w:
        w.execute("DELETE FROM perf_samples WHERE capture_id = ? AND cpu = 0", [b])
    after = fa.diff_answer(store, a, b)
    assert after is not first
    assert json.loads(after.body)["b"]["total_samples"] < json.loads(first.body)["b"]["total_samples"]
    assert json.loads(after.body)["a"] == json.loads(first.body)["a"] | {
        "total_samples": json.loads(after.body)["a"]["total_samples"]}


def test_diff_over_http_kept_either_way(tmp_path, monkeypatch):
    monkeypatch.setattr(fa, "GZIP_MIN_BYTES", 1024)
    with running_server(tmp_path / "data") as client:
        ids = []
        for b in DATASETS:
            r = client.post("/api/captures", files={"file": (b.name, b.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        url = f"/api/compare/flame?a={ids[0]}&b={ids[1]}"
        first = client.get(url, headers={"Accept-Encoding": "identity"})
        again = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert first.status_code == again.status_code == 200
        assert first.headers["content-type"] == again.headers["content-type"] == "application/json"
        assert again.headers["content-encoding"] == "gzip" and "content-encoding" not in first.headers
        assert again.json() == first.json()
        assert first.json()["elapsed_ms"] == again.json()["elapsed_ms"]     # the kept answer, not a new one
        page = {"Accept": f"{flame_wire.MEDIA_TYPE}, application/json;q=0.5"}
        cols = client.get(url, headers=page)
        assert cols.headers["content-type"] == flame_wire.MEDIA_TYPE
        assert flame_wire.decode_diff(cols.content).graph() | {"elapsed_ms": 0} == first.json() | {"elapsed_ms": 0}
        bad = client.get(f"/api/compare/flame?a={ids[0]}&b=nope", headers=page)
        assert bad.status_code == 404 and "error" in bad.json()


def test_capture_facts_are_kept_until_the_store_changes(real):
    # views/flame.py _capture: each side's label, events and runs, kept per store generation
    store, ids = real
    a = ids[0]
    with store.write() as w:   # a new generation: nothing kept from the other tests
        w.execute("SELECT 1")
    first = fv._capture(store, a)
    assert fv._capture(store, a) is first
    assert first == fv._capture_facts(store, a)
    with store.write() as w:
        w.execute("DELETE FROM perf_samples WHERE capture_id = $a AND ts_ns = "
                  "(SELECT max(ts_ns) FROM perf_samples WHERE capture_id = $a)", {"a": a})
    after = fv._capture(store, a)
    assert after is not first and after == fv._capture_facts(store, a)
    assert sum(e.samples for e in after.events) < sum(e.samples for e in first.events)
