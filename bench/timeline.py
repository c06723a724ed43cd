#!/usr/bin/env python3
"""Benchmark: the timeline cell on a 60 s run with about 10M scheduler and block events (issue 17).

Input, one run of one bundle, both artifacts on one clock (trace_clock_at_start_ns = the first event):
- the scheduler trace of bench/sched_views.py: the REAL perf script text of
  backend/tests/formats/samples/sched/fio-pinned.perf-script.txt.gz (125,183 events in 0.84 s: fio
  pinned to CPU 1 and its kworkers) REPLICATED until it covers 60 s (IOLENS_BENCH_COPIES, default
  71: 8.9M events), each copy's times shifted by the recording's span plus 1 ms;
- the SYNTHETIC block events of bench/block_views.py (insert, issue, complete) for IOLENS_BENCH_IOS
  I/Os (default 400,000: 1.2M events) over the same 60 s.
It is ingested into a new DuckDB file by the real ingest (`ingest_file`: parse, load, derive, with
the timeline's sched_cpu_tiles). Then `iolens serve` runs on that file and each timeline track is
asked over HTTP for the whole run and for brushed windows (10 s, 1 s, 100 ms), 1000 columns,
IOLENS_BENCH_RUNS times (default 11) after one warm-up: medians and the worst. Then headless
Chromium (bench/timeline_browser.mjs) opens the cell, brushes a range and zooms to it: the cell's
own draw time (the canvas redraw, `data-draw-ms`) and the time from the zoom to every track answered
and drawn. Target: a brush answers in under 100 ms on the server and draws in under 100 ms. The load
average is printed with each step: the machine may be shared.

Environment: IOLENS_BENCH_DIR (default /var/tmp/iolens-bench-timeline; the texts and the DB are
kept there, delete it to rebuild), IOLENS_BENCH_COPIES, IOLENS_BENCH_IOS, IOLENS_BENCH_RUNS,
IOLENS_BENCH_REUSE=1 (skip ingest, time the DB of the previous run). Needs no root and no perf.
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
import socket
import statistics
import subprocess
import sys
import tarfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))
sys.path.insert(0, str(REPO / "bench"))

import block_views  # noqa: E402

from iolens.ingest import ingest_file  # noqa: E402
from iolens.store.db import Store  # noqa: E402

DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-timeline"))
COPIES = int(os.environ.get("IOLENS_BENCH_COPIES", "71"))
IOS = int(os.environ.get("IOLENS_BENCH_IOS", "400000"))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "11"))
SEED = REPO / "backend" / "tests" / "formats" / "samples" / "sched" / "fio-pinned.perf-script.txt.gz"
TIME = re.compile(r"(\] +)(\d+)\.(\d{6})(: )")
T0 = block_views.T0
TARGET_MS = 100.0


def log(msg: str) -> None:
    print(f"[timeline] {msg} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)


def sched_text(path: Path) -> int:
    """The seed repeated COPIES times from T0 on; returns the number of events."""
    lines = gzip.decompress(SEED.read_bytes()).decode().splitlines(keepends=True)
    stamps = [m for m in (TIME.search(line) for line in lines) if m]
    first = int(stamps[0].group(2)) * 10**6 + int(stamps[0].group(3))
    last = int(stamps[-1].group(2)) * 10**6 + int(stamps[-1].group(3))
    span_us = last - first + 1000
    with gzip.open(path, "wt", compresslevel=1) as out:
        for k in range(COPIES):
            shift = T0 // 1000 - first + k * span_us

            def sub(m: re.Match[str], shift: int = shift) -> str:
                t = int(m.group(2)) * 10**6 + int(m.group(3)) + shift
                return f"{m.group(1)}{t // 10**6}.{t % 10**6:06d}{m.group(4)}"

            out.writelines(TIME.sub(sub, line, count=1) for line in lines)
    return len(stamps) * COPIES


def bundle(path: Path, sched: Path, block: Path) -> None:
    files = {"runs/r000/sched.txt.gz": ("perf-sched", sched), "runs/r000/block.perf.txt.gz": ("perf-block", block)}
    manifest = {
        "format": "iolens-bundle", "format_version": 1,
        "collector": {"name": "bench/timeline.py", "version": "0", "argv": sys.argv},
        "label": f"BENCH: sched x{COPIES} (replicated real trace) + {IOS:,} SYNTHETIC block I/Os, 60 s",
        "tags": {"bench": "timeline"}, "created_at": "2026-11-25T00:00:00Z",
        "host": {"cpu": {"online": "0-1"}}, "workload": {"kind": "fio", "targets": []},
        "runs": [{"id": "r000", "index": 0, "repeat": 0, "params": {"cpus": "1"}, "cmdline": ["fio"], "artifacts": [
            {"kind": kind, "path": p, "size": f.stat().st_size, "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
             "trace_clock_at_start_ns": T0} for p, (kind, f) in files.items()]}],
        "artifacts": [], "notes": ["bench input for the timeline: not a measurement of a machine"],
    }
    with tarfile.open(path, "w") as tar:
        data = json.dumps(manifest).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for p, (_kind, f) in files.items():
            tar.add(f, p)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[float, dict]:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        body = json.loads(r.read())
    return (time.perf_counter() - start) * 1000, body


def main() -> int:
    DIR.mkdir(parents=True, exist_ok=True)
    db = DIR / "bench.duckdb"
    cid_file = DIR / "capture-id"
    if os.environ.get("IOLENS_BENCH_REUSE") != "1" or not cid_file.exists():
        sched, block = DIR / f"sched-x{COPIES}.txt.gz", DIR / f"block-{IOS}.txt.gz"
        if not sched.exists():
            log(f"building {sched}")
            sched_text(sched)
        if not block.exists():
            log(f"building {block}")
            block_views.IOS = IOS
            block_views.write_text(block, IOS)
        archive = DIR / "timeline.iolens.tar"
        bundle(archive, sched, block)
        for p in (db, db.with_suffix(".duckdb.wal")):
            p.unlink(missing_ok=True)
        shutil.rmtree(DIR / "bundles", ignore_errors=True)
        store = Store(db)
        log("ingesting")
        load0 = os.getloadavg()[0]
        start = time.perf_counter()
        cid = ingest_file(store, archive, bundles_dir=DIR / "bundles").capture_id
        ingest_s = time.perf_counter() - start
        counts = {t: store.query(f"SELECT count(*) FROM {t} WHERE capture_id = ?", [cid]).scalar()
                  for t in ("sched_switch", "sched_wakeup", "sched_migrate", "block_ios", "sched_slices", "sched_cpu_tiles")}
        events = counts["sched_switch"] + counts["sched_wakeup"] + counts["sched_migrate"]
        block_events = store.query("SELECT sum(events) FROM block_runs WHERE capture_id = ?", [cid]).scalar()
        store.close()
        cid_file.write_text(cid)
        print(f"input: {events:,} sched events + {block_events:,} block events = {events + block_events:,} in 60 s")
        print(f"ingest (ingest_file, whole bundle, tiles included): {ingest_s:.1f} s, load average {load0:.1f} -> "
              f"{os.getloadavg()[0]:.1f}")
        print("rows: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    cid = cid_file.read_text().strip()

    print(f"machine: nproc {os.cpu_count()}, {platform.system()} {platform.release()}, python {platform.python_version()}")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "iolens", "serve", "--db", str(db), "--port", str(port),
                               "--log-level", "warning"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    worst = 0.0
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/api/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        _, ov = get(f"{base}/api/captures/{cid}/timeline")
        dur = ov["runs"][0]["duration_ns"]
        print(f"run r000: {dur / 1e9:.1f} s, tracks {ov['runs'][0]['tracks']}")
        print(f"\nServer, HTTP round trip (median / worst of {RUNS}, after a warm-up), 1000 columns:\n")
        print("| track | window | median | worst | columns | level | load |")
        print("|---|---|---|---|---|---|---|")
        windows = [("whole run", 0, dur), ("10 s brush", 20_000_000_000, 30_000_000_000),
                   ("1 s brush", 30_000_000_000, 31_000_000_000), ("100 ms brush", 40_000_000_000, 40_100_000_000)]
        for track in ("cpu", "block", "fio", "samples"):
            for name, lo, hi in windows:
                url = f"{base}/api/captures/{cid}/timeline/{track}?run=r000&from_ns={lo}&to_ns={hi}&width=1000"
                get(url)
                times = []
                for _ in range(RUNS):
                    ms, body = get(url)
                    times.append(ms)
                med = statistics.median(times)
                if body["available"]:
                    worst = max(worst, med)
                level = "" if body.get("level_ns") is None else f"{body['level_ns'] / 1e6:g} ms tiles"
                print(f"| {track}{'' if body['available'] else ' (no data)'} | {name} | {med:.1f} ms | {max(times):.1f} ms "
                      f"| {body['buckets']} x {body['bucket_ns'] / 1e6:g} ms | {level} | {os.getloadavg()[0]:.1f} |")
        print(f"\nslowest median of a track with data: {worst:.1f} ms (target < {TARGET_MS:.0f} ms)")
        browser = subprocess.run(["node", str(REPO / "bench" / "timeline_browser.mjs"), base, cid, "5"],
                                 cwd=REPO / "frontend", capture_output=True, text=True, timeout=600)
        print(browser.stdout)
        if browser.returncode:
            print(browser.stderr, file=sys.stderr)
            return 1
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
