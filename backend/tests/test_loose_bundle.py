"""Bundles from loose files (`iolens bundle`, POST /api/captures/loose): recognised by content,
written with what they know and say what they do not, ingested, and shown in the cells (the flame
graph and its difference on folded stacks, the block cell on blktrace's binary files). Real inputs:
tests/formats/samples and the shared corpus."""

from __future__ import annotations

import gzip
import json
import tarfile
from pathlib import Path

import pytest
from server import running_server

from iolens.cli.main import main
from iolens.formats.perf_script import fold_text, format_folded
from iolens.ingest import loose

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples"


def _manifest(bundle: Path) -> dict:
    with tarfile.open(bundle) as t:
        return json.load(t.extractfile("manifest.json"))


def _folded(tmp: Path, name: str) -> Path:
    """The folded stacks of a real perf script sample, as inferno-collapse-perf prints them."""
    text = gzip.decompress((SAMPLES / name).read_bytes()).decode()
    out = tmp / (name.replace(".txt.gz", ".folded"))
    out.write_text(format_folded(fold_text(text)))
    return out


def test_cli_bundle_recognises_places_and_says_what_it_does_not_know(tmp_path, capsys):
    files = [SAMPLES / "fio-3.33-dio-4k-r0.json", SAMPLES / "fio-3.33-dio-4k-r1.json",
             SAMPLES / "perf-6.1-fio-dio-4k-r0.txt.gz", SAMPLES / "perf-6.1-fio-dio-4k-r1.txt.gz",
             SAMPLES / "iostat" / "iostat-x.txt"]
    out = tmp_path / "a.iolens.tar.gz"
    code = main(["bundle", "--label", "dio-4k", "--kernel", "6.18.44", "--tag", "fs=ext4",
                 *map(str, files), "-o", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "fio-3.33-dio-4k-r1.json  fio-json  r001" in " ".join(printed.out.split("  ")) or "r001" in printed.out
    m = _manifest(out)
    assert m["label"] == "dio-4k" and m["tags"] == {"fs": "ext4"} and m["host"]["kernel"]["release"] == "6.18.44"
    assert [[a["kind"] for a in r["artifacts"]] for r in m["runs"]] == [["fio-json", "perf-script"], ["fio-json", "perf-script"]]
    assert [a["kind"] for a in m["artifacts"]] == ["iostat"]
    assert any("no host facts" in n for n in m["notes"])
    assert any("--kernel 6.18.44 given; 6.18.44-fc-v669 printed by iostat" in n for n in m["notes"])
    assert m["workload"]["fio_version"] == "fio-3.33"
    assert m["runs"][0]["artifacts"][1]["source_file"] == "perf-6.1-fio-dio-4k-r0.txt.gz"


@pytest.mark.parametrize("make, message", [
    (lambda d: (d / "notes.txt", b"some notes about the run\n"), "notes.txt: not a file iolens reads"),
    (lambda d: (d / "cut.blktrace.0", b""), "cut.blktrace.0"),
])
def test_cli_refuses_with_the_file_named_and_writes_nothing(tmp_path, capsys, make, message, corpus):
    path, data = make(tmp_path)
    if path.name.startswith("cut"):
        data = (corpus / "blktrace" / "sample.blktrace.0").read_bytes()[:-7]
    path.write_bytes(data)
    out = tmp_path / "x.iolens.tar.gz"
    code = main(["bundle", "--label", "x", str(SAMPLES / "fio-3.33-dio-4k-r0.json"), str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    if path.name.startswith("cut"):
        assert "truncated" in err and "record 6743" in err
    assert not out.exists() and not list(tmp_path.glob(".iolens-bundle-*"))


def test_perf_data_without_perf_says_so(tmp_path):
    data = (SAMPLES / "perf-6.1-dd-cpu-clock.perf.data").read_bytes()
    with pytest.raises(loose.LooseError) as exc:
        loose.plan([("p.data", data)], "x", find_perf=False)
    assert exc.value.problems[0].startswith("p.data: a perf.data file (binary), and perf is not installed here")
    assert "perf script -F +pid -i p.data" in exc.value.problems[0]


def test_perf_data_with_the_local_perf(tmp_path):
    perf = loose.shutil.which("perf")
    if perf is None:
        pytest.skip("perf is not installed here")
    p = loose.plan([("p.data", (SAMPLES / "perf-6.1-dd-cpu-clock.perf.data").read_bytes())], "x")
    [f] = p.files
    assert f.kind == "perf-script" and f.converted["command"] == ["perf", "script", "-F", "+pid", "-i", "p.data"]
    assert gzip.decompress(f.data).startswith(b"dd ") and f.path == "runs/r000/p.data.script.gz"


def test_ambiguous_placement_is_refused():
    fio = [(f"r{i}.json", (SAMPLES / f"fio-3.33-dio-4k-r{i}.json").read_bytes()) for i in range(2)]
    stacks = [("s.txt.gz", (SAMPLES / "perf-6.1-fio-dio-4k-r0.txt.gz").read_bytes())]
    with pytest.raises(loose.LooseError) as exc:
        loose.plan(fio + stacks, "x")
    assert "s.txt.gz: 1 perf-script files for 2 run(s)" in exc.value.problems[0]


@pytest.fixture(scope="module")
def served(tmp_path_factory, corpus):
    tmp = tmp_path_factory.mktemp("loose")
    a = tmp / "a.iolens.tar.gz"
    b = tmp / "b.iolens.tar.gz"
    c = tmp / "c.iolens.tar.gz"
    assert main(["bundle", "--label", "dio-4k perf", str(SAMPLES / "fio-3.33-dio-4k-r0.json"),
                 str(SAMPLES / "fio-3.33-dio-4k-r1.json"), str(SAMPLES / "perf-6.1-fio-dio-4k-r0.txt.gz"),
                 str(SAMPLES / "perf-6.1-fio-dio-4k-r1.txt.gz"), "-o", str(a)]) == 0
    assert main(["bundle", "--label", "dio-16k folded", "--event", "cpu-clock", str(SAMPLES / "fio-3.33-dio-16k-r0.json"),
                 str(SAMPLES / "fio-3.33-dio-16k-r1.json"), str(_folded(tmp, "perf-6.1-fio-dio-16k-r0.txt.gz")),
                 str(_folded(tmp, "perf-6.1-fio-dio-16k-r1.txt.gz")), "-o", str(b)]) == 0
    assert main(["bundle", "--label", "nvme blktrace", str(corpus / "blktrace" / "sample.blktrace.0"), "-o", str(c)]) == 0
    with running_server(tmp / "data") as client:
        ids = {}
        for k, p in (("a", a), ("b", b), ("c", c)):
            r = client.post("/api/captures", files={"file": (p.name, p.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            ids[k] = r.json()["id"]
        yield client, ids, tmp


def test_folded_stacks_in_the_flame_cell_and_its_difference(served):
    client, ids, tmp = served
    text = gzip.decompress((SAMPLES / "perf-6.1-fio-dio-16k-r0.txt.gz").read_bytes()).decode()
    want = fold_text(text)
    got = client.get(f"/api/captures/{ids['b']}/flame/folded?runs=r000")
    assert got.status_code == 200, got.text
    lines = dict(ln.rsplit(" ", 1) for ln in got.text.splitlines() if ln)
    assert {k: int(v) for k, v in lines.items()} == want
    tree = client.get(f"/api/captures/{ids['b']}/flame").json()
    assert tree["total_weight"] == sum(want.values()) + sum(fold_text(gzip.decompress(
        (SAMPLES / "perf-6.1-fio-dio-16k-r1.txt.gz").read_bytes()).decode()).values())
    diff = client.get(f"/api/compare/flame?a={ids['a']}&b={ids['b']}")
    assert diff.status_code == 200, diff.text
    d = diff.json()
    # the dio-4k perf script stacks against the dio-16k folded stacks, same event and unit
    assert d["weight_unit"] == "ns" and d["a"]["total_weight"] > 0 and d["b"]["total_weight"] == tree["total_weight"]
    assert d["functions"] and not d["noise_available"] and "has two runs" in d["noise_reason"]   # two repeats: too few


def test_blktrace_binary_in_the_block_cell(served):
    client, ids, _ = served
    runs = client.get("/api/block/runs", params={"captures": ids["c"]}).json()
    [run] = runs["runs"] if isinstance(runs, dict) else runs
    assert run["kind"] == "blktrace" and run["ios"] == 963 and run["matched"] == 963 and not run["events_lost"]
    detail = client.get(f"/api/captures/{ids['c']}").json()
    assert detail["workload_kind"] == "cmd" or detail.get("workload", {}).get("kind") == "cmd"


def test_library_upload_of_loose_files_is_the_same_code(served, corpus):
    client, ids, _ = served
    files = [SAMPLES / "fio-3.33-dio-4k-r0.json", corpus / "blktrace" / "sample.blktrace.0", SAMPLES / "vmstat" / "vmstat.txt"]
    pv = client.post("/api/loose/preview", files=[("files", (f.name, f.read_bytes()[:65536])) for f in files],
                     data={"sizes": json.dumps([f.stat().st_size for f in files])})
    assert pv.status_code == 200, pv.text
    body = pv.json()
    assert [(f["file"], f["kind"], f["run"]) for f in body["files"]] == [
        ("fio-3.33-dio-4k-r0.json", "fio-json", "r000"), ("sample.blktrace.0", "blktrace", "r000"),
        ("vmstat.txt", "vmstat", "r000")]
    assert body["runs"] == 1 and not body["problems"] and any("no host facts" in n for n in body["notes"])
    up = client.post("/api/captures/loose", files=[("files", (f.name, f.read_bytes())) for f in files],
                     data={"label": "from the page", "kernel": "6.1.0", "tags": json.dumps({"fs": "xfs"})})
    assert up.status_code == 201, up.text
    cap = up.json()
    assert cap["label"] == "from the page" and cap["runs"] == 1
    bad = client.post("/api/captures/loose", files=[("files", ("notes.txt", b"hello\n"))], data={"label": "x"})
    assert bad.status_code == 422 and "notes.txt: not a file iolens reads" in bad.json()["error"]
    assert bad.json()["detail"]["problems"][0].startswith("notes.txt")


def test_iostat_and_vmstat_files_in_the_monitors_cell(served):
    client, _, tmp = served
    out = tmp / "mon.iolens.tar.gz"
    assert main(["bundle", "--label", "iostat and vmstat", str(SAMPLES / "fio-3.33-dio-4k-r0.json"),
                 str(SAMPLES / "iostat" / "iostat-x.txt"), str(SAMPLES / "vmstat" / "vmstat.txt"), "-o", str(out)]) == 0
    r = client.post("/api/captures", files={"file": (out.name, out.read_bytes(), "application/gzip")})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    io = {row["key"]: row for row in client.get("/api/monitors", params={"captures": cid, "source": "iostat",
                                                                           "limit": 500}).json()["rows"]}
    # iostat-x.txt: reports 2 and 3 (the first is since boot): vda w/s 9552.00 and 13448.51
    assert io["vda.w/s"]["cells"][cid]["value"] == pytest.approx((9552.00 + 13448.51) / 2)
    assert io["vda.w/s"]["unit"] == "/s" and io["cpu.%system"]["unit"] == "%"
    vm = {row["key"]: row for row in client.get("/api/monitors", params={"captures": cid, "source": "vmstat-cmd",
                                                                           "limit": 500}).json()["rows"]}
    assert vm["bo"]["cells"][cid]["value"] == pytest.approx((69804 + 54300) / 2) and vm["bo"]["unit"] == "blocks/s"


def test_loose_offcpu_recording_is_weighed_by_blocked_time(tmp_path):
    """A stand-alone perf-offcpu file (sched_switch/sched_waking with call chains; the real
    datasets/offcpu-xfs-dio recording) is recognised as perf-offcpu, not perf-script, and goes
    through the off-CPU ingest: per-thread blocked time the same as from the collector's bundle,
    the flame graph's 'offcpu' event weighed in ns, no sampled-stacks event."""
    ds = Path(__file__).resolve().parents[2] / "datasets" / "offcpu-xfs-dio" / "6.18.44-fc-v669-offcpu-xfs-dio.iolens.tar.gz"
    with tarfile.open(ds) as t:
        fio = t.extractfile("runs/r000/fio.json").read()
        script = t.extractfile("runs/r000/offcpu.script.gz").read()
    p = loose.plan([("fio.json", fio), ("offcpu.script.gz", script)], "loose off-CPU", find_perf=False)
    assert [(f.name, f.kind, f.run) for f in p.files] == [("fio.json", "fio-json", 0), ("offcpu.script.gz", "perf-offcpu", 0)]
    out = tmp_path / "loose.iolens.tar.gz"
    loose.write(p, out)
    assert [a["kind"] for a in _manifest(out)["runs"][0]["artifacts"]] == ["fio-json", "perf-offcpu"]
    with running_server(tmp_path / "data") as client:
        ids = []
        for b in (out, ds):
            r = client.post("/api/captures", files={"file": (b.name, b.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        got, want = ({t["tid"]: t["blocked_ns"] for t in client.get(f"/api/captures/{c}/offcpu", params={"limit": 5000})
                      .json()["tasks"]} for c in ids)
        assert got and got == want
        events = {e["event"] for e in client.get(f"/api/captures/{ids[0]}/flame").json()["events"]}
        assert events == {"offcpu", "wakeup"}
        fl = client.get(f"/api/captures/{ids[0]}/flame", params={"event": "offcpu"}).json()
        assert fl["weight_unit"] == "ns" and fl["total_weight"] == sum(got.values())
