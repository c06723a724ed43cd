"""The collector's .config reader on testdata/vectors/kconfig.json, the cases the backend's parser
(formats/kconfig.py) is tested on too: the collector is stdlib-only, so the rule is kept twice."""

import json
from pathlib import Path

import pytest

from iolens_collect.kconfig import KconfigError, read_config

CASES = json.loads((Path(__file__).resolve().parents[2] / "testdata" / "vectors" / "kconfig.json")
                   .read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in CASES])
def test_kconfig_vectors(case, tmp_path):
    path = tmp_path / "config"
    path.write_text(case["text"], encoding="utf-8")
    if "options" in case:
        assert read_config(str(path))[1] == case["options"]
    else:
        with pytest.raises(KconfigError) as e:
            read_config(str(path))
        assert (f"line {case['error_line']}" in str(e.value)) == (case["error_line"] is not None), str(e.value)


DEBUG = json.loads((Path(__file__).resolve().parents[2] / "testdata" / "vectors" / "kconfig-debug.json")
                   .read_text(encoding="utf-8"))


def test_kconfig_debug_lists_are_the_vectors():
    from iolens_collect.kconfig import DEBUG as COSTLY
    from iolens_collect.kconfig import DEBUG_NO_COST

    assert list(COSTLY) == DEBUG["costly"] and list(DEBUG_NO_COST) == DEBUG["no_cost"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in DEBUG["cases"]])
def test_kconfig_debug_vectors(case):
    from iolens_collect.kconfig import summarize

    s = summarize(b"", case["options"])
    assert (s["debug"], s["debug_no_cost"]) == (case["costly"], case["no_cost"])
    # every debug option is among the compared ones the host facts carry, "n" when off
    assert all(s["options"][o] == case["options"].get(o, "n") for o in DEBUG["costly"] + DEBUG["no_cost"])
