"""The real FastAPI app served by uvicorn on a free loopback port, over a temp DuckDB file."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn

from iolens.api.app import Settings, create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(data_dir: Path, frontend_dist: Path | None = None, **settings: object) -> Iterator[httpx.Client]:
    app = create_app(Settings(db_path=data_dir / "iolens.duckdb", data_dir=data_dir,
                              frontend_dist=frontend_dist, **settings))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        # A limit against a hang, not a measure: the 30 s this used to allow ran out under make test's
        # load in the setups that upload traces (test_timeline, test_export_sched, test_block_export).
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=httpx.Timeout(300, connect=30)) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.state.store.close()
