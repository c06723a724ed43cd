"""`iolens serve` makes every route's request handling before it listens (api/app.py build_routes):
FastAPI otherwise builds an included router's routes on the first request that reaches it, which
cost the first difference flame graph after a start ~0.15 s (bench/flame_diff.py)."""

from __future__ import annotations

import threading
import time

import fastapi.routing
import httpx
import uvicorn
from server import free_port

from iolens.api.app import Settings, build_routes, create_app


def _first_request_builds(tmp_path, monkeypatch, prepared: bool) -> int:
    app = create_app(Settings(db_path=tmp_path / "iolens.duckdb", data_dir=tmp_path, frontend_dist=None))
    if prepared:
        assert build_routes(app) >= len([r for r in app.routes if isinstance(r, fastapi.routing.APIRoute)])
    built = []
    populate = fastapi.routing._populate_api_route_state

    def counting(*args, **kwargs):
        built.append(args[1])
        return populate(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "_populate_api_route_state", counting)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
            time.sleep(0.02)
        r = httpx.get(f"http://127.0.0.1:{port}/api/compare/flame", params={"a": "nope", "b": "nope"}, timeout=60)
        assert r.status_code == 404
    finally:
        server.should_exit = True
        thread.join(30)
    return len(built)


def test_first_request_after_build_routes_builds_nothing(tmp_path, monkeypatch):
    assert _first_request_builds(tmp_path, monkeypatch, prepared=True) == 0


def test_without_it_the_first_request_builds_its_router(tmp_path, monkeypatch):
    # what build_routes is for: if FastAPI stops building routes lazily, it can go
    assert _first_request_builds(tmp_path, monkeypatch, prepared=False) > 0
