"""Flame graphs (views/flame.py): one capture's call tree, two captures' difference."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool

from ... import models
from ...store.db import Store
from ...store.rules import flame_stacks
from ...views import flame as flame_view
from ...views import flame_answer, flame_wire
from ..deps import ERRORS, StoreDep, cpus_param, disposition, runs_param


# --- flame graphs: the selection every flame route takes ---
async def flame_filters(
    event: Annotated[str | None, Query(description="perf event (default: the capture's first sampled one).")] = None,
    runs: Annotated[str | None, Query(description="Comma-separated run ids, merged (default: every run).")] = None,
    cpus: Annotated[str | None, Query(description="CPUs, a list like '1,3-4' (default: all).")] = None,
    tid: Annotated[int | None, Query(description="Only this thread.")] = None,
    comm: Annotated[str | None, Query(description="Only tasks with this command name (as perf printed it).")] = None,
    from_ns: Annotated[int | None, Query(ge=0, description="Range start, ns since each run's first sample.")] = None,
    to_ns: Annotated[int | None, Query(ge=0, description="Range end (exclusive), ns since each run's first sample.")] = None,
) -> flame_view.Filters:
    return flame_view.Filters(event=event, runs=runs_param(runs), cpus=cpus_param(cpus), tid=tid, comm=comm,
                              from_ns=from_ns, to_ns=to_ns)


async def flame_diff_filters(
    event: Annotated[str | None, Query(description="perf event (default: the first capture's first sampled one).")] = None,
    cpus: Annotated[str | None, Query(description="CPUs, a list like '1,3-4', on both sides (default: all).")] = None,
    comm: Annotated[str | None, Query(description="Only tasks with this command name, on both sides.")] = None,
    from_ns: Annotated[int | None, Query(ge=0, description="Range start, ns since each run's first sample.")] = None,
    to_ns: Annotated[int | None, Query(ge=0, description="Range end (exclusive), ns since each run's first sample.")] = None,
) -> flame_view.Filters:
    return flame_view.Filters(event=event, cpus=cpus_param(cpus), comm=comm, from_ns=from_ns, to_ns=to_ns)


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
OrderQ = Annotated[Literal["name", "heavy"], Query(
    description="Siblings by name (inferno's order) or heaviest first (left heavy), as the flame cell's o= field.")]
FormatQ = Annotated[Literal["json", "columns"] | None, Query(
    alias="format",
    description="The answer's format, when the request cannot say it by Accept (a page's `<link rel=preload>`, which "
                "sends Accept */*): json or columns. Default: by Accept.")]
TransformsQ = Annotated[str | None, Query(
    description="Transforms applied in order, the flame cell's x= text: OP:NAME items separated by ',', OP one of "
                "focus, merge, drop, rec, drec, NAME percent-encoded (store/rules/flame_stacks.py).")]

router = APIRouter()


COLUMNS_DOC = (
    "The same FlameGraph with its tree as little-endian typed arrays (what the web page asks for: "
    "no JSON to parse at 450k nodes), sent when the request's Accept names this type. Version 1: a "
    "16-byte header (b'IOLF', u32 version, u32 section count, u32 byte length), a table of 24-byte "
    "entries (8-byte name, u32 type 1 json / 2 text / 3 u8 / 4 u16 / 5 u32 / 6 f64, u32 count, u32 "
    "offset, u32 bytes), then the sections, 8-byte aligned: head (json: the FlameGraph without its tree), names (text: "
    "the frame names joined by NUL), name, depth, "
    "self_w, self_n (the FlameTree columns, each in the narrowest type that holds it). "
    "backend/iolens/views/flame_wire.py describes it; testdata/vectors/flame-wire.json has examples.")


@router.get("/api/captures/{capture_id}/flame", response_model=models.FlameGraph, tags=["flame"], responses={
    **ERRORS,
    200: {"description": "The flame graph: JSON (FlameGraph), or its columns answer when asked for by Accept.",
          "content": {flame_wire.MEDIA_TYPE: {"schema": {"type": "string", "format": "binary", "description": COLUMNS_DOC}}}},
})
async def flame_graph(capture_id: str, s: StoreDep, f: FlameFiltersDep, request: Request, wire: FormatQ = None):
    # kept per selection and format until the store changes (flame_answer.py); the format by the
    # request's Accept (JSON unless it names the columns type), or by `format` (the page asks with
    # format=columns: index.html's preload of this answer, api/index_preload.py, cannot set Accept)
    fmt: flame_answer.Format = wire or ("columns" if _accepts(request.headers.get("accept"), flame_wire.MEDIA_TYPE) else "json")
    # A kept answer is sent from here, on the event loop; one to make (the queries, the tree) or to
    # gzip is made in the thread pool. Each trip through the pool is a wake-up of another thread
    # and back, which a loaded machine (the browser loading the page beside the server) delays.
    a = flame_answer.kept_flame_answer(s, capture_id, f, fmt)
    if a is None:
        a = await run_in_threadpool(_flame, flame_answer.flame_answer, s, capture_id, f, fmt=fmt)
    media = flame_wire.MEDIA_TYPE if fmt == "columns" else "application/json"
    vary = {"Vary": "Accept, Accept-Encoding"}
    if flame_answer.wants_gzip(request.headers.get("accept-encoding"), a):
        gz = a.gzip_made or await run_in_threadpool(a.gzipped)
        return Response(gz, media_type=media, headers={"Content-Encoding": "gzip", **vary})
    return Response(a.body, media_type=media, headers=vary)


def _accepts(accept: str | None, media: str) -> bool:
    """The Accept header names `media` with a non-zero quality."""
    for part in (accept or "").split(","):
        kind, *params = (x.strip().lower() for x in part.split(";"))
        if kind == media:
            return all(_quality(p) != 0 for p in params)
    return False


def _quality(param: str) -> float | None:
    """The q of one Accept parameter ('q=0.5' -> 0.5), None for another parameter or a bad q."""
    name, _, value = param.partition("=")
    if name.strip() != "q":
        return None
    try:
        return float(value.strip())
    except ValueError:
        return None


@router.get("/api/captures/{capture_id}/flame/top", response_model=models.FlameTop, responses=ERRORS, tags=["flame"])
def flame_top(capture_id: str, s: StoreDep, f: FlameFiltersDep,
              by: Annotated[flame_view.TopKey, Query(description="self: where samples were; total: what ran under.")] = "self",
              limit: Annotated[int, Query(ge=1, le=5000, description="Rows to return.")] = 50):
    return _flame(flame_view.top_functions, s, capture_id, f, by, limit)


@router.get("/api/captures/{capture_id}/flame/folded", responses={**ERRORS, 200: {"content": {"text/plain": {}}}},
         response_class=PlainTextResponse, tags=["flame"])
def flame_folded(capture_id: str, s: StoreDep, f: FlameFiltersDep, order: OrderQ = "name",
                 transforms: TransformsQ = None, download: DownloadQ = False):
    text = _flame(flame_view.folded, s, capture_id, f, order=order, transforms=_transforms(transforms))
    return PlainTextResponse(text, headers=disposition(f"{capture_id}.folded.txt", download))


@router.get("/api/captures/{capture_id}/flame/svg", responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}}},
         response_class=Response, tags=["flame"])
def flame_svg(capture_id: str, s: StoreDep, f: FlameFiltersDep, zoom: ZoomQ = None, search: SearchQ = None,
              mode: ModeQ = "flame", width: WidthQ = 1200, order: OrderQ = "name", transforms: TransformsQ = None,
              download: DownloadQ = False):
    text = _flame(flame_view.svg, s, capture_id, f, zoom=_zoom(zoom), search=search, mode=mode, width=width,
                  order=order, transforms=_transforms(transforms))
    return Response(text, media_type="image/svg+xml", headers=disposition(f"{capture_id}.flame.svg", download))


DIFF_COLUMNS_DOC = (
    "The same FlameDiff with its tree as columns, in the flame graph's columns format (see "
    "GET /api/captures/{capture_id}/flame): head (json: the FlameDiff without its tree), names, name, depth, "
    "self_a, self_b, samp_a, samp_b (self weight and self samples of each side), and noise_s, noise_t "
    "(u8 0/1, both absent when noise is not measured).")


@router.get("/api/compare/flame", response_model=models.FlameDiff, tags=["flame"], responses={
    **ERRORS,
    200: {"description": "The difference: JSON (FlameDiff), or its columns answer when asked for by Accept.",
          "content": {flame_wire.MEDIA_TYPE: {"schema": {"type": "string", "format": "binary",
                                                         "description": DIFF_COLUMNS_DOC}}}},
})
def flame_diff(request: Request, s: StoreDep, a: FlameAQ, b: FlameBQ, f: FlameDiffFiltersDep, runs_a: RunsAQ = None,
               runs_b: RunsBQ = None,
               limit: Annotated[int, Query(ge=0, le=5000, description="Functions per ranking (self, total).")]
               = flame_view.DEFAULT_FUNCTIONS,
               from_b_ns: Annotated[int | None, Query(ge=0, description=(
                   "Side b's own range start (with to_b_ns: two time ranges, e.g. of one capture, a = b)."))] = None,
               to_b_ns: Annotated[int | None, Query(ge=0, description="Side b's own range end (exclusive).")] = None):
    range_b = (from_b_ns, to_b_ns) if from_b_ns is not None or to_b_ns is not None else None
    # kept per selection and format until the store changes (flame_answer.diff_answer), as the flame graph
    fmt: flame_answer.Format = "columns" if _accepts(request.headers.get("accept"), flame_wire.MEDIA_TYPE) else "json"
    answer = _flame(flame_answer.diff_answer, s, a, b, f, runs_param(runs_a), runs_param(runs_b), limit, range_b,
                    fmt=fmt)
    media = flame_wire.MEDIA_TYPE if fmt == "columns" else "application/json"
    vary = {"Vary": "Accept, Accept-Encoding"}
    if flame_answer.wants_gzip(request.headers.get("accept-encoding"), answer):
        return Response(answer.gzipped(), media_type=media, headers={"Content-Encoding": "gzip", **vary})
    return Response(answer.body, media_type=media, headers=vary)


@router.get("/api/compare/flame/folded", responses={**ERRORS, 200: {"content": {"text/plain": {}}}},
         response_class=PlainTextResponse, tags=["flame"])
def flame_diff_folded(s: StoreDep, a: FlameAQ, b: FlameBQ, f: FlameDiffFiltersDep, runs_a: RunsAQ = None,
                      runs_b: RunsBQ = None, download: DownloadQ = False):
    text = _flame(flame_view.diff_folded, s, a, b, f, runs_param(runs_a), runs_param(runs_b))
    return PlainTextResponse(text, headers=disposition(f"{a}-{b}.difffolded.txt", download))


@router.get("/api/compare/flame/svg", responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}}},
         response_class=Response, tags=["flame"])
def flame_diff_svg(s: StoreDep, a: FlameAQ, b: FlameBQ, f: FlameDiffFiltersDep, runs_a: RunsAQ = None,
                   runs_b: RunsBQ = None, zoom: ZoomQ = None, search: SearchQ = None, mode: ModeQ = "flame",
                   color: Annotated[flame_view.DiffColour, Query(
                       description="Colour by the change of self share (as flamegraph.pl) or of total share.")] = "self",
                   width: WidthQ = 1200, download: DownloadQ = False):
    text = _flame(flame_view.diff_svg, s, a, b, f, runs_a=runs_param(runs_a), runs_b=runs_param(runs_b), zoom=_zoom(zoom),
                  search=search, mode=mode, colour_by=color, width=width)
    return Response(text, media_type="image/svg+xml", headers=disposition(f"{a}-{b}.diff.svg", download))


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


def _transforms(text: str | None) -> list[flame_stacks.Transform]:
    try:
        return flame_stacks.parse_transforms(text)
    except flame_stacks.BadTransforms as exc:
        raise HTTPException(422, str(exc)) from exc


def _zoom(path: str | None) -> list[str]:
    return [p for p in path.split(";")] if path else []
