"""The HTTP API (FastAPI) and the built frontend, on one port.

create_app wires the error handlers and one router per domain (api/routes/<domain>.py). Routes
are thin: they call views/, ingest and store, and map errors to `{"error", "detail"}` bodies.
"""

from __future__ import annotations

import logging
import mimetypes
import os
import shutil
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.routing import iter_route_contexts
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..bundle import BundleError
from ..store import notebooks
from ..store.db import Store, StoreError
from ..store.sandbox import Sandbox, SqlRefused
from ..views import flame_answer
from . import index_preload
from .deps import Settings
from .guard import RequestGuard
from .routes import (
    backup,
    block,
    captures,
    comparison,
    events,
    fio,
    flame,
    flame_time,
    lockstat,
    loose,
    meta,
    monitors,
    offcpu,
    sched,
    sql,
    sweep,
    timerange,
)
from .routes import notebooks as notebook_routes

log = logging.getLogger("iolens.api")

# One router per domain, in the order of the OpenAPI document.
ROUTERS = (meta, captures, comparison, loose, fio, lockstat, notebook_routes, sql, block, sched, flame, flame_time, timerange,
           offcpu, sweep, events, monitors, backup)

__all__ = ["Settings", "create_app", "default_frontend_dist"]


def default_frontend_dist() -> Path | None:
    env = os.environ.get("IOLENS_FRONTEND_DIST")
    if env:
        return Path(env)
    # backend/iolens/api/app.py -> <repo>/frontend/dist
    candidate = Path(__file__).resolve().parents[3] / "frontend" / "dist"
    return candidate if (candidate / "index.html").is_file() else None


def clean_data_dir(store: Store, settings: Settings) -> None:
    """Leftovers of a killed server or ingest, removed at start-up and logged: `.upload-*` temporary
    files, `*.partial` copies, and kept bundles that no capture references (the capture's
    transaction never committed)."""
    removed: list[str] = []
    for pattern in (".upload-*", "*.partial", "bundles/*.partial", "bundles/*.iolens.tmp*"):
        for p in settings.data_dir.glob(pattern):
            if p.is_file() and p.resolve() != Path(settings.db_path).resolve():
                p.unlink(missing_ok=True)
                removed.append(p.name)
    for p in settings.data_dir.glob(".loose-*"):  # a loose-files upload's working directory
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p.name + "/")
    bundles = settings.bundles_dir
    if bundles.is_dir():
        kept = {str(r[0]) for r in store.query("SELECT bundle_sha256 FROM captures").rows}
        for p in bundles.glob("*.iolens.tar"):
            if p.name.removesuffix(".iolens.tar") not in kept:
                p.unlink(missing_ok=True)
                removed.append(f"bundles/{p.name}")
    if removed:
        log.warning("removed %d leftover file(s) of an interrupted upload or ingest: %s", len(removed),
                    ", ".join(sorted(removed)[:20]) + (" ..." if len(removed) > 20 else ""))
        print(f"iolens: removed {len(removed)} leftover file(s) of an interrupted upload or ingest "
              f"({', '.join(sorted(removed)[:5])}{' ...' if len(removed) > 5 else ''})", file=sys.stderr)


class _Activity:
    """How many HTTP requests are being answered, and when the last one ended (_CountRequests), so
    that work done ahead (the flame answers) runs while nobody waits for the server."""

    def __init__(self) -> None:
        self.active = 0
        self.last = time.monotonic()

    def idle(self, quiet_s: float = 0.5) -> bool:
        return self.active == 0 and time.monotonic() - self.last >= quiet_s


class _CountRequests:
    """ASGI middleware keeping an _Activity."""

    def __init__(self, app: Any, activity: _Activity) -> None:
        self.app = app
        self.activity = activity

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.activity.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.activity.active -= 1
            self.activity.last = time.monotonic()


def _warm_flame(store: Store, stop: threading.Event, activity: _Activity | None) -> None:
    """The whole-capture flame answers made ahead, so that a page opened after a start finds them:
    each one begins only when no request has been answered for half a second (a page being loaded
    right after the start is not slowed down by them)."""
    started = time.perf_counter()

    def wait_idle() -> bool:
        while activity is not None and not activity.idle():
            if stop.wait(0.1):
                return False
        return not stop.is_set()

    try:
        made = flame_answer.warm(store, stop, before_each=wait_idle)
    except Exception:  # noqa: BLE001 - a head start only (a store closed under it at shutdown, for one)
        log.warning("flame answers not made ahead", exc_info=True)
        return
    if made:
        log.info("flame answers of %d capture(s) made ahead in %.1f s", len(made), time.perf_counter() - started)


def build_routes(app: FastAPI) -> int:
    """Make every route's request handling now (`iolens serve`, before it listens): FastAPI builds
    the routes of an included router (their parameters' validators: a pydantic TypeAdapter each)
    on the first request that reaches that router, which cost that request ~0.15 s for the flame
    routes (the first difference flame graph after a start: bench/flame_diff.py) and ~0.3 s for
    all of them on a quiet machine, paid once either way. Returns how many routes were built."""
    return sum(1 for _ in iter_route_contexts(app.routes))


def error_response(status: int, error: str, detail: object = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": error, "detail": detail})


def create_app(settings: Settings, store: Store | None = None) -> FastAPI:
    store = store or Store(settings.db_path, memory_limit=settings.db_memory_limit,
                           sandbox_memory_limit=settings.sql_memory_limit)
    clean_data_dir(store, settings)

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[None]:
        # Checkpoint every checkpoint_interval_s and at a clean stop (SIGTERM, Ctrl-C): the .duckdb
        # file alone then holds every capture, as a copy of the data directory expects.
        stop = threading.Event()

        def every() -> None:
            while not stop.wait(settings.checkpoint_interval_s):
                try:
                    store.checkpoint()
                except Exception:  # noqa: BLE001 - logged; the next one tries again
                    log.exception("periodic checkpoint failed")

        t = threading.Thread(target=every, name="iolens-checkpoint", daemon=True)
        t.start()
        warmer = None
        if settings.warm_flame:
            warmer = threading.Thread(target=_warm_flame, args=(store, stop, app_.state.activity), name="iolens-flame-warm",
                                      daemon=True)
            warmer.start()
        try:
            yield
        finally:
            stop.set()
            t.join(timeout=5)
            if warmer is not None:
                warmer.join(timeout=5)
            store.checkpoint()
            log.info("database checkpointed at shutdown: %s", settings.db_path)

    app = FastAPI(
        lifespan=lifespan,
        title="iolens",
        version=__version__,
        description="Capture, compare and share storage performance investigations.",
        openapi_url="/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.store = store
    app.state.activity = _Activity()
    app.state.settings = settings
    app.state.sandbox = Sandbox(store, time_limit_s=settings.sql_time_limit_s, max_rows=settings.sql_max_rows,
                                max_bytes=settings.sql_max_bytes)

    @app.exception_handler(BundleError)
    async def _bundle_error(_: Request, exc: BundleError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.detail, dict) and "error" in exc.detail:
            return JSONResponse(status_code=exc.status_code, content=exc.detail, headers=exc.headers)
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()]
        return error_response(422, f"invalid request: {errors[0]['field']}: {errors[0]['message']}", errors)

    @app.exception_handler(notebooks.NotebookError)
    async def _notebook_error(_: Request, exc: notebooks.NotebookError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.detail)

    @app.exception_handler(SqlRefused)
    async def _sql_refused(_: Request, exc: SqlRefused) -> JSONResponse:
        return error_response(400, exc.message, exc.detail)

    @app.exception_handler(StoreError)
    async def _store_error(_: Request, exc: StoreError) -> JSONResponse:
        log.exception("store error")
        return error_response(500, str(exc))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug: logged with its traceback here, answered as JSON like every other error.
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, f"internal error ({type(exc).__name__}): {' '.join(str(exc).split())[:300]}",
                              {"path": request.url.path})

    for r in ROUTERS:
        app.include_router(r.router)
    app.add_middleware(RequestGuard, settings=settings)
    app.add_middleware(_CountRequests, activity=app.state.activity)
    _mount_frontend(app, settings.frontend_dist)
    return app


def _mount_frontend(app: FastAPI, dist: Path | None) -> None:
    """Serve the built single-page app at / with index.html for every non-API path."""
    if dist is None or not (dist / "index.html").is_file():
        @app.get("/", include_in_schema=False)
        def no_frontend() -> JSONResponse:
            return error_response(
                404, "the frontend is not built: run `make build` (or `npm run build`), then restart `iolens serve`"
            )
        return
    root = dist.resolve()
    files = _FileBytes()

    # async and from memory: a page's script, styles and index.html go out in one send each, with
    # no trip through the thread pool and no chunked reads (the first paint of a notebook waits
    # for them)
    @app.get("/{path:path}", include_in_schema=False)
    async def spa(path: str, request: Request) -> Response:
        if path.startswith("api/") or path == "api":
            raise HTTPException(404, f"no API route /{path}")
        candidate = (root / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(root):
            cache = "public, max-age=31536000, immutable" if path.startswith("assets/") else "no-cache"
            return files.response(candidate, cache)
        # the page's first API requests named as preloads (index_preload.py: asked for while the
        # HTML is parsed, not once its scripts have run)
        # the store's captures without stacks: their flame answer is a 404, not preloaded (made again
        # in a worker thread only after a write)
        store: Store = request.app.state.store
        stackless = flame_answer.stackless_known(store)
        if stackless is None:
            stackless = await run_in_threadpool(flame_answer.captures_without_stacks, store)
        # a saved notebook's captures (its URL names none), read only when some capture has no stacks
        saved = (await run_in_threadpool(_saved_captures, store, path[2:])
                 if stackless and path.startswith("n/") else None)
        return files.response(root / "index.html", "no-cache",
                              lambda text: index_preload.inject(text, request.url.path, request.url.query, stackless, saved))


def _saved_captures(store: Store, notebook_id: str) -> list[str] | None:
    """A saved notebook's captures, None when there is no such notebook (its page says so)."""
    try:
        return list(notebooks.get(store, notebook_id).document.captures)
    except notebooks.NotebookError:
        return None


class _FileBytes:
    """The built frontend's files, kept in memory once read (each one until its mtime or size
    changes: a rebuild of frontend/dist is served at once); files over MAX_BYTES are sent from disk."""

    MAX_BYTES = 16 << 20

    def __init__(self) -> None:
        self.kept: dict[Path, tuple[int, int, bytes]] = {}

    def response(self, path: Path, cache: str, edit: Callable[[str], str] | None = None) -> Response:
        """The file's bytes; `edit`: a text file's text changed per request (index.html's preloads)."""
        st = path.stat()
        headers = {"Cache-Control": cache}
        if st.st_size > self.MAX_BYTES:
            return FileResponse(path, headers=headers)
        hit = self.kept.get(path)
        if hit is None or hit[:2] != (st.st_mtime_ns, st.st_size):
            hit = (st.st_mtime_ns, st.st_size, path.read_bytes())
            self.kept[path] = hit
        body = hit[2] if edit is None else edit(hit[2].decode()).encode()
        # (Starlette adds "; charset=utf-8" to text/ types, as FileResponse did)
        return Response(body, media_type=mimetypes.guess_type(path.name)[0] or "application/octet-stream", headers=headers)
