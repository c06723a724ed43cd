"""The collector runs from a bare copy of collectors/: standard library only, Python 3.9
syntax, no import of the iolens backend."""

import ast
import os
import shutil
import subprocess
import sys

import pytest

COLLECTORS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(COLLECTORS, "iolens_collect")
SOURCES = sorted(f for f in os.listdir(PACKAGE) if f.endswith(".py"))


def test_help_from_a_copy(tmp_path):
    copy = tmp_path / "collectors"
    shutil.copytree(COLLECTORS, str(copy), ignore=shutil.ignore_patterns("__pycache__", "tests"))
    # -S: no site-packages at all (only the standard library and the copy in cwd); -E: no
    # PYTHONPATH; so an import of anything else would fail here.
    for argv, expect in ((["--help"], "run"), (["run", "--help"], "--allow-destructive"),
                         (["--version"], "iolens-collect 0.1.0")):
        cp = subprocess.run([sys.executable, "-S", "-E", "-m", "iolens_collect"] + argv,
                            cwd=str(copy), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=60)
        assert cp.returncode == 0, cp.stderr.decode()
        assert expect in cp.stdout.decode()


def test_run_help_states_defaults():
    from iolens_collect.cli import build_parser

    run = build_parser()._subparsers._group_actions[0].choices["run"]
    for action in run._actions:
        if action.dest in ("help",) or action.required:
            continue
        assert "default" in (action.help or ""), f"--{action.dest}: help must state the default"


@pytest.mark.parametrize("name", SOURCES)
def test_stdlib_only_and_py39_syntax(name):
    with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source, feature_version=(3, 9))
    stdlib = getattr(sys, "stdlib_module_names", None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            mods = [node.module]
        else:
            continue
        for mod in mods:
            top = mod.split(".")[0]
            assert top not in ("iolens",), f"{name} imports the backend ({mod})"
            if stdlib is not None:
                assert top in stdlib or top == "__future__", f"{name}: {mod} is not in the standard library"
