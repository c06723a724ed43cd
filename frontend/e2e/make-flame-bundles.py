"""Two capture bundles with real call stacks for the browser tests (e2e/flame.spec.ts): fio
O_DIRECT random writes of 4k and 16k blocks on ext4, two repeats each, recorded on this machine
with `perf record -F 499 -g -a` and `perf script -F +pid` (backend/tests/formats/samples/README.md
says how). Each run carries its real fio JSON and its perf script text.

    python3 frontend/e2e/make-flame-bundles.py OUT_DIR   -> OUT_DIR/dio-4k.iolens.tar.gz, dio-16k...
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "backend" / "tests" / "formats" / "samples"
sys.path.insert(0, str(REPO / "backend" / "tests"))

from bundles import add_file, manifest, write_bundle  # noqa: E402


def bundle(out: Path, bs: str) -> Path:
    m = manifest(f"ext4 O_DIRECT randwrite {bs}", tags={"bs": bs, "fs": "ext4"},
                 created_at="2026-11-22T03:39:00Z" if bs == "4k" else "2026-11-22T03:40:00Z")
    m["host"]["kernel"]["release"] = "6.18.44-fc-v669"
    m["workload"]["summary"] = f"randwrite bs={bs} psync direct=1"
    files: dict[str, bytes] = {}
    for r in (0, 1):
        m["runs"].append({"id": f"r{r:03d}", "index": r, "repeat": r, "params": {},
                          "started_at": f"2026-11-22T03:4{r}:00Z", "ended_at": f"2026-11-22T03:4{r}:02Z",
                          "exit_code": 0, "cmdline": ["fio", "--name=dio", f"--bs={bs}", "--rw=randwrite", "--direct=1",
                                                      "--ioengine=psync", "--runtime=1", "--time_based"],
                          "artifacts": []})
        add_file(m, files, f"runs/r{r:03d}/fio.json", (SAMPLES / f"fio-3.33-dio-{bs}-r{r}.json").read_bytes(),
                 "fio-json", run=r)
        add_file(m, files, f"runs/r{r:03d}/perf.script.gz",
                 (SAMPLES / f"perf-6.1-fio-dio-{bs}-r{r}.txt.gz").read_bytes(), "perf-script", run=r)
    return write_bundle(out / f"dio-{bs}.iolens.tar.gz", m, files)


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    for bs in ("4k", "16k"):
        print(bundle(out, bs))
