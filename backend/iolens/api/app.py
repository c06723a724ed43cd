"""The HTTP API (FastAPI) and the built frontend, on one port.

Routes are thin: they call views/ and ingest, and map errors to `{"error", "detail"}` bodies.
"""

from __future__ import annotations

import hmac
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from fastapi import Depends, FastAPI, File, HTTPException, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..bundle import BundleError, Limits
from ..ingest import ingest_file
from ..ingest_sched import parse_cpu_list
from ..notebook import html as notebook_html
from ..notebook import render as notebook_render
from ..notebook import store as notebooks
from ..notebook import text as notebook_text
from ..store.db import DEFAULT_SQL_MEMORY, Store, StoreError
from ..store.sandbox import DEFAULT_MAX_BYTES, Sandbox, SqlRefused
from ..store.tabledocs import capture_tables
from ..views import block as block_view
from ..views import captures as captures_view
from ..views import flame as flame_view
from ..views import fio_compare
from ..views import lock_stacks as lock_stacks_view
from ..views import lock_stat as lock_stat_view
from ..views import sched as sched_view
from ..views import sweep as sweep_view
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
    # Writes (uploads, notebook saves) need `Authorization: Bearer <token>` when set; reads never do.
    token: str | None = field(default_factory=lambda: os.environ.get("IOLENS_TOKEN") or None)
    # Base of the permalinks printed in exports (default: the URL the request came to).
    public_url: str | None = field(default_factory=lambda: os.environ.get("IOLENS_PUBLIC_URL") or None)
    sql_time_limit_s: float = float(os.environ.get("IOLENS_SQL_TIME_LIMIT", 5))
    sql_max_rows: int = int(os.environ.get("IOLENS_SQL_MAX_ROWS", 5000))
    # JSON bytes of a SQL cell's answer; DuckDB memory of its sorts and hash tables; DuckDB's memory
    # for the whole server (None: $IOLENS_DB_MEMORY_LIMIT, else DuckDB's default of 80% of RAM).
    sql_max_bytes: int = int(os.environ.get("IOLENS_SQL_MAX_BYTES", DEFAULT_MAX_BYTES))
    sql_memory_limit: str = os.environ.get("IOLENS_SQL_MEMORY_LIMIT") or DEFAULT_SQL_MEMORY
    db_memory_limit: str | None = os.environ.get("IOLENS_DB_MEMORY_LIMIT") or None

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


def require_write_token(request: Request) -> None:
    """Uploads and saves: when the server has a token, the request must carry it."""
    token = request.app.state.settings.token
    if not token:
        return
    sent = request.headers.get("authorization", "")
    scheme, _, value = sent.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
        raise HTTPException(
            401,
            {"error": "this server needs an access token for uploads and saves: send 'Authorization: Bearer TOKEN' "
                      "(iolens ingest --token-file FILE, or enter the token in the app)"
                      + ("; the token sent is not the right one" if sent else ""),
             "detail": {"header": "Authorization"}},
            headers={"WWW-Authenticate": "Bearer"},
        )


WriteDep = Annotated[None, Depends(require_write_token)]


def get_sandbox(request: Request) -> Sandbox:
    return request.app.state.sandbox


SandboxDep = Annotated[Sandbox, Depends(get_sandbox)]


def error_response(status: int, error: str, detail: object = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": error, "detail": detail})


def create_app(settings: Settings, store: Store | None = None) -> FastAPI:
    store = store or Store(settings.db_path, memory_limit=settings.db_memory_limit,
                           sandbox_memory_limit=settings.sql_memory_limit)
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

    @app.get("/api/health", response_model=models.Health, tags=["meta"])
    def health(s: StoreDep) -> models.Health:
        n = s.query("SELECT count(*) FROM captures").scalar()
        return models.Health(status="ok", version=__version__, captures=n, writes_need_token=bool(settings.token))

    @app.get("/api/captures", response_model=list[models.CapturePublic], tags=["captures"])
    def list_captures(s: StoreDep) -> list[models.CapturePublic]:
        return captures_view.list_captures(s)

    @app.post(
        "/api/captures",
        response_model=models.CaptureCreated,
        status_code=201,
        responses={200: {"model": models.CaptureCreated, "description": "Already ingested"}, **ERRORS,
                   401: {"model": models.ErrorBody}},
        tags=["captures"],
    )
    def upload_capture(s: StoreDep, _: WriteDep, file: Annotated[UploadFile, File(description="A capture bundle (.iolens.tar.gz)")]):
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

    @app.get("/api/compare/lock-stat", response_model=models.LockStatComparison, responses=ERRORS, tags=["compare"])
    def compare_lock_stat(
        s: StoreDep,
        captures: Annotated[str, Query(description="Comma-separated capture ids, in column order.")],
        baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
        limit: Annotated[int, Query(ge=1, le=5000, description="Rows to return, largest change first.")] = 200,
    ) -> models.LockStatComparison:
        ids = [c for c in (x.strip() for x in captures.split(",")) if c]
        if not ids:
            raise HTTPException(422, "captures: give at least one capture id")
        try:
            return lock_stat_view.compare(s, ids, baseline, limit)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc

    @app.get("/api/captures/{capture_id}/lock-stat", response_model=models.LockStatTop, responses=ERRORS,
             tags=["captures"])
    def lock_stat_top(
        capture_id: str,
        s: StoreDep,
        by: Annotated[lock_stat_view.TopKey, Query(description="Order: total wait, contentions, or average wait.")]
        = "wait_total",
        limit: Annotated[int, Query(ge=1, le=5000, description="Rows to return.")] = 50,
    ) -> models.LockStatTop:
        try:
            return lock_stat_view.top_classes(s, capture_id, by, limit)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, f"no capture with id {capture_id}") from exc

    @app.get("/api/captures/{capture_id}/lock-stat/points", response_model=models.LockStatPoints, responses=ERRORS,
             tags=["captures"])
    def lock_stat_points(
        capture_id: str,
        s: StoreDep,
        lock_class: LockClassQ,
        occurrence: OccurrenceQ = 0,
    ) -> models.LockStatPoints:
        try:
            return lock_stat_view.class_points(s, capture_id, lock_class, occurrence)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, f"no capture with id {capture_id}") from exc

    @app.get("/api/captures/{capture_id}/lock-stat/stacks", response_model=models.LockStacks, responses=ERRORS,
             tags=["captures"])
    def lock_stat_stacks(
        capture_id: str,
        s: StoreDep,
        lock_class: LockClassQ,
        occurrence: OccurrenceQ = 0,
        with_: Annotated[str | None, Query(
            alias="with", description="Other capture ids, comma-separated, whose perf stacks are searched too (and "
                                      "whose lock_stat call sites of the same class are added).")] = None,
    ) -> models.LockStacks:
        others = [c for c in (x.strip() for x in (with_ or "").split(",")) if c]
        try:
            return lock_stacks_view.lock_stacks(s, capture_id, lock_class, occurrence, others)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
        except lock_stacks_view.UnknownLockClass as exc:
            raise HTTPException(404, str(exc)) from exc

    @app.post("/api/notebooks", response_model=models.NotebookSaved, status_code=201, tags=["notebooks"],
              responses={200: {"model": models.NotebookSaved, "description": "Already saved"}, 401: {"model": models.ErrorBody},
                         **ERRORS})
    def save_notebook(body: models.NotebookCreate, s: StoreDep, _: WriteDep):
        saved = notebooks.save(s, body)
        return JSONResponse(status_code=201 if saved.created else 200, content=saved.model_dump())

    @app.get("/api/notebooks", response_model=models.NotebookList, tags=["notebooks"])
    def list_notebooks(
        s: StoreDep,
        q: Annotated[str, Query(description="Words that must all occur: title, text, SQL, capture labels, tags, kernels.")] = "",
        limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    ) -> models.NotebookList:
        return notebooks.search(s, q, limit)

    @app.get("/api/notebooks/{notebook_id}", response_model=models.NotebookVersion, responses=ERRORS, tags=["notebooks"])
    def get_notebook(notebook_id: str, s: StoreDep) -> models.NotebookVersion:
        return notebooks.get(s, notebook_id)

    @app.get("/api/notebooks/{notebook_id}/export", responses={**ERRORS, 200: {"content": {"text/plain": {}, "text/html": {}}}},
             tags=["notebooks"], response_class=PlainTextResponse)
    def export_notebook(
        notebook_id: str, request: Request, s: StoreDep, sandbox: SandboxDep,
        format: Annotated[Literal["text", "html"], Query(description="text: for a mailing list; html: one static file.")] = "text",
        download: Annotated[bool, Query(description="Send as an attachment (Content-Disposition).")] = False,
    ):
        version = notebooks.get(s, notebook_id)
        base = settings.public_url or str(request.base_url)
        ctx = notebook_render.context(s, sandbox, version, base)
        name = f"iolens-{notebook_id}.{'txt' if format == 'text' else 'html'}"
        headers = {"Content-Disposition": f'{"attachment" if download else "inline"}; filename="{name}"'}
        if format == "html":
            return HTMLResponse(notebook_html.render(ctx), headers=headers)
        return PlainTextResponse(notebook_text.render(ctx), headers=headers)

    @app.get("/api/sql", response_model=models.SqlResult, responses=ERRORS, tags=["sql"])
    def run_sql(
        sandbox: SandboxDep,
        sql: Annotated[str, Query(description="One SELECT over the capture tables (see /api/sql/tables).")],
        captures: Annotated[str, Query(description="Comma-separated capture ids: the tables show only their rows.")],
        max_rows: Annotated[int | None, Query(ge=1, description="At most this many rows (capped by the server).")] = None,
    ) -> models.SqlResult:
        a = sandbox.run(sql, [c.strip() for c in captures.split(",")], max_rows)
        return models.SqlResult(columns=[models.SqlColumn(name=n, type=t) for n, t in a.columns], rows=a.rows,
                                truncated=a.truncated, truncated_by=a.truncated_by, elapsed_ms=a.elapsed_ms,
                                max_rows=a.max_rows, max_bytes=a.max_bytes, time_limit_ms=a.time_limit_ms)

    @app.get("/api/sql/tables", response_model=models.SqlTables, tags=["sql"])
    def sql_tables(s: StoreDep, sandbox: SandboxDep) -> models.SqlTables:
        return models.SqlTables(
            tables=[models.SqlTableDoc(name=t.name, description=t.description,
                                       columns=[models.SqlColumnDoc(**vars(c)) for c in t.columns])
                    for t in capture_tables(s)],
            max_rows=sandbox.max_rows,
            time_limit_ms=int(sandbox.time_limit_s * 1000),
            notes=[
                "One SELECT per cell; every table shows only the notebook's captures.",
                "Read-only: no INSERT/COPY/ATTACH/INSTALL/SET; no files (read_csv...) and no network.",
                f"Stopped after {sandbox.time_limit_s:g} s; at most {sandbox.max_rows} rows and "
                f"{sandbox.max_bytes / (1 << 20):g} MiB of JSON are returned; sorts and hash tables may use "
                f"{s.sandbox_memory_limit} of memory.",
            ],
        )

    # --- block layer (docs/block.md): every view takes the same series, range and device ---
    @app.get("/api/block/runs", response_model=list[models.BlockRunPublic], responses=ERRORS, tags=["block"])
    def block_runs(s: StoreDep, captures: BlockCapturesQ) -> list[models.BlockRunPublic]:
        return block_view.runs(s, _ids(captures))

    @app.get("/api/block/queue-depth", response_model=models.BlockQueueDepth, responses=ERRORS, tags=["block"])
    def block_queue_depth(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                          buckets: BucketsQ = block_view.DEFAULT_BUCKETS, device: DeviceQ = None):
        return _block(block_view.queue_depth, s, _ids(series), from_ns, to_ns, buckets, device)

    @app.get("/api/block/iops", response_model=models.BlockIops, responses=ERRORS, tags=["block"])
    def block_iops(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                   buckets: BucketsQ = block_view.DEFAULT_BUCKETS, device: DeviceQ = None):
        return _block(block_view.iops, s, _ids(series), from_ns, to_ns, buckets, device)

    @app.get("/api/block/latency", response_model=models.BlockLatency, responses=ERRORS, tags=["block"])
    def block_latency(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                      buckets: BucketsQ = block_view.DEFAULT_BUCKETS, device: DeviceQ = None,
                      op: Annotated[str | None, Query(description="Only this operation (read, write, ...).")] = None):
        return _block(block_view.latency, s, _ids(series), from_ns, to_ns, buckets, device, op=op)

    @app.get("/api/block/latency-histogram", response_model=models.BlockLatencyHistogram, responses=ERRORS,
             tags=["block"])
    def block_latency_histogram(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                                device: DeviceQ = None):
        return _block(block_view.latency_histogram, s, _ids(series), from_ns, to_ns, device=device)

    @app.get("/api/block/sizes", response_model=models.BlockSizes, responses=ERRORS, tags=["block"])
    def block_sizes(s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None,
                    device: DeviceQ = None):
        return _block(block_view.sizes, s, _ids(series), from_ns, to_ns, device=device)

    @app.get("/api/block/scatter", response_model=models.BlockScatter, responses=ERRORS, tags=["block"])
    def block_scatter(
        s: StoreDep, series: BlockSeriesQ, from_ns: FromQ = None, to_ns: ToQ = None, device: DeviceQ = None,
        max_points: Annotated[int, Query(description="Most points per series (a sample beyond).")] = block_view.DEFAULT_POINTS,
        sector_from: Annotated[int | None, Query(description="Lowest sector shown (y zoom).")] = None,
        sector_to: Annotated[int | None, Query(description="Sector after the highest shown.")] = None,
    ):
        return _block(block_view.scatter, s, _ids(series), from_ns, to_ns, max_points=max_points,
                      sector_from=sector_from, sector_to=sector_to, device=device)

    # --- scheduler (views/sched.py): every answer carries its runs' loss checks ---
    @app.get("/api/captures/{capture_id}/sched", response_model=models.SchedOverview, responses=ERRORS,
             tags=["sched"])
    def sched_overview(capture_id: str, s: StoreDep, run: SchedRunQ = None):
        return _sched(sched_view.overview, s, capture_id, run)

    @app.get("/api/captures/{capture_id}/sched/switch-rate", response_model=models.SchedSwitchRate,
             responses=ERRORS, tags=["sched"])
    def sched_switch_rate(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all",
                          step_ms: Annotated[int, Query(description="Interval, ms (a multiple of 100).")] = 1000):
        return _sched(sched_view.switch_rate, s, capture_id, run, cpus, step_ms)

    @app.get("/api/captures/{capture_id}/sched/tasks", response_model=models.SchedTasks, responses=ERRORS,
             tags=["sched"])
    def sched_tasks(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all",
                    group_by: SchedGroupQ = "task", limit: SchedLimitQ = sched_view.DEFAULT_LIMIT):
        return _sched(sched_view.tasks, s, capture_id, run, cpus, group_by, limit)

    @app.get("/api/captures/{capture_id}/sched/pairs", response_model=models.SchedPairs, responses=ERRORS,
             tags=["sched"])
    def sched_pairs(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all",
                    group_by: SchedGroupQ = "task", limit: SchedLimitQ = sched_view.DEFAULT_LIMIT):
        return _sched(sched_view.pairs, s, capture_id, run, cpus, group_by, limit)

    @app.get("/api/captures/{capture_id}/sched/pingpong", response_model=models.SchedPingPong, responses=ERRORS,
             tags=["sched"])
    def sched_pingpong(
        capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all", group_by: SchedGroupQ = "task",
        window_us: Annotated[int, Query(description="Longest run of the brief task in a round trip, us.")]
        = sched_view.DEFAULT_WINDOW_US,
        limit: SchedLimitQ = 20,
    ):
        return _sched(sched_view.pingpong, s, capture_id, run, cpus, group_by, window_us, limit)

    @app.get("/api/captures/{capture_id}/sched/delays", response_model=models.SchedDelays, responses=ERRORS,
             tags=["sched"])
    def sched_delays(
        capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "all", group_by: SchedGroupQ = "group",
        reason: Annotated[Literal["all", "woken", "preempted"], Query(
            description="woken: ready since a wakeup; preempted: ready since switched out runnable.")] = "all",
        limit: SchedLimitQ = sched_view.DEFAULT_LIMIT,
    ):
        return _sched(sched_view.delays, s, capture_id, run, cpus, group_by, reason, limit)

    @app.get("/api/captures/{capture_id}/sched/runtime", response_model=models.SchedRuntime, responses=ERRORS,
             tags=["sched"])
    def sched_runtime(capture_id: str, s: StoreDep, run: SchedRunQ = None, cpus: SchedCpusQ = "workload",
                      group_by: SchedGroupQ = "task", limit: SchedLimitQ = sched_view.DEFAULT_LIMIT):
        return _sched(sched_view.runtime, s, capture_id, run, cpus, group_by, limit)

    @app.get("/api/compare/sched", response_model=models.SchedComparison, responses=ERRORS, tags=["compare"])
    def compare_sched(
        s: StoreDep,
        captures: Annotated[str, Query(description="Comma-separated capture ids, in column order.")],
        baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
    ):
        return _sched(sched_view.compare, s, _ids(captures), baseline)

    # --- flame graphs (views/flame.py): one capture's call tree, two captures' difference ---
    @app.get("/api/captures/{capture_id}/flame", response_model=models.FlameGraph, responses=ERRORS, tags=["flame"])
    def flame_graph(capture_id: str, s: StoreDep, f: FlameFiltersDep):
        return _flame(flame_view.flame, s, capture_id, f)

    @app.get("/api/captures/{capture_id}/flame/top", response_model=models.FlameTop, responses=ERRORS, tags=["flame"])
    def flame_top(capture_id: str, s: StoreDep, f: FlameFiltersDep,
                  by: Annotated[flame_view.TopKey, Query(description="self: where samples were; total: what ran under.")] = "self",
                  limit: Annotated[int, Query(ge=1, le=5000, description="Rows to return.")] = 50):
        return _flame(flame_view.top_functions, s, capture_id, f, by, limit)

    @app.get("/api/captures/{capture_id}/flame/folded", responses={**ERRORS, 200: {"content": {"text/plain": {}}}},
             response_class=PlainTextResponse, tags=["flame"])
    def flame_folded(capture_id: str, s: StoreDep, f: FlameFiltersDep, download: DownloadQ = False):
        text = _flame(flame_view.folded, s, capture_id, f)
        return PlainTextResponse(text, headers=_disposition(f"{capture_id}.folded.txt", download))

    @app.get("/api/captures/{capture_id}/flame/svg", responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}}},
             response_class=Response, tags=["flame"])
    def flame_svg(capture_id: str, s: StoreDep, f: FlameFiltersDep, zoom: ZoomQ = None, search: SearchQ = None,
                  mode: ModeQ = "flame", width: WidthQ = 1200, download: DownloadQ = False):
        text = _flame(flame_view.svg, s, capture_id, f, zoom=_zoom(zoom), search=search, mode=mode, width=width)
        return Response(text, media_type="image/svg+xml", headers=_disposition(f"{capture_id}.flame.svg", download))

    @app.get("/api/compare/flame", response_model=models.FlameDiff, responses=ERRORS, tags=["flame"])
    def flame_diff(s: StoreDep, a: FlameAQ, b: FlameBQ, f: FlameDiffFiltersDep, runs_a: RunsAQ = None,
                   runs_b: RunsBQ = None,
                   limit: Annotated[int, Query(ge=0, le=5000, description="Functions per ranking (self, total).")]
                   = flame_view.DEFAULT_FUNCTIONS):
        return _flame(flame_view.diff, s, a, b, f, _runs(runs_a), _runs(runs_b), limit)

    @app.get("/api/compare/flame/folded", responses={**ERRORS, 200: {"content": {"text/plain": {}}}},
             response_class=PlainTextResponse, tags=["flame"])
    def flame_diff_folded(s: StoreDep, a: FlameAQ, b: FlameBQ, f: FlameDiffFiltersDep, runs_a: RunsAQ = None,
                          runs_b: RunsBQ = None, download: DownloadQ = False):
        text = _flame(flame_view.diff_folded, s, a, b, f, _runs(runs_a), _runs(runs_b))
        return PlainTextResponse(text, headers=_disposition(f"{a}-{b}.difffolded.txt", download))

    @app.get("/api/compare/flame/svg", responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}}},
             response_class=Response, tags=["flame"])
    def flame_diff_svg(s: StoreDep, a: FlameAQ, b: FlameBQ, f: FlameDiffFiltersDep, runs_a: RunsAQ = None,
                       runs_b: RunsBQ = None, zoom: ZoomQ = None, search: SearchQ = None, mode: ModeQ = "flame",
                       color: Annotated[flame_view.DiffColour, Query(
                           description="Colour by the change of self share (as flamegraph.pl) or of total share.")] = "self",
                       width: WidthQ = 1200, download: DownloadQ = False):
        text = _flame(flame_view.diff_svg, s, a, b, f, runs_a=_runs(runs_a), runs_b=_runs(runs_b), zoom=_zoom(zoom),
                      search=search, mode=mode, colour_by=color, width=width)
        return Response(text, media_type="image/svg+xml", headers=_disposition(f"{a}-{b}.diff.svg", download))

    # --- sweeps (views/sweep.py, report.py): captures x sweep points, repeat statistics, the report ---
    @app.get("/api/sweep", response_model=models.SweepMatrix, responses=ERRORS, tags=["sweep"])
    def sweep_matrix(
        s: StoreDep,
        captures: Annotated[str, Query(description="Comma-separated capture ids: the rows.")],
        baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
        metric: Annotated[str | None, Query(description="run_metrics key (default: iops, else wall_s, else the first).")]
        = None,
    ) -> models.SweepMatrix:
        try:
            return sweep_view.sweep_matrix(s, _ids(captures), baseline, metric)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc

    @app.get("/api/sweep/fio-log", response_model=models.FioLogSeries, responses=ERRORS, tags=["sweep"])
    def sweep_fio_log(
        s: StoreDep,
        captures: Annotated[str, Query(description="Comma-separated capture ids: one line each.")],
        log: Annotated[Literal["iops", "bw", "lat", "clat", "slat"], Query(description="Which fio log.")] = "iops",
        ddir: Annotated[Literal["all", "read", "write", "trim"], Query(
            description="all: bw and iops added up over directions, latencies averaged.")] = "all",
        point: Annotated[str | None, Query(description="Sweep point key ('rw=randread bs=4k'); default: the first with logs.")]
        = None,
    ) -> models.FioLogSeries:
        try:
            return sweep_view.fio_log_series(s, _ids(captures), log, ddir, point)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc

    @app.get("/api/report", responses={**ERRORS, 200: {"content": {"text/plain": {}, "application/json": {}}}},
             response_class=PlainTextResponse, tags=["sweep"])
    def sweep_report(
        request: Request,
        s: StoreDep,
        captures: Annotated[str, Query(description="Comma-separated capture ids.")],
        baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
        metric: Annotated[list[str] | None, Query(description="Metric keys, one table each (default: iops / wall_s).")]
        = None,
        format: Annotated[Literal["text", "markdown", "json"], Query(
            description="text and markdown: ASCII, at most 72 columns, for email; json: the same as data.")] = "text",
        rows: Annotated[Literal["points", "captures"], Query(description="What the table's rows are.")] = "points",
        ratio: Annotated[bool, Query(description="Ratios (1.123x) instead of changes (+12.3%).")] = False,
        related: Annotated[bool, Query(description="Add every capture that shares a sweep point with the baseline.")]
        = False,
    ):
        from .. import report

        ids = _ids(captures)
        base = settings.public_url or str(request.base_url)
        try:
            if related:
                ids = list(dict.fromkeys(ids + report.default_captures(s, baseline or ids[0])))
            data = report.build(s, ids, baseline or ids[0], metric, base)
        except fio_compare.UnknownCaptures as exc:
            raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
        except report.ReportError as exc:
            raise HTTPException(422, str(exc)) from exc
        text = report.render(data, format, rows, ratio)
        if format == "json":
            return Response(text, media_type="application/json")
        return PlainTextResponse(text)

    _mount_frontend(app, settings.frontend_dist)
    return app


LockClassQ = Annotated[str, Query(alias="class", description="Class name as printed (lock_class of a row).")]
OccurrenceQ = Annotated[int, Query(ge=0, description="The row's occurrence (default 0).")]
BlockCapturesQ = Annotated[str, Query(description="Comma-separated capture ids.")]
BlockSeriesQ = Annotated[str, Query(
    description="Comma-separated series: CAPTURE (each of its runs with block data) or CAPTURE:RUN, drawn in this order.")]
FromQ = Annotated[int | None, Query(description="Range start, ns since run start (default 0).")]
ToQ = Annotated[int | None, Query(description="Range end, ns since run start (default: end of the longest series).")]
BucketsQ = Annotated[int, Query(description="Buckets wanted over the range (1-2000); the server rounds the interval "
                                            "up to 1, 2 or 5 x 10^k ns and returns the grid it used.")]
DeviceQ = Annotated[str | None, Query(description="'MAJ,MIN', or 'all' to sum every device; default: each run's busiest device.")]


SchedRunQ = Annotated[str | None, Query(description="Run id, or several comma-separated; default: every run with a trace.")]
SchedCpusQ = Annotated[str, Query(description="'all', 'workload' (the CPUs it was pinned to) or a list like '1,3-4'.")]
SchedGroupQ = Annotated[Literal["task", "group"], Query(
    description="task: per thread (pid and comm); group: per task group (kworker/*, ksoftirqd/*, comm).")]
SchedLimitQ = Annotated[int, Query(description="Most rows returned (1-5000).")]


def _sched(fn, store: Store, *args):
    """Call a sched view; unknown capture or no trace -> 404, a bad parameter -> 422."""
    try:
        return fn(store, *args)
    except sched_view.UnknownCapture as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except sched_view.NoSchedData as exc:
        raise HTTPException(404, str(exc)) from exc
    except sched_view.BadQuery as exc:
        raise HTTPException(422, str(exc)) from exc


def _ids(csv: str) -> list[str]:
    ids = [c for c in (x.strip() for x in csv.split(",")) if c]
    if not ids:
        raise HTTPException(422, "give at least one capture id")
    return ids


def _block(fn, store: Store, ids: list[str], *args, **kwargs):
    """Call a block view; unknown series -> 404, a bad range or size -> 422."""
    try:
        return fn(store, ids, *args, **kwargs)
    except block_view.UnknownSeries as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except block_view.BadRange as exc:
        raise HTTPException(422, str(exc)) from exc


# --- flame graphs: the selection every flame route takes ---
def flame_filters(
    event: Annotated[str | None, Query(description="perf event (default: the capture's first sampled one).")] = None,
    runs: Annotated[str | None, Query(description="Comma-separated run ids, merged (default: every run).")] = None,
    cpus: Annotated[str | None, Query(description="CPUs, a list like '1,3-4' (default: all).")] = None,
    tid: Annotated[int | None, Query(description="Only this thread.")] = None,
    comm: Annotated[str | None, Query(description="Only tasks with this command name (as perf printed it).")] = None,
    from_ns: Annotated[int | None, Query(ge=0, description="Range start, ns since each run's first sample.")] = None,
    to_ns: Annotated[int | None, Query(ge=0, description="Range end (exclusive), ns since each run's first sample.")] = None,
) -> flame_view.Filters:
    return flame_view.Filters(event=event, runs=_runs(runs), cpus=_cpus(cpus), tid=tid, comm=comm,
                              from_ns=from_ns, to_ns=to_ns)


def flame_diff_filters(
    event: Annotated[str | None, Query(description="perf event (default: the first capture's first sampled one).")] = None,
    cpus: Annotated[str | None, Query(description="CPUs, a list like '1,3-4', on both sides (default: all).")] = None,
    comm: Annotated[str | None, Query(description="Only tasks with this command name, on both sides.")] = None,
    from_ns: Annotated[int | None, Query(ge=0, description="Range start, ns since each run's first sample.")] = None,
    to_ns: Annotated[int | None, Query(ge=0, description="Range end (exclusive), ns since each run's first sample.")] = None,
) -> flame_view.Filters:
    return flame_view.Filters(event=event, cpus=_cpus(cpus), comm=comm, from_ns=from_ns, to_ns=to_ns)


FlameFiltersDep = Annotated[flame_view.Filters, Depends(flame_filters)]
FlameDiffFiltersDep = Annotated[flame_view.Filters, Depends(flame_diff_filters)]
FlameAQ = Annotated[str, Query(description="The first capture (before).")]
FlameBQ = Annotated[str, Query(description="The second capture (after): its widths are drawn.")]
RunsAQ = Annotated[str | None, Query(description="Runs of the first capture, comma-separated (default: all).")]
RunsBQ = Annotated[str | None, Query(description="Runs of the second capture, comma-separated (default: all).")]
ZoomQ = Annotated[str | None, Query(description="The zoomed frame: its path of frame names from the root, ';'-separated.")]
SearchQ = Annotated[str | None, Query(description="Regular expression: matching frames are highlighted.")]
ModeQ = Annotated[flame_view.Mode, Query(description="flame: root at the bottom; icicle: root at the top.")]
WidthQ = Annotated[int, Query(ge=200, le=4000, description="Image width, px.")]
DownloadQ = Annotated[bool, Query(description="Send as an attachment (Content-Disposition).")]


def _runs(csv: str | None) -> tuple[str, ...] | None:
    if csv is None or not csv.strip():
        return None
    return tuple(dict.fromkeys(r for r in (x.strip() for x in csv.split(",")) if r))


def _cpus(text: str | None) -> tuple[int, ...] | None:
    if text is None or not text.strip() or text.strip() == "all":
        return None
    try:
        return tuple(parse_cpu_list(text))
    except ValueError as exc:
        raise HTTPException(422, f"cpus: {text!r} is not a CPU list like '1,3-4'") from exc


def _zoom(path: str | None) -> list[str]:
    return [p for p in path.split(";")] if path else []


def _disposition(name: str, download: bool) -> dict[str, str]:
    return {"Content-Disposition": f'{"attachment" if download else "inline"}; filename="{name}"'}


def _flame(fn, store: Store, *args, **kwargs):
    """Call a flame view; unknown capture or no stacks -> 404, a bad parameter -> 422."""
    try:
        return fn(store, *args, **kwargs)
    except flame_view.UnknownCapture as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except flame_view.NoStacks as exc:
        raise HTTPException(404, str(exc)) from exc
    except flame_view.BadQuery as exc:
        raise HTTPException(422, str(exc)) from exc


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

