#!/usr/bin/env python3
"""Print the URL of the comparison `make demo` opens first: two lab bundles side by side.

    scripts/lab-demo-url.py BASE.iolens.tar.gz OTHER.iolens.tar.gz http://HOST:PORT

A capture's id is the first 16 hex digits of the SHA-256 of its canonical manifest
(docs/bundle-format.md), so the URL is known before the server starts. The notebook opens with the
fio table, the block cell (queue depth and latency from blktrace), the flame graph difference and
the scheduler cell.
"""

import hashlib
import json
import sys
import tarfile
from urllib.parse import quote


def capture_id(path: str) -> str:
    with tarfile.open(path, "r:gz") as tar:
        first = tar.next()
        if first is None or first.name != "manifest.json":
            raise SystemExit(f"{path}: not an iolens bundle (manifest.json is not its first member)")
        raw = json.load(tar.extractfile(first))
    canonical = json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def main() -> int:
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    a, b = capture_id(sys.argv[1]), capture_id(sys.argv[2])
    title = "Debian 6.1 vs 6.12, same emulated NVMe disk (iolens lab, qemu; emulated figures)"
    cells = ["fio", "block", f"flame:v=diff;a={a};b={b}", "sched"]
    query = f"v=1&captures={a},{b}&baseline={a}" + "".join(f"&cell={quote(c, safe=':;=,')}" for c in cells)
    print(f"{sys.argv[3].rstrip('/')}/compare?{query}&title={quote(title)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
