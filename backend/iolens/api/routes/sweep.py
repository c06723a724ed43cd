"""Sweeps (views/sweep.py): captures x sweep points with repeat statistics, fio's logs, and the
mailing-list report (views/report.py, exports/report.py). GET /api/report only reads; POST saves
the report's view as a notebook (a write: it needs the token) for the short permalink."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, Response

from ... import models
from ...exports import report as report_export
from ...views import fio_compare
from ...views import report as report_view
from ...views import sweep as sweep_view
from ..deps import ERRORS, SettingsDep, StoreDep, WriteDep, split_ids

router = APIRouter()


@router.get("/api/sweep", response_model=models.SweepMatrix, responses=ERRORS, tags=["sweep"])
def sweep_matrix(
    s: StoreDep,
    captures: Annotated[str, Query(description="Comma-separated capture ids: the rows.")],
    baseline: Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")] = None,
    metric: Annotated[str | None, Query(description="run_metrics key (default: iops, else wall_s, else the first).")]
    = None,
) -> models.SweepMatrix:
    try:
        return sweep_view.sweep_matrix(s, split_ids(captures), baseline, metric)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc


@router.get("/api/sweep/fio-log", response_model=models.FioLogSeries, responses=ERRORS, tags=["sweep"])
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
        return sweep_view.fio_log_series(s, split_ids(captures), log, ddir, point)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc


ReportCapturesQ = Annotated[str, Query(description="Comma-separated capture ids.")]
ReportBaselineQ = Annotated[str | None, Query(description="Capture id of the baseline (default: the first).")]
ReportMetricQ = Annotated[list[str] | None, Query(description="Metric keys, one table each (default: iops / wall_s).")]
ReportFormatQ = Annotated[Literal["text", "markdown", "json"], Query(
    description="text and markdown: ASCII, at most 72 columns, for email; json: the same as data.")]
ReportRowsQ = Annotated[Literal["points", "captures"], Query(description="What the table's rows are.")]
ReportRatioQ = Annotated[bool, Query(description="Ratios (1.123x) instead of changes (+12.3%).")]
ReportRelatedQ = Annotated[bool, Query(description="Add every capture that shares a sweep point with the baseline.")]
REPORT_RESPONSES = {**ERRORS, 200: {"content": {"text/plain": {}, "application/json": {}}}}


@router.get("/api/report", responses=REPORT_RESPONSES, response_class=PlainTextResponse, tags=["sweep"])
def sweep_report(
    request: Request,
    s: StoreDep, settings: SettingsDep,
    captures: ReportCapturesQ,
    baseline: ReportBaselineQ = None,
    metric: ReportMetricQ = None,
    format: ReportFormatQ = "text",
    rows: ReportRowsQ = "points",
    ratio: ReportRatioQ = False,
    related: ReportRelatedQ = False,
):
    # Read only: the permalink is the long form (the view's whole state in the URL).
    base = settings.public_url or str(request.base_url)
    data = _report_data(s, captures, baseline, metric, related, base)
    return _report_response(data, format, rows, ratio)


@router.post("/api/report", responses={**REPORT_RESPONSES, 401: {"model": models.ErrorBody}},
             response_class=PlainTextResponse, tags=["sweep"])
def save_sweep_report(
    request: Request,
    s: StoreDep, settings: SettingsDep, _: WriteDep,
    captures: ReportCapturesQ,
    baseline: ReportBaselineQ = None,
    metric: ReportMetricQ = None,
    format: ReportFormatQ = "text",
    rows: ReportRowsQ = "points",
    ratio: ReportRatioQ = False,
    related: ReportRelatedQ = False,
):
    """The report with a short permalink (/n/ID): its view is saved as a notebook version (a write,
    content-addressed: the same report twice is one version)."""
    base = settings.public_url or str(request.base_url)
    data = _report_data(s, captures, baseline, metric, related, base)
    return _report_response(report_view.save(s, data, base), format, rows, ratio)


def _report_data(s, captures: str, baseline: str | None, metric: list[str] | None, related: bool,
                 base: str) -> report_view.ReportData:
    ids = split_ids(captures)
    try:
        if related:
            ids = list(dict.fromkeys(ids + report_view.default_captures(s, baseline or ids[0])))
        return report_view.build(s, ids, baseline or ids[0], metric, base)
    except fio_compare.UnknownCaptures as exc:
        raise HTTPException(404, {"error": str(exc), "detail": {"missing": exc.missing}}) from exc
    except report_view.ReportError as exc:
        raise HTTPException(422, str(exc)) from exc


def _report_response(data: report_view.ReportData, format: str, rows, ratio: bool) -> Response:
    text = report_export.render(data, format, rows, ratio)
    if format == "json":
        return Response(text, media_type="application/json")
    return PlainTextResponse(text)
