"""The `iolens` command (main.py) and its subcommands, one module each."""

from .main import main

__all__ = ["main"]
