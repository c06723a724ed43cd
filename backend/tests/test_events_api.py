"""Any tracepoint over real HTTP: a real `iolens-collect --trace` recording (block_rq_issue and
writeback:writeback_dirty_* under fio; tests/formats/samples/trace) ingested as typed per-event
tables, the events cell's summary, counts per field value (top N + rest, first/last time), the
rate over time, loss flags, and SQL cells over the event's table."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from server import running_server

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples" / "trace"
FORMATS = (SAMPLES / "block-writeback.trace-formats.txt").read_bytes()
LINES = gzip.decompress((SAMPLES / "block-writeback.trace.fields.jsonl.gz").read_bytes()).decode().splitlines()
EVENTS = [json.loads(x) for x in LINES]
T0 = min(e["time_ns"] for e in EVENTS) - 1_000_000  # the run started 1 ms before its first event


def trace_bundle(tmp: Path, label: str, runs: list[list[str]], lost: dict | None = None) -> Path:
    m, files = fio_capture(label, [[{"iops": 1000}] for _ in runs])
    for i, lines in enumerate(runs):
        add_file(m, files, f"runs/r{i:03d}/trace-formats.txt", FORMATS, "tracepoint-formats", run=i)
        add_file(m, files, f"runs/r{i:03d}/trace.fields.jsonl.gz", gzip.compress("\n".join(lines).encode() + b"\n", mtime=0),
                 "perf-trace-fields", run=i)
        m["runs"][i]["artifacts"][-1]["trace_clock_at_start_ns"] = T0
        rec = Counter(json.loads(x)["event"] for x in lines)
        m["runs"][i]["probes"] = {"trace": {"recorded": dict(rec), "counted": {k: v + (lost or {}).get(k, 0) for k, v in rec.items()},
                                            **({"lost": {k: {"recorded": rec[k], "counted": rec[k] + n} for k, n in lost.items()}} if lost else {})}}
    return write_bundle(tmp / f"{label}.iolens.tar.gz", m, files)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("events")
    issue = [x for x in LINES if '"block:block_rq_issue"' in x]
    a = trace_bundle(tmp, "before", [LINES, LINES])
    b = trace_bundle(tmp, "after", [issue[: len(issue) // 2]], lost={"block:block_rq_issue": 500})
    with running_server(tmp / "data") as client:
        ids = {}
        for k, p in (("a", a), ("b", b)):
            r = client.post("/api/captures", files={"file": (p.name, p.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            ids[k] = r.json()["id"]
            ids[k + "_warnings"] = r.json()["warnings"]
        yield client, ids


def test_summary_per_capture_and_event(served):
    client, ids = served
    s = client.get("/api/events", params={"captures": f"{ids['a']},{ids['b']}"}).json()
    got = {(e["label"], e["event"]): e for e in s["events"]}
    n_issue = sum(1 for e in EVENTS if e["event"] == "block:block_rq_issue")
    a = got[("before", "block:block_rq_issue")]
    assert (a["runs"], a["events"], a["per_run"], a["table"]) == (2, 2 * n_issue, n_issue, "trace_block__block_rq_issue")
    assert a["fields"] == {"dev": "BIGINT", "sector": "UBIGINT", "nr_sector": "BIGINT", "bytes": "BIGINT", "ioprio": "BIGINT",
                           "rwbs": "VARCHAR", "field_comm": "VARCHAR", "cmd": "VARCHAR"}
    assert not a["lost"] and got[("after", "block:block_rq_issue")]["lost"]
    assert ("after", "writeback:writeback_dirty_folio") not in got
    assert any("kept" in w and "block:block_rq_issue" in w for w in ids["b_warnings"])


def test_counts_by_field_top_n_and_rest(served):
    client, ids = served
    r = client.get("/api/events/by-field", params={"captures": ids["a"], "event": "block:block_rq_issue", "field": "sector", "top": 3})
    assert r.status_code == 200, r.text
    [cap] = r.json()["captures"]
    sectors = Counter(e["fields"]["sector"] for e in EVENTS if e["event"] == "block:block_rq_issue")
    assert cap["total"] == 2 * sum(sectors.values())
    top = cap["rows"][:3]
    assert [t["count"] for t in top] == [2 * n for _, n in sectors.most_common(3)]
    rest = cap["rows"][3]
    assert rest["rest"] and rest["values"] == len(sectors) - 3 and rest["count"] == cap["total"] - sum(t["count"] for t in top)
    first = min(e["time_ns"] for e in EVENTS if e["event"] == "block:block_rq_issue") - T0
    assert min(x["first_s"] for x in cap["rows"]) == pytest.approx(first / 1e9)
    # the event alone, and an unknown field
    alone = client.get("/api/events/by-field", params={"captures": ids["a"], "event": "block:block_rq_issue"}).json()
    assert alone["captures"][0]["rows"][0]["per_run"] == sum(sectors.values())
    bad = client.get("/api/events/by-field", params={"captures": ids["a"], "event": "block:block_rq_issue", "field": "lsn"})
    assert bad.status_code == 422 and "has no field 'lsn'" in bad.text and "nr_sector" in bad.text


def test_rate_over_time(served):
    client, ids = served
    r = client.get("/api/events/rate", params={"captures": f"{ids['a']},{ids['b']}", "event": "block:block_rq_issue", "buckets": 10}).json()
    a, b = r["series"]
    n_issue = sum(1 for e in EVENTS if e["event"] == "block:block_rq_issue")
    assert sum(a["per_s"]) * r["bucket_s"] == pytest.approx(n_issue)  # per run: the mean of two equal runs
    assert sum(b["per_s"]) * r["bucket_s"] == pytest.approx(n_issue // 2)


def test_sql_cells_see_the_event_tables(served):
    client, ids = served
    tables = {t["name"]: t for t in client.get("/api/sql/tables").json()["tables"]}
    assert "trace_events" in tables and "trace_block__block_rq_issue" in tables
    q = client.get("/api/sql", params={"sql": "SELECT rwbs, count(*) AS n FROM trace_block__block_rq_issue GROUP BY rwbs ORDER BY n DESC",
                                       "captures": ids["a"]})
    assert q.status_code == 200, q.text
    want = Counter(e["fields"]["rwbs"] for e in EVENTS if e["event"] == "block:block_rq_issue")
    assert sum(n for _, n in q.json()["rows"]) == 2 * sum(want.values())  # the values: test_char_arrays_given_as_hex...


def test_the_cil_seed_analysis_on_the_xfs_dataset(tmp_path):
    """datasets/xfs-ail-trace (real: fs_mark-style job on XFS, logbsize 32k vs 256k, --trace
    xfs:xfs_ail_insert --monitors): AIL insertions per LSN with first and last time, the log's
    traffic beside them, and the same in SQL."""
    bundles = sorted((Path(__file__).resolve().parents[2] / "datasets" / "xfs-ail-trace").glob("*.iolens.tar.gz"))
    assert len(bundles) == 2
    with running_server(tmp_path / "data") as client:
        ids = [client.post("/api/captures", files={"file": (b.name, b.read_bytes(), "application/gzip")}).json()["id"]
               for b in bundles]
        by = client.get("/api/events/by-field", params={"captures": ",".join(ids), "event": "xfs:xfs_ail_insert",
                                                        "field": "new_lsn", "top": 5}).json()
        for cap in by["captures"]:
            assert cap["runs"] == 3 and cap["total"] > 3000
            top = cap["rows"][0]
            assert not top["rest"] and int(top["value"]) >> 32 >= 1 and top["first_s"] <= top["last_s"]
            assert cap["rows"][-1]["rest"] and sum(r["count"] for r in cap["rows"]) == cap["total"]
        summary = client.get("/api/events", params={"captures": ",".join(ids)}).json()["events"]
        assert all(e["recorded"] == e["counted"] == e["events"] and not e["lost"] for e in summary)
        log = {r["key"]: r for r in client.get("/api/monitors", params={"captures": ",".join(ids), "source": "xfs",
                                                                       "limit": 500}).json()["rows"]}
        assert all(log["log.writes"]["cells"][c]["value"] > 0 for c in ids)
        sql = client.get("/api/sql", params={"captures": ids[0], "sql": "SELECT new_lsn >> 32 AS cycle, count(*) AS n "
                                             "FROM trace_xfs__xfs_ail_insert GROUP BY ALL ORDER BY n DESC LIMIT 1"})
        assert sql.status_code == 200 and sql.json()["rows"][0][1] > 0
        # the export's events per run in the app's number rule (textfmt.format_value, count-like), as the
        # cell shows them (src/cells/events/state.ts perRunText): 4,966 insertions over 3 runs read 1.655k
        assert sorted(round(e["per_run"], 1) for e in summary) == [1655.0, 1655.3]
        doc = {"format_version": 1, "title": "ail", "captures": ids, "baseline": ids[0],
               "cells": [{"type": "view", "kind": "events", "state": "e=xfs:xfs_ail_insert", "full": False}]}
        r = client.post("/api/notebooks", json={"document": doc, "parent": None})
        assert r.status_code == 201, r.text
        rows = [line.split() for line in client.get(f"/api/notebooks/{r.json()['id']}/export").text.split("\n")
                if line.strip().startswith("xfs:xfs_ail_insert ")]
        # the summary (event, capture, per run, runs), then the count by the event alone (per run, first, last)
        assert [row[-2:] for row in rows[:2]] == [["1.655k", "3"], ["1.655k", "3"]], rows
        assert [row[1] for row in rows if len(row) == 4 and row[-1] != "3"] == ["1.655k", "1.655k"], rows


def test_events_cell_in_the_text_report(served):
    client, ids = served
    doc = {"format_version": 1, "title": "events", "captures": [ids["a"], ids["b"]], "baseline": ids["a"],
           "cells": [{"type": "view", "kind": "events", "state": "e=block:block_rq_issue;f=rwbs;top=3", "full": False}]}
    r = client.post("/api/notebooks", json={"document": doc, "parent": None})
    assert r.status_code == 201, r.text
    text = client.get(f"/api/notebooks/{r.json()['id']}/export").text
    assert all(len(line) <= 72 for line in text.split("\n"))
    flat = " ".join(text.split())
    # what the figures are: perf tracepoints per capture, per run; the chosen event per field value
    assert "Tracepoints recorded with perf (iolens-collect run --trace), per capture: events per run" in flat
    assert "block:block_rq_issue per rwbs: events per run" in flat
    assert "block:block_rq_issue after 280 1 LOST" in flat and "LOST: the recording holds fewer events" in flat



def test_char_arrays_given_as_hex_read_as_text(served):
    """perf's Python hands block_rq_issue's `char rwbs[10]` over as a bytearray (hex in the JSON) once
    one event's array held bytes after its NUL: in this real recording 528 of 561 events read
    57530000000057090600 and the like. The ingest stores the text up to the NUL, so SQL, the
    by-field counts and the text report read "WS", not hex."""
    client, ids = served
    raw = Counter(e["fields"]["rwbs"] for e in EVENTS if e["event"] == "block:block_rq_issue")
    assert raw["57530000000057090600"] == 433 and raw["WS"] == 7  # the real file mixes both
    want = Counter()
    for v, n in raw.items():
        want[bytes.fromhex(v).split(b"\0")[0].decode() if len(v) == 20 else v] += n
    assert set(want) == {"WS", "WSM", "FF", "RA", "DS", "RM", "W"}
    q = client.get("/api/sql", params={"captures": ids["a"], "sql": "SELECT rwbs, count(*) FROM "
                                       "trace_block__block_rq_issue GROUP BY ALL"})
    assert {row[0]: row[1] for row in q.json()["rows"]} == {k: 2 * v for k, v in want.items()}
    by = client.get("/api/events/by-field", params={"captures": ids["a"], "event": "block:block_rq_issue",
                                                    "field": "rwbs", "top": 3}).json()
    assert [x["value"] for x in by["captures"][0]["rows"][:3]] == [k for k, _ in want.most_common(3)]
    doc = {"format_version": 1, "title": "events", "captures": [ids["a"]], "baseline": ids["a"],
           "cells": [{"type": "view", "kind": "events", "state": "e=block:block_rq_issue;f=rwbs;top=3", "full": False}]}
    r = client.post("/api/notebooks", json={"document": doc, "parent": None})
    text = client.get(f"/api/notebooks/{r.json()['id']}/export").text
    assert " WS " in " ".join(text.split()) and "5753" not in text
