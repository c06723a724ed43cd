"""Sweeps end to end on the server side: ingest of sweep, cmd, fio-log and terse bundles, the
matrix statistics, the fio log series, the report (golden text) and the API over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bundles import add_file, fio_json, manifest, write_bundle
from goldens import check_golden
from notebook_helpers import stable
from server import running_server

from iolens.exports import report as report_export
from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import report as report_view
from iolens.views import sweep as sweep_view

GOLDEN = Path(__file__).resolve().parent / "golden"
SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"
BASE_URL = "http://iolens.test"

# Per point, the IOPS of each repeat. Baseline vs other: a clear +20% (significant), a change within
# the noise, two repeats only (too few), and a point the other capture lacks.
POINTS = [({"rw": "randread", "bs": "4k"}, [1000, 1010, 990], [1200, 1190, 1210]),
          ({"rw": "randread", "bs": "16k"}, [500, 520, 480], [505, 470, 530]),
          ({"rw": "randwrite", "bs": "4k"}, [800, 810], [900, 905]),
          ({"rw": "randwrite", "bs": "16k"}, [300, 310, 290], None)]


def sweep_capture(label: str, which: int, **over) -> tuple[dict, dict[str, bytes]]:
    m = manifest(label, **over)
    m["workload"]["fio_args"] = ["--name=dio", "--filename=/mnt/x/f", "--size=1g", "--ioengine=libaio", "--direct=1"]
    m["workload"]["sweep"] = {"parameters": [{"name": "rw", "values": ["randread", "randwrite"]},
                                             {"name": "bs", "values": ["4k", "16k"]}],
                              "order": "points", "repeat": 3, "points": 4, "plan": None}
    files: dict[str, bytes] = {}
    i = 0
    for params, base, other in POINTS:
        values = base if which == 0 else other
        for r, iops in enumerate(values or []):
            m["runs"].append({"id": f"r{i:03d}", "index": i, "repeat": r, "params": dict(params),
                              "started_at": "2026-11-22T02:50:00Z", "ended_at": "2026-11-22T02:50:01Z",
                              "exit_code": 0, "cmdline": ["fio", "--output-format=json+"], "artifacts": []})
            ddir = "read" if params["rw"] == "randread" else "write"
            add_file(m, files, f"runs/r{i:03d}/fio.json",
                     fio_json([{"name": "dio", "ddir": ddir, "iops": iops, "clat_mean": 1e9 / iops}]), "fio-json", run=i)
            i += 1
    return m, files


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "db" / "iolens.duckdb")
    yield s
    s.close()


def ingest(store: Store, tmp_path: Path, m: dict, files: dict[str, bytes], name: str) -> str:
    path = write_bundle(tmp_path / f"{name}.iolens.tar.gz", m, files)
    return ingest_file(store, path, bundles_dir=tmp_path / "bundles").capture_id


@pytest.fixture()
def two(store, tmp_path):
    base = ingest(store, tmp_path, *sweep_capture("6.18-ext4", 0, tags={"fs": "ext4"}), "a")
    m, files = sweep_capture("6.18-xfs", 1, tags={"fs": "xfs"})
    m["host"]["targets"][0]["filesystem"]["type"] = "xfs"
    other = ingest(store, tmp_path, m, files, "b")
    return base, other


def test_run_metrics_derived_at_ingest(store, two):
    base, _ = two
    rows = store.query("SELECT run_id, metric, value, unit, source FROM run_metrics WHERE capture_id = ? "
                       "AND run_id = 'r000' ORDER BY metric", [base]).rows
    metrics = {m: (v, u, s) for _, m, v, u, s in rows}
    assert metrics["iops"] == (1000.0, "IO/s", "fio") and metrics["read.iops"][0] == 1000.0
    assert metrics["clat_mean"][1] == "ns" and metrics["clat_p99"][0] == 200000.0
    assert metrics["usr_cpu"][0] == 1.0 and metrics["cpu_per_io"][0] == pytest.approx(11 / 100 * 1e9 / 1000)
    assert "write.iops" not in metrics


def test_matrix_statistics(store, two):
    base, other = two
    m = sweep_view.sweep_matrix(store, [other, base], base)
    assert [r.capture for r in m.rows] == [base, other]  # baseline first
    assert [p.key for p in m.points] == ["rw=randread bs=4k", "rw=randread bs=16k", "rw=randwrite bs=4k",
                                         "rw=randwrite bs=16k"]
    assert [(p.name, p.values) for p in m.params] == [("rw", ["randread", "randwrite"]), ("bs", ["4k", "16k"])]
    b, o = m.rows[0].cells, m.rows[1].cells
    assert b["rw=randread bs=4k"].mean == 1000 and b["rw=randread bs=4k"].stddev == 10
    assert b["rw=randread bs=4k"].ci_low == pytest.approx(1000 - 4.302652729749752 * 10 / 3 ** 0.5)
    clear = o["rw=randread bs=4k"]
    assert clear.ratio == pytest.approx(1.2) and clear.significant and clear.p < 1e-4 and not clear.too_few
    assert clear.delta_low < 0.2 < clear.delta_high
    noise = o["rw=randread bs=16k"]
    assert noise.ratio == pytest.approx(1.00333, rel=1e-4) and not noise.significant and noise.p > 0.5
    few = o["rw=randwrite bs=4k"]
    assert few.too_few and not few.significant and few.p is not None and "too few repeats" in few.note
    assert "rw=randwrite bs=16k" not in o
    assert [x.key for x in m.metrics][:3] == ["iops", "bw", "clat_mean"]
    assert m.metric.key == "iops" and m.metric.better == "higher"
    assert [d.key for d in m.host_diff] == ["targets.0.filesystem.type"]
    lat = sweep_view.sweep_matrix(store, [base, other], base, "read.clat_mean")
    assert lat.metric.label == "read clat mean" and lat.metric.better == "lower"
    assert lat.rows[1].cells["rw=randread bs=4k"].ratio == pytest.approx(1000 / 1200, rel=1e-3)
    assert "rw=randwrite bs=4k" in lat.rows[0].cells and lat.rows[0].cells["rw=randwrite bs=4k"].n == 0


def check_mail(text: str) -> None:
    for line in text.split("\n"):
        assert len(line) <= 72, line
        assert "\t" not in line and all(" " <= ch <= "~" for ch in line), line
    assert text.endswith("\n") and not text.endswith("\n\n")


def build_saved(store, ids, baseline, metrics, base_url):
    """The report as POST /api/report and `iolens report --db` make it: its view saved as a notebook."""
    return report_view.save(store, report_view.build(store, ids, baseline, metrics, base_url), base_url)


def test_report_text_golden(store, two):
    base, other = two
    d = build_saved(store, [base, other], base, ["iops", "clat_mean"], BASE_URL)
    assert d.permalink.startswith(f"{BASE_URL}/n/")
    text = report_export.render(d, "text")
    check_mail(text)
    check_golden("report-sweep.txt", text)
    assert "+20.0% *" in text and "+0.3%" in text and "+12.1% ?" in text
    # the permalink opens a saved notebook with the matrix and the chart of the first metric
    nb = store.query("SELECT document FROM notebook_versions WHERE notebook_id = ?", [d.permalink.rsplit("/", 1)[1]]).scalar()
    cells = json.loads(nb)["cells"]
    assert [(c["type"], c.get("kind"), c.get("state")) for c in cells[1:]] == [("view", "sweep", "m=iops"),
                                                                               ("view", "sweepline", "m=iops")]
    # the same report again is the same notebook version
    assert build_saved(store, [base, other], base, ["iops", "clat_mean"], BASE_URL).permalink == d.permalink


def test_report_other_forms_golden(store, two):
    base, other = two
    d = build_saved(store, [base, other], base, ["iops"], BASE_URL)
    md = report_export.render(d, "markdown", rows="captures", ratio=True)
    check_mail(md)
    check_golden("report-sweep.md", md)
    assert "1.200x *" in md and "| bs " in md
    data = json.loads(report_export.render(d, "json"))
    assert data["baseline"] == base and data["metrics"][0]["metric"]["key"] == "iops"
    assert data["metrics"][0]["rows"][1]["cells"]["rw=randread bs=4k"]["significant"] is True


def test_report_quoted_in_a_reply_stays_readable(store, two):
    text = report_export.render(build_saved(store, list(two), two[0], None, BASE_URL))
    quoted = "\n".join("> " + ln for ln in text.splitlines())
    assert max(len(ln) for ln in quoted.splitlines()) <= 74  # 72 + "> ": no mail client rewraps it


def test_wide_tables_are_split(store, tmp_path):
    """Seven captures do not fit 72 columns side by side: the table is split, row headers repeated."""
    ids = [ingest(store, tmp_path, *sweep_capture(f"kernel-{k}-long-label", 0, created_at=f"2026-11-22T02:5{k}:00Z"),
                  f"k{k}") for k in range(7)]
    text = report_export.render(build_saved(store, ids, ids[0], ["iops"], BASE_URL), "text", rows="points")
    check_mail(text)
    assert text.count("randread   4k") >= 2


def test_report_errors_and_defaults(store, two):
    base, other = two
    with pytest.raises(report_view.ReportError, match="no metric wall_s"):
        build_saved(store, [base, other], base, ["wall_s"], BASE_URL)
    assert report_view.resolve(store, ["6.18-xfs", base]) == [other, base]
    with pytest.raises(report_view.ReportError, match="no capture with the id or label"):
        report_view.resolve(store, ["nope"])
    assert report_view.default_captures(store, base) == [base, other]


def cmd_capture(label: str, walls: list[float], inodes: int) -> tuple[dict, dict[str, bytes]]:
    m = manifest(label, workload={"kind": "cmd", "fio_version": None, "jobfile": None, "targets": [],
                                  "command": ["sh", "-c", "bulkstat {ninodes}"], "devices": ["loop0"],
                                  "sweep": {"parameters": [{"name": "ninodes", "values": ["64", "4096"]}]}})
    files: dict[str, bytes] = {}
    before = "   7       0 loop0 100 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n 253 0 vda 5 0 40 1 0 0 0 0 0 1 1\n"
    i = 0
    for n in ("64", "4096"):
        for r, wall in enumerate(walls):
            m["runs"].append({"id": f"r{i:03d}", "index": i, "repeat": r, "params": {"ninodes": n},
                              "started_at": None, "ended_at": None, "exit_code": 0,
                              "cmdline": ["sh", "-c", f"bulkstat {n}"], "artifacts": []})
            after = before.replace("loop0 100 0 800", f"loop0 {100 + int(1000 * wall)} 0 {800 + int(8000 * wall)}")
            add_file(m, files, f"runs/r{i:03d}/diskstats.before", before, "diskstats", run=i)
            m["runs"][i]["artifacts"][-1].update(phase="before", clock_ns=1_000_000_000)
            add_file(m, files, f"runs/r{i:03d}/cmd.stdout",
                     f"done\niolens-metric inodes {inodes} inodes\niolens-metric rate {inodes / wall:.1f} inodes/s\n",
                     "cmd-stdout", run=i)
            add_file(m, files, f"runs/r{i:03d}/diskstats.after", after, "diskstats", run=i)
            m["runs"][i]["artifacts"][-1].update(phase="after", clock_ns=1_000_000_000 + int(wall * 1e9))
            add_file(m, files, f"runs/r{i:03d}/rusage.json",
                     json.dumps({"wall_ns": int(wall * 1e9), "utime_s": 0.01, "stime_s": wall / 2, "exit_code": 0}),
                     "cmd-rusage", run=i)
            i += 1
    return m, files


def test_cmd_bundle_metrics(store, tmp_path):
    cid = ingest(store, tmp_path, *cmd_capture("bulkstat", [0.5, 0.4, 0.6], 50000), "c")
    m = sweep_view.sweep_matrix(store, [cid])
    assert m.metric.key == "wall_s" and m.metric.unit == "s" and m.metric.better == "lower"
    keys = {x.key: x for x in m.metrics}
    assert keys["m.rate"].unit == "inodes/s" and keys["m.rate"].better == "higher"
    assert keys["m.inodes"].better == "neutral" and keys["disk.read_iops"].source == "diskstats"
    rate = sweep_view.sweep_matrix(store, [cid], metric="m.rate").rows[0].cells["ninodes=64"]
    assert rate.mean == pytest.approx((100000 + 125000 + 83333.3) / 3, rel=1e-6)
    disk = sweep_view.sweep_matrix(store, [cid], metric="disk.read_iops").rows[0].cells["ninodes=64"]
    assert disk.values == [pytest.approx(1000.0)] * 3  # 1000 x wall reads over wall seconds
    rows = store.query("SELECT device, chosen, reads FROM cmd_disk WHERE capture_id = ? AND run_id = 'r000'",
                       [cid]).rows
    assert rows == [("loop0", True, 500)]  # vda was idle: not stored


def test_fio_log_series(store, tmp_path):
    m, files = sweep_capture("logs", 0)
    logs = (SAMPLES / "fio-log" / "fio-3.33-randwrite-16k-qd16_iops.1.log").read_text()
    for i in (0, 1):
        add_file(m, files, f"runs/r00{i}/logs/0-dio_iops.1.log", logs, "fio-log", run=i)
        m["runs"][i]["artifacts"][-1].update(log="iops", job="dio", job_index=0, clone=1, avg_msec=200)
        add_file(m, files, f"runs/r00{i}/logs/0-dio_iops.2.log", logs, "fio-log", run=i)  # a second clone
        m["runs"][i]["artifacts"][-1].update(log="iops", job="dio", job_index=0, clone=2, avg_msec=200)
    cid = ingest(store, tmp_path, m, files, "l")
    s = sweep_view.fio_log_series(store, [cid], "iops")
    assert s.logs == ["iops"] and s.ddirs == ["write"] and s.points == {cid: ["rw=randread bs=4k"]}
    series = s.series[0]
    assert series.runs == ["r000", "r001"] and series.step_ms == 200
    assert series.points[0].t_s == 0.2 and series.points[0].mean == 2 * 21940  # the clones added up
    assert series.points[0].n == 2 and series.points[0].min == series.points[0].max


def test_api_over_http(tmp_path):
    with running_server(tmp_path / "data") as api:
        ids = []
        for i, (m, files) in enumerate([sweep_capture("6.18-ext4", 0), sweep_capture("6.18-xfs", 1)]):
            path = write_bundle(tmp_path / f"{i}.iolens.tar.gz", m, files)
            with path.open("rb") as f:
                ids.append(api.post("/api/captures", files={"file": (path.name, f, "application/gzip")}).json()["id"])
        summaries = {c["id"]: c["workload_summary"] for c in api.get("/api/captures").json()}
        assert summaries[ids[0]] == "psync | sweep rw x bs, 4 points"  # not the first point's rw
        r = api.get("/api/sweep", params={"captures": ",".join(ids), "baseline": ids[0]})
        assert r.status_code == 200
        body = r.json()
        assert body["metric"]["key"] == "iops" and len(body["points"]) == 4 and body["min_repeats"] == 3
        assert body["rows"][1]["cells"]["rw=randread bs=4k"]["significant"] is True
        r = api.get("/api/report", params={"captures": ids[0], "baseline": ids[0], "related": "true",
                                           "metric": ["iops", "bw"]})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        check_mail(r.text)
        assert "IOPS / Bandwidth relative to 6.18-ext4" in r.text and r.text.count("6.18-xfs") >= 2
        # GET only reads: the permalink is the long form and no notebook is saved
        assert "/compare?" in r.text.splitlines()[1]
        assert api.get("/api/notebooks").json()["notebooks"] == []
        # POST saves the report's view as a notebook: the short permalink, the same version twice
        saved = api.post("/api/report", params={"captures": ids[0], "baseline": ids[0], "related": "true",
                                                "metric": ["iops", "bw"]})
        assert saved.status_code == 200 and "/n/" in saved.text.splitlines()[1]
        def tables(text: str) -> str:  # the report without its permalink (head and signature)
            return text.split("Captures (* = baseline)", 1)[1].split("\n--", 1)[0]
        assert tables(saved.text) == tables(r.text)
        again = api.post("/api/report", params={"captures": ids[0], "baseline": ids[0], "related": "true",
                                                "metric": ["iops", "bw"]})
        assert again.text == saved.text and len(api.get("/api/notebooks").json()["notebooks"]) == 1
        r = api.get("/api/report", params={"captures": ",".join(ids), "format": "json"})
        assert r.headers["content-type"].startswith("application/json") and r.json()["baseline"] == ids[0]
        r = api.get("/api/report", params={"captures": ",".join(ids), "metric": "nope"})
        assert r.status_code == 422 and "no metric nope" in r.json()["error"]
        r = api.get("/api/sweep", params={"captures": "0000000000000000"})
        assert r.status_code == 404 and r.json()["detail"]["missing"] == ["0000000000000000"]
        r = api.get("/api/sweep/fio-log", params={"captures": ",".join(ids), "log": "bogus"})
        assert r.status_code == 422
        r = api.get("/api/sweep/fio-log", params={"captures": ",".join(ids)})
        assert r.status_code == 200 and r.json()["series"] == []


def test_report_save_needs_the_write_token(tmp_path):
    """Saving the report's notebook is a write: with a token, POST /api/report needs it; GET never does."""
    with running_server(tmp_path / "data", token="s3cret") as api:
        ids = []
        for i, (m, files) in enumerate([sweep_capture("6.18-ext4", 0), sweep_capture("6.18-xfs", 1)]):
            path = write_bundle(tmp_path / f"{i}.iolens.tar.gz", m, files)
            with path.open("rb") as f:
                r = api.post("/api/captures", files={"file": (path.name, f, "application/gzip")},
                             headers={"Authorization": "Bearer s3cret"})
            ids.append(r.json()["id"])
        q = {"captures": ",".join(ids), "baseline": ids[0]}
        assert api.get("/api/report", params=q).status_code == 200
        refused = api.post("/api/report", params=q)
        assert refused.status_code == 401 and "access token" in refused.json()["error"]
        assert api.get("/api/notebooks").json()["notebooks"] == []
        ok = api.post("/api/report", params=q, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and "/n/" in ok.text.splitlines()[1]
        assert len(api.get("/api/notebooks").json()["notebooks"]) == 1


def test_terse_upload_is_wrapped_and_idempotent(tmp_path):
    terse = (SAMPLES / "fio-terse" / "fio-3.33-two-jobs-numjobs2-v3.terse").read_bytes()
    with running_server(tmp_path / "data") as api:
        r = api.post("/api/captures", files={"file": ("ext4-minimal.terse", terse, "text/plain")})
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["label"] == "ext4-minimal" and body["runs"] == 1
        again = api.post("/api/captures", files={"file": ("other-name.txt", terse, "text/plain")})
        assert again.status_code == 200 and again.json()["id"] == body["id"] and again.json()["created"] is False
        detail = api.get(f"/api/captures/{body['id']}").json()
        assert detail["workload"]["kind"] == "fio" and detail["workload"]["fio_version"] == "fio-3.33"
        assert sorted(a["kind"] for a in detail["artifacts"]) == ["fio-terse", "fio-terse-upload"]
        assert any("uploaded as fio terse output" in n for n in detail["notes"])
        cmp = api.get("/api/compare/fio", params={"captures": body["id"]}).json()
        assert [(g["job"], g["ddir"]) for g in cmp["groups"]] == [("r", "read"), ("w", "write")]
        bad = api.post("/api/captures", files={"file": ("x.terse", b"3;fio-3.33;cut;0;0;1;2\n" * 2, "text/plain")})
        assert bad.status_code in (400, 415, 422)


def test_terse_upload_splits_appended_runs(store, tmp_path):
    line = (SAMPLES / "fio-terse" / "fio-3.33-randrw-v3.terse").read_text()
    path = tmp_path / "three.terse"
    path.write_text(line * 3)  # fio run three times with --minimal >> file
    res = ingest_file(store, path, bundles_dir=tmp_path / "bundles", source="three.terse")
    assert res.created and res.runs == 3
    n = store.query("SELECT count(*) FROM fio_results WHERE capture_id = ?", [res.capture_id]).scalar()
    assert n == 6  # 3 runs x read and write


def test_notebook_exports_of_the_sweep_cells(store, two, tmp_path):
    from iolens import (
        __version__,  # noqa: F401 - the exports print it
        models,
    )
    from iolens.exports import context as render
    from iolens.exports import html as nb_html
    from iolens.exports import text as nb_text
    from iolens.store import notebooks
    from iolens.store.sandbox import Sandbox

    base, other = two
    m, files = sweep_capture("logs", 0)
    logs = (SAMPLES / "fio-log" / "fio-3.33-randwrite-16k-qd16_iops.1.log").read_text()
    add_file(m, files, "runs/r000/logs/0-dio_iops.1.log", logs, "fio-log", run=0)
    with_logs = ingest(store, tmp_path, m, files, "withlogs")
    doc = models.NotebookDocument(format_version=1, title="sweep exports", captures=[base, other, with_logs],
                                  baseline=base, cells=[
                                      models.ViewCell(type="view", kind="sweep", state="m=iops"),
                                      models.ViewCell(type="view", kind="sweep", state="m=clat_mean;abs=1"),
                                      models.ViewCell(type="view", kind="sweepline", state="x=bs;f=rw:randread"),
                                      models.ViewCell(type="view", kind="fiolog", state="l=iops")])
    saved = notebooks.save(store, models.NotebookCreate(document=doc))
    ctx = render.context(store, Sandbox(store), notebooks.get(store, saved.id), BASE_URL)
    text = nb_text.render(ctx)
    check_mail(text)
    assert "-- [1] Sweep matrix" in text and "+20.0% *" in text
    assert "-- [3] Sweep chart" in text and "against bs" in text
    # every chart-derived table says what it is of: the sweep chart's fixed parameters, the log's point
    flat = " ".join(text.split())
    assert "against bs, at rw=randread: fio's IOPS" in flat and "Rows: the 4 points of the sweep (2 rw x 2 bs)" in flat
    assert "mean of the 1 repeats, at rw=randread bs=4k" in flat
    assert "-- [4] fio log over time" in text and "first" in text and "could not be exported" not in text
    check_golden("sweep-cells.txt", stable(text))
    page = nb_html.render(ctx)
    assert page.count("<table") >= 4 and "tone-better" in page and "could not be exported" not in page


def test_fio_log_text_export_is_one_table_that_fits_72_columns():
    """The fio log cell's text: IO/s values bare (the heading names the unit) and the runs in the
    heading when every capture has as many, so the table is not split; a runs column when they differ."""
    from iolens import models
    from iolens.exports.sweep import FioLogExport

    def series(cid: str, label: str, runs: list[str], values: list[float]) -> models.LogSeries:
        pts = [models.LogSeriesPoint(t_s=0.1 * (i + 1), mean=v, min=v, max=v, n=len(runs)) for i, v in enumerate(values)]
        return models.LogSeries(capture=cid, label=label, point=None, runs=runs, step_ms=100, points=pts)

    d = models.FioLogSeries(log="iops", unit="IO/s", ddir="all", logs=["iops"], ddirs=["write"], points={"a": [], "b": []},
                            series=[series("a", "6.18-xfs-fallocate", ["r000", "r001"], [98_110, 150_000, 176_600]),
                                    series("b", "6.18-xfs-none", ["r000", "r001"], [181_000, 79_100, 175_900])])
    text = FioLogExport().text(None, d)
    assert all(len(line) <= 72 for line in text)
    assert "mean of the 2 repeats" in " ".join(" ".join(text).split())
    table = [line.split() for line in text if line.startswith("    6.18-")]
    assert table == [["6.18-xfs-fallocate", "98.11k", "176.6k", "98.11k", "176.6k", "0.3", "s"],
                     ["6.18-xfs-none", "181.0k", "175.9k", "79.10k", "181.0k", "0.3", "s"]]
    assert sum(1 for line in text if line.strip().startswith("capture")) == 1

    d.series[1].runs = ["r000"]
    text = FioLogExport().text(None, d)
    assert all(len(line) <= 72 for line in text)
    assert text[-4].split() == ["capture", "first", "last", "min", "max", "until", "runs"]
    assert text[-1].split()[-1] == "1" and text[-2].split()[-1] == "2"
