"""Server health."""

from __future__ import annotations

from fastapi import APIRouter

from ... import __version__, models
from ...views import captures as captures_view
from ..deps import SettingsDep, StoreDep

router = APIRouter()


@router.get("/api/health", response_model=models.Health, tags=["meta"])
def health(s: StoreDep, settings: SettingsDep) -> models.Health:
    return models.Health(status="ok", version=__version__, captures=captures_view.count(s), writes_need_token=bool(settings.token))
