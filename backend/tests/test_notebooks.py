"""Notebooks over real HTTP: immutable versions, permalinks, parents, search, the write token,
old documents, and the exports (golden text, self-contained HTML, `iolens export`)."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bundles import fio_capture, write_bundle
from goldens import check_golden
from notebook_helpers import check_mail_safe, save, stable
from server import running_server

from iolens.bundle import capture_id
from iolens.models import notebook_upgrade as document
from iolens.store.db import Store

HERE = Path(__file__).parent
FIXTURE_V1 = HERE / "fixtures" / "notebook-v1.json"
GOLDEN = HERE / "golden"
PUBLIC = "https://iolens.example.org"


def captures() -> list[tuple[dict, dict[str, bytes]]]:
    base, bfiles = fio_capture("6.18-ext4", [
        [{"name": "rw4k", "iops": 171234, "clat_mean": 845_100, "p99": 1_236_992, "sys": 41.5}],
        [{"name": "rw4k", "iops": 170010, "clat_mean": 850_200, "p99": 1_253_376, "sys": 42.0}],
        [{"name": "rw4k", "iops": 172500, "clat_mean": 839_900, "p99": 1_269_760, "sys": 41.0}],
    ], tags={"fs": "ext4"})
    other, ofiles = fio_capture("6.18-xfs", [
        [{"name": "rw4k", "iops": 152100, "clat_mean": 951_000, "p99": 1_286_144, "sys": 45.5}],
        [{"name": "rw4k", "iops": 150980, "clat_mean": 960_500, "p99": 1_220_608, "sys": 46.0}],
    ], tags={"fs": "xfs"})
    other["host"]["targets"][0]["filesystem"]["type"] = "xfs"
    return [(base, bfiles), (other, ofiles)]


A, B = (capture_id(m) for m, _ in captures())


def upload_all(client, tmp: Path, headers: dict | None = None) -> list[str]:
    ids = []
    for m, files in captures():
        path = write_bundle(tmp / f"{m['label']}.iolens.tar.gz", m, files)
        with path.open("rb") as f:
            r = client.post("/api/captures", files={"file": (path.name, f, "application/gzip")}, headers=headers or {})
        assert r.status_code in (200, 201), r.text
        ids.append(r.json()["id"])
    assert ids == [A, B]
    return ids


def fixture_v1() -> dict:
    return json.loads(FIXTURE_V1.read_text())


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nb")
    with running_server(tmp / "data", public_url=PUBLIC) as client:
        upload_all(client, tmp)
        yield client


def test_the_v1_fixture_names_the_test_captures():
    doc = fixture_v1()
    assert doc["format_version"] == 1 and doc["captures"] == [A, B]


def test_save_is_immutable_and_content_addressed(api):
    doc = fixture_v1()
    r = save(api, doc)
    assert r.status_code == 201, r.text
    body = r.json()
    nid = body["id"]
    assert re.fullmatch(r"[0-9a-hjkmnp-tv-z]{10}", nid), nid
    assert body["url"] == f"/n/{nid}" and body["parent"] is None and body["created"] is True

    got = api.get(f"/api/notebooks/{nid}").json()
    assert got["document"] == doc
    assert got["id"] == nid and got["parent"] is None and got["children"] == []
    assert [c["label"] for c in got["captures"]] == ["6.18-ext4", "6.18-xfs"]
    assert got["kinds"] == ["markdown", "fio", "sql"] and got["cells"] == 3

    again = save(api, doc)
    assert again.status_code == 200 and again.json()["id"] == nid and again.json()["created"] is False

    # an edit saved from it is a new version linked to its parent; the parent does not change
    edited = copy.deepcopy(doc)
    edited["cells"][0]["text"] += "\n\nSecond look: p99 is within noise."
    child = save(api, edited, parent=nid)
    assert child.status_code == 201
    cid = child.json()["id"]
    assert cid != nid and child.json()["parent"] == nid
    assert api.get(f"/api/notebooks/{nid}").json()["document"] == doc
    assert api.get(f"/api/notebooks/{nid}").json()["children"] == [cid]
    assert api.get(f"/api/notebooks/{cid}").json()["parent"] == nid
    # the same text saved without a parent is a different version (another history)
    assert save(api, edited).json()["id"] not in (nid, cid)


def test_bad_saves_are_refused_and_change_nothing(api):
    before = api.get("/api/notebooks").json()["total"]
    doc = fixture_v1()
    cases = {
        "unknown capture": (dict(doc, captures=[A, "ffffffffffffffff"]), None, 422, "unknown capture"),
        "baseline not compared": (dict(doc, baseline="0000000000000000"), None, 422, "baseline"),
        "unknown parent": (doc, "zzzzzzzzzz", 422, "parent"),
        "newer format": (dict(doc, format_version=99), None, 422, "format_version"),
        "unknown cell type": (dict(doc, cells=[{"type": "script", "text": "x"}]), None, 422, "cells"),
        "bad view kind": (dict(doc, cells=[{"type": "view", "kind": "../etc", "state": ""}]), None, 422, "kind"),
    }
    for name, (d, parent, status, needle) in cases.items():
        r = save(api, d, parent)
        assert r.status_code == status, (name, r.text)
        assert set(r.json()) == {"error", "detail"} and needle in json.dumps(r.json()), (name, r.json())
    assert api.get("/api/notebooks").json()["total"] == before


def test_unknown_and_malformed_ids(api):
    assert api.get("/api/notebooks/abcdefghjk").status_code == 404
    r = api.get("/api/notebooks/..%2Fetc")
    assert r.status_code == 404 and "error" in r.json()


def test_list_and_search(api):
    doc = fixture_v1()
    nid = save(api, dict(doc, title="Bulkstat batch sweep")).json()["id"]
    listed = api.get("/api/notebooks").json()
    assert listed["total"] >= 1 and listed["notebooks"][0]["id"] == nid  # newest first
    for q in ("bulkstat", "BATCH sweep", "6.18-xfs", "fs=ext4", "6.18.0-test", "fio_results", nid[:6]):
        found = [n["id"] for n in api.get("/api/notebooks", params={"q": q}).json()["notebooks"]]
        assert nid in found, q
    assert api.get("/api/notebooks", params={"q": "bulkstat nothing-like-this"}).json() == {"notebooks": [], "total": 0}


def test_a_v1_document_saved_long_ago_still_opens(tmp_path):
    """The fixture is a document as the first format wrote it, stored as is (as an old iolens
    left it). The current code must open it, list it and export it."""
    data = tmp_path / "data"
    raw = FIXTURE_V1.read_text()
    store = Store(data / "iolens.duckdb")
    with store.write() as w:
        w.execute("""INSERT INTO notebook_versions VALUES ('0ld0ld0ld0', 'x', NULL, 1, 'old', ?, ?, 'old', now())""",
                  [fixture_v1()["captures"], raw])
    store.close()
    with running_server(data, public_url=PUBLIC) as client:
        upload_all(client, tmp_path)
        got = client.get("/api/notebooks/0ld0ld0ld0")
        assert got.status_code == 200, got.text
        assert got.json()["document"] == document.load(json.loads(raw)).model_dump(mode="json")
        assert [n["id"] for n in client.get("/api/notebooks").json()["notebooks"]] == ["0ld0ld0ld0"]
        text = client.get("/api/notebooks/0ld0ld0ld0/export").text
        assert "IOPS" in text and "6.18-xfs" in text


def test_short_names_for_text_tables():
    from iolens.exports.textfmt import short_names

    assert short_names(["6.18-ext4", "6.18-xfs"]) == ["6.18-ext4", "6.18-xfs"]
    assert short_names(["6.18.44-fc-v669-xfs", "6.18.44-fc-v669-ext4"]) == ["xfs", "ext4"]
    assert short_names(["lock_stat 5.11-rc5 revert; fio here", "lock_stat 5.11-rc5 vanilla; fio here"]) == ["revert", "vanilla"]
    assert short_names(["a" * 20, "b" * 20, "c" * 20]) == ["A", "B", "C"]
    # datasets/vmlab-deb61-vs-deb612: the kernel versions, not '1' and '12' (numbers among the figures)
    assert short_names(["dio-probes-6.1-xfs", "dio-probes-6.12-xfs"]) == ["6.1", "6.12"]
    assert short_names(["dio-sweep-6.1-ext4-randwrite", "dio-sweep-6.12-ext4-randwrite", "dio-sweep-6.18-ext4-randwrite"]) == ["6.1", "6.12", "6.18"]


def test_ratio_text_has_three_significant_digits_and_no_exponent():
    from iolens.exports.textfmt import format_ratio

    assert [format_ratio(r) for r in (1.123, 0.919, 1.0, None, float("inf"))] == ["+12.3 %", "-8.1 %", "+-0.0 %", "", ""]
    # past +1000 % the ratio itself, as the frontend's formatRatio (d3 ".3~r") prints it
    assert [format_ratio(r) for r in (11.0, 12.345, 99.96, 1370.4, 123456.7)] == ["x11", "x12.3", "x100", "x1370", "x123000"]


def test_upgrade_runs_each_upgrader_in_order_and_keeps_the_input():
    def to2(d):
        return {**d, "cells": [{**c, "id": f"c{i}"} for i, c in enumerate(d["cells"])]}

    def to3(d):
        return {**d, "title": d["title"].upper()}

    raw = fixture_v1()
    kept = copy.deepcopy(raw)
    up = document.upgrade(raw, {2: to2, 3: to3}, current=3)
    assert up["format_version"] == 3 and up["title"] == raw["title"].upper() and up["cells"][0]["id"] == "c0"
    assert raw == kept
    with pytest.raises(document.DocumentError, match="newer iolens"):
        document.upgrade(dict(raw, format_version=4), {2: to2, 3: to3}, current=3)
    with pytest.raises(document.DocumentError, match="positive integer"):
        document.upgrade(dict(raw, format_version="1"))
    assert document.load(raw).model_dump(mode="json") == raw


# --- the write token --------------------------------------------------------------------------


def test_token_guards_writes_not_reads(tmp_path):
    with running_server(tmp_path / "data", token="s3cret-t0ken") as client:
        assert client.get("/api/health").json()["writes_need_token"] is True
        m, files = captures()[0]
        path = write_bundle(tmp_path / "a.iolens.tar.gz", m, files)
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-t0ken"}):
            with path.open("rb") as f:
                r = client.post("/api/captures", files={"file": (path.name, f)}, headers=headers)
            assert r.status_code == 401, headers
            assert "access token" in r.json()["error"] and r.headers["www-authenticate"] == "Bearer"
        assert client.get("/api/captures").json() == []
        ids = upload_all(client, tmp_path, headers={"Authorization": "Bearer s3cret-t0ken"})
        doc = dict(fixture_v1(), captures=ids, baseline=ids[0])
        assert save(client, doc).status_code == 401
        assert client.get("/api/notebooks").json()["total"] == 0
        r = save(client, doc, headers={"Authorization": "Bearer s3cret-t0ken"})
        assert r.status_code == 201
        nid = r.json()["id"]
        # reads of a permalink need no token
        assert client.get(f"/api/notebooks/{nid}").status_code == 200
        assert client.get(f"/api/notebooks/{nid}/export?format=html").status_code == 200
        assert client.get("/api/sql", params={"sql": "SELECT 1", "captures": ids[0]}).status_code == 200
    with running_server(tmp_path / "open") as client:
        assert client.get("/api/health").json()["writes_need_token"] is False


def test_cli_sends_the_token(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("t0k3n\n")
    m, files = captures()[0]
    bundle = write_bundle(tmp_path / "a.iolens.tar.gz", m, files)
    with running_server(tmp_path / "data", token="t0k3n") as client:
        url = str(client.base_url)
        env = {k: v for k, v in os.environ.items() if k != "IOLENS_TOKEN"}
        refused = subprocess.run([sys.executable, "-m", "iolens", "ingest", "--server", url, str(bundle)],
                                 capture_output=True, text=True, env=env, timeout=60)
        assert refused.returncode == 1 and "access token" in refused.stderr
        ok = subprocess.run([sys.executable, "-m", "iolens", "ingest", "--server", url, "--token-file", str(token_file),
                             str(bundle)], capture_output=True, text=True, env=env, timeout=60)
        assert ok.returncode == 0, ok.stderr
        via_env = subprocess.run([sys.executable, "-m", "iolens", "ingest", "--server", url, str(bundle)],
                                 capture_output=True, text=True, env={**env, "IOLENS_TOKEN": "t0k3n"}, timeout=60)
        assert via_env.returncode == 0 and "already present" in via_env.stderr


# --- exports ----------------------------------------------------------------------------------


def test_text_export_golden(api):
    nid = save(api, fixture_v1()).json()["id"]
    r = api.get(f"/api/notebooks/{nid}/export", params={"format": "text"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    check_mail_safe(text)
    head = text.split("\n")[:3]
    assert f"{PUBLIC}/n/{nid}" in head
    check_golden("notebook-v1.txt", stable(text))


def test_text_export_of_everything_awkward(api):
    doc = dict(fixture_v1(), title="Tabs\tand ünïcödé — “quotes” µs ± 5 %", cells=[
        {"type": "markdown", "text": "# Ünicode heading\n\n" + "wörd " * 40 + "\n\n- item with a very-long-token-"
         + "x" * 90 + "\n\n```\n\tcode with a tab and a line that is much longer than seventy-two columns, really it is\n```"},
        {"type": "sql", "sql": "SELECT 'naïve ' || repeat('y', 100) AS t, 1.5 AS n, NULL AS z", "chart": None},
        {"type": "sql", "sql": "SELECT * FROM read_csv('/etc/passwd')", "chart": None},
        {"type": "view", "kind": "flamegraph", "state": "zoom=1"},
        {"type": "sql", "sql": "SELECT r.run_index, f.iops FROM fio_results f JOIN runs r USING (capture_id, run_id) "
                               "ORDER BY 1, 2", "chart": {"mark": "line", "x": "run_index", "y": ["iops"]}},
    ])
    nid = save(api, doc).json()["id"]
    text = api.get(f"/api/notebooks/{nid}/export").text
    check_mail_safe(text)
    assert "cannot read files" in text
    assert f"{PUBLIC}/n/{nid}#cell-4" in text  # the view without a text form links to its cell
    assert "iops: min 150980 at run_index=1, max 172500 at run_index=2" in text


def test_html_export_is_one_safe_static_file(api):
    doc = fixture_v1()
    doc["cells"].append({"type": "markdown",
                         "text": "<script>alert(1)</script> [click](javascript:alert(2)) ![x](http://tracker.example/p.png)"})
    nid = save(api, doc).json()["id"]
    r = api.get(f"/api/notebooks/{nid}/export", params={"format": "html", "download": "true"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert f'filename="iolens-{nid}.html"' in r.headers["content-disposition"]
    page = r.text
    assert page.startswith("<!doctype html>")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # the only script is inert JSON; nothing is fetched (no src=, no stylesheet link)
    assert re.findall(r"<script[^>]*>", page) == ['<script type="application/json" id="iolens-notebook">']
    assert " src=" not in page and "<link" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "href=\"javascript" not in page
    # the numbers are there: fio table, SQL result, chart
    assert "171.2k IO/s" in page and "6.18-xfs" in page and "<svg" in page
    data = json.loads(re.search(r'id="iolens-notebook">(.*?)</script>', page, re.S).group(1))
    assert data["id"] == nid and data["document"]["title"] == doc["title"]
    assert data["results"]["cell-3"]["rows"]


def test_cli_export_from_db_and_server(tmp_path):
    data = tmp_path / "data"
    with running_server(data, public_url=PUBLIC) as client:
        upload_all(client, tmp_path)
        nid = save(client, fixture_v1()).json()["id"]
        url = str(client.base_url).rstrip("/")
        served = client.get(f"/api/notebooks/{nid}/export").text
        r = subprocess.run([sys.executable, "-m", "iolens", "export", nid, "--server", url],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout == served
        # a permalink is enough
        r = subprocess.run([sys.executable, "-m", "iolens", "export", f"{url}/n/{nid}", "--format", "html",
                            "-o", str(tmp_path / "nb.html")], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "nb.html").read_text().startswith("<!doctype html>")
        missing = subprocess.run([sys.executable, "-m", "iolens", "export", "abcdefghjk", "--server", url],
                                 capture_output=True, text=True, timeout=60)
        assert missing.returncode == 1 and "no notebook" in missing.stderr
    r = subprocess.run([sys.executable, "-m", "iolens", "export", nid, "--db", str(data / "iolens.duckdb"),
                        "--url", PUBLIC], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == served


def test_every_server_setting_is_documented():
    """Datasette's rule: a setting without documentation fails the build."""
    repo = HERE.parents[1]
    docs = (repo / "docs" / "api.md").read_text() + (repo / "docs" / "team-server.md").read_text()
    code = repo / "backend" / "iolens"
    sources = [p.read_text() for p in sorted((code / "api").rglob("*.py")) + sorted((code / "cli").glob("*.py"))]
    names = set(re.findall(r"IOLENS_[A-Z_]+", "".join(sources)))
    assert {"IOLENS_TOKEN", "IOLENS_PUBLIC_URL", "IOLENS_SQL_TIME_LIMIT", "IOLENS_SQL_MAX_ROWS"} <= names
    assert sorted(n for n in names if n not in docs) == []
    for option in ("--token-file", "--public-url", "--host", "--port", "--db"):
        assert option in docs, option
