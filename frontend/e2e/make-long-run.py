"""A capture with one long run for the time order's browser test (e2e/flame-time.spec.ts): 120,000
cpu-clock samples at 199 Hz (10 minutes) of one fio thread, as `perf script -F +pid` prints them.
Generated, not recorded: the stacks are those of a libaio write path (the frames of
datasets/stacks-xfs), 240 distinct ones, each held for 1 to 6 consecutive samples, with the
thread off CPU now and then, so that the chart has many boxes to merge (about 10 per sample).

    python3 frontend/e2e/make-long-run.py OUT_DIR   -> OUT_DIR/long-run.iolens.tar.gz
"""

from __future__ import annotations

import gzip
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "backend" / "tests"))

from bundles import add_file, fio_capture, write_bundle  # noqa: E402

SAMPLES = 120_000
PERIOD = 5_025_125  # ns: 199 Hz
TRUNK = ["__libc_start_main", "syscall", "entry_SYSCALL_64_after_hwframe", "do_syscall_64"]
BRANCHES = [
    ["__x64_sys_io_submit", "io_submit_one", "aio_write", "xfs_file_write_iter", "xfs_file_dio_write_aligned",
     "iomap_dio_rw", "__iomap_dio_rw", "iomap_dio_bio_iter", "submit_bio_noacct_nocheck", "blk_mq_submit_bio"],
    ["__x64_sys_io_getevents", "do_io_getevents", "read_events", "aio_read_events_ring"],
    ["__x64_sys_io_submit", "io_submit_one", "aio_write", "xfs_file_write_iter", "xfs_ilock", "down_write"],
    ["__x64_sys_io_submit", "io_submit_one", "aio_write", "xfs_file_write_iter", "iomap_dio_rw", "__iomap_dio_rw",
     "blk_finish_plug", "__blk_flush_plug", "blk_mq_flush_plug_list", "blk_mq_dispatch_queue_requests"],
]
LEAVES = ["_raw_spin_unlock_irq", "__check_object_size", "kmem_cache_alloc", "memset", "sbitmap_get", "loop_queue_rq",
          "xfs_bmapi_read", "iomap_iter", "__get_user_8", "ktime_get"]


def stacks() -> list[list[str]]:
    out = []
    for b in BRANCHES:
        for cut in range(3, len(b) + 1):
            for leaf in LEAVES[:6]:
                out.append(TRUNK + b[:cut] + [leaf])
    return out[:240]


def text(seed: int = 17) -> str:
    rnd = random.Random(seed)
    all_stacks = stacks()
    lines: list[str] = []
    t = 5000.0 * 1e9
    i = 0
    while i < SAMPLES:
        frames = all_stacks[rnd.randrange(len(all_stacks))]
        body = "".join(f"\tffffffff81{k:06x} {f}+0x1{k} ([kernel.kallsyms])\n" for k, f in enumerate(reversed(frames)))
        for _ in range(rnd.randint(1, 6)):
            if i >= SAMPLES:
                break
            lines.append(f"fio 4242/4242 [001] {t / 1e9:.6f}: {PERIOD:10d} cpu-clock:pppH: \n{body}\n")
            t += PERIOD if rnd.random() > 0.08 else PERIOD * rnd.randint(2, 12)  # off CPU now and then
            i += 1
    return "".join(lines)


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    m, files = fio_capture("long run 120k samples", [[{"iops": 1000}]])
    add_file(m, files, "runs/r000/perf.script.gz", gzip.compress(text().encode(), compresslevel=6, mtime=0),
             "perf-script", run=0)
    print(write_bundle(out / "long-run.iolens.tar.gz", m, files))
