#!/usr/bin/env python3
"""Benchmark: ingest rate of block events and the latency of each block view (issue 8).

Input: a SYNTHETIC event stream, for timing only: `perf script --ns` text of block_rq_insert,
block_rq_issue and block_rq_complete (perf 6.1 / Linux 6.18 layout, as in
backend/tests/formats/samples/perf-6.1-block-randrw.ns.txt.gz) for IOLENS_BENCH_IOS I/Os (default
10,000,000: 30M events) on one device over 60 s: an I/O every 6 us on average, latencies of
20 us - 2 ms (log-uniform), 70% reads, sizes 4k (80%) / 16k / 128k, random sectors. Its bundle is
labelled "SYNTHETIC (bench/block_views.py)". Nothing in it is a measurement of a device.

Steps: write the text (gzip -1, not part of the figures); time the block pass alone
(`read_block_artifact`: read, parse, match issue to completion, write the CSV); ingest the bundle
into a new DuckDB file through `ingest_file` (check, parse, match, CSV, load, tiles: all of it),
then call each view of iolens/views/block.py on several zooms, IOLENS_BENCH_RUNS times (default
11) after one warm-up call, and print the medians. Exits 1 when a view's median is 100 ms or more
(the target). The load average (sampled every 2 s) and the share of CPU time the hypervisor
stole (/proc/stat) are printed with each timed step: the machine may be shared.

The block pass is the native one (iolens_native, formats/perf_block_native.py) unless
IOLENS_BLOCK_NATIVE=0 selects the Python reference (its pass is ~18x slower: use a smaller
IOLENS_BENCH_IOS).

Environment: IOLENS_BENCH_DIR (default /var/tmp/iolens-bench-block; the text and DB are kept there
for reruns, delete it to rebuild), IOLENS_BENCH_IOS, IOLENS_BENCH_RUNS, IOLENS_BENCH_REUSE=1 (time
the views on the DB of the previous run, skipping ingest), IOLENS_BENCH_PASS=0 (skip the timing of
the block pass alone), IOLENS_BLOCK_NATIVE. Needs no root and no perf.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))

from iolens.formats import perf_block_native  # noqa: E402
from iolens.ingest import ingest_file  # noqa: E402
from iolens.ingest.block import read_block_artifact  # noqa: E402
from iolens.store.db import Store  # noqa: E402
from iolens.views import block as views  # noqa: E402

DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-block"))
IOS = int(os.environ.get("IOLENS_BENCH_IOS", 10_000_000))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", 11))
TARGET_MS = 100.0
SPAN_NS = 60_000_000_000
T0 = 5_000_000_000_000  # perf clock at the start: 5000 s after boot


def _line(t: int, event: str, payload: str, comm: str = "fio", tid: int = 4242, cpu: int = 1) -> str:
    return f"{comm:>16} {tid:5d} [{cpu:03d}] {t // 10**9:5d}.{t % 10**9:09d}: {event:>26}: {payload}\n"


def write_text(path: Path, ios: int) -> int:
    """The synthetic perf script text, gzip -1 through a pipe; returns the number of events."""
    rnd = random.Random(8)
    gap = SPAN_NS // ios
    pending: list[tuple[int, str]] = []
    events = 0
    with path.open("wb") as out:
        gz = subprocess.Popen(["gzip", "-1"], stdin=subprocess.PIPE, stdout=out)
        buf: list[str] = []
        t = T0
        for _ in range(ios):
            t += rnd.randint(1, 2 * gap - 1)
            while pending and pending[0][0] <= t:
                buf.append(heapq.heappop(pending)[1])
            rwbs = "RS" if rnd.random() < 0.7 else "WS"
            size = 4096 if rnd.random() < 0.8 else rnd.choice((16384, 131072))
            sector = rnd.randrange(0, 1 << 30) * 8
            n = size // 512
            rq = f"254,0 {rwbs} {size} () {sector} + {n} 0x2,0,4 [fio]"
            buf.append(_line(t, "block:block_rq_insert", rq))
            buf.append(_line(t + 500, "block:block_rq_issue", rq))
            done = t + 500 + int(20_000 * 100 ** rnd.random())  # 20 us .. 2 ms, log-uniform
            heapq.heappush(pending, (done, _line(done, "block:block_rq_complete",
                                                 f"254,0 {rwbs} () {sector} + {n} 0x2,0,4 [0]", "swapper/0", 0, 0)))
            events += 3
            if len(buf) > 30_000:
                gz.stdin.write("".join(buf).encode())
                buf.clear()
        buf.extend(line for _, line in sorted(pending))
        gz.stdin.write("".join(buf).encode())
        gz.stdin.close()
        if gz.wait():
            raise SystemExit("gzip failed")
    return events


def write_bundle(path: Path, text: Path) -> None:
    data_sha = hashlib.sha256(text.read_bytes()).hexdigest()
    m = {
        "format": "iolens-bundle", "format_version": 1,
        "collector": {"name": "bench/block_views.py", "version": "0", "argv": []},
        "label": "SYNTHETIC (bench/block_views.py)", "tags": {"synthetic": "yes"},
        "created_at": "2026-11-22T00:00:00Z", "host": {},
        "workload": {"kind": "cmd", "targets": []},
        "runs": [{"id": "r000", "index": 0, "repeat": 0, "params": {}, "cmdline": ["synthetic"], "artifacts": [
            {"kind": "perf-block", "path": "runs/r000/block.perf.txt.gz", "size": text.stat().st_size,
             "sha256": data_sha, "trace_clock_at_start_ns": T0}]}],
        "artifacts": [], "notes": ["synthetic event stream for timing only"],
    }
    manifest = json.dumps(m).encode()
    with tarfile.open(path, "w") as tar:
        info = tarfile.TarInfo("manifest.json")
        info.size = len(manifest)
        import io
        tar.addfile(info, io.BytesIO(manifest))
        tar.add(text, "runs/r000/block.perf.txt.gz")


def _cpu_times() -> list[int]:
    """The "cpu" line of /proc/stat: user nice system idle iowait irq softirq steal ..."""
    try:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return []


@contextmanager
def load_sampled(out: list[float]):
    """Samples the 1-minute load average every 2 s while the block runs, and appends the share of
    CPU time the hypervisor stole from this VM over the block (/proc/stat steal; -1 if unknown) as
    the last item."""
    stop = threading.Event()

    def sample() -> None:
        while True:
            out.append(os.getloadavg()[0])
            if stop.wait(2):
                return

    t = threading.Thread(target=sample, daemon=True)
    c0 = _cpu_times()
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
        out.append(os.getloadavg()[0])
        c1 = _cpu_times()
        d = [b - a for a, b in zip(c0, c1)]
        out.append(d[7] / sum(d[:8]) if len(d) > 7 and sum(d[:8]) else -1.0)


def load_text(samples: list[float]) -> str:
    load, steal = samples[:-1], samples[-1]
    text = f"load average {statistics.mean(load):.1f} (min {min(load):.1f}, max {max(load):.1f})"
    return text + (f", CPU steal {steal:.0%}" if steal >= 0 else "")


def median_ms(fn) -> tuple[float, str]:
    r = fn()  # warm-up
    ts = []
    for _ in range(RUNS):
        a = time.perf_counter()
        r = fn()
        ts.append((time.perf_counter() - a) * 1000)
    return statistics.median(ts), r.series[0].source


def main() -> int:
    DIR.mkdir(parents=True, exist_ok=True)
    text = DIR / f"block-{IOS}.perf.txt.gz"
    meta = DIR / f"block-{IOS}.json"
    if not text.exists() or not meta.exists():
        a = time.perf_counter()
        events = write_text(text, IOS)
        meta.write_text(json.dumps({"events": events}))
        print(f"wrote {text} ({text.stat().st_size / 1e6:.0f} MB gzip) in {time.perf_counter() - a:.0f} s")
    events = json.loads(meta.read_text())["events"]
    bundle = DIR / f"block-{IOS}.iolens.tar"
    if not bundle.exists():
        write_bundle(bundle, text)
    db = DIR / "bench.duckdb"
    print(f"machine: nproc {os.cpu_count()}, {platform.platform()}, load {os.getloadavg()[0]:.1f}")
    path = "native (iolens_native)" if perf_block_native.enabled() else "Python (reference)"
    print(f"block pass: {path}")
    if os.environ.get("IOLENS_BENCH_PASS", "1") != "0" and os.environ.get("IOLENS_BENCH_REUSE") != "1":
        with tempfile.TemporaryDirectory(dir=DIR) as tmp:
            load: list[float] = []
            with load_sampled(load):
                a = time.perf_counter()
                cpu = time.process_time()
                run = read_block_artifact("perf-block", text, text.name, Path(tmp) / "block_ios.csv", T0)
                secs, cpu = time.perf_counter() - a, time.process_time() - cpu
            print(f"block pass alone (read, parse, match, CSV): {events:,} events, {run.matcher.counts['matched']:,} "
                  f"matched in {secs:.1f} s (CPU {cpu:.1f} s) = {events / secs:,.0f} events/s; {load_text(load)}")
    if os.environ.get("IOLENS_BENCH_REUSE") == "1" and db.exists():
        store = Store(db)  # views only, on the store a previous run ingested
        cid = store.query("SELECT capture_id FROM captures").scalar()
    else:
        for p in (db, DIR / "bench.duckdb.wal", DIR / "bundles"):
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
        store = Store(db)
        load = []
        with load_sampled(load):
            a = time.perf_counter()
            r = ingest_file(store, bundle, bundles_dir=DIR / "bundles")
            secs = time.perf_counter() - a
        cid = r.capture_id
        rows = store.query("SELECT count(*) FROM block_ios").scalar()
        print(f"ingest: {events:,} events -> {rows:,} I/O rows in {secs:.1f} s = {events / secs:,.0f} events/s "
              f"({rows / secs:,.0f} I/Os/s); {load_text(load)}")
    for t in ("block_tiles", "block_hist_tiles", "block_scatter_sample"):
        print(f"  {t}: {store.query(f'SELECT count(*) FROM {t}').scalar():,} rows")
    zooms = [("all 60 s, 500 buckets", None, None, 500), ("all 60 s, 2000 buckets", None, None, 2000),
             ("1 s window, 500 buckets", 30 * 10**9, 31 * 10**9, 500),
             ("10 ms window, 500 buckets", 30 * 10**9, 30 * 10**9 + 10**7, 500)]
    missed = []
    print(f"view latency, median of {RUNS} (ms):")
    print(f"| zoom | {' | '.join(('queue-depth', 'iops', 'latency', 'latency-histogram', 'sizes', 'scatter'))} |")
    load = []
    with load_sampled(load):
        for name, lo, hi, b in zooms:
            cells = []
            for label, fn in (
                ("queue-depth", lambda: views.queue_depth(store, [cid], lo, hi, b)),
                ("iops", lambda: views.iops(store, [cid], lo, hi, b)),
                ("latency", lambda: views.latency(store, [cid], lo, hi, b)),
                ("latency-histogram", lambda: views.latency_histogram(store, [cid], lo, hi)),
                ("sizes", lambda: views.sizes(store, [cid], lo, hi)),
                ("scatter", lambda: views.scatter(store, [cid], lo, hi)),
            ):
                ms, source = median_ms(fn)
                cells.append(f"{ms:.1f} ({source})")
                if ms >= TARGET_MS:
                    missed.append(f"{label} {name}: {ms:.1f} ms")
            print(f"| {name} | {' | '.join(cells)} |")
    print(f"views: {load_text(load)}")
    store.close()
    if missed:
        print("target (median < 100 ms) missed: " + "; ".join(missed))
        return 1
    print("target met: every view's median < 100 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
