"""Captures: the list, uploads, one capture's detail and its original bundle."""

from __future__ import annotations

import tempfile
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse
from starlette.concurrency import run_in_threadpool

from ... import models
from ...bundle import BundleError
from ...ingest import ingest_file
from ...views import captures as captures_view
from ...views import headlines as headlines_view
from ..deps import ERRORS, SettingsDep, StoreDep, WriteDep
from ..upload import UPLOAD_BODY, receive_file

router = APIRouter()


@router.get("/api/captures", response_model=list[models.CapturePublic], tags=["captures"])
async def list_captures(s: StoreDep) -> list[models.CapturePublic]:
    # kept until the store's next write: answered from here, with no trip through the thread pool
    # (a notebook's first render waits for this list: api/routes/flame.py says why it matters)
    kept = captures_view.kept_list(s)
    return kept if kept is not None else await run_in_threadpool(captures_view.list_captures, s)


@router.post(
    "/api/captures",
    response_model=models.CaptureCreated,
    status_code=201,
    responses={200: {"model": models.CaptureCreated, "description": "Already ingested"}, **ERRORS,
               401: {"model": models.ErrorBody}},
    tags=["captures"],
    openapi_extra=UPLOAD_BODY,
)
async def upload_capture(request: Request, s: StoreDep, settings: SettingsDep, _: WriteDep):
    """Upload a capture bundle (multipart form, the bundle in field `file`): 201 with the new capture,
    200 when the same bundle was already ingested. The bundle is written to the server's data folder
    once, as it arrives, and ingested from there."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=settings.data_dir, prefix=".upload-", delete=True) as tmp:
        name, size = await receive_file(request, tmp, settings.max_upload_bytes)
        if size == 0:
            raise BundleError("the uploaded file is empty", {"file": name})
        result = await run_in_threadpool(ingest_file, s, Path(tmp.name), bundles_dir=settings.bundles_dir, source=name,
                                         limits=settings.limits)
    body = models.CaptureCreated(id=result.capture_id, label=result.label, created=result.created,
                                 runs=result.runs, warnings=result.warnings)
    return JSONResponse(status_code=201 if result.created else 200, content=body.model_dump())


@router.get("/api/captures/{capture_id}", response_model=models.CaptureDetail, responses=ERRORS, tags=["captures"])
def capture_detail(capture_id: str, s: StoreDep) -> models.CaptureDetail:
    detail = captures_view.get_capture(s, capture_id)
    if detail is None:
        raise HTTPException(404, f"no capture with id {capture_id}")
    return detail


@router.get("/api/captures/{capture_id}/headlines", response_model=models.CaptureHeadlines, responses=ERRORS,
            tags=["captures"])
def capture_headlines(capture_id: str, s: StoreDep) -> models.CaptureHeadlines:
    """Each probe's headline figures per run (block, sched, stacks) or for the capture (lock_stat,
    monitors, events), each with its unit and where it came from (views/headlines.py)."""
    if not s.query("SELECT 1 FROM captures WHERE capture_id = ?", [capture_id]).rows:
        raise HTTPException(404, f"no capture with id {capture_id}")
    return headlines_view.capture_headlines(s, capture_id)


@router.get("/api/captures/{capture_id}/bundle", responses=ERRORS, tags=["captures"],
         response_class=FileResponse)
def capture_bundle(capture_id: str, s: StoreDep, settings: SettingsDep):
    sha = captures_view.bundle_sha256(s, capture_id)
    if sha is None:
        raise HTTPException(404, f"no capture with id {capture_id}")
    path = settings.bundles_dir / f"{sha}.iolens.tar"
    if not path.is_file():
        raise HTTPException(404, f"the bundle file of capture {capture_id} is not in {settings.bundles_dir}")
    return FileResponse(path, media_type="application/x-tar", filename=f"{capture_id}.iolens.tar.gz")
