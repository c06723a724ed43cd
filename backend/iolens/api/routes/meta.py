"""Server health."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from ... import __version__, models
from ...views import captures as captures_view
from ..deps import SettingsDep, StoreDep

router = APIRouter()


@router.get("/api/health", response_model=models.Health, tags=["meta"])
async def health(s: StoreDep, settings: SettingsDep) -> models.Health:
    # the count kept until the store's next write: answered from here, with no trip through the
    # thread pool (a notebook's first render waits for this answer: api/routes/flame.py says why)
    n = captures_view.kept_count(s)
    if n is None:
        n = await run_in_threadpool(captures_view.count, s)
    return models.Health(status="ok", version=__version__, captures=n, writes_need_token=bool(settings.token))
