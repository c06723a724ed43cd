"""The loose-files preview (api/routes/loose.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class LooseFileSeen(BaseModel):
    file: str = Field(description="The file's name as given.")
    size: int = Field(description="Its full size in bytes.")
    kind: str | None = Field(description="What it was recognised as (an artifact kind); null: not a file iolens reads.")
    title: str | None = Field(description="The kind in words ('perf script with call stacks').")
    answer: Literal["yes", "no", "cannot tell yet"] = Field(description="The recognition's answer from the bytes seen.")
    reason: str = Field(description="What was seen, or why nothing fits.")
    run: str | None = Field(description="The run it would go to (r000...); null: the capture as a whole, or refused.")


class LoosePreview(BaseModel):
    files: list[LooseFileSeen]
    runs: int = Field(description="Runs the capture would have (one per fio result, at least one).")
    notes: list[str] = Field(description="What the capture will not know (host facts, device...).")
    problems: list[str] = Field(description="Why these files cannot make a capture as they are (empty: they can).")
