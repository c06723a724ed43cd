"""index.html's preloads (api/index_preload.py): the page's first API requests named in the HTML
served for its URL, by the shared rule of testdata/vectors/index-preload.json (boot.ts's side is
checked against the same file by frontend/src/bootPreload.test.ts), over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from server import running_server

from iolens.api.index_preload import inject, preloads

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
    assert preloads(u.path, u.query) == case["preloads"]


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
        for case in VECTORS["cases"]:
            r = client.get(case["url"])
            assert r.status_code == 200 and r.headers["cache-control"] == "no-cache", case["name"]
            hrefs = [line.split('href="')[1].split('"')[0].replace("&amp;", "&")
                     for line in r.text.splitlines() if 'rel="preload" as="fetch"' in line]
            assert hrefs == case["preloads"], case["name"]
        # the page's files are sent as they are
        assert client.get("/assets/index-abc.js").text == "export {}\n"
        assert client.get("/index.html").text == INDEX
