"""The flame graph cell in the text report (exports/flame.py): the LKP-style table of the functions
whose share changed most, with the context it was measured in (event, task filter, CPUs, time
range, runs and samples per side), over real HTTP on the hand-made perf script captures of
test_flame_api.py, whose shares can be checked by hand:

fio's own tasks (the default of a difference), cpu-clock, 10 ns a sample, 7 samples with a stack
on each side (a stackless one in 'before' is left out):
  before: iomap_dio_rw 5 (71.43 %), vfs_write 1 (14.29 %), vfs_read 1 (14.29 %)
  after:  xfs_ilock 4 (57.14 %), iomap_dio_rw 2 (28.57 %), vfs_write 1 (14.29 %, recursive)
Golden text: tests/golden/flame-export.txt."""

from __future__ import annotations

import re

import pytest
from goldens import check_golden
from notebook_helpers import check_mail_safe, save, stable
from server import running_server
from test_flame_api import A_RUNS, B_RUNS, perf_bundle, upload

PUBLIC = "https://iolens.example.org"


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("flame-export")
    with running_server(tmp / "data", public_url=PUBLIC) as client:
        client.ids = [upload(client, perf_bundle(tmp, "before", A_RUNS)),  # type: ignore[attr-defined]
                      upload(client, perf_bundle(tmp, "after", B_RUNS))]
        # three repeats a side (a third run like the first), enough to mark noise
        client.ids3 = [upload(client, perf_bundle(tmp, "before 3", A_RUNS + A_RUNS[:1])),  # type: ignore[attr-defined]
                       upload(client, perf_bundle(tmp, "after 3", B_RUNS + B_RUNS[:1]))]
        yield client


def _export(api, states: list[str], ids: list[str] | None = None) -> str:
    a, b = ids or api.ids
    doc = {"format_version": 1, "title": "ext4 vs XFS profiles", "captures": [a, b], "baseline": a,
           "cells": [{"type": "view", "kind": "flame", "state": s, "full": False} for s in states]}
    r = save(api, doc)
    assert r.status_code == 201, r.text
    text = api.get(f"/api/notebooks/{r.json()['id']}/export").text
    check_mail_safe(text)
    return text


def _cell(text: str, n: int) -> str:
    return text.split(f"-- [{n}] ")[1].split("\n-- [")[0]


def test_the_difference_is_a_table_of_the_largest_changes(api):
    text = _export(api, ["v=diff", "v=diff;comm=*;by=total", "", "v=diff;x=focus:vfs_write;q=ilock"])
    diff = _cell(text, 1)
    assert diff.startswith("Flame graph ")
    # where the figures came from: event and unit, the task filter in force, CPUs, range, runs, samples
    assert "perf cpu-clock samples with call stacks (weight: CPU time)" in diff
    assert "tasks: command fio (the workload's own, the default); all CPUs; whole runs" in " ".join(diff.split())
    assert "A before (*): runs r000, r001; 7 samples, 70 ns of CPU; 1 without a stack, left out" in " ".join(diff.split())
    assert "B after: runs r000, r001; 7 samples, 70 ns of CPU" in " ".join(diff.split())
    rows = [ln.split() for ln in diff.split("\n") if ln.startswith("    ") and ln.split()[0] in
            ("xfs_ilock", "iomap_dio_rw", "vfs_read", "vfs_write", "entry")]
    # sorted by |change of the self share|, both shares and the change in pp
    assert [r[0] for r in rows][:3] == ["xfs_ilock", "iomap_dio_rw", "vfs_read"]
    assert rows[0][:3] == ["xfs_ilock", "-", "57.14"]
    assert rows[1][:3] == ["iomap_dio_rw", "71.43", "28.57"] and rows[1][3].startswith("-42.86")
    # other processes only with "All tasks": the kworker appears, ordered by total share now
    every = _cell(text, 2)
    assert "tasks: all tasks (chosen)" in " ".join(every.split()) and "blk_mq_complete" in every
    assert "whose total share changed most" in " ".join(every.split())
    # one capture's graph: its top functions
    one = _cell(text, 3)
    assert "before (*): all runs; 9 samples, 90 ns of CPU" in " ".join(one.split()) and "tasks: all tasks" in " ".join(one.split())
    top = [ln.split() for ln in one.split("\n") if ln.startswith("    iomap_dio_rw")]
    assert top == [["iomap_dio_rw", "55.56", "55.56", "5", "5"]]
    # what the table does not apply, said
    assert "Not applied to this table, only to the graph: the search /ilock/; the transforms (focus vfs_write)" \
        in " ".join(_cell(text, 4).split())
    assert f"{PUBLIC}/n/" in diff and "#cell-1" in diff
    check_golden("flame-export.txt", stable(text))


def test_noise_marked_with_three_repeats_a_side(api):
    # two repeats a side (above): too few to judge a change, no '~' and the reason said; three: '~'
    two = " ".join(_cell(_export(api, ["v=diff"]), 1).split())
    assert "no noise mark: the first capture has two runs with samples in this selection; noise needs 3 or more " \
           "repeats on each side" in two and "~" not in two
    three = _cell(_export(api, ["v=diff"], api.ids3), 1)
    assert "'~' where the change is within the spread between repeats" in " ".join(three.split())
    rows = {ln.split()[0]: ln.split() for ln in three.split("\n") if ln.startswith("    ")}
    assert "?" not in three and "too few repeats" not in three
    # vfs_read: A 25 %, 0 %, 25 % of each run's fio samples, B 0 %: the ranges touch at 0, noise
    assert rows["vfs_read"][3].endswith("~") and not rows["xfs_ilock"][3].endswith("~")


def test_too_few_repeats_mark_every_change_with_a_question_mark(api):
    # the tables' and the graph's rule (stats.too_few_repeats, testdata/vectors/ratio-tone.json):
    # two runs a side are too few to judge a change, so each change carries the tables' grey '?'
    # (the text has no colours), zero included, and the header says what it means; with three
    # repeats a side no change has it (above)
    two = _cell(_export(api, ["v=diff", "v=diff;comm=*;by=total"]), 1)
    assert "'?': too few repeats to judge a change (fewer than 3 on a side), as in the compared-metric tables" \
        in " ".join(two.split())
    rows = {ln.split()[0]: ln.split() for ln in two.split("\n")
            if re.fullmatch(r"    \w+ +(-|[\d.]+) +(-|[\d.]+) +\S+ +(-|[\d.]+) +(-|[\d.]+) +\S+", ln)}
    assert len(rows) == 5
    assert rows["xfs_ilock"][3] == "+57.14?" and rows["iomap_dio_rw"][3] == "-42.86?"
    assert rows["entry"][3] == "0.00?" and rows["entry"][6] == "0.00?"
    assert all(r[3].endswith("?") and r[6].endswith("?") for r in rows.values())
    # the HTML export's table says the same
    a, b = api.ids
    doc = {"format_version": 1, "title": "t", "captures": [a, b], "baseline": a,
           "cells": [{"type": "view", "kind": "flame", "state": "v=diff", "full": False}]}
    page = api.get(f"/api/notebooks/{save(api, doc).json()['id']}/export", params={"format": "html"}).text
    assert "+57.14?" in page and "-42.86?" in page
    a3, b3 = api.ids3
    page3 = api.get(f"/api/notebooks/{save(api, {**doc, 'captures': [a3, b3], 'baseline': a3}).json()['id']}/export",
                    params={"format": "html"}).text
    assert "?</td>" in page and "?</td>" not in page3 and re.search(r"<td class=num>[+-]\d+\.\d\d[ ~]</td>", page3)


def test_flame_html_export_has_the_table(api):
    a, b = api.ids
    doc = {"format_version": 1, "title": "t", "captures": [a, b], "baseline": a,
           "cells": [{"type": "view", "kind": "flame", "state": "v=diff", "full": False}]}
    nid = save(api, doc).json()["id"]
    page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
    assert "not part of the static export" not in page
    assert "<code>xfs_ilock</code>" in page and "57.14" in page


def test_a_long_kernel_function_name_is_kept_whole_on_its_own_line():
    from iolens.exports.flame import FlameData, FlameExport, Row, Side

    class Ctx:
        captures = [type("C", (), {"id": "a"})(), type("C", (), {"id": "b"})()]
        doc = type("D", (), {"baseline": "a"})()
        permalink = "https://iolens.example.org/n/x"

        @staticmethod
        def name(cid):
            return cid

    data = FlameData("diff", None, "self", event="cpu-clock", unit="ns", comm="fio", comm_why="chosen",
                     sides=[Side("a", ["r000"], 10, 100, 0), Side("b", ["r000"], 10, 100, 0)], functions=2,
                     rows=[Row("xfs_direct_write_iomap_begin", None, 0.9, None, 7.04, 0.9, 7.04),
                           Row("vfs_write", 1.0, 1.0, 2.0, 2.0, 0.0, 0.0)], noise=False, noise_reason="one run")
    text = FlameExport().text(Ctx(), data)  # type: ignore[arg-type]
    assert all(len(line) <= 72 for line in text)
    i = text.index("    xfs_direct_write_iomap_begin")
    assert text[i + 1].split() == ["-", "0.90", "+0.90?", "-", "7.04", "+7.04?"]   # one run a side: too few
    assert text[i + 2].split()[0] == "vfs_write"
