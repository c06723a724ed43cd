"""datasets/xfs-unwritten-ramp-stacks, the shipped capture of scenario 1's unwritten-extent ramp
(3 repeats, stacks, fio's logs on the stacks' clock), checked for what it is shipped for (issue 17):
the subsecond heatmap of each run against a count made here from the raw perf script text (the
Python reference reader, not the native ingest nor SQL); fio's own IOPS log slower in the ramp
(2-5 s) than in the steady state (9-19 s) of every run; the difference of those two time ranges over
the three runs: each side the heatmap's cells of its range, and the conversion of unwritten extents
(xfs_iomap_write_unwritten, in the completion's kworkers) a fifth of the ramp's samples and none of
the steady state's, a change the three repeats' spread does not cover (not greyed as noise)."""

from __future__ import annotations

import gzip
import json
import statistics
import tarfile
from collections import Counter
from pathlib import Path

import pytest
from server import running_server

from iolens.formats.perf_script import sample_table

REPO = Path(__file__).resolve().parents[2]
RAMP = next((REPO / "datasets" / "xfs-unwritten-ramp-stacks").glob("*.iolens.tar.gz"))
S = 1_000_000_000
RUNS = ("r000", "r001", "r002")
RAMP_RANGE = (2 * S, 5 * S)      # ns since each run's first sample: inside every run's ramp (RECIPE.md)
STEADY_RANGE = (9 * S, 19 * S)   # after every run's ramp, before its end
CONVERT = "xfs_iomap_write_unwritten"


def perf_texts() -> dict[str, str]:
    with tarfile.open(RAMP) as tar:
        return {n.split("/")[1]: gzip.decompress(tar.extractfile(n).read()).decode()  # type: ignore[union-attr]
                for n in sorted(tar.getnames()) if n.endswith("perf.script.gz")}


def iops_logs() -> dict[str, list[tuple[float, int]]]:
    """Per run: fio's IOPS log entries as (seconds since the run's clock reading at fio's start, IOPS)."""
    with tarfile.open(RAMP) as tar:
        m = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
        out = {}
        for r in m["runs"]:
            a = next(a for a in r["artifacts"] if a["kind"] == "fio-log" and a["path"].endswith("_iops.1.log"))
            assert a["clock"] == "CLOCK_MONOTONIC"
            t0 = a["trace_clock_at_start_ns"]
            text = tar.extractfile(a["path"]).read().decode()  # type: ignore[union-attr]
            out[r["id"]] = [((int(f[0]) * 1_000_000 - t0) / S, int(f[1]))
                            for f in (ln.split(",") for ln in text.splitlines() if ln.strip())]
        return out


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("ramp")) as client:
        r = client.post("/api/captures", files={"file": (RAMP.name, RAMP.read_bytes(), "application/gzip")})
        assert r.status_code == 201, r.text
        yield client, r.json()["id"]


def test_the_bundle_has_what_the_ramp_needs():
    with tarfile.open(RAMP) as tar:
        m = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
    assert [r["id"] for r in m["runs"]] == list(RUNS)  # 3 repeats: the noise rule's minimum a side
    for r in m["runs"]:
        kinds = Counter(a["kind"] for a in r["artifacts"])
        assert kinds["perf-script"] == 1 and kinds["fio-log"] >= 1
        assert all(a.get("trace_clock_at_start_ns") for a in r["artifacts"] if a["kind"] in ("perf-script", "fio-log"))


def test_heatmap_counts_match_the_raw_samples(served):
    client, cid = served
    rows = 50
    for run, text in perf_texts().items():
        _stacks, table = sample_table(text)
        timed = [r for r in table if r[0] is not None]
        t0 = min(r[0] for r in timed)
        event = min(timed, key=lambda r: r[0])[7]
        want = Counter(((r[0] - t0) // S, ((r[0] - t0) % S) // (S // rows))
                       for r in timed if r[5] is not None and r[7] == event)
        h = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": run, "rows": rows}).json()
        got = Counter({(i // rows, i % rows): n for i, n in enumerate(h["counts"]) if n})
        assert h["filters"]["event"] == event == "cpu-clock"
        assert got == want, run
        assert h["total_samples"] == sum(want.values()) > 3000, run  # 2 CPUs x 99 Hz x 20 s
        assert h["cols"] >= 20


def test_fio_is_slower_in_the_ramp_than_in_the_steady_state():
    for run, log in iops_logs().items():
        ramp = statistics.median(v for t, v in log if RAMP_RANGE[0] / S <= t < RAMP_RANGE[1] / S)
        steady = statistics.median(v for t, v in log if STEADY_RANGE[0] / S <= t < STEADY_RANGE[1] / S)
        assert steady > 1.8 * ramp, (run, ramp, steady)  # 45-53k vs 121-127k in RECIPE.md


def test_ramp_vs_steady_over_the_three_runs(served):
    client, cid = served
    # each side: the heatmap's cells of its range, summed over the runs (whole seconds: one column each)
    sides = {}
    for name, (lo, hi) in (("ramp", RAMP_RANGE), ("steady", STEADY_RANGE)):
        n = 0
        for run in RUNS:
            h = client.get(f"/api/captures/{cid}/flame/heatmap", params={"run": run}).json()
            n += sum(h["counts"][(lo // S) * h["rows"]:(hi // S) * h["rows"]])
        sides[name] = n
    d = client.get("/api/compare/flame", params={
        "a": cid, "b": cid, "runs_a": ",".join(RUNS), "runs_b": ",".join(RUNS),
        "from_ns": RAMP_RANGE[0], "to_ns": RAMP_RANGE[1], "from_b_ns": STEADY_RANGE[0], "to_b_ns": STEADY_RANGE[1]})
    assert d.status_code == 200, d.text
    d = d.json()
    assert d["a"]["runs"] == d["b"]["runs"] == list(RUNS)
    assert d["a"]["total_samples"] == sides["ramp"] and d["b"]["total_samples"] == sides["steady"]
    assert d["noise_available"] is True, d["noise_reason"]
    conv = next(f for f in d["functions"] if f["name"] == CONVERT)
    assert conv["total_a"] > 10 and conv["total_b"] < 1, conv  # 21, 18 and 22 % of the ramp's samples
    assert conv["noise_total"] is False  # outside the repeats' spread: drawn in colour, not grey
