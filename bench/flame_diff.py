#!/usr/bin/env python3
"""Benchmark: the difference flame graph's answer, first call and kept (issue 17, "as fast as in the
best single-purpose tools").

Input: flame_speed.py's store (IOLENS_BENCH_DIR, default /var/tmp/iolens-bench-flame: flame.duckdb
and flame-ids.json, made by flame_speed.py or here the same way), whose captures of ~51k, 201k and
451k call-tree nodes are copies of datasets/stacks-xfs with every symbol renamed per copy: so the
difference of two sizes is the union of both trees (201k and 451k nodes), every frame of the bigger
one new. Two pairs: 51k -> 201k and 201k -> 451k. The store is copied first (the original is not
opened).

Per run: `iolens serve` on the copy, started afresh (nothing kept; IOLENS_FLAME_WARM=0, so no
answer is made ahead and nothing else runs in it), then per pair `GET /api/compare/flame?a=..&b=..`
as the page asks for it (its columns answer, gzip accepted): the first call (the server makes the
difference: views/flame.py diff), then 5 more (kept: views/flame_answer.py diff_answer), then the
JSON answer's first call (another format: made again). IOLENS_BENCH_RUNS runs (default 3), medians;
the load average (1 min) before and after each pair, and the server process's CPU time for each
first call (user + system of all its threads, from /proc: less moved by the load than the wall
time, which on a shared machine is mostly waiting for a core). With IOLENS_BENCH_BEFORE=<another checkout of
iolens> (e.g. `git archive main backend | tar -x -C /tmp/before`) both are timed, alternating, each
on its own copy of the store.

Targets (a quiet machine): first call under 0.5 s at 51k -> 201k and under 2 s at 201k -> 451k; the
kept answer under 50 ms. Exits non-zero when missed (the load average is printed beside each figure).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from flame_speed import ingest, make_input, start_iolens  # noqa: E402

RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "3"))
BEFORE = os.environ.get("IOLENS_BENCH_BEFORE")
PAIRS = [("flame-50k", "flame-200k"), ("flame-200k", "flame-450k")]
TARGET_MS = {("flame-50k", "flame-200k"): 500.0, ("flame-200k", "flame-450k"): 2000.0}
KEPT_MS = 50.0
COLUMNS = "application/vnd.iolens.flame-columns, application/json;q=0.5"


def load() -> float:
    return os.getloadavg()[0]


def cpu_ms(pid: int) -> float:
    """The process's CPU time so far (user + system, all its threads: DuckDB's too), ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def get(url: str, accept: str, pid: int) -> tuple[float, int, float]:
    """(wall ms, bytes, the server's CPU ms) of one request."""
    req = urllib.request.Request(url, headers={"Accept": accept, "Accept-Encoding": "gzip"})
    c0 = cpu_ms(pid)
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as r:
        body = r.read()
    return (time.perf_counter() - t0) * 1000, len(body), cpu_ms(pid) - c0


def one_run(db: Path, checkout: Path, ids: dict[str, str]) -> dict[str, dict]:
    server, base = start_iolens(db, checkout, env={"IOLENS_FLAME_WARM": "0"}, log=db.with_suffix(".log"))
    try:
        out = {}
        for a, b in PAIRS:
            url = f"{base}/api/compare/flame?a={ids[a]}&b={ids[b]}"
            before = load()
            first, size, cpu = get(url, COLUMNS, server.pid)
            kept = statistics.median(get(url, COLUMNS, server.pid)[0] for _ in range(5))
            json_first, json_size, json_cpu = get(url, "application/json", server.pid)
            out[f"{a} -> {b}"] = {"first_ms": first, "cpu_ms": cpu, "kept_ms": kept, "json_first_ms": json_first,
                                  "json_cpu_ms": json_cpu, "bytes": size, "json_bytes": json_size,
                                  "load": (before, load())}
        return out
    finally:
        server.terminate()
        server.wait(30)


def main() -> int:
    metas = [make_input(n) for n in (50_000, 200_000, 450_000)]
    db, ids = ingest(metas)
    checkouts = [("after", REPO)] + ([("before", Path(BEFORE))] if BEFORE else [])
    results: dict[str, list[dict]] = {name: [] for name, _ in checkouts}
    with tempfile.TemporaryDirectory(prefix="iolens-bench-diff-") as tmp:
        copies = {}
        for name, _ in checkouts:
            copies[name] = Path(tmp) / f"{name}.duckdb"
            shutil.copyfile(db, copies[name])
        for run in range(RUNS):
            for name, checkout in (checkouts if run % 2 == 0 else checkouts[::-1]):
                r = one_run(copies[name], checkout, ids)
                results[name].append(r)
                for pair, v in r.items():
                    print(f"run {run + 1} {name:6} {pair:24} first {v['first_ms']:8.0f} ms (CPU {v['cpu_ms']:6.0f})"
                          f"  kept {v['kept_ms']:6.1f} ms  json first {v['json_first_ms']:8.0f} ms"
                          f" (CPU {v['json_cpu_ms']:6.0f})  ({v['bytes'] / 1e6:.2f} MB gzip columns)"
                          f"  load {v['load'][0]:.1f} -> {v['load'][1]:.1f}", flush=True)
    missed = []
    print(f"\nmedians of {RUNS} runs (python {sys.version.split()[0]}, {os.cpu_count()} CPUs):")
    for name, runs in results.items():
        for a, b in PAIRS:
            pair = f"{a} -> {b}"
            vals = [r[pair] for r in runs]
            first = statistics.median(v["first_ms"] for v in vals)
            kept = statistics.median(v["kept_ms"] for v in vals)
            js = statistics.median(v["json_first_ms"] for v in vals)
            cpu = statistics.median(v["cpu_ms"] for v in vals)
            js_cpu = statistics.median(v["json_cpu_ms"] for v in vals)
            loads = [x for v in vals for x in v["load"]]
            each = ", ".join(f"{v['first_ms']:.0f}" for v in vals)
            print(f"  {name:6} {pair:24} first {first:8.0f} ms ({each}; server CPU {cpu:.0f} ms)"
                  f"  kept {kept:6.1f} ms  json first {js:8.0f} ms (CPU {js_cpu:.0f} ms)"
                  f"  load {min(loads):.1f}-{max(loads):.1f}")
            if name == "after" and (first > TARGET_MS[(a, b)] or kept > KEPT_MS):
                missed.append(f"{pair}: first {first:.0f} ms (target {TARGET_MS[(a, b)]:.0f}), kept {kept:.1f} ms "
                              f"(target {KEPT_MS:.0f}) at load {min(loads):.1f}-{max(loads):.1f}")
    for m in missed:
        print("MISSED", m)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
