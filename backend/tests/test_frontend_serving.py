"""The built frontend over real HTTP (api/app.py): its files from memory with the types and cache
headers a browser needs, index.html for every page path, a rebuilt file served at once, nothing
outside the dist folder, and API paths never answered with the page."""

from __future__ import annotations

import os

from server import running_server


def make_dist(tmp_path):
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>iolens</title><script src=/assets/index-abc.js></script>")
    (dist / "assets" / "index-abc.js").write_text("console.log('é')\n" * 1000)
    (dist / "assets" / "index-abc.css").write_text("body{}")
    (dist / "assets" / "font.woff2").write_bytes(bytes(range(256)) * 10)
    (tmp_path / "secret.txt").write_text("not served")
    return dist


def test_files_pages_and_api_paths(tmp_path):
    dist = make_dist(tmp_path)
    with running_server(tmp_path / "data", frontend_dist=dist) as client:
        js = client.get("/assets/index-abc.js")
        assert js.status_code == 200
        assert js.content == (dist / "assets" / "index-abc.js").read_bytes()
        assert js.headers["content-type"] == "text/javascript; charset=utf-8"
        assert js.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert int(js.headers["content-length"]) == len(js.content)
        assert client.get("/assets/index-abc.css").headers["content-type"] == "text/css; charset=utf-8"
        font = client.get("/assets/font.woff2")
        assert font.content == bytes(range(256)) * 10 and font.headers["content-type"] == "font/woff2"
        for page in ("/", "/compare?v=1&captures=a&baseline=a&cell=flame", "/n/abc123", "/no/such/page"):
            r = client.get(page)
            assert r.status_code == 200, page
            assert r.headers["content-type"] == "text/html; charset=utf-8"
            assert r.headers["cache-control"] == "no-cache"
            assert r.text.startswith("<!doctype html>")
        assert "not served" not in client.get("/../secret.txt").text
        assert "not served" not in client.get("/assets/..%2F..%2Fsecret.txt").text
        assert client.get("/api/no-such-route").status_code == 404
        assert client.get("/api").status_code == 404

        # a rebuild: the new bytes at once (the kept copy follows the file's mtime and size)
        (dist / "index.html").write_text("<!doctype html><title>iolens 2</title>")
        st = (dist / "index.html").stat()
        os.utime(dist / "index.html", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert "iolens 2" in client.get("/compare").text
