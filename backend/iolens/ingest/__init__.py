"""Ingest: a bundle checked (bundle/), every artifact read by its kind's handler (registry.py, one
module per domain), then written in one transaction (pipeline.py)."""

from .pipeline import IngestResult, ingest_file

__all__ = ["IngestResult", "ingest_file"]
