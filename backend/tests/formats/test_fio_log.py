"""fio time-series logs: golden dumps of the fio 3.7 logs in the corpus (pbench) and of fio 3.33
logs made here; histogram logs are refused, not misread."""

from __future__ import annotations

import pytest
from conftest import SAMPLES_DIR

from iolens.formats.errors import FormatError
from iolens.formats.fio_log import log_kind_from_name, parse_fio_log


def _corpus_logs(corpus):
    return sorted(p for p in (corpus / "fio" / "logs").glob("*.log") if "hist" not in p.name)


def test_corpus_logs_golden(corpus, golden):
    logs = _corpus_logs(corpus)
    assert len(logs) == 25
    for path in logs:
        log = parse_fio_log(path.read_text(), source=path.name)
        golden(f"fio-log/{path.name}.json", log)


def test_corpus_log_units(corpus):
    logs = corpus / "fio" / "logs"
    bw = parse_fio_log((logs / "fio_bw.1.log").read_text(), "fio_bw.1.log")
    assert bw.kind == "bw" and bw.unit == "B/s" and bw.columns == 4
    assert bw.entries[0].t_ms == 1000 and bw.entries[0].value == 99556 * 1024  # KiB/s -> bytes/s
    assert bw.entries[0].ddir == "read" and bw.entries[0].offset is None
    clat = parse_fio_log((logs / "fio_clat.1.log").read_text(), "fio_clat.1.log")
    assert clat.unit == "ns" and clat.entries[0].value == 1273222
    # iops and bw agree: bw / iops is the block size (4 KiB in this job)
    iops = parse_fio_log((logs / "fio_iops.1.log").read_text(), "fio_iops.1.log")
    assert round(bw.entries[0].value / iops.entries[0].value) == 4096


def test_histogram_logs_are_refused(corpus):
    for path in sorted((corpus / "fio" / "logs").glob("*hist*.log")):
        with pytest.raises(FormatError, match="histogram"):
            parse_fio_log(path.read_text(), source=path.name)


def test_fio_333_logs_golden(golden):
    paths = sorted((SAMPLES_DIR / "fio-log").glob("*.log"))
    assert len(paths) == 5
    for path in paths:
        log = parse_fio_log(path.read_text(), source=path.name)
        assert log.columns == 5 and all(e.offset == 0 and e.ddir == "write" for e in log.entries)
        golden(f"fio-log/{path.name}.json", log)


def test_kind_from_name_and_errors():
    assert log_kind_from_name("0-dio_iops.1.log") == "iops"
    assert log_kind_from_name("job_clat.log") == "clat"  # per_job_logs=0: no index
    assert log_kind_from_name("job_lat.12.log.gz") == "lat"
    assert log_kind_from_name("fio.json") is None
    with pytest.raises(FormatError, match="cannot tell which fio log"):
        parse_fio_log("1000, 5, 0, 4096\n", source="something.log")
    with pytest.raises(FormatError, match="line 2: field value: expected a number"):
        parse_fio_log("1000, 5, 0, 4096\n2000, x, 0, 4096\n", source="a_iops.1.log")
    with pytest.raises(FormatError, match="line 2: 5 fields where the lines above have 4"):
        parse_fio_log("1000, 5, 0, 4096\n2000, 5, 0, 4096, 0\n", source="a_iops.1.log")
    assert parse_fio_log("", source="a_iops.1.log").entries == []  # a job shorter than log_avg_msec
    log = parse_fio_log("100, 7, 2, 0, 0, 1\n", source="a_slat.1.log", lat_unit_ns=1000)
    assert log.entries[0].ddir == "trim" and log.entries[0].prio == 1 and log.entries[0].value == 7000
