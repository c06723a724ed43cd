"""Golden-file helper for the format parsers.

`golden(relpath, data)` compares a readable dump of parser output with
tests/formats/golden/<relpath> (goldens.check_golden): a missing golden file fails; only
IOLENS_BLESS=1 writes golden files.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from goldens import check_golden

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SAMPLES_DIR = Path(__file__).resolve().parent / "samples"


def _round(x: float) -> float | str:
    if math.isnan(x) or math.isinf(x):
        return repr(x)
    return float(f"{x:.6g}")


def _key(k: Any) -> str:
    if isinstance(k, float):
        return f"{_round(k)}"
    return str(k)


def plain(obj: Any) -> Any:
    """Dataclasses/dicts/lists -> JSON-able values; floats to 6 significant digits.

    Dicts keep their order (the parsers' output order is deterministic), except dicts with
    numeric keys, which are sorted numerically.
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        items = list(obj.items())
        if items and all(isinstance(k, (int, float)) and not isinstance(k, bool) for k, _ in items):
            items.sort(key=lambda kv: kv[0])
        return {_key(k): plain(v) for k, v in items}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, float):
        return _round(obj)
    return obj


def dump(obj: Any) -> str:
    return json.dumps(plain(obj), indent=2, ensure_ascii=False) + "\n"


@pytest.fixture
def golden() -> Callable[[str, Any], None]:
    """Compare parsed data, dumped as JSON, with formats/golden/RELPATH (goldens.check_golden)."""
    def check(relpath: str, data: Any) -> None:
        check_golden(GOLDEN_DIR / relpath, dump(data))

    return check
