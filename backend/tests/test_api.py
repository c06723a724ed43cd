"""The HTTP API, over real HTTP (uvicorn on loopback) and a real DuckDB file."""

from __future__ import annotations

import io
import json
import statistics
import tarfile
from pathlib import Path

import duckdb
import pytest
from bundles import add_file, fio_capture, manifest, write_bundle, write_tar
from server import running_server

from iolens.bundle import Limits

TABLES = ("captures", "host_facts", "runs", "artifacts", "fio_jobs", "fio_clat_percentiles", "fio_clat_bins",
          "fio_results")


@pytest.fixture()
def api(tmp_path):
    with running_server(tmp_path / "data", limits=Limits(max_member_bytes=1 << 20)) as client:
        client.data_dir = tmp_path / "data"  # type: ignore[attr-defined]
        yield client


def upload(client, path: Path, name: str | None = None):
    with path.open("rb") as f:
        return client.post("/api/captures", files={"file": (name or path.name, f, "application/gzip")})


def snapshot(client) -> dict:
    """Row counts of every table and the kept bundle files, read through the API's own store."""
    return {"health": client.get("/api/health").json()["captures"],
            "list": client.get("/api/captures").json(),
            "bundles": sorted(p.name for p in (client.data_dir / "bundles").glob("*"))
            if (client.data_dir / "bundles").exists() else []}


def two_captures(tmp_path: Path) -> tuple[Path, Path]:
    base, files = fio_capture("6.18-ext4", [
        [{"name": "rw4k", "iops": 1000, "clat_mean": 100_000, "p99": 200_000, "sys": 10}],
        [{"name": "rw4k", "iops": 1100, "clat_mean": 90_000, "p99": 190_000, "sys": 11}],
        [{"name": "rw4k", "iops": 900, "clat_mean": 110_000, "p99": 210_000, "sys": 9}],
    ], tags={"fs": "ext4"})
    other, ofiles = fio_capture("6.18-xfs", [
        [{"name": "rw4k", "iops": 1500, "clat_mean": 70_000, "p99": 150_000, "sys": 12}],
        [{"name": "rw4k", "iops": 1600, "clat_mean": 65_000, "p99": 140_000, "sys": 13}],
    ], tags={"fs": "xfs"})
    other["host"]["targets"][0]["filesystem"]["type"] = "xfs"
    return (write_bundle(tmp_path / "a.iolens.tar.gz", base, files),
            write_bundle(tmp_path / "b.iolens.tar.gz", other, ofiles))


def test_health_and_openapi(api):
    assert api.get("/api/health").json() == {"status": "ok", "version": "0.1.0", "captures": 0,
                                             "writes_need_token": False}
    schema = api.get("/openapi.json").json()
    assert {"/api/captures", "/api/compare/fio", "/api/health"} <= set(schema["paths"])


def test_upload_list_detail_and_dedup(api, tmp_path):
    a, _ = two_captures(tmp_path)
    r = upload(api, a)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["label"] == "6.18-ext4" and body["created"] is True and body["runs"] == 3
    cid = body["id"]
    assert len(cid) == 16

    again = upload(api, a, name="renamed.tar.gz")
    assert again.status_code == 200 and again.json() == {**body, "created": False, "warnings": []}

    listed = api.get("/api/captures").json()
    assert [c["id"] for c in listed] == [cid]
    c = listed[0]
    assert c["kernel"] == "6.18.0-test" and c["hostname"] == "testhost"
    assert c["runs"] == 3 and c["repeats"] == 3 and c["tags"] == {"fs": "ext4"}
    assert c["workload_summary"].startswith("randwrite psync bs=4k")

    detail = api.get(f"/api/captures/{cid}").json()
    assert {"key": "targets.0.filesystem.type", "value": "ext4"} in detail["host"]
    assert [r["id"] for r in detail["runs_detail"]] == ["r000", "r001", "r002"]
    assert len(detail["artifacts"]) == 3

    kept = api.get(f"/api/captures/{cid}/bundle")
    assert kept.status_code == 200 and kept.content == a.read_bytes()
    assert api.get("/api/captures/0000000000000000").status_code == 404


def test_compare_statistics_and_host_diff(api, tmp_path):
    a, b = two_captures(tmp_path)
    ida = upload(api, a).json()["id"]
    idb = upload(api, b).json()["id"]
    r = api.get("/api/compare/fio", params={"captures": f"{ida},{idb}", "baseline": ida})
    assert r.status_code == 200, r.text
    cmp = r.json()
    assert [c["label"] for c in cmp["captures"]] == ["6.18-ext4", "6.18-xfs"]
    assert cmp["baseline"] == ida
    diff = {d["key"]: d["values"] for d in cmp["host_diff"]}
    assert diff["targets.0.filesystem.type"] == {ida: "ext4", idb: "xfs"}
    assert "kernel.release" not in diff

    (group,) = cmp["groups"]
    assert (group["job"], group["ddir"]) == ("rw4k", "write")
    rows = {m["metric"]: m for m in group["metrics"]}
    iops_a, iops_b = rows["iops"]["cells"][ida], rows["iops"]["cells"][idb]
    assert iops_a["n"] == 3 and iops_a["values"] == [1000, 1100, 900] and iops_a["runs"] == ["r000", "r001", "r002"]
    assert iops_a["mean"] == pytest.approx(1000) and iops_a["stddev"] == pytest.approx(statistics.stdev([1000, 1100, 900]))
    assert iops_a["ratio"] is None
    assert iops_b["mean"] == pytest.approx(1550) and iops_b["ratio"] == pytest.approx(1.55)
    assert rows["iops"]["unit"] == "IO/s" and rows["iops"]["better"] == "higher"
    assert rows["clat_p99"]["cells"][idb]["ratio"] == pytest.approx(145_000 / 200_000)
    assert rows["clat_p99"]["better"] == "lower" and rows["clat_p99"]["unit"] == "ns"
    assert cmp["fio_commands"][ida][0] == "fio"
    # CPU time per I/O: (usr 1 % + sys 10 %) of a CPU at 1000 IO/s = 110 us per I/O in run r000
    assert rows["cpu_per_io"]["cells"][ida]["values"][0] == pytest.approx(0.11 * 1e9 / 1000)
    assert rows["usr_cpu"]["better"] == "neutral" and rows["cpu_per_io"]["better"] == "lower"

    # the baseline may be any of the captures; order of columns is the order asked for
    swapped = api.get("/api/compare/fio", params={"captures": f"{ida},{idb}", "baseline": idb}).json()
    cells = swapped["groups"][0]["metrics"][0]["cells"]
    assert cells[ida]["ratio"] == pytest.approx(1000 / 1550) and cells[idb]["ratio"] is None

    missing = api.get("/api/compare/fio", params={"captures": f"{ida},ffffffffffffffff"})
    assert missing.status_code == 404 and missing.json()["detail"] == {"missing": ["ffffffffffffffff"]}
    assert api.get("/api/compare/fio").status_code == 422


def test_numjobs_entries_are_merged_with_percentiles_from_bins(api, tmp_path):
    # numjobs=2 without group_reporting: fio prints two entries with one name. IOPS add up; the
    # percentiles come from the merged histogram (fio's rule), not from either job.
    m, files = fio_capture("merged", [[
        {"name": "j", "iops": 100, "clat_mean": 1000, "p50": 1, "p99": 1, "bins": {1000: 600, 5000: 400}},
        {"name": "j", "iops": 300, "clat_mean": 3000, "p50": 1, "p99": 1, "bins": {2000: 900, 9000: 100}},
    ]])
    cid = upload(api, write_bundle(tmp_path / "m.tar.gz", m, files)).json()["id"]
    rows = {r["metric"]: r["cells"][cid] for r in api.get(f"/api/compare/fio?captures={cid}").json()["groups"][0]["metrics"]}
    assert rows["iops"]["mean"] == pytest.approx(400)
    # weighted by total_ios (1000 and 3000): (1000*1000 + 3000*3000) / 4000
    assert rows["clat_mean"]["mean"] == pytest.approx(2500)
    # merged bins 1000:600, 2000:900, 5000:400, 9000:100 -> 50% of 2000 reached at 2000; 99% at 9000
    assert rows["clat_p50"]["mean"] == 2000
    assert rows["clat_p99"]["mean"] == 9000


def test_cpu_per_io_counts_a_mixed_job_once(api, tmp_path):
    # fio reports one usr/sys CPU per job; a randrw job has read and write rows that share it.
    m, files = fio_capture("mixed", [[{"name": "rw", "ddir": "read", "iops": 300, "usr": 2, "sys": 8}]])
    job = json.loads(files["runs/r000/fio.json"])
    job["jobs"][0]["write"] = dict(job["jobs"][0]["read"], iops=700.0)
    m["runs"][0]["artifacts"] = []
    add_file(m, files, "runs/r000/fio.json", json.dumps(job), "fio-json", run=0)
    cid = upload(api, write_bundle(tmp_path / "mixed.tar.gz", m, files)).json()["id"]
    groups = api.get(f"/api/compare/fio?captures={cid}").json()["groups"]
    assert [g["ddir"] for g in groups] == ["read", "write"]
    for g in groups:
        cpu = next(r for r in g["metrics"] if r["metric"] == "cpu_per_io")["cells"][cid]["mean"]
        assert cpu == pytest.approx(0.10 * 1e9 / 1000)  # 10 % of a CPU over 300 + 700 IO/s


def _bad_bundles(tmp_path: Path) -> dict[str, tuple[Path, int, str]]:
    good, files = fio_capture("bad", [[{"iops": 10}]])
    out: dict[str, tuple[Path, int, str]] = {}

    p = tmp_path / "not-a-tar.tar.gz"
    p.write_bytes(b"this is not an archive\n" * 10)
    out["not a tar"] = (p, 415, "not a tar archive")

    out["missing manifest"] = (write_tar(tmp_path / "nomanifest.tar.gz", files), 400, "no manifest.json")

    v2 = json.loads(json.dumps(good))
    v2["format_version"] = 2
    out["unknown version"] = (write_bundle(tmp_path / "v2.tar.gz", v2, files), 422, "format version 2 is not supported")

    out["outside root"] = (write_tar(tmp_path / "escape.tar.gz", {
        "manifest.json": json.dumps(good).encode(), **files, "../evil": b"x"}), 400, "outside the archive root")

    link = tarfile.TarInfo("runs/link")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    out["symlink"] = (write_tar(tmp_path / "link.tar.gz", {"manifest.json": json.dumps(good).encode(), **files},
                                extra=[link]), 400, "is a link")

    big = json.loads(json.dumps(good))
    big_files = dict(files)
    add_file(big, big_files, "huge.bin", b"\0" * ((1 << 20) + 1), "stdout")
    out["member too large"] = (write_bundle(tmp_path / "big.tar.gz", big, big_files), 413, "larger than the limit")

    shape = json.loads(json.dumps(good))
    shape["runs"][0]["artifacts"][0]["size"] = "twelve"
    out["wrong JSON shape"] = (write_bundle(tmp_path / "shape.tar.gz", shape, files), 422, "runs[0].artifacts[0].size")

    out["manifest not JSON"] = (write_tar(tmp_path / "notjson.tar.gz", {"manifest.json": b"{\n  \"format\": oops\n}"}),
                                400, "not valid JSON")

    tampered = dict(files)
    tampered["runs/r000/fio.json"] = tampered["runs/r000/fio.json"].replace(b"10.0", b"99.0")
    out["checksum"] = (write_bundle(tmp_path / "sum.tar.gz", good, tampered), 422, "does not match")

    trunc = write_bundle(tmp_path / "full.tar.gz", good, files)
    cut = tmp_path / "truncated.tar.gz"
    cut.write_bytes(trunc.read_bytes()[: trunc.stat().st_size // 2])
    out["truncated"] = (cut, 400, "truncated or corrupt")

    badfio = dict(files)
    badfio["runs/r000/fio.json"] = b'{\n  "fio version": "fio-3.33",\n  "jobs": [\n'
    bm = manifest("badfio")
    bm["runs"] = [dict(good["runs"][0], artifacts=[])]
    add_file(bm, badfio, "runs/r000/fio.json", badfio["runs/r000/fio.json"], "fio-json", run=0)
    out["bad fio json"] = (write_bundle(tmp_path / "badfio.tar.gz", bm, badfio), 422, "runs/r000/fio.json")
    return out


def test_bad_bundles_are_refused_and_change_nothing(api, tmp_path):
    a, _ = two_captures(tmp_path)
    upload(api, a)
    before = snapshot(api)
    for name, (path, status, needle) in _bad_bundles(tmp_path).items():
        r = upload(api, path)
        assert r.status_code == status, (name, r.status_code, r.text)
        body = r.json()
        assert set(body) == {"error", "detail"}, name
        assert needle in json.dumps(body), (name, body)
        assert snapshot(api) == before, name


def test_bad_fio_json_names_file_and_line(api, tmp_path):
    path, _, _ = _bad_bundles(tmp_path)["bad fio json"]
    body = upload(api, path).json()
    assert body["detail"]["file"] == "runs/r000/fio.json"
    assert isinstance(body["detail"]["line"], int)


def test_empty_and_missing_upload(api):
    assert api.post("/api/captures", files={"file": ("e.tar.gz", io.BytesIO(b""), "application/gzip")}).status_code == 400
    r = api.post("/api/captures")
    assert r.status_code == 422 and r.json()["error"].startswith("invalid request")


def test_database_file_is_real_duckdb(tmp_path):
    a, _ = two_captures(tmp_path)
    data = tmp_path / "data"
    with running_server(data) as client:
        upload(client, a)
    con = duckdb.connect(str(data / "iolens.duckdb"), read_only=True)
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    con.close()
    assert counts["captures"] == 1 and counts["runs"] == 3 and counts["fio_results"] == 3
    assert counts["fio_jobs"] == 3 and counts["fio_clat_percentiles"] == 9


DATASETS = Path(__file__).resolve().parents[2] / "datasets"


def test_capture_detail_lists_each_runs_probes_with_counts_and_cost(tmp_path):
    """The real block-vda dataset (perf lost half of r000's completions): each run's probe says what
    it recorded against perf stat's count and what perf cost, read from the manifest."""
    bundle = next((DATASETS / "block-vda").glob("*.iolens.tar.gz"))
    with tarfile.open(bundle) as tar:
        manifest_runs = json.load(tar.extractfile("manifest.json"))["runs"]  # type: ignore[arg-type]
    with running_server(tmp_path / "data") as client:
        cid = upload(client, bundle).json()["id"]
        runs = client.get(f"/api/captures/{cid}").json()["runs_detail"]
    assert [r["id"] for r in runs] == ["r000", "r001"]
    for run, raw in zip(runs, manifest_runs):
        (probe,) = run["probes"]
        src = raw["probes"]["block"]
        assert probe["probe"] == "block" and probe["source"] == "perf"
        assert probe["perf_cpu_pct"] == src["perf_cpu_pct"] and probe["perf_cpu_s"] == src["perf_cpu_s"]
        assert probe["data_bytes"] == src["perf_data_bytes"] and probe["artifact_bytes"] == src["bytes"]
        assert probe["events"] == src["samples"] and probe["size_cap_mb"] == src["size_cap_mb"]
        assert probe["size_cap_reached"] is False
        counts = {c["event"]: (c["recorded"], c["counted"]) for c in probe["counts"]}
        assert counts["block:block_rq_complete"] == (src["recorded"]["block:block_rq_complete"],
                                                     src["counted"]["block:block_rq_complete"])
        assert all(":" in e and (r or c) for e, (r, c) in counts.items())  # no empty tracepoints
    assert {c["event"]: c for c in runs[0]["probes"][0]["counts"]}["block:block_rq_complete"]["recorded"] == 8682
    assert runs[0]["probes"][0]["lost"] == ["block:block_rq_complete"]


def test_probes_of_a_hand_made_manifest_are_read_defensively(tmp_path):
    """runs[].probes is free-form: strings where numbers belong, a list for an object, a `workload`
    entry (not a recording) give nulls and omissions, never an error."""
    m, files = fio_capture("probes", [[{"name": "w", "iops": 1000}]])
    m["runs"][0]["probes"] = {"workload": {"pid": 1}, "block": {"perf_cpu_pct": "10", "samples": 5, "recorded": [1],
                                                              "counted": {"block:block_rq_issue": 7}, "lost": "x",
                                                              "size_cap_reached": "yes"},
                              "stacks": {"perf_cpu_s": 0.5}}
    with running_server(tmp_path / "data") as client:
        cid = upload(client, write_bundle(tmp_path / "p.iolens.tar.gz", m, files)).json()["id"]
        (run,) = client.get(f"/api/captures/{cid}").json()["runs_detail"]
    assert [p["probe"] for p in run["probes"]] == ["stacks", "block"]
    stacks, block = run["probes"]
    assert stacks["perf_cpu_s"] == 0.5 and stacks["counts"] == [] and stacks["source"] is None
    assert block["perf_cpu_pct"] is None and block["events"] == 5 and block["lost"] == []
    assert block["size_cap_reached"] is False
    assert block["counts"] == [{"event": "block:block_rq_issue", "recorded": None, "counted": 7}]
