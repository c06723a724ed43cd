"""The HTTP API (FastAPI) and the built frontend, on one port.

Routes are thin: they call views/ and ingest, and map errors to `{"error", "detail"}` bodies.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, File, HTTPException, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..bundle import BundleError, Limits
from ..ingest import ingest_file
from ..store.db import Store, StoreError
from ..views import captures as captures_view
from ..views import fio_compare
from . import models

log = logging.getLogger("iolens.api")

ERRORS = {400: {"model": models.ErrorBody}, 404: {"model": models.ErrorBody}, 413: {"model": models.ErrorBody},
          415: {"model": models.ErrorBody}, 422: {"model": models.ErrorBody}}


@dataclass
class Settings:
    db_path: Path
    data_dir: Path
    frontend_dist: Path | None = None
    max_upload_bytes: int = int(os.environ.get("IOLENS_MAX_UPLOAD_BYTES", 8 << 30))
    limits: Limits = field(default_factory=Limits)

    @property
    def bundles_dir(self) -> Path:
        return self.data_dir / "bundles"


def default_frontend_dist() -> Path | None:
    env = os.environ.get("IOLENS_FRONTEND_DIST")
    if env:
        return Path(env)
    # backend/iolens/api/app.py -> <repo>/frontend/dist
    candidate = Path(__file__).resolve().parents[3] / "frontend" / "dist"
    return candidate if (candidate / "index.html").is_file() else None


def get_store(request: Request) -> Store:
    return request.app.state.store


StoreDep = Annotated[Store, Depends(get_store)]


def error_response(status: int, error: str, detail: object = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": error, "detail": detail})


def create_app(settings: Settings, store: Store | None = None) -> FastAPI:
    store = store or Store(settings.db_path)
    app = FastAPI(
        title="iolens",
        version=__version__,
        description="Capture, compare and share storage performance investigations.",
        openapi_url="/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.store = store
    app.state.settings = settings

    @app.exception_handler(BundleError)
    async def _bundle_error(_: Request, exc: BundleError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.detail, dict) and "error" in exc.detail:
            return JSONResponse(status_code=exc.status_code, content=exc.detail)
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()]
        return error_response(422, f"invalid request: {errors[0]['field']}: {errors[0]['message']}", errors)

    @app.exception_handler(StoreError)
    async def _store_error(_: Request, exc: StoreError) -> JSONResponse:
        log.exception("store error")
        return error_response(500, str(exc))

    @app.get("/api/health", response_model=models.Health, tags=["meta"])
    def health(s: StoreDep) -> models.Health:
        n = s.query("SELECT count(*) FROM captures").scalar()
        return models.Health(status="ok", version=__version__, captures=n)

    @app.get("/api/captures", response_model=list[models.CapturePublic], tags=["captures"])
    def list_captures(s: StoreDep) -> list[models.CapturePublic]:
        return captures_view.list_captures(s)

    @app.post(
        "/api/captures",
        response_model=models.CaptureCreated,
        status_code=201,
        responses={200: {"model": models.CaptureCreated, "description": "Already ingested"}, **ERRORS},
        tags=["captures"],
    )
    def upload_capture(s: StoreDep, file: Annotated[UploadFile, File(description="A capture bundle (.iolens.tar.gz)")]):
        name = file.filename or "upload"
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=settings.data_dir, prefix=".upload-", delete=True) as tmp:
            copied = 0
            while chunk := file.file.read(1 << 20):
                copied += len(chunk)
                if copied > settings.max_upload_bytes:
                    raise BundleError(
                        f"upload is larger than the limit of {settings.max_upload_bytes} bytes",
                        {"file": name, "limit": settings.max_upload_bytes}, 413,
                    )
                tmp.write(chunk)
            tmp.flush()
            if copied == 0:
                raise BundleError("the uploaded file is empty", {"file": name})
            result = ingest_file(s, Path(tmp.name), bundles_dir=settings.bundles_dir, source=name,
                                 limits=settings.limits)
        body = models.CaptureCreated(id=result.capture_id, label=result.label, created=result.created,
                                     runs=result.runs, warnings=result.warnings)
        return JSONResponse(status_code=201 if result.created else 200, content=body.model_dump())

    @app.get("/api/captures/{capture_id}", response_model=models.CaptureDetail, responses=ERRORS, tags=["captures"])
    def capture_detail(capture_id: str, s: StoreDep) -> models.CaptureDetail:
        detail = captures_view.get_capture(s, capture_id)
        if detail is None:
            raise HTTPException(404, f"no capture with id {capture_id}")
        return detail

    @app.get("/api/captures/{capture_id}/bundle", responses=ERRORS, tags=["captures"],
             response_class=FileResponse)
    def capture_bundle(capture_id: str, s: StoreDep):
        sha = captures_view.bundle_sha256(s, capture_id)
        if sha is None:
            raise HTTPException(404, f"no capture with id {capture_id}")
        path = settings.bundles_dir / f"{sha}.iolens.tar"
        if not path.is_file():
            raise HTTPException(404, f"the bundle file of capture {capture_id} is not in {settings.bundles_dir}")
        return FileResponse(path, media_type="application/x-tar", filename=f"{capture_id}.iolens.tar.gz")

    @app.get("/api/compare/fio", response_model=models.FioComparison, responses=ERRORS, tags=["compare"])
    def compare(
        s: StoreDep,
        captures: Annotated[str, Query(description="Comma-separated capture ids, in column order.")],
        baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
    ) -> models.FioComparison:
        ids = [c for c in (x.strip() for x in captures.split(",")) if c]
        if not ids:
            raise HTTPException(422, "captures: give at least one capture id")
        try:
            return fio_compare.compare_fio(s, ids, baseline)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc

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

    @app.get("/{path:path}", include_in_schema=False)
    def spa(path: str) -> FileResponse:
        if path.startswith("api/") or path == "api":
            raise HTTPException(404, f"no API route /{path}")
        candidate = (root / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(root):
            cache = "public, max-age=31536000, immutable" if path.startswith("assets/") else "no-cache"
            return FileResponse(candidate, headers={"Cache-Control": cache})
        return FileResponse(root / "index.html", headers={"Cache-Control": "no-cache"})

