"""The one golden-file check of the Python tests (not a test module).

`check_golden(path, actual)` compares `actual` with the file at `path`. A mismatch fails and writes
the actual text beside the golden file (NAME-changed.EXT) to diff; a missing golden file fails.
Only IOLENS_BLESS=1 writes golden files (any other value, "0" included, does not)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


def blessing() -> bool:
    return os.environ.get("IOLENS_BLESS") == "1"


def check_golden(path: Path | str, actual: str) -> None:
    path = Path(path) if Path(path).is_absolute() else GOLDEN / path
    changed = path.with_name(f"{path.stem}-changed{path.suffix}")
    if blessing():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        changed.unlink(missing_ok=True)
        return
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; run with IOLENS_BLESS=1 to write it, then check it by hand")
    if path.read_text(encoding="utf-8") != actual:
        changed.write_text(actual, encoding="utf-8")
        pytest.fail(f"{path.name} differs from the golden file; see {changed.name} beside it "
                    "(IOLENS_BLESS=1 to accept)")
    changed.unlink(missing_ok=True)
