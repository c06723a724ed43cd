"""Block bundles for the browser tests, built from real tool output kept in the repository (no
binary fixtures): the perf script text of backend/tests/formats/samples (perf 6.1 on Linux 6.18:
it lost completions, so its views carry the loss warning) and, when the corpus is checked out
beside the repository, the blkparse text of ../shared/corpus/blktrace (an NVMe trace).

    uv run python frontend/e2e/block_sample_bundles.py OUTDIR   # prints the bundles it wrote
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "backend" / "tests"))

from bundles import block_capture, write_bundle  # noqa: E402

SAMPLES = REPO / "backend" / "tests" / "formats" / "samples"
CORPUS = REPO.parent / "shared" / "corpus" / "blktrace" / "sample.blktrace.0.blkparse-default.txt"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    m, files = block_capture("perf 6.1 block sample (lost events)", [[
        ("perf-block", "block.script.gz", (SAMPLES / "perf-6.1-block-randrw.ns.txt.gz").read_bytes(), {}),
        ("perf-stat-block", "perf-stat-block.csv", (SAMPLES / "perf-6.1-block-randrw.stat.csv").read_bytes(), {}),
    ]], tags={"e2e": "block-sample"})
    print(write_bundle(out / "block-sample-perf.iolens.tar.gz", m, files))
    if CORPUS.is_file():
        m, files = block_capture("nvme blkparse sample", [[("blkparse", "blkparse.txt", CORPUS.read_bytes(), {})]],
                                 tags={"e2e": "block-sample"})
        print(write_bundle(out / "block-sample-nvme.iolens.tar.gz", m, files))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
