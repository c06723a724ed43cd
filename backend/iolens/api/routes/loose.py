"""Loose files made into one capture, from the library page: the same code as `iolens bundle`
(ingest/loose.py). A preview of what each file is, from its first bytes, then the upload."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile
from fastapi.responses import JSONResponse

from ... import models
from ...bundle import BundleError
from ...ingest import ingest_file, loose
from ..deps import ERRORS, SettingsDep, StoreDep, WriteDep

router = APIRouter()

PREVIEW_BYTES = 64 * 1024


@router.post("/api/loose/preview", response_model=models.LoosePreview, responses=ERRORS, tags=["captures"])
def preview_loose(files: Annotated[list[UploadFile], File(description="The first bytes of each file (64 KiB is enough)")],
                  sizes: Annotated[str, Form(description="JSON list: each file's full size in bytes, same order")] = "[]"
                  ) -> models.LoosePreview:
    """What each file is (recognised by content) and where it would go; nothing is stored."""
    try:
        full = json.loads(sizes)
        if not isinstance(full, list) or not all(isinstance(n, int) for n in full):
            raise ValueError
    except ValueError:
        raise BundleError("sizes must be a JSON list of integers", {"field": "sizes"}, 422) from None
    items = []
    for i, f in enumerate(files):
        data = f.file.read(PREVIEW_BYTES)
        size = full[i] if i < len(full) else len(data)
        items.append((f.filename or f"file{i}", data, size))
    return models.LoosePreview.model_validate(loose.preview(items))


@router.post(
    "/api/captures/loose",
    response_model=models.CaptureCreated,
    status_code=201,
    responses={200: {"model": models.CaptureCreated, "description": "Already ingested"}, **ERRORS,
               401: {"model": models.ErrorBody}},
    tags=["captures"],
)
def upload_loose(s: StoreDep, settings: SettingsDep, _: WriteDep,
                 files: Annotated[list[UploadFile], File(description="fio JSON, perf script, blktrace, folded stacks...")],
                 label: Annotated[str, Form(description="the capture's name")],
                 kernel: Annotated[str | None, Form(description="kernel release, when the files do not say")] = None,
                 tags: Annotated[str, Form(description="JSON object of tags, string -> string")] = "{}"):
    """Loose files -> one bundle (recognised by content, checked by their parsers) -> ingested."""
    try:
        tag_map = json.loads(tags)
        if not isinstance(tag_map, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in tag_map.items()):
            raise ValueError
    except ValueError:
        raise BundleError("tags must be a JSON object of strings", {"field": "tags"}, 422) from None
    total = 0
    items = []
    for i, f in enumerate(files):
        data = f.file.read(settings.max_upload_bytes + 1)
        total += len(data)
        if total > settings.max_upload_bytes:
            raise BundleError(f"the files add up to more than the limit of {settings.max_upload_bytes} bytes",
                              {"file": f.filename, "limit": settings.max_upload_bytes}, 413)
        items.append((f.filename or f"file{i}", data))
    try:
        plan = loose.plan(items, label, kernel=kernel or None, tags=tag_map, argv=["upload", "loose files"])
    except loose.LooseError as exc:
        raise BundleError(f"{len(exc.problems)} problem(s) with the files: " + "; ".join(exc.problems),
                          {"problems": exc.problems}, 422) from None
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=settings.data_dir, prefix=".loose-") as tmp:
        out = Path(tmp) / "loose.iolens.tar.gz"
        loose.write(plan, out)
        result = ingest_file(s, out, bundles_dir=settings.bundles_dir, source=f"{label} (loose files)",
                             limits=settings.limits)
    body = models.CaptureCreated(id=result.capture_id, label=result.label, created=result.created,
                                 runs=result.runs, warnings=result.warnings)
    return JSONResponse(status_code=201 if result.created else 200, content=body.model_dump())
