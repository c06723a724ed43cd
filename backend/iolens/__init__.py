"""iolens backend: bundle reader, format parsers, DuckDB store, views and HTTP API."""

__version__ = "0.1.0"
