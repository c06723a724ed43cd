#!/usr/bin/env python3
"""Print the URL of a comparison `make demo` opens: two lab bundles side by side.

    scripts/lab-demo-url.py [--title TITLE] [--cells fio,block,flame,sched,lockstat] \
        BASE.iolens.tar.gz OTHER.iolens.tar.gz http://HOST:PORT
    scripts/lab-demo-url.py --demo http://HOST:PORT

--demo prints the lab's comparisons of datasets/ (those whose bundles are there), one per line as
"TITLE: URL", the first being the one `make demo` opens: Debian's 6.12 source built plain and with
CONFIG_LOCK_STAT (every cell: fio, blktrace queue depth, flame difference, context switches and the
real lock classes), then Debian's 6.1 vs 6.12 packages, then 6.12 with and without a patch; then
the notebooks of one capture of datasets/ (NOTEBOOKS), such as the XFS unwritten-extent ramp with
its ramp and its steady state as two time ranges.

A capture's id is the first 16 hex digits of the SHA-256 of its canonical manifest
(docs/bundle-format.md), so the URL is known before the server starts. The notebook opens with the
cells named (default: the fio table, the block cell with queue depth and latency from blktrace, the
flame graph difference and the scheduler cell); `flame` is the difference of BASE and OTHER.
"""

import argparse
import hashlib
import json
import os
import sys
import tarfile
from urllib.parse import quote

CELLS = ("fio", "block", "flame", "sched", "lockstat")
# (title, cells, base bundle, other bundle): the comparisons of the lab's datasets, first opened first.
DEMO = (
    ("6.12 built plain vs with CONFIG_LOCK_STAT, 8 fio jobs on XFS (iolens lab, qemu TCG: emulated figures)",
     "fio,lockstat,block,flame,sched",
     "datasets/vmlab-lockstat-6.12/lockstat-plain.iolens.tar.gz",
     "datasets/vmlab-lockstat-6.12/lockstat-lockstat.iolens.tar.gz"),
    ("Debian 6.1 vs 6.12, same emulated NVMe disk (iolens lab, qemu; emulated figures)",
     "fio,block,flame,sched",
     "datasets/vmlab-deb61-vs-deb612/dio-probes-deb61-xfs.iolens.tar.gz",
     "datasets/vmlab-deb61-vs-deb612/dio-probes-deb612-xfs.iolens.tar.gz"),
    ("6.12 vs 6.12 patched to default NVMe to mq-deadline (iolens lab, qemu TCG: emulated figures)",
     "fio,block",
     "datasets/vmlab-patched-mq-deadline/mqdl-plain.iolens.tar.gz",
     "datasets/vmlab-patched-mq-deadline/mqdl-mqdl.iolens.tar.gz"),
)

S = 1_000_000_000
# (title, cells as in the URL, bundle): notebooks of one capture, after the comparisons. The ramp:
# the timeline (fio's IOPS log over the stacks), fio's samples in the subsecond heatmap (lighter
# while the ramp lasts), and the flame difference of the ramp (2-5 s) and the steady state
# (9-19 s) of every run, all tasks (the conversion runs in kworkers), coloured by total share.
NOTEBOOKS = (
    ("XFS unwritten-extent ramp: ramp vs steady state",
     ("timeline", "flame:comm=fio;hm=10",
      f"flame:comm=*;t={2 * S}-{5 * S};c=total;by=total;hm=50;tb={9 * S}-{19 * S}"),
     "datasets/xfs-unwritten-ramp-stacks/6.18.44-fc-v669-xfs-unwritten-ramp-stacks.iolens.tar.gz"),
)


def notebook_url(url: str, bundle: str, title: str, cells: tuple[str, ...]) -> str:
    cid = capture_id(bundle)
    query = f"v=1&captures={cid}&baseline={cid}" + "".join(f"&cell={quote(c, safe=':;=,*')}" for c in cells)
    return f"{url.rstrip('/')}/compare?{query}&title={quote(title)}"


def capture_id(path: str) -> str:
    with tarfile.open(path, "r:gz") as tar:
        first = tar.next()
        if first is None or first.name != "manifest.json":
            raise SystemExit(f"{path}: not an iolens bundle (manifest.json is not its first member)")
        raw = json.load(tar.extractfile(first))
    canonical = json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def compare_url(url: str, base: str, other: str, title: str, cells: str) -> str:
    a, b = capture_id(base), capture_id(other)
    shown = []
    for c in cells.split(","):
        if c not in CELLS:
            raise SystemExit(f"--cells: unknown cell {c!r} (known: {', '.join(CELLS)})")
        shown.append(f"flame:v=diff;a={a};b={b}" if c == "flame" else c)
    query = f"v=1&captures={a},{b}&baseline={a}" + "".join(f"&cell={quote(c, safe=':;=,')}" for c in shown)
    return f"{url.rstrip('/')}/compare?{query}&title={quote(title)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--demo", metavar="URL", help="print the lab datasets' comparisons (TITLE: URL per line)")
    ap.add_argument("--title", default=DEMO[1][0])
    ap.add_argument("--cells", default="fio,block,flame,sched")
    ap.add_argument("bundles", nargs="*", metavar="BASE OTHER URL")
    args = ap.parse_args()
    if args.demo:
        for title, cells, base, other in DEMO:
            if os.path.exists(base) and os.path.exists(other):
                print(f"{title}: {compare_url(args.demo, base, other, title, cells)}")
        for title, nb_cells, bundle in NOTEBOOKS:
            if os.path.exists(bundle):
                print(f"{title}: {notebook_url(args.demo, bundle, title, nb_cells)}")
        return 0
    if len(args.bundles) != 3:
        ap.error("give BASE.iolens.tar.gz OTHER.iolens.tar.gz http://HOST:PORT, or --demo http://HOST:PORT")
    print(compare_url(args.bundles[2], args.bundles[0], args.bundles[1], args.title, args.cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
