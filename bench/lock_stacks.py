#!/usr/bin/env python3
"""Benchmark: the lock class -> perf stacks view (views/lock_stacks.py, issue 6) on a large capture.

Input: a REAL capture recorded by this script on the machine (root, perf and fio needed): the
collector's `iolens-collect run --stacks --freq FREQ --repeat 2` around fio 4k O_DIRECT random
writes (4 jobs, libaio, iodepth 16) on a file in IOLENS_BENCH_DIR, i.e. `perf record -a -g` of every
CPU: about nproc x FREQ x RUNTIME x 2 samples (default 2 x 2500 x 12 x 2 = 120,000). A lock_stat
dump is attached with --lock-stat-snapshot; it is HAND-WRITTEN (this kernel has no
CONFIG_LOCK_STAT; the figures only give the view its symbols): the class `&ei->i_data_sem` with
ext4's call sites and, to make the worst case, contending points at frames that are in almost
every stack (do_syscall_64, entry_SYSCALL_64_after_hwframe, worker_thread, schedule). The shipped
reconstructed &zone->lock capture (datasets/lockstat-zone-lock-reconstructed) is searched against
the same stacks (`with`), the notebook case.

Each call is the API's (`lock_stacks(store, capture, class, 0, others)`), IOLENS_BENCH_RUNS times
(default 11) after a warm-up; the median and the max are printed. The capture is cached in
IOLENS_BENCH_DIR (default /var/tmp/iolens-bench-lockstacks); delete it to record again.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))

from iolens.ingest import ingest_file  # noqa: E402
from iolens.store.db import Store  # noqa: E402
from iolens.views.lock_stacks import lock_stacks  # noqa: E402

DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-lockstacks"))
FREQ = int(os.environ.get("IOLENS_BENCH_FREQ", "2500"))
RUNTIME = int(os.environ.get("IOLENS_BENCH_RUNTIME", "12"))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "11"))
ZONE = next((REPO / "datasets" / "lockstat-zone-lock-reconstructed").glob("*vanilla.iolens.tar.gz"))

HAND = """lock_stat version 0.4
{d}
                              class name    con-bounces    contentions   waittime-min   waittime-max waittime-total   waittime-avg    acq-bounces   acquisitions   holdtime-min   holdtime-max holdtime-total   holdtime-avg
{d}

                       &ei->i_data_sem-W:           120            130           0.10          80.00        1300.00          10.00           5000          90000           0.05          40.00        9000.00           0.10
                       &ei->i_data_sem-R:            10             12           0.10          20.00          60.00           5.00           4000          70000           0.05          10.00        3500.00           0.05
                       ---------------
                         &ei->i_data_sem             80          [<00000000a1b2c3d4>] ext4_map_blocks+0x12c/0x5f0
                         &ei->i_data_sem             30          [<00000000a1b2c3d5>] ext4_da_get_block_prep+0x3e/0x4a0
                         &ei->i_data_sem             12          [<00000000a1b2c3d6>] ext4_ext_map_blocks+0x1f/0x1a0
                         &ei->i_data_sem              8          [<00000000a1b2c3d7>] iomap_dio_rw+0x4a/0x90
                       ---------------
                         &ei->i_data_sem             70          [<00000000a1b2c3d8>] do_syscall_64+0x82/0x190
                         &ei->i_data_sem             40          [<00000000a1b2c3d9>] entry_SYSCALL_64_after_hwframe+0x76/0x7e
                         &ei->i_data_sem             15          [<00000000a1b2c3da>] worker_thread+0x180/0x320
                         &ei->i_data_sem              5          [<00000000a1b2c3db>] schedule+0x27/0xf0

{dots}

""".format(d="-" * 221, dots="." * 221)


def log(msg: str) -> None:
    print(f"[lock_stacks] {msg}", file=sys.stderr, flush=True)


def record(out: Path) -> None:
    for tool in ("perf", "fio"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is needed to record the input (apt-get install linux-perf fio)")
    if os.geteuid() != 0:
        sys.exit("perf record -a needs root")
    hand = DIR / "hand-written.lock_stat.txt"
    hand.write_text(HAND)
    data = DIR / "data"
    data.mkdir(exist_ok=True)
    args = (f"--name=bench --directory={data} --size=256m --rw=randwrite --bs=4k --ioengine=libaio --iodepth=16 "
            f"--direct=1 --numjobs=4 --runtime={RUNTIME} --time_based --group_reporting")
    cmd = [sys.executable, "-m", "iolens_collect", "run", "--label",
           f"bench lock_stacks: fio 4k randwrite x4, perf -F {FREQ} -a -g (lock_stat HAND-WRITTEN)",
           "--repeat", "2", "--stacks", "--freq", str(FREQ), "--lock-stat-snapshot", str(hand),
           f"--fio-args={args}", "-o", str(out)]
    log("recording: " + " ".join(cmd))
    subprocess.run(cmd, cwd=REPO, check=True, env={**os.environ, "PYTHONPATH": str(REPO / "collectors")})
    shutil.rmtree(data, ignore_errors=True)


def timed(fn, *args) -> tuple[float, float, object]:
    result = fn(*args)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), max(times), result


def main() -> int:
    DIR.mkdir(parents=True, exist_ok=True)
    bundle = DIR / f"stacks-f{FREQ}-t{RUNTIME}.iolens.tar.gz"
    if not bundle.exists():
        record(bundle)
    db = DIR / "bench.duckdb"
    for p in (db, db.with_suffix(".duckdb.wal")):
        p.unlink(missing_ok=True)
    shutil.rmtree(DIR / "bundles", ignore_errors=True)
    store = Store(db)
    start = time.perf_counter()
    big = ingest_file(store, bundle, bundles_dir=DIR / "bundles").capture_id
    ingest_s = time.perf_counter() - start
    zone = ingest_file(store, ZONE, bundles_dir=DIR / "bundles").capture_id
    samples, with_stack, weight = store.query(
        "SELECT count(*), count(stack_id), sum(weight) FROM perf_samples WHERE capture_id = ?", [big]).rows[0]
    stacks, distinct = store.query(
        "SELECT count(*), count(DISTINCT folded_stack) FROM perf_stacks WHERE capture_id = ?", [big]).rows[0]
    frames = store.query("SELECT avg(len(string_split(folded_stack, ';'))) FROM perf_stacks WHERE capture_id = ?",
                         [big]).scalar()
    print(f"machine: nproc {os.cpu_count()}, {platform.system()} {platform.release()}, "
          f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    print(f"input: {bundle.name}, {bundle.stat().st_size / 1e6:.1f} MB, {samples:,} samples ({with_stack:,} with a "
          f"stack), {stacks:,} stacks over the runs ({distinct:,} distinct), {frames:.1f} frames per stack on average; "
          f"ingest {ingest_s:.1f} s")
    print()
    print("| call | symbols | median | max | view's elapsed_ms |")
    print("|---|---|---|---|---|")
    calls = [
        ("&ei->i_data_sem of the capture itself (8 call sites, 4 in almost every stack)", big, "&ei->i_data_sem", []),
        ("&zone->lock of the reconstructed capture, with=the big one", zone, "&zone->lock", [big]),
        ("&ei->i_data_sem, with=the zone capture (no stacks) and itself twice", big, "&ei->i_data_sem", [zone, big]),
    ]
    for desc, cid, cls, others in calls:
        med, worst, r = timed(lock_stacks, store, cid, cls, 0, others)
        found = sum(1 for s in r.symbols if s.found)  # type: ignore[attr-defined]
        print(f"| {desc} | {len(r.symbols)} ({found} in stacks) | {med * 1000:.0f} ms | {worst * 1000:.0f} ms | "  # type: ignore[attr-defined]
              f"{r.elapsed_ms:.0f} |")  # type: ignore[attr-defined]
    r = lock_stacks(store, big, "&ei->i_data_sem", 0, [])
    print()
    for s in r.symbols:
        p = s.stacks[0]
        print(f"  {s.name:<32} {p.samples:>8,} samples {p.share_pct:6.2f} %  slow path {p.slow_samples:>6,}")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
