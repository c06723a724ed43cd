"""Off-CPU and wakeup stacks (docs/offcpu.md): the perf-offcpu parser and pairing on small texts,
then a real capture (`iolens-collect run --offcpu --sched`, real fio with O_DIRECT writes and real
perf on this host) ingested by the real app over HTTP, whose off-CPU weights are checked per thread
against the blocked time its sched_switch events imply, computed here from the perf script text
with code of its own."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

import pytest
from offcpu_texts import TEXT
from server import running_server

from iolens.formats.errors import FormatError
from iolens.formats.perf_offcpu import OffcpuSwitch, OffcpuWaking, iter_offcpu_events
from iolens.ingest.offcpu import read_offcpu, state_frame
from iolens.store.derived import OFFCPU_STACK_BASE
from iolens.store.rules.lost_events import recorded_short

REPO = Path(__file__).resolve().parents[2]


def _events():
    return list(iter_offcpu_events(TEXT.splitlines(), "t.txt"))


def test_parser_reads_headers_chains_and_states():
    evs = _events()
    assert [type(e).__name__ for e in evs] == ["OffcpuSwitch", "OffcpuWaking", "OffcpuSwitch", "OffcpuSwitch",
                                               "OffcpuSwitch", "OffcpuSwitch"]
    s0 = evs[0]
    assert isinstance(s0, OffcpuSwitch)
    assert (s0.ts_ns, s0.cpu, s0.pid, s0.prev_pid, s0.prev_state, s0.next_pid) == (10_000_000_000, 1, 100, 101, "S", 50)
    # root first, offsets cut, the user frame kept
    assert s0.frames == "syscall;read_events;schedule;__schedule"
    w = evs[1]
    assert isinstance(w, OffcpuWaking)
    assert (w.waker_tid, w.waker_comm, w.pid, w.comm, w.target_cpu) == (50, "kworker/1:1-eve", 101, "fio", 1)
    assert w.frames == "process_one_work;aio_complete;try_to_wake_up"
    assert evs[3].prev_comm == "lto cgu.0 7" and evs[3].prev_state == "R+"   # a comm with spaces and digits
    assert evs[5].pid == 13802 and evs[5].prev_pid == 13802 and evs[5].frames is None  # perf printed tid -1; no chain


def test_parser_errors_name_the_line():
    bad = TEXT.replace("sched:sched_switch: prev_comm=lto", "sched:sched_switch: prev_kom=lto")
    with pytest.raises(FormatError, match=r"t\.txt line 16: field trace: sched_switch fields not as expected"):
        _ = list(iter_offcpu_events(bad.splitlines(), "t.txt"))
    with pytest.raises(FormatError, match=r"t\.txt line 1: field header: not a perf script event line"):
        _ = list(iter_offcpu_events(["garbage here", ""], "t.txt"))
    with pytest.raises(FormatError, match=r"line 1: a call chain line without an event line"):
        _ = list(iter_offcpu_events(["\tffffffff8 schedule (x)"], "t.txt"))


def test_pairing_weights_the_ends_and_the_waker():
    run = read_offcpu(TEXT.splitlines(), "t.txt", "cid", "r000")
    # fio 101: out at 10.000000 (S), in at 10.000012: 12 us, woken by the kworker; out again at 10.000030 (D): open
    # kworker 50: in at 10.000000 first (in at start), out at 10.000012: open at the end
    # lto 7751: out R+ at 10.000020: open; sh 13802: out, open; cc1 900: in, never seen: in at start
    assert len(run.intervals) == 1
    iv = dict(zip(("capture_id", "run_id", "tid", "pid", "comm", "grp", "state", "cpu_out", "t_out_ns", "cpu_in",
                   "t_in_ns", "blocked_ns", "stack_id", "waker_tid", "waker_comm", "waker_grp"), run.intervals[0]))
    assert (iv["tid"], iv["state"], iv["blocked_ns"], iv["waker_tid"], iv["waker_comm"]) == \
        (101, "S", 12_000, 50, "kworker/1:1-eve")
    stacks = {sid: f for f, sid in run.stacks.items()}
    assert stacks[iv["stack_id"]] == "fio;[state S];syscall;read_events;schedule;__schedule"
    assert min(stacks) == OFFCPU_STACK_BASE
    assert "kworker/1:1-eve;process_one_work;aio_complete;try_to_wake_up;[wakes fio]" in run.stacks
    assert "lto_cgu.0_7;[state R]" + ";irqentry_exit_to_user_mode;__schedule" in run.stacks
    assert (run.open_at_end, run.in_at_start, run.unpaired_out, run.unpaired_in) == (4, 2, 0, 0)
    last = 10_000_040_000
    assert run.open_at_end_ns == (last - 10_000_012_000) + (last - 10_000_020_000) + (last - 10_000_030_000) + 0
    assert run.blocked_ns == 12_000
    assert [s[-2:] for s in run.samples] == [(1, "wakeup"), (12_000, "offcpu")]
    assert state_frame("R+") == state_frame("R") == "[state R]" and state_frame("D") == "[state D]"


def test_lost_switch_in_is_unpaired():
    text = "\n\n".join(p for p in TEXT.split("\n\n") if "10.000012000" not in p)
    # without the kworker -> fio switch, fio's next switch-out (10.000030) finds one pending
    run = read_offcpu(text.splitlines(), "t.txt", "cid", "r000")
    assert run.unpaired_out == 1 and run.intervals == []


# --------------------------------------------------------------------------------------------
# A real capture


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


_SWITCH = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d{9}): sched:sched_switch: "
                     r"prev_comm=.* prev_pid=(\d+) prev_prio=\S+ prev_state=(\S+) ==> next_comm=.* next_pid=(\d+) ")


def blocked_by_tid(text: str) -> dict[int, int]:
    """Independently of ingest: per thread, the ns from each switch-out to its next switch-in, over
    pairs where no other switch-out of the thread comes between."""
    out_at: dict[int, int] = {}
    total: dict[int, int] = defaultdict(int)
    for line in text.splitlines():
        m = _SWITCH.search(line)
        if not m:
            continue
        t = int(m.group(2)) * 10**9 + int(m.group(3))
        prev, nxt = int(m.group(4)), int(m.group(6))
        if prev:
            out_at[prev] = t           # a second switch-out replaces the first (its switch-in was lost)
        if nxt and nxt in out_at:
            total[nxt] += t - out_at.pop(nxt)
    return dict(total)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    _need(shutil.which("fio") is not None, "fio is not installed")
    _need(shutil.which("perf") is not None, "perf is not on PATH")
    _need(os.geteuid() == 0, "not root: system-wide sched tracepoints need root")
    tmp = tmp_path_factory.mktemp("offcpu")
    out = tmp / "offcpu.iolens.tar.gz"
    args = (f"--name=w --directory={tmp} --size=8m --rw=randwrite --bs=4k --direct=1 --ioengine=libaio "
            "--iodepth=4 --runtime=1 --time_based --rate_iops=3000")
    r = subprocess.run(
        [sys.executable, "-m", "iolens_collect", "run", "--label", "offcpu-real", "--offcpu", "--sched", "--cpus", "1",
         "--fio-args", args, "-o", str(out)],
        cwd=REPO / "collectors", capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO / "collectors")})
    assert r.returncode == 0, r.stderr
    with tarfile.open(out) as tar:
        script = gzip.decompress(tar.extractfile("runs/r000/offcpu.script.gz").read()).decode("utf-8", "replace")
        manifest = json.load(io.TextIOWrapper(tar.extractfile("manifest.json"), encoding="utf-8"))
    with running_server(tmp / "data") as api:
        with out.open("rb") as f:
            # the whole machine's switches with call chains, parsed in Python: minutes on a loaded 2-CPU host
            resp = api.post("/api/captures", files={"file": (out.name, f, "application/gzip")}, timeout=600)
        assert resp.status_code == 201, resp.text
        yield api, resp.json()["id"], script, manifest


@pytest.mark.capture
def test_real_weights_sum_to_each_threads_blocked_time(real):
    api, cid, script, manifest = real
    expected = blocked_by_tid(script)
    assert expected, "no switch-out was followed by a switch-in"
    summ = api.get(f"/api/captures/{cid}/offcpu", params={"limit": 5000}).json()
    got = {t["tid"]: t["blocked_ns"] for t in summ["tasks"]}
    assert got == expected
    (run,) = summ["runs"]
    assert run["blocked_ns"] == sum(expected.values())
    # the flame graph's 'offcpu' event weighs the same stacks: fio's threads, all states
    fio_tids = [t["tid"] for t in summ["tasks"] if t["comm"] == "fio"]
    assert fio_tids
    for tid in fio_tids[:3]:
        fl = api.get(f"/api/captures/{cid}/flame", params={"event": "offcpu", "tid": tid}).json()
        assert fl["weight_unit"] == "ns" and fl["total_weight"] == expected[tid]
    # the capture's default flame event stays a sampled one when there is one; here only offcpu/wakeup
    events = [e["event"] for e in api.get(f"/api/captures/{cid}/flame").json()["events"]]
    assert set(events) == {"offcpu", "wakeup"}
    # lost events: the one rule, the same verdict as the collector's
    info = manifest["runs"][0]["probes"]["offcpu"]
    verdict = any(recorded_short(info["recorded"][e], info["counted"][e]) for e in info["recorded"])
    assert run["events_lost"] == verdict
    assert {c["event"] for c in run["checks"] if c["name"] == "recorded_vs_counted"} == \
        {"sched:sched_switch", "sched:sched_waking"}


@pytest.mark.capture
def test_real_pair_of_the_pingpong_table(real):
    api, cid, _script, _manifest = real
    pp = api.get(f"/api/captures/{cid}/sched/pingpong", params={"group_by": "group", "cpus": "all"}).json()
    # a pair of two groups, one of them fio (fio's own threads also ping-pong: a pair of one group,
    # which the pair view refuses, and which came first in one real recording)
    rows = [r for r in pp["rows"] if {r["a"]["group"], r["b"]["group"]} >= {"fio"} and r["a"]["group"] != r["b"]["group"]]
    assert rows, [(r["a"]["group"], r["b"]["group"]) for r in pp["rows"][:5]]
    row = rows[0]
    a, b = row["a"]["group"], row["b"]["group"]
    pair = api.get(f"/api/captures/{cid}/offcpu/pair", params={"run": row["run_id"], "a": a, "b": b}).json()
    for side in (pair["a"], pair["b"]):
        tree = side["blocked"]
        assert sum(tree["self_weight"]) == side["blocked_ns"] > 0
        assert sum(side["woken_by"]["self_samples"]) == side["wakeups"]
        assert all(tree["names"][n].startswith("[state ") for n, d in zip(tree["name"], tree["depth"]) if d == 2)
    # fio is woken by the other side of its pair (the completion path) at least once
    f = pair["a"] if a == "fio" else pair["b"]
    assert f["wakeups_by_partner"] > 0 and f["woken_by_partner"] > 0
    bad = api.get(f"/api/captures/{cid}/offcpu/pair", params={"run": "r999", "a": a, "b": b})
    assert bad.status_code == 422 and "r999" in bad.text
    none = api.get(f"/api/captures/{cid}/offcpu/pair", params={"run": row["run_id"], "a": "no-such-task", "b": b})
    assert none.status_code == 422 and "no-such-task" in none.text


@pytest.mark.capture
def test_real_text_and_html_exports_of_the_offcpu_cell(real):
    from notebook_helpers import check_mail_safe, save

    api, cid, _script, _manifest = real
    summ = api.get(f"/api/captures/{cid}/offcpu", params={"limit": 5000}).json()
    fio = next(t for t in summ["tasks"] if t["comm"] == "fio")
    doc = {"format_version": 1, "title": "off-CPU", "captures": [cid], "baseline": cid,
           "cells": [{"type": "view", "kind": "offcpu", "state": "", "full": False},
                     {"type": "view", "kind": "offcpu", "state": f"c={cid};r=r000;a={fio['tid']};b=kworker%2F*",
                      "full": False}]}
    r = save(api, doc)
    assert r.status_code == 201, r.text
    nid = r.json()["id"]
    text = api.get(f"/api/notebooks/{nid}/export").text
    Path(os.environ.get("OFFCPU_DUMP", os.devnull)).write_text(text)
    check_mail_safe(text)
    assert "-- [1] Off-CPU " in text and "waits weighted" in text and "off the CPU" in text
    assert "pair in r000: fio" in text and "kworker/" in text
    assert "blocked in (by time):" in text and "woken by (by count):" in text
    assert ("LOST EVENTS" in text) == summ["runs"][0]["events_lost"]
    page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
    assert "pair in r000" in page
    # the pair's four trees as inline SVG: each side's blocked and woken-by stacks
    assert page.count('data-chart="offcpu-pair"') == 4 and "where it blocked" in page and "what woke it" in page
