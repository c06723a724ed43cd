"""Notebooks: the saved document and its versions (store/notebooks.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from .captures import CaptureBase

# --- Notebooks (store/notebooks.py, exports/) -------------------------------------------------------------
# The notebook document is the saved form of a notebook: these models are its schema (the
# frontend's NotebookDocument type is generated from them). Changing its shape means a new
# format_version and an upgrader in iolens/models/notebook_upgrade.py (and src/state/document.ts).

NOTEBOOK_FORMAT_VERSION = 1


class MarkdownCell(BaseModel):
    """Text written by the author, in Markdown. Rendered without raw HTML, scripts or images."""

    type: Literal["markdown"]
    text: str = Field(max_length=100_000)


class ViewCell(BaseModel):
    """One view of iolens (a cell kind of the frontend's registry) with its state."""

    type: Literal["view"]
    kind: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$", description="Cell kind, e.g. 'fio'.")
    state: str = Field(default="", max_length=20_000,
                       description="The kind's encoded state (its part of the compare URL); '' is the default.")
    full: bool = Field(default=False, description="Shown at the full width of the window.")


class SqlChart(BaseModel):
    mark: Literal["line", "bar", "scatter"]
    x: str = Field(max_length=200, description="Result column on the x axis.")
    y: list[str] = Field(min_length=1, max_length=8, description="Result columns drawn against x.")


class SqlCell(BaseModel):
    """A read-only query over the notebook's captures, shown as a table and optionally a chart."""

    type: Literal["sql"]
    sql: str = Field(max_length=20_000)
    chart: SqlChart | None = None
    full: bool = False


class NotebookDocument(BaseModel):
    """A notebook: an ordered list of cells over a set of captures, one of them the baseline."""

    format_version: Literal[1] = Field(description="Version of this document format.")
    title: str = Field(max_length=300)
    captures: list[str] = Field(min_length=1, max_length=64, description="Capture ids, in colour order.")
    baseline: str
    cells: list[Annotated[MarkdownCell | ViewCell | SqlCell, Field(discriminator="type")]] = Field(max_length=200)


class NotebookCreate(BaseModel):
    document: NotebookDocument
    parent: str | None = Field(default=None, description="Id of the version this one was edited from.")


class NotebookSaved(BaseModel):
    id: str = Field(description="The version's id: /n/{id} opens exactly this version.")
    parent: str | None
    created: bool = Field(description="False when this exact document (with this parent) was already saved.")
    created_at: str
    url: str = Field(description="Path of the permalink, '/n/{id}'.")


class NotebookCapture(CaptureBase):
    kernel: str | None
    tags: dict[str, str]


class NotebookSummary(BaseModel):
    id: str
    parent: str | None
    title: str
    created_at: str
    format_version: int = Field(description="The document's format_version as saved.")
    captures: list[NotebookCapture] = Field(description="Captures still in the store, in document order.")
    cells: int
    kinds: list[str] = Field(description="Cell kinds, in order: 'markdown', 'sql' or the view kind.")
    children: list[str] = Field(description="Versions saved from this one (newest first).")


class NotebookVersion(NotebookSummary):
    document: NotebookDocument = Field(description="Upgraded to the current format_version.")


class NotebookList(BaseModel):
    notebooks: list[NotebookSummary]
    total: int = Field(description="Matching versions, before the limit.")
