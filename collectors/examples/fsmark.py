#!/usr/bin/env python3
"""A metadata workload in the manner of fs_mark (Ric Wheeler's fs_mark 3.3): create files of SIZE
bytes in DIR, fsync each (fs_mark's default sync method 1, "fsync() per file in write loop"), LOOPS
times COUNT files per thread, and print fs_mark's table plus the figures as `iolens-metric` lines,
which `iolens-collect cmd` keeps as the run's own metrics:

    iolens-collect cmd --label 6.18-xfs --tag fs=xfs --device vdb --sweep threads=1,4 \\
        -o fsmark.iolens.tar.gz -- python3 examples/fsmark.py -d /mnt/test/fsmark -t {threads} -n 2000 -s 4096 -L 3

    FSUse%        Count         Size    Files/sec     App Overhead
         5         2000         4096        890.3            12345
    iolens-metric files_per_s 901.2 files/s          (the mean of the loops after the first)
    iolens-metric files_per_s.loop0 890.3 files/s
    ...

Or with the real fs_mark, its table turned into the same lines:

    iolens-collect cmd ... -- sh -c 'fs_mark -d /mnt/test/fsmark -n 2000 -s 4096 -L 3 | python3 examples/fsmark.py --parse -'

Standard library only, like the collector. Files are removed at the end unless --keep; DIR is
created if missing and must be empty otherwise (nothing else is ever deleted).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import threading
import time

_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s*$")


def parse_fs_mark(text: str) -> list[tuple[float, int, int, float, int]]:
    """fs_mark's result rows: (FSUse%, Count, Size, Files/sec, App Overhead us)."""
    rows = []
    for line in text.splitlines():
        m = _ROW.match(line)
        if m:
            rows.append((float(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4)), int(m.group(5))))
    return rows


def metric_lines(rows: list[tuple[float, int, int, float, int]]) -> list[str]:
    """files_per_s: the mean over the loops after the first (the first fills an empty directory,
    as fs_mark's own first line does; the only loop when there is one); files_per_s.loopN each."""
    if not rows:
        return []
    steady = [r[3] for r in rows[1:]] or [rows[0][3]]
    out = [f"iolens-metric files_per_s {sum(steady) / len(steady):.1f} files/s"]
    out += [f"iolens-metric files_per_s.loop{i} {r[3]:.1f} files/s" for i, r in enumerate(rows)]
    out.append(f"iolens-metric app_overhead_us {sum(r[4] for r in rows)} us")
    return out


def _fsuse(path: str) -> float:
    st = os.statvfs(path)
    return 100.0 * (1 - st.f_bavail / st.f_blocks) if st.f_blocks else 0.0


def _worker(d: str, n: int, size: int, io_size: int, sync: bool, out: list, idx: int) -> None:
    buf = os.urandom(min(size, io_size)) if size else b""
    overhead = 0.0
    for _ in range(n):
        t0 = time.perf_counter()
        name = os.path.join(d, f"{time.time_ns():016x}{os.urandom(12).hex()}")
        overhead += time.perf_counter() - t0
        fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        try:
            left = size
            while left > 0:
                left -= os.write(fd, buf[:min(left, len(buf))])
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    out[idx] = overhead


def run(args: argparse.Namespace) -> int:
    top = os.path.abspath(args.dir)
    if os.path.exists(top) and os.listdir(top):
        print(f"fsmark.py: {top} is not empty; give an empty or new directory", file=sys.stderr)
        return 2
    os.makedirs(top, exist_ok=True)
    print(f"#  fsmark.py -d {top} -t {args.threads} -n {args.count} -s {args.size} -L {args.loops}"
          f"{' -S 0' if not args.sync else ''}")
    print(f"#\t{args.threads} thread(s), sync method: {'fsync() per file in write loop' if args.sync else 'none'}")
    print()
    print("FSUse%        Count         Size    Files/sec     App Overhead")
    rows = []
    try:
        for loop in range(args.loops):
            dirs = []
            for t in range(args.threads):
                d = os.path.join(top, f"L{loop:02d}-T{t:02d}")
                os.mkdir(d)
                dirs.append(d)
            overheads = [0.0] * args.threads
            threads = [threading.Thread(target=_worker, args=(dirs[t], args.count, args.size, args.io_size, args.sync,
                                                              overheads, t)) for t in range(args.threads)]
            t0 = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            secs = time.perf_counter() - t0
            files = args.count * args.threads
            row = (round(_fsuse(top)), files, args.size, files / secs if secs > 0 else 0.0,
                   int(sum(overheads) * 1e6))
            rows.append(row)
            print(f"{row[0]:6d} {row[1]:12d} {row[2]:12d} {row[3]:12.1f} {row[4]:16d}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(top, ignore_errors=True)
    for line in metric_lines(rows):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="fsmark.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parse", metavar="FILE", help="read fs_mark's output from FILE (- for stdin) and print the metric lines")
    p.add_argument("-d", "--dir", help="directory to create the files in (empty or new)")
    p.add_argument("-t", "--threads", type=int, default=1)
    p.add_argument("-n", "--count", type=int, default=1000, help="files per thread per loop (1000)")
    p.add_argument("-s", "--size", type=int, default=4096, help="bytes per file (4096)")
    p.add_argument("-w", "--io-size", type=int, default=16384, help="bytes per write (16384)")
    p.add_argument("-L", "--loops", type=int, default=1)
    p.add_argument("-S", "--sync", type=int, choices=(0, 1), default=1, help="1: fsync each file (default), 0: no sync")
    p.add_argument("--keep", action="store_true", help="keep the files")
    args = p.parse_args(argv)
    if args.parse:
        text = sys.stdin.read() if args.parse == "-" else open(args.parse, encoding="utf-8", errors="replace").read()
        sys.stdout.write(text if args.parse == "-" else "")
        rows = parse_fs_mark(text)
        if not rows:
            print(f"fsmark.py: no fs_mark result row in {args.parse}", file=sys.stderr)
            return 1
        for line in metric_lines(rows):
            print(line)
        return 0
    if not args.dir:
        p.error("-d DIR is required (or --parse FILE)")
    if min(args.threads, args.count, args.loops) < 1 or args.size < 0 or args.io_size < 1:
        p.error("-t, -n, -L, -w must be at least 1 and -s at least 0")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
