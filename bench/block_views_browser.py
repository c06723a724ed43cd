"""The block cell in the browser on 10M I/Os (issue 8: "zoom and pan in the browser stay smooth on a
capture of 10 million I/Os"): time to the first draw of all seven charts, then of each zoom and pan
key (+, -, arrows, Esc) until every chart is drawn again, in headless Chromium (Debian's, driven by
playwright-core) against `iolens serve` on the store that bench/block_views.py keeps.

Run block_views.py first (it builds and keeps IOLENS_BENCH_DIR/bench.duckdb); IOLENS_BENCH_ROUNDS
(default 3) rounds of 13 keys. Needs `make build` (frontend/dist) and node. Prints the figures; exits non-zero when a step's median is over
TARGET_MS. A step includes the 30 ms the driver waits for the requests to start, the requests (7
charts, one each, ~5-20 ms apiece on the server) and React's drawing.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-block"))
ROUNDS = int(os.environ.get("IOLENS_BENCH_ROUNDS", 3))
TARGET_MS = 100.0  # median zoom step, key press to all seven charts drawn again: what reads as instant


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    db = DIR / "bench.duckdb"
    if not db.exists():
        print(f"{db} is missing: run bench/block_views.py first (it builds the 10M-I/O store)", file=sys.stderr)
        return 2
    if not (REPO / "frontend" / "dist" / "index.html").exists():
        print("frontend/dist is missing: run `make build` first", file=sys.stderr)
        return 2
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "iolens", "serve", "--db", str(db), "--port", str(port),
                               "--log-level", "warning"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                captures = json.load(urllib.request.urlopen(f"{base}/api/captures", timeout=2))
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    print(f"iolens serve --db {db} did not start: run it by hand to see why", file=sys.stderr)
                    return 1
                time.sleep(0.3)
        cap = next(c for c in captures if "perf-block" in c.get("artifact_kinds", []))
        out = subprocess.run(["node", str(REPO / "bench" / "block_views_browser.mjs"), base, cap["id"], str(ROUNDS)],
                             cwd=REPO, capture_output=True, text=True, check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"machine: nproc {os.cpu_count()}, {platform.platform()}, load {os.getloadavg()[0]:.1f}")
    print(f"capture: {cap['label']}, {cap['runs']} run; block cell with all seven charts, 1440 px wide")
    print(f"first draw of all charts: {res['first_ms']:.0f} ms (page load included)")
    by_key: dict[str, list[float]] = {}
    for s in res["steps"]:
        by_key.setdefault(s["key"], []).append(s["ms"])
    ms = [s["ms"] for s in res["steps"]]
    for k, v in by_key.items():
        print(f"  {k:<10} median {statistics.median(v):6.0f} ms  max {max(v):6.0f} ms  ({len(v)} steps)")
    med = statistics.median(ms)
    print(f"every step: median {med:.0f} ms, p90 {sorted(ms)[int(0.9 * (len(ms) - 1))]:.0f} ms, max {max(ms):.0f} ms "
          f"over {len(ms)} steps; load average {os.getloadavg()[0]:.1f}")
    ok = med < TARGET_MS
    print(f"target {'met' if ok else 'MISSED'}: median step < {TARGET_MS:.0f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
