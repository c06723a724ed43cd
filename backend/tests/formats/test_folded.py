"""iolens.formats.folded over inferno-collapse-perf's own output (shared corpus), checked against
iolens's fold of the same perf script text."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.folded import parse_folded
from iolens.formats.perf_script import FoldOptions, fold_text


def test_every_inferno_output_reads(corpus: Path) -> None:
    files = sorted((corpus / "perf-script" / "expected-inferno").glob("*.txt"))
    assert len(files) > 40
    for f in files:
        text = f.read_text(encoding="utf-8")
        r = parse_folded(text, f.name)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        assert r.lines == len(lines), f.name
        assert r.total == sum(int(ln.rsplit(" ", 1)[1]) for ln in lines), f.name


def test_same_stacks_as_iolens_fold(corpus: Path) -> None:
    name = "perf-numa-stacks-01"
    text = (corpus / "perf-script" / "input" / f"{name}.txt").read_text(encoding="utf-8")
    ours = dict(fold_text(text, FoldOptions()))
    theirs = dict(parse_folded((corpus / "perf-script" / "expected-inferno" / f"{name}-collapsed.txt").read_text()).stacks)
    assert ours == theirs


def test_golden(corpus: Path, golden) -> None:
    f = corpus / "perf-script" / "expected-inferno" / "perf-dd-stacks-01-collapsed-kernel.txt"
    r = parse_folded(f.read_text(encoding="utf-8"), f.name)
    golden("folded/perf-dd-stacks-01-collapsed-kernel.json", {"lines": r.lines, "total": r.total, "stacks": r.stacks[:5]})


def test_duplicates_sum_spaces_and_comments() -> None:
    r = parse_folded("# from a tool\r\nV8 WorkerThread;a;b 3\r\nx;y 1\n\nV8 WorkerThread;a;b 4\n")
    assert r.stacks == [("V8 WorkerThread;a;b", 7), ("x;y", 1)] and r.lines == 3 and r.total == 8


@pytest.mark.parametrize("text, line, what", [
    ("a;b 1\na;b 1.5\n", 2, "not a non-negative integer"),
    ("a;b 1\na;b 3 4\n", 2, "differential"),
    ("a;b\n", 1, "expected 'frame;frame;... COUNT'"),
    ("\n# nothing\n", None, "no folded stacks"),
])
def test_errors(text: str, line: int | None, what: str) -> None:
    with pytest.raises(FormatError) as exc:
        parse_folded(text, "f.folded")
    assert exc.value.file == "f.folded" and exc.value.line == line and what in exc.value.message
