"""The bundle manifest (docs/bundle-format.md), validated with pydantic.

Unknown fields are allowed and kept (a newer collector may add facts); known fields must have
the documented type. Validation errors name the field path, e.g. `runs[0].artifacts[1].sha256`.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

SUPPORTED_FORMAT_VERSIONS = (1,)


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Artifact(_Open):
    kind: str = Field(min_length=1, max_length=64)
    path: str = Field(min_length=1, max_length=1024)
    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str) -> str:
        if v.startswith("/") or "\x00" in v or ".." in v.split("/"):
            raise ValueError("must be a relative path inside the archive (no leading '/', no '..')")
        return v


class Run(_Open):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    index: int = Field(ge=0)
    repeat: int = Field(ge=0)
    params: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    exit_code: int | None = None
    cmdline: list[str] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)


class Collector(_Open):
    name: str
    version: str
    argv: list[str] = Field(default_factory=list)


class Workload(_Open):
    kind: Literal["fio", "cmd"]
    fio_version: str | None = None
    jobfile: str | None = None
    fio_args: list[str] | None = None
    targets: list[str] = Field(default_factory=list)


class Manifest(_Open):
    format: Literal["iolens-bundle"]
    format_version: int
    collector: Collector
    label: str = Field(min_length=1, max_length=200)
    tags: dict[str, str] = Field(default_factory=dict)
    created_at: datetime
    host: dict[str, Any] = Field(default_factory=dict)
    workload: Workload
    runs: list[Run] = Field(min_length=1)
    artifacts: list[Artifact] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @field_validator("format_version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        if v not in SUPPORTED_FORMAT_VERSIONS:
            supported = ", ".join(str(s) for s in SUPPORTED_FORMAT_VERSIONS)
            raise ValueError(f"bundle format version {v} is not supported (this server reads {supported}); upgrade iolens")
        return v

    def all_artifacts(self) -> list[tuple[str | None, Artifact]]:
        """(run id or None, artifact) for every file the manifest lists."""
        out: list[tuple[str | None, Artifact]] = [(None, a) for a in self.artifacts]
        for run in self.runs:
            out.extend((run.id, a) for a in run.artifacts)
        return out


def capture_id(raw_manifest: dict[str, Any]) -> str:
    """First 16 hex digits of the SHA-256 of the canonical manifest (docs/bundle-format.md)."""
    canonical = json.dumps(raw_manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def field_path(loc: tuple[int | str, ...]) -> str:
    """pydantic's ('runs', 0, 'artifacts', 1, 'sha256') -> 'runs[0].artifacts[1].sha256'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(root)"


def describe_validation_error(exc: ValidationError) -> list[dict[str, str]]:
    return [{"field": field_path(tuple(e["loc"])), "message": e["msg"]} for e in exc.errors()]
