"""Notebooks: save (a write), list, read, and export as text or HTML."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

from ... import models
from ...exports import context as export_context
from ...exports import html as notebook_html
from ...exports import text as notebook_text
from ...store import notebooks
from ..deps import ERRORS, SandboxDep, SettingsDep, StoreDep, WriteDep

router = APIRouter()


@router.post("/api/notebooks", response_model=models.NotebookSaved, status_code=201, tags=["notebooks"],
          responses={200: {"model": models.NotebookSaved, "description": "Already saved"}, 401: {"model": models.ErrorBody},
                     **ERRORS})
def save_notebook(body: models.NotebookCreate, s: StoreDep, _: WriteDep):
    saved = notebooks.save(s, body)
    return JSONResponse(status_code=201 if saved.created else 200, content=saved.model_dump())


@router.get("/api/notebooks", response_model=models.NotebookList, tags=["notebooks"])
def list_notebooks(
    s: StoreDep,
    q: Annotated[str, Query(description="Words that must all occur: title, text, SQL, capture labels, tags, kernels.")] = "",
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> models.NotebookList:
    return notebooks.search(s, q, limit)


@router.get("/api/notebooks/{notebook_id}", response_model=models.NotebookVersion, responses=ERRORS, tags=["notebooks"])
def get_notebook(notebook_id: str, s: StoreDep) -> models.NotebookVersion:
    return notebooks.get(s, notebook_id)


@router.get("/api/notebooks/{notebook_id}/export", responses={**ERRORS, 200: {"content": {"text/plain": {}, "text/html": {}}}},
         tags=["notebooks"], response_class=PlainTextResponse)
def export_notebook(
    notebook_id: str, request: Request, s: StoreDep, settings: SettingsDep, sandbox: SandboxDep,
    format: Annotated[Literal["text", "html"], Query(description="text: for a mailing list; html: one static file.")] = "text",
    download: Annotated[bool, Query(description="Send as an attachment (Content-Disposition).")] = False,
):
    version = notebooks.get(s, notebook_id)
    base = settings.public_url or str(request.base_url)
    ctx = export_context.context(s, sandbox, version, base)
    name = f"iolens-{notebook_id}.{'txt' if format == 'text' else 'html'}"
    headers = {"Content-Disposition": f'{"attachment" if download else "inline"}; filename="{name}"'}
    if format == "html":
        return HTMLResponse(notebook_html.render(ctx), headers=headers)
    return PlainTextResponse(notebook_text.render(ctx), headers=headers)
