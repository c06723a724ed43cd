"""fio terse output (versions 2-5) from fio 3.33: golden dumps, and the same figures as fio's JSON
would give (units normalised the same way)."""

from __future__ import annotations

import pytest
from conftest import SAMPLES_DIR

from iolens.formats.errors import FormatError
from iolens.formats.fio_terse import looks_like_terse, parse_fio_terse

TERSE = sorted((SAMPLES_DIR / "fio-terse").glob("*.terse"))


@pytest.mark.parametrize("path", TERSE, ids=[p.name for p in TERSE])
def test_terse_golden(path, golden):
    text = path.read_text()
    assert looks_like_terse(text)
    golden(f"fio-terse/{path.name}.json", parse_fio_terse(text, source=path.name))


def test_versions_agree_on_layout():
    for v in (2, 3, 4, 5):
        r = parse_fio_terse((SAMPLES_DIR / "fio-terse" / f"fio-3.33-randrw-v{v}.terse").read_text(), f"v{v}")
        assert [(j.jobname, j.ddir) for j in r.jobs] == [("randrw-4k", "read"), ("randrw-4k", "write")]
        read = r.jobs[0]
        # KiB -> bytes, KiB/s -> bytes/s, usec -> ns; bandwidth = IOPS x 4 KiB within rounding
        assert read.io_bytes % 1024 == 0 and abs(read.bw_bytes - read.iops * 4096) / read.bw_bytes < 0.01
        assert read.clat_mean_ns and 1_000 < read.clat_mean_ns < 10_000_000
        assert read.percentile(99.0) and read.percentile(50.0) <= read.percentile(99.0)
        assert read.slat_mean_ns is None  # psync: no submission latency, all zeros in terse
        assert read.usr_cpu is not None and read.ctx and read.total_ios is None
        assert r.fio_version == (None if v == 2 else "fio-3.33")
        assert bool(r.disk_util) == (v >= 3)


def test_minimal_preamble_and_jobs():
    r = parse_fio_terse((SAMPLES_DIR / "fio-terse" / "fio-3.33-two-jobs-numjobs2-v3.terse").read_text(), "two")
    assert r.preamble[0].startswith("w: (g=0): rw=randwrite")
    assert [(j.jobname, j.job_index, j.groupid, j.ddir) for j in r.jobs] == [
        ("w", 0, 0, "write"), ("w", 1, 0, "write"), ("r", 2, 1, "read")]


def test_terse_errors():
    line = (SAMPLES_DIR / "fio-terse" / "fio-3.33-randrw-v3.terse").read_text().strip()
    with pytest.raises(FormatError, match="line ends before"):
        parse_fio_terse(";".join(line.split(";")[:60]), "cut.terse")
    with pytest.raises(FormatError, match="no fio terse line"):
        parse_fio_terse("hello\n", "x.terse")
    v5 = (SAMPLES_DIR / "fio-terse" / "fio-3.33-randrw-v5.terse").read_text()
    with pytest.raises(FormatError, match="mixed"):
        parse_fio_terse(line + "\n" + v5, "mixed.terse")
    bad = line.split(";")
    bad[20] = "oops"
    with pytest.raises(FormatError, match="expected P%=VALUE"):
        parse_fio_terse(";".join(bad), "bad.terse")
    assert not looks_like_terse('{"fio version": "fio-3.33"}')
