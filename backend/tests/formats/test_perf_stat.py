"""iolens.formats.perf_stat: `perf stat -x,` output of perf 6.1, made on this project's machine
(recipes in samples/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.perf_stat import parse_perf_stat, parse_perf_stat_csv

SAMPLES = Path(__file__).resolve().parent / "samples"
STAT_SAMPLES = [
    "sched/perf-stat-I1000-A.csv",  # -I 1000 -A -a (the collector's form), to stderr
    "sched/perf-stat-I1000.csv",  # -I 1000 -a: summed over CPUs
    "sched/perf-stat-A-total.csv",  # -A without -I, with a <not supported> event
    "sched/perf-stat-I500-A-summary.csv",  # -o FILE ("# started on" header) and --summary
    "sched/perf-stat-I500-per-core.csv",  # --per-core: "S0-D0-C1,1," before the value
    "sched/perf-stat-workload-total.csv",  # the workload only (no -a), totals with perf's metrics
    "sched/fio-pinned.perf-stat.csv",  # -I 100 -A -a around the fio-pinned recording
    "perf-6.1-block-randrw.stat.csv",  # the block engineer's sample: totals of block tracepoints
]


@pytest.mark.parametrize("name", STAT_SAMPLES)
def test_samples_golden(golden, name: str) -> None:
    stat = parse_perf_stat((SAMPLES / name).read_text(encoding="utf-8"), name)
    dump = {"interval": stat.interval, "per_cpu": stat.per_cpu, "rows": len(stat.rows), "totals": stat.totals(),
            "first": stat.rows[:3], "last": stat.rows[-2:]}
    golden(f"perf-stat/{Path(name).stem}.json", dump)


def test_interval_rows() -> None:
    stat = parse_perf_stat((SAMPLES / "sched/perf-stat-I1000-A.csv").read_text())
    first, second = stat.rows[0], stat.rows[10]
    assert (first.start_s, first.end_s, first.cpu, first.aggr, first.event) == (0.0, 1.00026329, 0, "CPU0",
                                                                                  "context-switches")
    assert second.start_s == first.end_s and second.end_s > second.start_s
    tc = next(r for r in stat.rows if r.event == "task-clock")
    assert (tc.unit, tc.metric_unit, tc.running_pct) == ("msec", "CPUs utilized", 100.0)


def test_summary_rows_are_the_totals() -> None:
    stat = parse_perf_stat((SAMPLES / "sched/perf-stat-I500-A-summary.csv").read_text())
    summary = [r for r in stat.rows if r.summary]
    assert summary and all(r.end_s is None and r.cpu is not None for r in summary)
    by_interval = sum(r.value for r in stat.rows if not r.summary and r.event == "sched:sched_switch")
    assert stat.totals()["sched:sched_switch"] == sum(r.value for r in summary if r.event == "sched:sched_switch")
    assert abs(by_interval - stat.totals()["sched:sched_switch"]) <= 2  # perf's own sums


def test_not_supported_and_per_core() -> None:
    total = parse_perf_stat((SAMPLES / "sched/perf-stat-A-total.csv").read_text())
    cycles = [r for r in total.rows if r.event == "cycles"]
    assert [(r.value, r.status) for r in cycles] == [(None, "not supported")] * 2
    assert "cycles" not in total.totals()
    core = parse_perf_stat((SAMPLES / "sched/perf-stat-I500-per-core.csv").read_text()).rows[0]
    assert (core.cpu, core.aggr, core.aggr_nr, core.event) == (None, "S0-D0-C0", 1, "context-switches")


def test_lines_written_here() -> None:
    text = "\n".join([
        "     1.000200000,fio-1234,5,,context-switches,1000000,100.00,5.000,/sec",  # --per-thread
        "     1.000200000,CPU0,<not counted>,,cpu-migrations,0,0.00,,",
        "     1.000200000,CPU1,12,,context-switches,/sys/fs/cgroup/x,1000000,100.00,12.0,/sec",  # -G
        "     1.000200000,,,,,,,0.50,frontend cycles idle",  # a multi-line metric's continuation
        "# comment",
    ])
    stat = parse_perf_stat(text, "x.csv")
    thread, missing, cg = stat.rows
    assert (thread.aggr, thread.value, thread.metric_unit) == ("fio-1234", 5.0, "/sec")
    assert (missing.cpu, missing.value, missing.status) == (0, None, "not counted")
    assert (cg.cgroup, cg.run_ns, cg.value) == ("/sys/fs/cgroup/x", 1000000, 12.0)
    assert stat.skipped_metric_lines == 1


def test_counts_for_the_block_checks() -> None:
    counts = parse_perf_stat_csv((SAMPLES / "perf-6.1-block-randrw.stat.csv").read_text(), "b.csv").counts
    assert counts["block:block_rq_issue"] == 2081 and counts["block:block_rq_merge"] == 0
    assert parse_perf_stat_csv("<not supported>,,cycles,0,100.00,,\n").counts == {"cycles": None}


@pytest.mark.parametrize(("text", "line", "field"), [
    ("", None, None),
    ("garbage\n", 1, None),
    ("     1.000200000,CPU0,12x,,context-switches,1,100.00,,\n", 1, "value"),
    ("12,,,1,100.00,,\n", 1, "event"),
])
def test_errors(text: str, line: int | None, field: str | None) -> None:
    with pytest.raises(FormatError) as e:
        parse_perf_stat(text, "s.csv")
    assert (e.value.file, e.value.line, e.value.field) == ("s.csv", line, field)
