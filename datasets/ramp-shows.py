#!/usr/bin/env python3
"""Where the unwritten-extent ramp of each run of a --stacks --fio-logs capture ends, and how the
stacks of the ramp differ from those of the steady state, as a RECIPE.md section. Standard library
only; reads fio's IOPS log (CLOCK_MONOTONIC ms) and the perf-script text of each run itself.

The ramp's level is the median of fio's IOPS entries of the run's first 2 s; the ramp ends at the
first entry from which the mean of the next 1 s of entries is above 1.5 times that level; the
steady state is from 1 s after that to the run's end.

    python3 datasets/ramp-shows.py BUNDLE.iolens.tar.gz >> RECIPE.md
"""

import gzip
import json
import re
import statistics
import sys
import tarfile

TS = re.compile(r"\s(\d+\.\d+):\s")  # a sample's time, after the command, pid/tid and [cpu]
CONVERT = "xfs_iomap_write_unwritten"  # the completion's conversion of unwritten extents


def samples(text):
    """(seconds on CLOCK_MONOTONIC, comm, set of frames) per sample of a perf script text."""
    for block in text.split("\n\n"):
        lines = block.strip("\n").split("\n")
        if not lines[0].strip() or lines[0][0] in " \t":
            continue
        ts = TS.search(lines[0])
        yield float(ts.group(1)), lines[0].split()[0], {ln.split()[1].split("+0x")[0] for ln in lines[1:] if len(ln.split()) > 1}


def cell(counts, secs):
    """A range's samples per second, with fio's share and the converting share."""
    n, f, c = counts
    return f"{n / secs:.0f}/s, fio {100 * f / max(n, 1):.0f}%, {CONVERT} {100 * c / max(n, 1):.1f}%"


def main(path):
    t = tarfile.open(path)
    m = json.load(t.extractfile("manifest.json"))
    rows = []
    for r in m["runs"]:
        arts = {a["kind"]: a for a in r["artifacts"] if a["kind"] != "fio-log"}
        iops = next(a for a in r["artifacts"] if a["kind"] == "fio-log" and a["path"].endswith("_iops.1.log"))
        t0 = iops["trace_clock_at_start_ns"] / 1e9
        log = [(int(f[0]) / 1e3 - t0, int(f[1])) for f in
               (ln.split(",") for ln in t.extractfile(iops["path"]).read().decode().splitlines() if ln.strip())]
        step = iops["avg_msec"] / 1e3
        per_s = round(1 / step)
        level = statistics.median(v for s, v in log if s < log[0][0] + 2)
        end = next((s for i, (s, _) in enumerate(log)
                    if len(log[i:i + per_s]) == per_s and statistics.mean(v for _, v in log[i:i + per_s]) > 1.5 * level), None)
        if end is None:
            rows.append(f"| {r['id']} | {level / 1e3:.1f}k | no end within the run | | | |")
            continue
        stop = log[-1][0] + step
        steady = statistics.median(v for s, v in log if s >= end + 1)
        text = gzip.decompress(t.extractfile(arts["perf-script"]["path"]).read()).decode()
        rng = {"ramp": [0, 0, 0], "steady": [0, 0, 0]}  # samples, fio's, converting
        for ts, comm, frames in samples(text):
            s = ts - t0
            k = "ramp" if log[0][0] <= s < end else "steady" if end + 1 <= s < stop else None
            if k:
                rng[k][0] += 1
                rng[k][1] += comm == "fio"
                rng[k][2] += CONVERT in frames
        ramp_s, steady_s = end - log[0][0], stop - end - 1

        rows.append(f"| {r['id']} | {log[0][0]:.2f}-{end:.2f} s | {level / 1e3:.1f}k | {end + 1:.2f}-{stop:.2f} s | "
                    f"{steady / 1e3:.1f}k | {cell(rng['ramp'], ramp_s)} | {cell(rng['steady'], steady_s)} |")
    print("## The ramp and the steady state of each run (computed by `datasets/ramp-shows.py`)")
    print()
    print("Times since the run's start (the clock reading at fio's start). The ramp: from fio's first IOPS")
    print("entry to the first entry from which 1 s of entries averages more than 1.5 times the median of the")
    print("first 2 s; the steady state: from 1 s after that to the end. IOPS are medians of fio's 250 ms")
    print(f"entries; samples are those of both CPUs (all processes), with the share of fio's and of those in `{CONVERT}`.")
    print()
    print("| run | ramp | ramp IOPS | steady | steady IOPS | ramp samples | steady samples |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()


if __name__ == "__main__":
    main(sys.argv[1])
