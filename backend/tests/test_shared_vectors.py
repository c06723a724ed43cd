"""The rules kept in both Python (and SQL) and TypeScript, tested on the same JSON vectors as the
frontend's Vitest tests: testdata/vectors/ at the repository root (its README.md lists them and
their TypeScript tests)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

VECTORS = Path(__file__).resolve().parents[2] / "testdata" / "vectors"


def vectors(name: str) -> dict:
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))


# --- the histogram-bin percentile ----------------------------------------------------------------

PCT = vectors("bin-percentile")
PCT_CASES = [pytest.param(c, id=c["name"]) for c in PCT["cases"]]
# The SQL columns of each percentile (views/block.py names them p50, p90, p99, p99_9).
COLUMN = {"50": "p50", "90": "p90", "99": "p99", "99.9": "p99_9"}


def test_vectors_cover_the_views_percentiles():
    from iolens.views.block import PERCENTILES

    assert [float(p) for p in PCT["percentiles"]] == list(PERCENTILES)


@pytest.mark.parametrize("case", PCT_CASES)
def test_bin_percentile_python(case):
    """The text and HTML exports' copy (bins as [low, high, count], the answer a bin's centre)."""
    from iolens.store.rules.bin_percentile import percentile_of_bins

    bins = [[2.0 ** i, 2.0 ** (i + 1), c] for i, c in enumerate(case["counts"])]
    for p, i in case["picked"].items():
        want = None if i is None else (2.0 ** i * 2.0 ** (i + 1)) ** 0.5
        assert percentile_of_bins(bins, float(p)) == want, p


def _histogram(con: duckdb.DuckDBPyConnection, counts: list[int]) -> None:
    # The tables hold the bins that have a count (an empty histogram is no rows).
    con.execute("CREATE OR REPLACE TABLE h (lat_bin INTEGER, n BIGINT)")
    rows = [(i, c) for i, c in enumerate(counts) if c]
    if rows:
        con.executemany("INSERT INTO h VALUES (?, ?)", rows)


@pytest.mark.parametrize("case", PCT_CASES)
def test_bin_percentile_sql_block_views(case):
    """views/block.py's SQL (latency percentiles per bucket), run by DuckDB."""
    from iolens.store.rules.bin_percentile import percentiles_sql
    from iolens.views.block import PERCENTILES

    con = duckdb.connect()
    _histogram(con, case["counts"])
    got = con.execute(percentiles_sql("SELECT 0 AS b, lat_bin, n FROM h", PERCENTILES)).fetchall()
    cols = [d[0] for d in con.description]
    row = dict(zip(cols, got[0])) if got else {}
    for p, i in case["picked"].items():
        assert row.get(COLUMN[p]) == i, p


@pytest.mark.parametrize("case", PCT_CASES)
def test_bin_percentile_sql_sched_views(case):
    """views/sched.py's nearest rank (delays, run times), run by DuckDB."""
    from iolens.store.rules.bin_percentile import nearest_rank_sql

    con = duckdb.connect()
    _histogram(con, case["counts"])
    # the fractions as the views write them (0.999, not 99.9 / 100 = 0.9990000000000001)
    qs = {COLUMN[p]: {"50": 0.5, "90": 0.9, "99": 0.99, "99.9": 0.999}[p] for p in case["picked"]}
    sql = f"WITH src AS (SELECT 0 AS k, lat_bin AS v, n FROM h), {nearest_rank_sql('k', 'src', qs)} SELECT * FROM pct"
    got = con.execute(sql).fetchall()
    cols = [d[0] for d in con.description]
    row = dict(zip(cols, got[0])) if got else {}
    for p, i in case["picked"].items():
        assert row.get(COLUMN[p]) == i, p


@pytest.mark.parametrize("case", PCT_CASES)
def test_bin_percentile_sql_fio_results(case, tmp_path):
    """Ingest's fio results (p50, p99, p99.9 from fio's bins when fio gave none), run by DuckDB on
    the store's schema."""
    from iolens.ingest.fio import DERIVE_FIO_RESULTS
    from iolens.store.db import Store

    store = Store(tmp_path / "v.duckdb")
    try:
        with store.write() as w:
            w.insert("fio_jobs", ["capture_id", "run_id", "job_index", "jobname", "ddir", "total_ios"],
                     [["c", "r000", 0, "job", "read", sum(case["counts"])]])
            w.insert("fio_clat_bins", ["capture_id", "run_id", "job_index", "ddir", "bin_ns", "count"],
                     [["c", "r000", 0, "read", 1000 + i, n] for i, n in enumerate(case["counts"]) if n])
            w.execute(DERIVE_FIO_RESULTS, {"cid": "c"})
        row = store.query("SELECT clat_p50_ns, clat_p99_ns, clat_p99_9_ns FROM fio_results").rows[0]
    finally:
        store.close()
    for p, got in zip(("50", "99", "99.9"), row):
        i = case["picked"][p]
        assert got == (None if i is None else 1000 + i), p


# --- the lost-events rule ------------------------------------------------------------------------

LOST = vectors("lost-events")


def test_lost_events_one_threshold():
    from iolens.store.rules.lost_events import LOSS_THRESHOLD, MIN_MISSING

    assert (LOSS_THRESHOLD, MIN_MISSING) == (LOST["threshold"], LOST["min_missing"])


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in LOST["cases"]])
def test_lost_events_rule(case):
    """The rule of ingest's block and scheduler checks (the collector's copy is tested on the same
    file in collectors/tests/test_collect_probes_unit.py)."""
    from iolens.store.rules.lost_events import recorded_short

    assert recorded_short(case["recorded"], case["counted"]) is case["lost"]


# --- flame graph colours and rectangles ----------------------------------------------------------

FLAME = vectors("flame")


@pytest.mark.parametrize("case", [pytest.param(c, id=repr(c["name"])) for c in FLAME["colours"]["cases"]])
def test_flame_colours(case):
    from iolens.store.rules.flame import dim, fnv1a, frame_rgb

    assert fnv1a(case["name"]) == case["fnv1a"]
    assert list(frame_rgb(case["name"])) == case["rgb"]
    assert list(dim(frame_rgb(case["name"]))) == case["dimmed"]


@pytest.mark.parametrize("case", FLAME["diff_colours"]["cases"])
def test_flame_diff_colours(case):
    from iolens.store.rules.flame import diff_rgb

    assert list(diff_rgb(case["delta"], case["max_abs"])) == case["rgb"]


@pytest.mark.parametrize("case", FLAME["few_colours"]["cases"])
def test_flame_diff_colours_with_too_few_repeats(case):
    from iolens.store.rules.flame import few_rgb

    assert list(few_rgb(case["delta"], case["max_abs"])) == case["rgb"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in FLAME["visible_rects"]["cases"]])
def test_flame_visible_rects(case):
    from iolens.store.rules.flame import Layout, visible

    t = case["tree"]
    lay = Layout.of(t["name"], t["depth"], t["self"])
    got = sorted([r.depth, r.x, r.w, r.node, r.merged] for r in visible(lay, case["zoom"], case["width"]))
    assert len(got) == len(case["rects"])
    for g, want in zip(got, case["rects"]):
        assert [g[0], g[3], g[4]] == [want[0], want[3], want[4]]
        assert g[1] == pytest.approx(want[1], abs=1e-6) and g[2] == pytest.approx(want[2], abs=1e-6)


# --- cell states: the frontend's URL text, read again by the text and HTML exports ---------------

CELLS = vectors("cell-state")


def test_cell_state_vectors_cover_every_export():
    from iolens.exports.registry import VIEW_EXPORTS

    assert sorted(CELLS["kinds"]) == sorted(VIEW_EXPORTS)


@pytest.mark.parametrize("kind, case", [pytest.param(k, c, id=f"{k}:{c['state']}")
                                        for k, cases in CELLS["kinds"].items() for c in cases])
def test_cell_state_read_by_the_exports(kind, case):
    from iolens.exports.registry import VIEW_EXPORTS

    assert VIEW_EXPORTS[kind].read_state(case["state"]) == case["reads"]


# --- a kernel .config: the backend's parser and the collector's reader (collectors/tests) ------------

KCONFIG = vectors("kconfig")


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in KCONFIG["cases"]])
def test_kconfig_vectors(case):
    from iolens.formats.errors import FormatError
    from iolens.formats.kconfig import parse_kconfig

    if "options" in case:
        assert parse_kconfig(case["text"]) == case["options"]
    else:
        with pytest.raises(FormatError) as e:
            parse_kconfig(case["text"], source="config")
        assert (f"line {case['error_line']}" in str(e.value)) == (case["error_line"] is not None), str(e.value)


# --- the workload's own tasks: a flame graph difference's default task filter -------------------

WORKLOAD_COMM = vectors("workload-comm")


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in WORKLOAD_COMM["cases"]])
def test_workload_comm_vectors(case):
    from iolens.views.workload import workload_comm

    assert workload_comm(case["capture"]) == case["comm"]


@pytest.mark.parametrize("case", WORKLOAD_COMM["pairs"])
def test_pair_comm_vectors(case):
    from iolens.views.workload import pair_comm

    assert pair_comm(case["a"], case["b"]) == case["comm"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in WORKLOAD_COMM["single"]])
def test_single_comm_vectors(case):
    from iolens.views.workload import single_comm

    assert single_comm(case["capture"], case["event"]) == case["comm"]


# --- which .config options are debug options: the backend's rule and the collector's copy ----------

KCONFIG_DEBUG = vectors("kconfig-debug")


def test_kconfig_debug_lists_are_the_vectors():
    from iolens.store.rules.kernel_debug import COSTLY, NO_COST

    assert list(COSTLY) == KCONFIG_DEBUG["costly"] and list(NO_COST) == KCONFIG_DEBUG["no_cost"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in KCONFIG_DEBUG["cases"]])
def test_kconfig_debug_vectors(case):
    from iolens.store.rules.kernel_debug import debug_on

    assert debug_on(case["options"]) == {"costly": case["costly"], "no_cost": case["no_cost"]}


# --- the run of the shared time selection ---------------------------------------------------------

RUN = vectors("timeline-run")


@pytest.mark.parametrize("case", RUN["cases"], ids=lambda c: f"{c['named']}-{'-'.join(c['runs']) or 'none'}")
def test_timeline_run(case):
    """The run a timeline cell shows and its selection is of (the exports' shared time)."""
    from iolens.store.rules.timeline_run import missing_run_notice, shown_run, timeline_run

    assert timeline_run(case["named"], case["runs"]) == case["run"]
    # the run a timeline view draws, and what it says when its run= is not in the capture
    assert shown_run(case["named"], case["runs"]) == case["shown"]
    assert missing_run_notice(case["named"], case["runs"]) == case["notice"]


@pytest.mark.parametrize("case", RUN["captures"], ids=lambda c: f"{c['named']}-{'-'.join(c['captures'])}")
def test_timeline_capture(case):
    """The capture a timeline view draws, and what it says when its cap= is not in the notebook."""
    from iolens.store.rules.timeline_run import missing_capture_notice, shown_capture

    assert shown_capture(case["named"], case["captures"], case["baseline"]) == case["shown"]
    assert missing_capture_notice(case["named"], case["captures"], case["baseline"]) == case["notice"]


# --- where the flame graph's time 0 lies from the run's start, in words -----------------------------


@pytest.mark.parametrize("case", vectors("run-offset-text")["cases"], ids=lambda c: str(c["offset_ns"]))
def test_run_offset_text(case):
    """The exports' words for samples_offset_ns (exports/selection.py offset_text)."""
    from iolens.exports.selection import offset_text

    assert offset_text(case["offset_ns"]) == case["text"]


# --- the selection on each run's own track -----------------------------------------------------------


@pytest.mark.parametrize("case", vectors("run-span")["cases"], ids=lambda c: f"{c['from_ns']}-{c['to_ns']}@{c['offset_ns']}")
def test_run_span(case):
    """The selection moved onto a run's trace by that run's own offset (the sched views' clock=run, the
    exports' flame and sched cells)."""
    from iolens.store.rules.run_span import run_span

    assert list(run_span(case["from_ns"], case["to_ns"], case["offset_ns"])) == case["span"]


# --- a number with its unit, and the spread of repeats --------------------------------------------

NUMBERS = vectors("number-format")


@pytest.mark.parametrize("case", NUMBERS["values"], ids=lambda c: f"{c['v']}-{c['unit'] or 'plain'}")
def test_number_format_values(case):
    """The text exports' numbers (exports/textfmt.py format_value) as the app's (logic/format.ts):
    an integer-valued count-like measure shows as an integer."""
    from iolens.exports import textfmt as tf

    assert tf.format_value(case["v"], case["unit"]) == case["text"]


@pytest.mark.parametrize("case", NUMBERS["monitors"], ids=lambda c: f"{c['v']}-{c['unit'] or 'plain'}")
def test_number_format_monitors(case):
    """The monitors export's values (exports/textfmt.py format_monitor) as the app's monitors cell
    (logic/format.ts formatMonitor): sizes with binary prefixes, rates and shares scaled, the rest count-like."""
    from iolens.exports import textfmt as tf

    assert tf.format_monitor(case["v"], case["unit"]) == case["text"]


@pytest.mark.parametrize("case", NUMBERS["spreads"], ids=lambda c: f"{c['n']}-{c['mean']}-{c['unit']}")
def test_number_format_spreads(case):
    """The spread of repeats always says its unit (format_spread; the metric tables' spread column)."""
    from iolens.exports import textfmt as tf

    got = tf.format_spread(case["n"], case["mean"], case["stddev"], case["min"], case["max"], case["unit"])
    assert got == case["text"]


# --- a column of times in one unit (the lock contention tables) -----------------------------------

TIMES = vectors("time-column")


@pytest.mark.parametrize("case", TIMES["cases"], ids=lambda c: c["name"])
def test_time_column(case):
    """The lock_stat exports' wait columns (exports/textfmt.py time_column) as the app's (logic/format.ts
    timeColumn): one unit per column, chosen from its values."""
    from iolens.exports import textfmt as tf

    if "ramp" in case:  # a large column, given by its rule
        r = case["ramp"]
        values = [r["first"] + i * r["step"] for i in range(r["count"])]
        unit, fmt = tf.time_column(values, signed=case["signed"])
        assert unit == case["unit"]
        assert [[i, fmt(values[i])] for i, _ in case["texts_at"]] == case["texts_at"]
        return
    unit, fmt = tf.time_column(case["values"], signed=case["signed"])
    assert unit == case["unit"]
    assert [fmt(v) for v in case["values"]] == [t if t is not None else "-" for t in case["texts"]]


# --- the compared tables' tone (fio, scheduler): too few repeats as the sweep matrix -----------------

TONE = vectors("ratio-tone")


def test_ratio_tone_min_repeats_is_the_sweeps():
    from iolens.store.stats import MIN_REPEATS, welch

    assert TONE["min_repeats"] == MIN_REPEATS
    # the sweep's Welch test calls the same cases too few
    for case in TONE["cases"]:
        c, b = case["cell"], case["base"]
        if case["tone"] == "few":
            assert welch([c["mean"]] * c["n"], [b["mean"]] * b["n"]).too_few, case["name"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in TONE["cases"]])
def test_ratio_tone_python(case):
    """The text and HTML exports' copy (exports/textfmt.py tone, used by exports/metric_table.py)."""
    from iolens.exports.textfmt import tone

    assert tone(case["cell"], case["base"], case["better"]) == case["tone"]
