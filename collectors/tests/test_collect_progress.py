"""fio time units, expected duration, progress lines, summaries (no fio needed)."""

import io

import pytest

from iolens_collect import progress
from iolens_collect.fio import jobs_from_sections, parse_jobfile
from iolens_collect.progress import Progress, expected_duration, parse_fio_time


@pytest.mark.parametrize(
    "value, seconds",
    [
        ("10", 10.0),
        ("10s", 10.0),
        ("2m", 120.0),  # minutes, not milliseconds
        ("500ms", 0.5),
        ("500msec", 0.5),
        ("250us", 0.00025),
        ("1h", 3600.0),
        ("1d", 86400.0),
        ("10S", 10.0),
        ("10sec", 0.00001),  # fio quirk: unknown suffix -> microseconds
        ("1.5s", 1.5),
    ],
)
def test_parse_fio_time(value, seconds):
    assert parse_fio_time(value) == pytest.approx(seconds)


@pytest.mark.parametrize("value", [None, "", "${RUNTIME}", "1-2s", "abc"])
def test_parse_fio_time_not_a_time(value):
    assert parse_fio_time(value) is None


def _jobs(text):
    return jobs_from_sections(parse_jobfile(text))


def test_expected_duration():
    assert expected_duration(_jobs("[a]\nruntime=10\ntime_based\n")) == (10.0, "~")
    assert expected_duration(_jobs("[a]\nruntime=10\n")) == (10.0, "<=")
    assert expected_duration(_jobs("[a]\nsize=1g\n")) == (None, "")
    assert expected_duration(_jobs("[a]\nruntime=0\ntime_based\n")) == (None, "")
    # parallel jobs: the longest; stonewall: the groups add up; ramp and delay add
    jobs = _jobs("[global]\ntime_based\n[a]\nruntime=10\n[b]\nruntime=1m\n"
                 "[c]\nstonewall\nruntime=5\nramp_time=2\nstartdelay=500ms\n")
    assert expected_duration(jobs) == (67.5, "~")


def test_progress_not_a_tty_prints_start_and_end_lines():
    out = io.StringIO()
    p = Progress(3, "randwrite-4k", (10.0, "~"), stream=out, tty=False)
    p.start(2)
    p.tick(4.0)  # nothing on a pipe
    p.end(10.2, 0, "write 1.0k IOPS 4.0 MiB/s")
    assert out.getvalue().splitlines() == [
        "[repeat 2/3] randwrite-4k  started (expected ~10s)",
        "[repeat 2/3] randwrite-4k  done in 10.2s: write 1.0k IOPS 4.0 MiB/s",
    ]
    assert "\r" not in out.getvalue()


def test_progress_tty_rewrites_one_line():
    out = io.StringIO()
    p = Progress(3, "randwrite-4k", (10.0, "~"), stream=out, tty=True)
    p.start(2)
    p.tick(4.0)
    p.end(10.0, 1)
    text = out.getvalue()
    assert "\r[repeat 2/3] randwrite-4k  4.0s / ~10s" in text
    assert text.endswith("[repeat 2/3] randwrite-4k  fio exited 1 in 10.0s\n")
    assert text.count("\n") == 1


def test_summarize_and_format():
    data = {"jobs": [
        {"jobname": "a", "error": 0, "read": {"iops": 0, "bw_bytes": 0},
         "write": {"iops": 1000.0, "bw_bytes": 4096000}},
        {"jobname": "b", "error": 5, "read": {"iops": 0, "bw_bytes": 0},
         "write": {"iops": 500.0, "bw_bytes": 2048000}},
    ]}
    s = progress.summarize(data)
    assert s == {"write": {"iops": 1500.0, "bw_bytes": 6144000.0}}
    assert progress.format_summary(s) == "write 1500 IOPS 5.9 MiB/s"
    assert progress.job_errors(data)[0].startswith("job b: error 5 (")
    assert progress.summarize(None) is None
    assert progress.format_summary(None) == "no JSON result"
