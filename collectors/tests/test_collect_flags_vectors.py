"""The collector options the app's empty states tell people to use (testdata/vectors/collector-flags.json,
checked against frontend/src/logic/dataKinds.ts by dataKinds.test.ts) exist in this collector's parser:
a renamed option fails here, not in a user's shell."""

import argparse
import json
from pathlib import Path

import pytest

from iolens_collect.cli import build_parser

CASES = json.loads((Path(__file__).resolve().parents[2] / "testdata" / "vectors" / "collector-flags.json")
                   .read_text(encoding="utf-8"))["cases"]


def _commands() -> dict:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


@pytest.mark.parametrize("case", [pytest.param(c, id=c["data"]) for c in CASES])
def test_the_flag_the_app_names_is_the_collectors(case):
    word, *arg = case["flag"].split(" ")
    commands = _commands()
    if not word.startswith("--"):  # a subcommand and its argument
        assert word in commands, f"iolens-collect has no subcommand {word!r}"
        if arg:
            names = [a.metavar or a.dest for a in commands[word]._actions if not a.option_strings]
            assert any(str(n).upper().startswith(arg[0]) for n in names), (arg, names)
        return
    (opt,) = [a for a in commands["run"]._actions if word in a.option_strings] or [None]
    assert opt is not None, f"iolens-collect run has no option {word}"
    takes = opt.nargs != 0
    assert takes == bool(arg), f"{word}: the app says {'an' if arg else 'no'} argument, the parser {opt.nargs!r}"
    if arg:
        assert (opt.metavar or opt.dest.upper()).startswith(arg[0]), (arg[0], opt.metavar)
