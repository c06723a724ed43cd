"""iolens.formats.fio_json against real fio output (shared corpus + a fio 3.33 json+ run)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.fio_json import _plat_idx_to_val, parse_fio_json

# Every fio output of shared/corpus/fio/json (fio.job is the job file of the PKB sample).
CORPUS_FILES = [
    "TestFioJsonWithError.txt",  # fio-3.13, two fio error lines before the JSON
    "fio-parser-sample-result.json",  # fio-2.1.4, usec keys, 5 jobs
    "fio_read_sample_output.json",  # fio-2.1.3, "fioversion", one line
    "pkb-7fb0c9d8-0_fio.json",  # fio-2.17, group_reporting
]
JSONPLUS = "fio-3.33-randrw-jsonplus.json"
SAMPLES_DIR = Path(__file__).resolve().parent / "samples"


def _corpus_text(corpus: Path, name: str) -> str:
    return (corpus / "fio" / "json" / name).read_text(encoding="utf-8")


def _sample_text() -> str:
    return (SAMPLES_DIR / JSONPLUS).read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Golden dumps


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_golden(corpus: Path, golden, name: str) -> None:
    result = parse_fio_json(_corpus_text(corpus, name), source=name)
    golden(f"fio/{Path(name).stem}.json", result)


def test_corpus_files_all_covered(corpus: Path) -> None:
    present = {p.name for p in (corpus / "fio" / "json").iterdir() if p.name != "fio.job"}
    assert present == set(CORPUS_FILES), "new fio sample in the corpus: add it to CORPUS_FILES"


def test_jsonplus_sample_golden(golden) -> None:
    golden(f"fio/{Path(JSONPLUS).stem}.json", parse_fio_json(_sample_text(), source=JSONPLUS))


# --------------------------------------------------------------------------------------------
# Units and version quirks, checked against the source values


def test_fio3_values_are_taken_as_is(corpus: Path) -> None:
    r = parse_fio_json(_corpus_text(corpus, "TestFioJsonWithError.txt"))
    assert r.fio_version == "fio-3.13"
    assert r.timestamp == 1598385433
    assert r.global_options["ioengine"] == "windowsaio"
    assert [(j.jobname, j.ddir) for j in r.jobs] == [("fiotest", "read")]  # idle write/trim and sync skipped
    j = r.jobs[0]
    assert j.error == 42
    assert j.io_bytes == 536973312  # bytes (io_kbytes 524388 * 1024)
    assert j.bw_bytes == 202249835.0  # bw_bytes preferred over bw (197509 KiB/s)
    assert j.runtime_ms == 2655
    assert j.total_ios == 131426
    assert j.slat_mean_ns == pytest.approx(11328.926856)
    assert j.clat_min_ns == 220057 and j.clat_max_ns == 16434775
    assert j.lat_max_ns == 16443603
    assert j.percentile(99.9) == 12517376.0
    assert j.percentile(50) == 6258688.0
    assert j.percentile(42.0) is None
    assert j.clat_bins_ns is None  # plain json, not json+
    assert j.elapsed_s == 4
    assert (j.ctx, j.majf, j.minf) == (0, 0, 0)


def test_fio2_usec_and_kib_are_converted(corpus: Path) -> None:
    r = parse_fio_json(_corpus_text(corpus, "pkb-7fb0c9d8-0_fio.json"))
    assert r.fio_version == "fio-2.17"
    read = r.jobs[0]
    assert (read.jobname, read.ddir) == ("rand_16k_read_100%-io-depth-1-num-jobs-2", "read")
    assert read.io_bytes == 1294256 * 1024  # io_bytes was KiB before fio 3
    assert read.bw_bytes == 129386 * 1024.0
    assert read.clat_mean_ns == pytest.approx(238357.679)  # 238.357679 usec
    assert read.slat_mean_ns == pytest.approx(7173.443)
    assert read.percentile(50.0) == 96000.0  # "50.000000": 96 usec
    assert read.percentile(99.99) == 5408000.0
    assert 0.0 not in read.clat_percentiles_ns  # fio 2.x "0.00": 0 padding dropped
    assert read.total_ios == 80891
    assert r.global_options["group_reporting"] == "1"
    assert read.job_options["numjobs"] == "2"


def test_fio2_io_bytes_matches_bw_times_runtime(corpus: Path) -> None:
    """The KiB reading of fio 2.x io_bytes is consistent with bw (KiB/s) x runtime (ms)."""
    for name in CORPUS_FILES:
        for j in parse_fio_json(_corpus_text(corpus, name)).jobs:
            assert j.io_bytes == pytest.approx(j.bw_bytes * j.runtime_ms / 1000, rel=0.01), (name, j.jobname)


def test_oldest_fio_version_key(corpus: Path) -> None:
    r = parse_fio_json(_corpus_text(corpus, "fio_read_sample_output.json"))
    assert r.fio_version == "fio-2.1.3"
    assert r.timestamp is None and r.global_options == {}
    j = r.jobs[0]
    assert j.total_ios is None and j.short_ios is None and j.elapsed_s is None  # not printed by 2.1.3
    assert j.job_options == {}
    assert j.lat_max_ns == 16912000.0
    assert r.disk_util[0]["name"] == "vda"


def test_several_jobs_keep_their_index(corpus: Path) -> None:
    r = parse_fio_json(_corpus_text(corpus, "fio-parser-sample-result.json"))
    assert [(j.job_index, j.groupid, j.jobname, j.ddir) for j in r.jobs] == [
        (0, 0, "sequential_write", "write"),
        (1, 1, "sequential_read", "read"),
        (2, 2, "random_write_test", "write"),
        (3, 3, "random_read_test", "read"),
        (4, 4, "random_read_test_parallel", "read"),
    ]


def test_jsonplus_bins_sum_to_total_ios() -> None:
    r = parse_fio_json(_sample_text())
    assert r.fio_version == "fio-3.33"
    assert [j.ddir for j in r.jobs] == ["read", "write"]
    for j in r.jobs:
        assert j.clat_bins_ns, j.ddir
        assert sum(j.clat_bins_ns.values()) == j.total_ios
        assert j.io_bytes == j.total_ios * 4096
        assert min(j.clat_bins_ns) <= j.clat_min_ns <= j.clat_max_ns <= max(j.clat_bins_ns) * 1.01
        assert j.slat_mean_ns is None  # psync: no slat samples (N == 0), not 0 ns


def test_jsonplus_bin_keys_are_fio_bin_values() -> None:
    """fio 3 keys bins by plat_idx_to_val(index) in ns; our port of it (used for fio 2 indices) agrees."""
    values = {_plat_idx_to_val(i, 6, 64) for i in range(64 * 29)}
    for j in parse_fio_json(_sample_text()).jobs:
        assert set(j.clat_bins_ns) <= values


def test_fio2_jsonplus_indexed_bins() -> None:
    doc = {
        "fio version": "fio-2.21",
        "jobs": [
            {
                "jobname": "j",
                "groupid": 0,
                "error": 0,
                "read": {
                    "io_bytes": 16,
                    "bw": 4,
                    "iops": 1.0,
                    "runtime": 4000,
                    "clat": {
                        "min": 10,
                        "max": 290,
                        "mean": 100.0,
                        "stddev": 1.0,
                        "bins": {
                            "0": 0,
                            "10": 3,
                            "200": 1,
                            "FIO_IO_U_PLAT_BITS": 6,
                            "FIO_IO_U_PLAT_VAL": 64,
                            "FIO_IO_U_PLAT_NR": 1216,
                        },
                    },
                },
            }
        ],
    }
    (j,) = parse_fio_json(json.dumps(doc)).jobs
    # index 10 -> 10 usec; index 200 -> group 2, base 256, bucket 8: 256 + 8.5 * 4 = 290 usec
    assert j.clat_bins_ns == {10_000: 3, 290_000: 1}
    assert j.io_bytes == 16 * 1024


def test_mixed_direction_and_sync_skipped() -> None:
    doc = {
        "fio version": "fio-3.33",
        "jobs": [
            {
                "jobname": "m",
                "groupid": 0,
                "error": 0,
                "mixed": {
                    "io_bytes": 8192,
                    "io_kbytes": 8,
                    "bw_bytes": 8192,
                    "bw": 8,
                    "iops": 2.0,
                    "runtime": 1000,
                    "total_ios": 2,
                },
                "sync": {"total_ios": 5, "lat_ns": {"min": 1, "max": 2, "mean": 1.5, "stddev": 0.5, "N": 5}},
            }
        ],
    }
    (j,) = parse_fio_json(json.dumps(doc)).jobs
    assert (j.ddir, j.io_bytes, j.bw_bytes) == ("mixed", 8192, 8192.0)
    assert j.clat_mean_ns is None and j.clat_percentiles_ns == {} and j.usr_cpu is None


def test_trailing_text_is_kept() -> None:
    text = _sample_text() + "\nfio: file hash not empty on exit\n"
    r = parse_fio_json(text)
    assert r.trailer == ["fio: file hash not empty on exit"]
    assert len(r.jobs) == 2


def test_preamble_is_kept(corpus: Path) -> None:
    r = parse_fio_json(_corpus_text(corpus, "TestFioJsonWithError.txt"))
    assert r.preamble == [
        "fio: pid=19192, err=42/file:io_u.c:2074, func=io_u_queued_complete, error=Illegal byte sequence",
        "fio: pid=19192, err=43/file:io_u.c:2074, func=io_u_queued_complete, error=Different Error",
    ]


# --------------------------------------------------------------------------------------------
# Errors


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing needle."""
    return next(i for i, ln in enumerate(_lines(text), 1) if needle in ln)


def test_syntax_error_names_the_line() -> None:
    text = _sample_text().replace('"iops" : 26400.000000,', '"iops" : 26400.000000 oops,')
    assert _line_of(text, "oops") == 150
    with pytest.raises(FormatError) as exc:
        parse_fio_json(text, source="run.json")
    err = exc.value
    assert (err.file, err.line, err.field) == ("run.json", 150, None)
    assert str(err).startswith("run.json line 150: invalid JSON: Expecting ',' delimiter")


def test_syntax_error_line_counts_the_preamble() -> None:
    preamble = "fio: pid=1, err=5/file:io_u.c:1, func=io_u error, error=Input/output error\nfio: second line\n"
    text = preamble + _sample_text().replace('"iops" : 26400.000000,', '"iops" : 26400.000000 oops,')
    with pytest.raises(FormatError) as exc:
        parse_fio_json(text)
    assert exc.value.line == 152 == _line_of(text, "oops")


def test_truncated_json_names_the_last_line() -> None:
    lines = _lines(_sample_text())[:200]
    text = "\n".join(lines)
    with pytest.raises(FormatError) as exc:
        parse_fio_json(text)
    assert exc.value.line == 200
    assert "invalid JSON" in exc.value.message


def test_crlf_line_endings(corpus: Path) -> None:
    text = _corpus_text(corpus, "TestFioJsonWithError.txt").replace("\n", "\r\n")
    r = parse_fio_json(text)
    assert r.preamble[1].endswith("error=Different Error")
    assert r.jobs[0].io_bytes == 536973312
    with pytest.raises(FormatError) as exc:
        parse_fio_json(text.replace('"iops" : 49501.318267,', '"iops" : 49501.318267'))
    assert exc.value.line == 34  # the line after the missing comma


def test_deeply_nested_json() -> None:
    with pytest.raises(FormatError) as exc:
        parse_fio_json("{" + '"a":[' * 100_000)
    assert exc.value.line == 1


def test_empty_and_not_json() -> None:
    for text in ["", "\n", "fio: failed parsing bs=4q\nfio: job global dropped\n", "<html></html>"]:
        with pytest.raises(FormatError) as exc:
            parse_fio_json(text, source="x.out")
        assert "no line starts with '{'" in str(exc.value)
        assert str(exc.value).startswith("x.out: expected fio JSON output")
    with pytest.raises(FormatError) as exc:
        parse_fio_json("fio: warning\n{not json}\n")
    assert exc.value.line == 2 and "invalid JSON" in str(exc.value)


def test_jobs_missing_or_not_a_list() -> None:
    with pytest.raises(FormatError) as exc:
        parse_fio_json('note\n{"fio version": "fio-3.33", "timestamp": 1}\n')
    err = exc.value
    assert (err.line, err.field) == (2, "jobs")
    assert str(err) == 'fio.json line 2: field jobs: expected a "jobs" list: this JSON is not fio output'
    with pytest.raises(FormatError) as exc:
        parse_fio_json('{"jobs": {"a": 1}}')
    assert exc.value.field == "jobs" and "expected a list of jobs, got an object" in str(exc.value)


def test_wrong_type_names_the_field_and_the_job_line(corpus: Path) -> None:
    text = _corpus_text(corpus, "TestFioJsonWithError.txt").replace('"iops" : 49501.318267,', '"iops" : "fast",')
    with pytest.raises(FormatError) as exc:
        parse_fio_json(text)
    err = exc.value
    assert err.field == "jobs[0].read.iops"
    assert err.line == 19  # the job's "{" (2 preamble lines, JSON from line 3)
    assert str(err) == 'fio.json line 19: field jobs[0].read.iops: expected a number, got the string "fast"'


def test_wrong_type_in_a_later_job(corpus: Path) -> None:
    doc = json.loads(_corpus_text(corpus, "fio-parser-sample-result.json"))
    doc["jobs"][3]["read"]["clat"]["percentile"]["99.900000"] = [1]
    doc["jobs"][2]["jobname"] = 'has {[ brackets and "jobs": ['  # the job locator must not be fooled
    text = json.dumps(doc, indent=2)
    with pytest.raises(FormatError) as exc:
        parse_fio_json(text)
    err = exc.value
    assert err.field == "jobs[3].read.clat.percentile.99.900000"
    assert "expected a number, got a list" in err.message
    starts = [i for i, ln in enumerate(_lines(text), 1) if ln == "    {"]  # indent=2: jobs open at 4 spaces
    assert err.line == starts[3]


@pytest.mark.parametrize(
    ("path", "value", "field", "message"),
    [
        (("jobs", 0), "job", "jobs[0]", "expected a job object"),
        (("jobs", 0, "jobname"), 3, "jobs[0].jobname", "expected a string"),
        (("jobs", 0, "groupid"), 1.5, "jobs[0].groupid", "expected an integer"),
        (("jobs", 0, "write"), [], "jobs[0].write", "expected an object"),
        (("jobs", 0, "write", "runtime"), True, "jobs[0].write.runtime", "expected an integer, got a boolean"),
        (("jobs", 0, "write", "clat_ns"), 5, "jobs[0].write.clat_ns", "expected an object"),
        (("jobs", 0, "write", "clat_ns", "bins"), {"12": "x"}, "jobs[0].write.clat_ns.bins.12", "expected an integer"),
        (("jobs", 0, "job options", "bs"), {"x": 1}, "jobs[0].job options.bs", "expected a string"),
        (("disk_util",), "vda", "disk_util", "expected a list of objects"),
        (("fio version",), 3, "fio version", "expected a string"),
    ],
)
def test_wrong_types(path: tuple, value: object, field: str, message: str) -> None:
    doc = json.loads(_sample_text())
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(FormatError) as exc:
        parse_fio_json(json.dumps(doc, indent=2))
    assert exc.value.field == field
    assert message in exc.value.message


def test_missing_required_field() -> None:
    doc = json.loads(_sample_text())
    del doc["jobs"][0]["write"]["iops"]
    with pytest.raises(FormatError) as exc:
        parse_fio_json(json.dumps(doc))
    assert exc.value.field == "jobs[0].write.iops" and exc.value.message == "missing (expected a number)"


def test_format_error_str_and_pickle() -> None:
    err = FormatError("fio.json", "expected a number", line=12, field="jobs[0].write.iops")
    assert str(err) == "fio.json line 12: field jobs[0].write.iops: expected a number"
    assert isinstance(err, ValueError)
    assert str(FormatError("a.txt", "empty")) == "a.txt: empty"
    again = pickle.loads(pickle.dumps(err))
    assert (again.file, again.line, again.field, again.message) == (
        "fio.json",
        12,
        "jobs[0].write.iops",
        "expected a number",
    )
