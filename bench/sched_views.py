#!/usr/bin/env python3
"""Benchmark: ingest rate of scheduler events and the query time of each sched view (issue 4).

Input: a capture of at least 5 million sched events, built by REPLICATING a real recording: the
perf script text of backend/tests/formats/samples/sched/fio-pinned.perf-script.txt.gz (fio pinned
to CPU 1, 4k O_DIRECT random writes with libaio, perf record of the four sched tracepoints on all
CPUs; recipe in that folder's README) is repeated COPIES times, each copy's timestamps shifted by
the span of the recording plus 1 ms, so that the result reads as one long trace (a fio <-> kworker
storm of ~40 s). The perf stat CSV of the same recording is repeated the same way (its intervals
shifted), so the recorded-vs-counted check runs too. The bundle is labelled as replicated.

Steps, each timed: build the text (not part of the figures), ingest the bundle into a new DuckDB
file (parse + CSV + load + derive, in `iolens ingest`'s code path), then each view (median of
IOLENS_BENCH_RUNS calls, default 5, after one warm-up call), then the table views under a time
range (the notebook's timeline selection, views/sched_range.py: counted from the events and slices
of the range) of 1 s and 10 s in the middle of the trace, and over the whole trace forced through
the same path (the worst case: every row).

Environment: IOLENS_BENCH_DIR (default /var/tmp/iolens-bench-sched; the text and DB live there,
kept for reruns), IOLENS_BENCH_COPIES (default 41 -> 5.1M events), IOLENS_BENCH_REUSE=1 (skip the
parse and ingest, time the views on the DB of the previous run). Prints the figures with the load
average; record them in bench/README.md. Needs no root and no perf.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))

from iolens.ingest import ingest_file  # noqa: E402
from iolens.ingest.sched import read_sched_trace  # noqa: E402
from iolens.store.db import Store  # noqa: E402
from iolens.views import sched as views  # noqa: E402
from iolens.views import sched_range  # noqa: E402

SAMPLES = REPO / "backend" / "tests" / "formats" / "samples" / "sched"
SEED = SAMPLES / "fio-pinned.perf-script.txt.gz"
SEED_STAT = SAMPLES / "fio-pinned.perf-stat.csv"
DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-sched"))
COPIES = int(os.environ.get("IOLENS_BENCH_COPIES", "41"))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "5"))
TIME = re.compile(r"(\] +)(\d+)\.(\d{6})(: )")


def log(msg: str) -> None:
    print(f"[sched_views] {msg}", file=sys.stderr, flush=True)


def build_text(path: Path) -> None:
    lines = gzip.decompress(SEED.read_bytes()).decode().splitlines(keepends=True)
    stamps = [m for m in (TIME.search(line) for line in lines) if m]
    first = int(stamps[0].group(2)) * 10**6 + int(stamps[0].group(3))
    last = int(stamps[-1].group(2)) * 10**6 + int(stamps[-1].group(3))
    span_us = last - first + 1000
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", compresslevel=1) as out:
        for k in range(COPIES):
            shift = k * span_us

            def sub(m: re.Match[str], shift: int = shift) -> str:
                t = int(m.group(2)) * 10**6 + int(m.group(3)) + shift
                return f"{m.group(1)}{t // 10**6}.{t % 10**6:06d}{m.group(4)}"

            out.writelines(TIME.sub(sub, line, count=1) for line in lines)
    tmp.replace(path)


def build_stat(copies: int) -> str:
    """The seed's perf stat intervals, repeated with shifted times (the counts of every copy)."""
    rows = [line for line in SEED_STAT.read_text().splitlines() if line.strip() and not line.startswith("#")]
    last = max(float(line.split(",")[0]) for line in rows)
    out = []
    for k in range(copies):
        for line in rows:
            t, rest = line.strip().split(",", 1)
            out.append(f"{float(t) + k * last:.9f},{rest}")
    return "\n".join(out) + "\n"


def bundle(path: Path, text: Path) -> None:
    files = {"runs/r000/sched.txt.gz": text.read_bytes(), "runs/r000/perf-stat.csv": build_stat(COPIES).encode()}
    kinds = {"runs/r000/sched.txt.gz": "perf-sched", "runs/r000/perf-stat.csv": "perf-stat"}
    manifest = {
        "format": "iolens-bundle", "format_version": 1,
        "collector": {"name": "bench/sched_views.py", "version": "0", "argv": sys.argv},
        "label": f"REPLICATED x{COPIES}: fio pinned to CPU 1, sched tracepoints (bench input, not a real capture)",
        "tags": {"replicated": str(COPIES)}, "created_at": "2026-11-22T00:00:00Z",
        "host": {"cpu": {"online": "0-1"}}, "workload": {"kind": "fio", "targets": []},
        "runs": [{"id": "r000", "index": 0, "repeat": 0, "params": {"cpus": "1"}, "cmdline": ["fio"], "artifacts": [
            {"kind": kinds[p], "path": p, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()}
            for p, d in files.items()]}],
        "artifacts": [], "notes": [f"built by bench/sched_views.py from {SEED.name} x{COPIES}, timestamps shifted"],
    }
    with tarfile.open(path, "w") as tar:
        for name, data in {"manifest.json": json.dumps(manifest).encode(), **files}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def timed(fn, *args, **kwargs) -> tuple[float, float, object]:
    result = fn(*args, **kwargs)  # warm-up
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times), max(times), result


def main() -> int:
    DIR.mkdir(parents=True, exist_ok=True)
    text = DIR / f"sched-x{COPIES}.txt.gz"
    if not text.exists():
        log(f"building {text} ({COPIES} copies of {SEED.name}) ...")
        start = time.perf_counter()
        build_text(text)
        log(f"built in {time.perf_counter() - start:.1f} s")
    archive = DIR / f"sched-x{COPIES}.iolens.tar"
    db = DIR / "bench.duckdb"
    if os.environ.get("IOLENS_BENCH_REUSE") == "1" and db.exists():
        store = Store(db)
        cid = store.query("SELECT capture_id FROM captures ORDER BY ingested_at DESC LIMIT 1").scalar()
        print(f"machine: nproc {os.cpu_count()}, {platform.system()} {platform.release()}, "
              f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}; DB of the previous run")
        ranges(store, cid)
        store.close()
        return 0
    bundle(archive, text)
    for p in (db, db.with_suffix(".duckdb.wal")):
        p.unlink(missing_ok=True)
    shutil.rmtree(DIR / "bundles", ignore_errors=True)

    parse_dir = DIR / "parse-only"
    parse_dir.mkdir(exist_ok=True)
    start = time.perf_counter()
    trace = read_sched_trace(text, text.name, parse_dir)
    parse_s = time.perf_counter() - start
    shutil.rmtree(parse_dir)
    events = sum(trace.counts.values())

    store = Store(db)
    start = time.perf_counter()
    result = ingest_file(store, archive, bundles_dir=DIR / "bundles")
    ingest_s = time.perf_counter() - start
    cid = result.capture_id
    rows = {t: store.query(f"SELECT count(*) FROM {t} WHERE capture_id = ?", [cid]).scalar()
            for t in ("sched_switch", "sched_wakeup", "sched_migrate", "sched_slices", "sched_delays",
                      "sched_cpu_rate", "perf_stat")}

    print(f"machine: nproc {os.cpu_count()}, {platform.system()} {platform.release()}, "
          f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    print(f"input: {text.name}, {text.stat().st_size / 1e6:.0f} MB gzip, {trace.lines:,} lines, {events:,} events "
          f"({', '.join(f'{k} {v:,}' for k, v in trace.counts.items())})")
    print(f"parse + write CSV (read_sched_trace): {parse_s:.1f} s = {events / parse_s:,.0f} events/s")
    print(f"ingest (whole bundle: parse, load, derive): {ingest_s:.1f} s = {events / ingest_s:,.0f} events/s")
    print("rows: " + ", ".join(f"{k} {v:,}" for k, v in rows.items()))
    print(f"checks: {[c.detail for r in views.context(store, cid).runs for c in r.info.checks]}")
    print()
    print("| view | call | median | max |")
    print("|---|---|---|---|")
    calls = [
        ("overview", "overview(run=None)", views.overview, (cid,), {}),
        ("switch-rate", "step_ms=1000, cpus=all", views.switch_rate, (cid,), {"step_ms": 1000}),
        ("switch-rate", "step_ms=100, cpus=workload", views.switch_rate, (cid,), {"step_ms": 100, "cpus": "workload"}),
        ("tasks", "cpus=all, group_by=task", views.tasks, (cid,), {}),
        ("tasks", "cpus=workload, group_by=group", views.tasks, (cid,), {"cpus": "workload", "group_by": "group"}),
        ("pairs", "cpus=all, group_by=task", views.pairs, (cid,), {}),
        ("pingpong", "window_us=1000, group_by=task", views.pingpong, (cid,), {}),
        ("pingpong", "window_us=100, group_by=group", views.pingpong, (cid,), {"window_us": 100, "group_by": "group"}),
        ("delays", "group_by=group, cpus=all", views.delays, (cid,), {}),
        ("delays", "group_by=task, cpus=workload", views.delays, (cid,), {"group_by": "task", "cpus": "workload"}),
        ("runtime", "cpus=workload", views.runtime, (cid,), {}),
        ("compare", "two captures (the same one twice)", lambda s, c: views.compare(s, [c, c]), (cid,), {}),
    ]
    for name, desc, fn, args, kwargs in calls:
        med, worst, _ = timed(fn, store, *args, **kwargs)
        print(f"| {name} | {desc} | {med * 1000:.0f} ms | {worst * 1000:.0f} ms |")
    pp = views.pingpong(store, cid, limit=1).rows[0]
    print(f"\ntop ping-pong: CPU {pp.cpu} {pp.a.comm}[{pp.a.pid}] <-> {pp.b.comm}[{pp.b.pid}] "
          f"{pp.round_trips:,} round trips, {pp.per_s:,.0f}/s")
    ranges(store, cid)
    store.close()
    return 0


def ranges(store: Store, cid: str) -> None:
    """The table views under a time range: none (the summaries, for the figures at the same load),
    1 s and 10 s in the middle of the trace, and the whole trace counted from the events (the
    summaries would answer it: forced here, the worst case)."""
    dur = views.context(store, cid).runs[0].duration_ns
    mid = dur // 2 // 1_000_000_000 * 1_000_000_000
    spans = [("none (whole run, the summaries)", None), ("1 s", (mid, mid + 1_000_000_000)),
             ("10 s", (mid - 5_000_000_000, mid + 5_000_000_000)), ("whole trace, from the events", (1, dur + 1))]
    calls = [
        ("tasks", "cpus=all, group_by=task", views.tasks, {}),
        ("pairs", "cpus=all, group_by=task", views.pairs, {}),
        ("pingpong", "window_us=1000, group_by=task", views.pingpong, {}),
        ("delays", "group_by=group, cpus=all", views.delays, {}),
        ("runtime", "cpus=workload", views.runtime, {}),
        ("compare", "two captures (the same one twice)", lambda s, c, span: views.compare(s, [c, c], span=span), {}),
    ]
    print(f"\nUnder a time range (the timeline selection; trace {dur / 1e9:.1f} s):\n")
    print("| view | call | range | median | max | load |")
    print("|---|---|---|---|---|---|")
    for label, span in spans:
        for name, desc, fn, kwargs in calls:
            med, worst, res = timed(fn, store, cid, span=span, **kwargs)
            print(f"| {name} | {desc} | {label} | {med * 1000:.0f} ms | {worst * 1000:.0f} ms | "
                  f"{os.getloadavg()[0]:.1f} |")
    one = views.tasks(store, cid, span=spans[1][1], limit=5000).rows
    assert sched_range.bounds([("r000", 0, dur, spans[3][1])]) is not None  # the whole trace is a range
    print(f"\n1 s range: {sum(r.switched_in for r in one):,} switches in its task rows")


if __name__ == "__main__":
    sys.exit(main())
