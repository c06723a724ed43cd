"""index.html's preloads (api/index_preload.py): the page's first API requests named in the HTML
served for its URL, by the shared rule of testdata/vectors/index-preload.json (boot.ts's side is
checked against the same file by frontend/src/bootPreload.test.ts), over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from server import running_server

from iolens.api.index_preload import inject, preloads, without_stacks

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "testdata" / "vectors" / "index-preload.json")
                     .read_text(encoding="utf-8"))

INDEX = """<!doctype html>
<html lang="en">
  <head>
    <title>iolens</title>
    <script type="module" crossorigin src="/assets/index-abc.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/render-abc.js">
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
"""


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_rule_vectors(case):
    u = urlsplit(case["url"])
    stackless = case.get("stackless", [])
    assert preloads(u.path, u.query, stackless) == case["preloads"]
    assert without_stacks(u.path, u.query, stackless) == case.get("told", [])
    told = [line for line in inject(INDEX, u.path, u.query, stackless).splitlines() if "iolens-without-stacks" in line]
    assert told == ([f'    <meta name="iolens-without-stacks" content="{",".join(case["told"])}">'] if case.get("told") else [])


def test_links_at_the_end_of_the_head():
    page = inject(INDEX, "/compare", "v=1&captures=a1,b2&baseline=b2&cell=flame")
    head = page[:page.index("</head>")]
    assert head.endswith(
        '    <link rel="modulepreload" crossorigin href="/assets/render-abc.js">\n'
        '    <link rel="preload" as="fetch" crossorigin href="/api/captures/b2/flame?format=columns">\n'
        '    <link rel="preload" as="fetch" crossorigin href="/api/captures">\n'
        '    <link rel="preload" as="fetch" crossorigin href="/api/health">\n  ')
    assert page.replace(head, "") == INDEX[INDEX.index("</head>"):]
    assert inject(INDEX, "/", "") == INDEX
    assert inject("<p>no head</p>", "/n/abcdefghij0123", "") == "<p>no head</p>"


def test_served_index_names_the_pages_requests(tmp_path):
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(INDEX)
    (dist / "assets" / "index-abc.js").write_text("export {}\n")
    with running_server(tmp_path / "data", frontend_dist=dist) as client:
        # (the cases of captures without stacks need them in the store: the test below)
        for case in [c for c in VECTORS["cases"] if not c.get("stackless")]:
            r = client.get(case["url"])
            assert r.status_code == 200 and r.headers["cache-control"] == "no-cache", case["name"]
            hrefs = [line.split('href="')[1].split('"')[0].replace("&amp;", "&")
                     for line in r.text.splitlines() if 'rel="preload" as="fetch"' in line]
            assert hrefs == case["preloads"], case["name"]
            assert "iolens-without-stacks" not in r.text, case["name"]  # the store holds none of them
        # the page's files are sent as they are
        assert client.get("/assets/index-abc.js").text == "export {}\n"
        assert client.get("/index.html").text == INDEX


def test_a_link_whose_baseline_has_no_stacks_preloads_no_flame_answer(tmp_path):
    # a real capture without call stacks (datasets/sched-pinned) beside one with them: the served
    # index.html names no flame answer of the first (a 404) and tells the page it has none
    repo = Path(__file__).resolve().parents[2]
    plain_bundle = next((repo / "datasets" / "sched-pinned").glob("*.iolens.tar.gz"))
    stacks_bundle = next((repo / "datasets" / "stacks-xfs").glob("*.iolens.tar.gz"))
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "index.html").write_text(INDEX)
    with running_server(tmp_path / "data", frontend_dist=dist) as client:
        ids = []
        for b in (plain_bundle, stacks_bundle):
            with b.open("rb") as f:
                r = client.post("/api/captures", files={"file": (b.name, f, "application/gzip")})
            assert r.status_code in (200, 201), r.text
            ids.append(r.json()["id"])
        plain, st = ids
        assert client.get(f"/api/captures/{plain}/flame").status_code == 404
        page = client.get(f"/compare?v=1&captures={plain},{st}&baseline={plain}&cell=flame").text
        assert "/flame?format=columns" not in page
        assert f'<meta name="iolens-without-stacks" content="{plain}">' in page
        page = client.get(f"/compare?v=1&captures={plain},{st}&baseline={st}&cell=flame").text
        assert f'href="/api/captures/{st}/flame?format=columns"' in page
        assert client.get(f"/api/captures/{st}/flame?format=columns").status_code == 200
        # a saved notebook's page (/n/ID) names no captures in its URL: the server reads the
        # notebook's and tells the page the same, so its flame cell asks for no 404
        doc = {"format_version": 1, "title": "no stacks first", "captures": [plain, st], "baseline": plain,
               "cells": [{"type": "view", "kind": "flame", "state": "", "full": False}]}
        r = client.post("/api/notebooks", json={"document": doc})
        assert r.status_code == 201, r.text
        page = client.get(f"/n/{r.json()['id']}").text
        assert f'<meta name="iolens-without-stacks" content="{plain}">' in page
        assert f'href="/api/notebooks/{r.json()["id"]}"' in page
        # one whose captures all have stacks, and an unknown id: nothing said
        r = client.post("/api/notebooks", json={"document": {**doc, "captures": [st], "baseline": st}})
        assert "iolens-without-stacks" not in client.get(f"/n/{r.json()['id']}").text
        assert "iolens-without-stacks" not in client.get("/n/0123456789abcdef").text
