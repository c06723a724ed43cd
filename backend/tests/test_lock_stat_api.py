"""lock_stat through ingest and the HTTP API: per-capture top classes, the points of a class, the
comparison of captures, and captures that have no lock_stat. Bundles are built inline."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from bundles import add_file, fio_capture, write_bundle
from lockstat_dumps import dump, points, row
from notebook_helpers import check_mail_safe, save
from server import running_server


def capture(label: str, iops: list[float], dumps: list[str] | None = None, wide: str | None = None,
            notes: list[str] | None = None) -> tuple[dict, dict[str, bytes]]:
    """fio runs with these IOPS (10 s each: total_ios = 10 x IOPS), a lock_stat dump per run and/or one
    for the capture."""
    m, files = fio_capture(label, [[{"name": "rw", "iops": x}] for x in iops], notes=notes or [])
    for i, d in enumerate(dumps or []):
        add_file(m, files, f"runs/r{i:03d}/lock_stat.txt", d, "lock-stat", run=i)
    if wide is not None:
        add_file(m, files, "lock_stat/snapshot.txt", wide, "lock-stat")
    return m, files


@pytest.fixture()
def api(tmp_path):
    with running_server(tmp_path / "data") as client:
        yield client


def upload(client, tmp_path: Path, name: str, m: dict, files: dict[str, bytes]):
    path = write_bundle(tmp_path / f"{name}.iolens.tar.gz", m, files)
    with path.open("rb") as f:
        return client.post("/api/captures", files={"file": (path.name, f, "application/gzip")})


GRANT = "&head->lock"
ILOCK = "&xfs_nondir_ilock_class"


def base_and_other(api, tmp_path) -> tuple[str, str]:
    # baseline: 2 runs of 1000 IOPS (10,000 I/Os each); &head->lock waits 1,000 us per run
    a = capture("base", [1000, 1000], [
        dump(row(GRANT, 100, 1000.0) + points(GRANT, [(60, "xlog_grant_head_check+0x7e/0x2c0 [xfs]"),
                                                       (40, "xfs_log_reserve+0xd2/0x260 [xfs]")],
                                             [(100, "xfs_log_ticket_ungrant+0x4d/0x110 [xfs]")]),
             row("tasklist_lock", 10, 5.0, suffix="-R"), row("quiet_lock", 0, 0.0)),
        dump(row(GRANT, 300, 3000.0) + points(GRANT, [(300, "xlog_grant_head_check+0x7e/0x2c0 [xfs]")],
                                             [(300, "xfs_log_ticket_ungrant+0x4d/0x110 [xfs]")]),
             row("tasklist_lock", 10, 5.0, suffix="-R"), row("quiet_lock", 0, 0.0)),
    ])
    # other: twice the I/Os, four times the grant head wait (so twice per I/O); the ilock is new,
    # tasklist_lock is gone
    b = capture("other", [2000, 2000], [
        dump(row(GRANT, 800, 8000.0), row(ILOCK, 50, 400.0, suffix="-W"), row(ILOCK, 0, 0.0, suffix="-R"),
             row("quiet_lock", 0, 0.0)),
        dump(row(GRANT, 800, 8000.0), row("quiet_lock", 0, 0.0)),
    ])
    ra, rb = upload(api, tmp_path, "a", *a), upload(api, tmp_path, "b", *b)
    assert ra.status_code == 201, ra.text
    assert rb.status_code == 201, rb.text
    return ra.json()["id"], rb.json()["id"]


def test_top_classes_per_capture(api, tmp_path):
    ida, _ = base_and_other(api, tmp_path)
    top = api.get(f"/api/captures/{ida}/lock-stat").json()
    av = top["availability"]
    assert av["available"] and av["scope"] == "runs" and av["runs"] == ["r000", "r001"]
    assert av["ops"] == 20_000 and av["reason"] is None
    assert top["by"] == "wait_total" and top["total"] == 3 and top["contended"] == 2
    first = top["rows"][0]
    assert (first["lock_class"], first["rw"]) == (GRANT, "W") and first["points"] == 3
    s = first["stat"]
    # summed over the two runs' dumps
    assert s["contentions"] == 400 and s["wait_total_ns"] == pytest.approx(4_000_000)
    assert s["wait_avg_ns"] == pytest.approx(10_000) and s["wait_max_ns"] == pytest.approx(3_000_000)
    assert s["contentions_per_op"] == pytest.approx(400 / 20_000)
    assert s["wait_per_op_ns"] == pytest.approx(4_000_000 / 20_000)
    assert [(p["run"], p["contentions"]) for p in s["per_run"]] == [("r000", 100), ("r001", 300)]
    # the read-only class keeps R
    assert ("tasklist_lock", "R") in {(r["lock_class"], r["rw"]) for r in top["rows"]}
    # uncontended: no wait min/max/avg
    quiet = next(r for r in top["rows"] if r["lock_class"] == "quiet_lock")["stat"]
    assert quiet["wait_min_ns"] is None and quiet["wait_avg_ns"] is None and quiet["contentions_per_op"] == 0

    by_cont = api.get(f"/api/captures/{ida}/lock-stat", params={"by": "contentions", "limit": 1}).json()
    assert [r["lock_class"] for r in by_cont["rows"]] == [GRANT] and by_cont["total"] == 3
    by_avg = api.get(f"/api/captures/{ida}/lock-stat", params={"by": "wait_avg"}).json()
    assert [r["lock_class"] for r in by_avg["rows"]][:2] == [GRANT, "tasklist_lock"]
    assert api.get(f"/api/captures/{ida}/lock-stat", params={"by": "nonsense"}).status_code == 422
    assert api.get("/api/captures/ffffffffffffffff/lock-stat").status_code == 404


def test_points_of_a_class(api, tmp_path):
    ida, _ = base_and_other(api, tmp_path)
    pts = api.get(f"/api/captures/{ida}/lock-stat/points", params={"class": GRANT}).json()
    got = [(p["kind"], p["function"], p["module"], p["count"], p["runs"]) for p in pts["points"]]
    assert got == [
        ("contention", "xlog_grant_head_check", "xfs", 360, ["r000", "r001"]),
        ("contention", "xfs_log_reserve", "xfs", 40, ["r000"]),
        ("contending", "xfs_log_ticket_ungrant", "xfs", 400, ["r000", "r001"]),
    ]
    none = api.get(f"/api/captures/{ida}/lock-stat/points", params={"class": "no such lock"}).json()
    assert none["points"] == []


def test_compare_per_io_with_appear_and_vanish(api, tmp_path):
    ida, idb = base_and_other(api, tmp_path)
    cmp = api.get("/api/compare/lock-stat", params={"captures": f"{ida},{idb}", "baseline": ida}).json()
    assert cmp["per_op"] is True and "wait per I/O" in cmp["sort"]
    assert cmp["availability"][idb]["ops"] == 40_000
    rows = {(r["lock_class"], r["rw"]): r for r in cmp["rows"]}
    assert ("quiet_lock", "W") not in rows  # never contended
    assert (ILOCK, "R") not in rows
    g = rows[(GRANT, "W")]["cells"]
    assert g[ida]["status"] == "baseline" and g[ida]["delta_wait"] is None
    # 4 ms over 20k I/Os = 200 ns/IO; 16 ms over 40k I/Os = 400 ns/IO
    assert g[idb]["status"] == "changed"
    assert g[idb]["delta_wait"] == pytest.approx(200.0) and g[idb]["ratio_wait"] == pytest.approx(2.0)
    assert g[idb]["delta_contentions"] == pytest.approx(1600 / 40_000 - 400 / 20_000)
    new = rows[(ILOCK, "W")]["cells"]
    assert new[ida]["stat"] is None and new[idb]["status"] == "appeared"
    assert new[idb]["delta_wait"] == pytest.approx(400_000 / 40_000) and new[idb]["ratio_wait"] is None
    gone = rows[("tasklist_lock", "R")]["cells"]
    assert gone[idb]["status"] == "vanished" and gone[idb]["stat"] is None
    assert gone[idb]["delta_wait"] == pytest.approx(-10_000 / 20_000)
    # ordered by the change in wait per I/O
    assert [r["lock_class"] for r in cmp["rows"]] == [GRANT, ILOCK, "tasklist_lock"]
    assert cmp["rows"][0]["change"] == pytest.approx(200.0)
    assert cmp["total"] == 3

    limited = api.get("/api/compare/lock-stat", params={"captures": f"{ida},{idb}", "limit": 1}).json()
    assert len(limited["rows"]) == 1 and limited["total"] == 3
    missing = api.get("/api/compare/lock-stat", params={"captures": f"{ida},ffffffffffffffff"})
    assert missing.status_code == 404 and missing.json()["detail"] == {"missing": ["ffffffffffffffff"]}


def test_capture_without_lock_stat_says_why(api, tmp_path):
    ida, _ = base_and_other(api, tmp_path)
    note = ("lock_stat: /proc/lock_stat does not exist (this kernel, 6.18.44, was built without CONFIG_LOCK_STAT); "
            "no lock_stat in this capture")
    plain = upload(api, tmp_path, "plain", *capture("plain", [1000])).json()["id"]
    noted = upload(api, tmp_path, "noted", *capture("noted", [1000], notes=["perf: not found", note])).json()["id"]
    top = api.get(f"/api/captures/{noted}/lock-stat").json()
    av = top["availability"]
    assert av["available"] is False and av["scope"] == "none" and av["reason"] == note and av["notes"] == [note]
    assert top["rows"] == [] and "perf lock contention" in top["alternative"]
    assert "--lock-stat" in api.get(f"/api/captures/{plain}/lock-stat").json()["availability"]["reason"]

    cmp = api.get("/api/compare/lock-stat", params={"captures": f"{ida},{noted}"}).json()
    assert cmp["availability"][noted]["reason"] == note
    assert all(noted not in r["cells"] for r in cmp["rows"])
    # a baseline without lock_stat: no differences, the others' rows by their wait
    cmp = api.get("/api/compare/lock-stat", params={"captures": f"{noted},{ida}"}).json()
    assert cmp["baseline"] == noted and "no differences" in cmp["sort"]
    assert cmp["rows"][0]["lock_class"] == GRANT and cmp["rows"][0]["cells"][ida]["delta_wait"] is None


def test_capture_wide_dump_and_totals_without_io(api, tmp_path):
    wide = dump(row(GRANT, 10, 100.0))
    ida = upload(api, tmp_path, "wide", *capture("wide", [1000, 3000], wide=wide)).json()["id"]
    av = api.get(f"/api/captures/{ida}/lock-stat").json()["availability"]
    assert av["scope"] == "capture" and av["runs"] == [] and av["paths"] == ["lock_stat/snapshot.txt"]
    assert av["ops"] == 40_000  # every run's I/Os
    # a capture whose fio did no I/O: the comparison falls back to totals
    m, files = capture("idle", [1000], [dump(row(GRANT, 30, 600.0))])
    job = json.loads(files["runs/r000/fio.json"])
    job["jobs"][0]["write"]["total_ios"] = 0
    m["runs"][0]["artifacts"] = [a for a in m["runs"][0]["artifacts"] if a["kind"] != "fio-json"]
    add_file(m, files, "runs/r000/fio.json", json.dumps(job), "fio-json", run=0)
    idb = upload(api, tmp_path, "idle", m, files).json()["id"]
    cmp = api.get("/api/compare/lock-stat", params={"captures": f"{ida},{idb}"}).json()
    assert cmp["per_op"] is False and "total wait" in cmp["sort"]
    cell = cmp["rows"][0]["cells"][idb]
    assert cell["delta_wait"] == pytest.approx(500_000) and cell["ratio_wait"] == pytest.approx(6.0)
    assert cell["stat"]["wait_per_op_ns"] is None


def test_bad_dumps_are_refused_and_change_nothing(api, tmp_path):
    base_and_other(api, tmp_path)
    before = api.get("/api/captures").json()
    text = dump(row(GRANT, 100, 1000.0) + points(GRANT, [(60, "a+0x1/0x2")], [(100, "b+0x1/0x2")]))
    wrapped = "\n".join(
        line if len(line) < 80 or set(line) <= {"-", "."} else line[:70].rstrip() + "\n" + line[70:].strip()
        for line in text.split("\n"))
    r = upload(api, tmp_path, "wrapped", *capture("wrapped", [1000], [wrapped]))
    assert r.status_code == 422, r.text
    body = r.json()
    assert "wrapped by an email client" in body["error"]
    assert body["detail"]["file"] == "runs/r000/lock_stat.txt" and body["detail"]["line"] == 3

    m, files = capture("two", [1000], [text])
    add_file(m, files, "runs/r000/lock_stat-again.txt", text, "lock-stat", run=0)
    r = upload(api, tmp_path, "two", m, files)
    assert r.status_code == 422 and "more than one lock-stat artifact" in r.json()["error"]
    assert api.get("/api/captures").json() == before


def test_tables_hold_the_dump(tmp_path):
    data = tmp_path / "data"
    with running_server(data) as client:
        base_and_other(client, tmp_path)
    con = duckdb.connect(str(data / "iolens.duckdb"), read_only=True)
    counts = dict(con.execute(
        "SELECT 'dumps', count(*) FROM lock_stat_dumps UNION ALL SELECT 'classes', count(*) FROM lock_stat_classes "
        "UNION ALL SELECT 'points', count(*) FROM lock_stat_points").fetchall())
    row_ = con.execute("SELECT rw, wait_total_ns, hold_total_ns, seq FROM lock_stat_classes "
                       "WHERE class = 'tasklist_lock' ORDER BY path LIMIT 1").fetchone()
    con.close()
    assert counts == {"dumps": 4, "classes": 3 + 3 + 4 + 2, "points": 3 + 2}
    assert row_ == ("R", 5000, 500000, 1)


REAL_DUMP = "lock_stat/linux-6.12.117-lockstat-xfs-fio8.txt"


def test_real_dump_ingests_with_every_class_apart(api, tmp_path, corpus):
    """A real /proc/lock_stat (6.12, CONFIG_LOCK_STAT): cut names with spaces and braces, and
    classes printing the same name, each its own row through ingest, the views and the export."""
    from iolens.formats.lock_stat import parse_lock_stat

    text = (corpus / REAL_DUMP).read_text()
    parsed = parse_lock_stat(text)
    ids = []
    for label, iops in (("6.12 lockstat", [1000]), ("6.12 lockstat again", [2000])):
        r = upload(api, tmp_path, label.replace(" ", "-"), *capture(label, iops, [text]))
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    top = api.get(f"/api/captures/{ids[0]}/lock-stat", params={"limit": 5000}).json()
    keys = [(r["lock_class"], r["occurrence"], r["rw"]) for r in top["rows"]]
    assert top["total"] == len(keys) == len(set(keys)) == sum(len(c.rows) for c in parsed.classes) == 277
    dup = sorted((r["occurrence"], r["stat"]["acquisitions"]) for r in top["rows"]
                 if r["lock_class"] == "&sb->s_type->i_lock_key#2")
    assert [o for o, _ in dup] == [0, 1, 2, 3] and {13, 375, 390} <= {a for _, a in dup}
    vpp = [r for r in top["rows"] if r["lock_class"] == "&(({ do { const void *__vpp_verify = "]
    assert [(r["occurrence"], r["rw"], r["stat"]["acquisitions"]) for r in vpp] == [(0, "W", 22)]
    # the points of every class with points, by (class, occurrence)
    for c in parsed.classes:
        if not (c.contention_points or c.contending_points):
            continue
        got = api.get(f"/api/captures/{ids[0]}/lock-stat/points",
                      params={"class": c.name, "occurrence": c.occurrence}).json()["points"]
        assert sorted((p["kind"], p["symbol"], p["count"]) for p in got) == sorted(
            (p.kind, p.symbol, p.count) for p in c.contention_points + c.contending_points), c.name
    # compared with itself at twice the I/Os: every contended class halves per I/O, none is lost
    cmp = api.get("/api/compare/lock-stat", params={"captures": ",".join(ids), "limit": 5000}).json()
    contended = {(c.name, c.occurrence, r.rw) for c in parsed.classes for r in c.rows if r.contentions}
    assert {(r["lock_class"], r["occurrence"], r["rw"]) for r in cmp["rows"]} == contended
    assert all(r["cells"][ids[1]]["status"] == "changed" for r in cmp["rows"])
    # the lock_stat cell of a notebook, exported as text and HTML
    doc = {"format_version": 1, "title": "real lock_stat", "captures": ids, "baseline": ids[0],
           "cells": [{"type": "view", "kind": "lockstat", "state": "", "full": True}]}
    nid = save(api, doc).json()["id"]
    text_export = api.get(f"/api/notebooks/{nid}/export")
    assert text_export.status_code == 200 and "&xfs_nondir_ilock_class" in text_export.text
    check_mail_safe(text_export.text)
    html = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"})
    assert html.status_code == 200 and "&amp;xfs_nondir_ilock_class" in html.text
