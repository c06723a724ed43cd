"""iolens.formats.detect: every real sample the project has (shared corpus, these format samples,
the files inside datasets/ bundles) is recognised as its kind from its content alone, and a
prefix too short to tell says so."""

from __future__ import annotations

import gzip
import json
import tarfile
from pathlib import Path

from iolens.formats.detect import KINDS, MAYBE, NO, PREFIX_BYTES, YES, recognise

SAMPLES = Path(__file__).resolve().parent / "samples"
DATASETS = Path(__file__).resolve().parents[3] / "datasets"


def _recognised(data: bytes) -> str | None:
    """As the bundle command reads: a bounded prefix first, the whole file when that cannot tell."""
    r = recognise(data[:PREFIX_BYTES], len(data) <= PREFIX_BYTES)
    if r.answer == MAYBE:
        r = recognise(data, True)
    assert r.answer in (YES, NO)
    assert not r.also, f"two detectors said yes: {r.kind} and {r.also}"
    return r.kind


def _corpus_kind(rel: str) -> str | None:
    if rel == "README.md":
        return None
    if rel.startswith("blktrace/"):
        return "blkparse" if rel.endswith(".txt") else "blktrace"
    if rel == "fio/json/fio.job":
        return "fio-jobfile"
    if rel.startswith("fio/json/"):
        return "fio-json"
    if rel.startswith("fio/logs/"):
        return "fio-hist-log" if "clat_hist" in rel else "fio-log"
    if rel.startswith("lock_stat/"):
        return "lock-stat"
    if rel.startswith("perf-sched/"):
        return "perf-sched-timehist"
    if rel.startswith("perf-script/input/"):
        return "perf-script"
    if rel.startswith("perf-script/expected-"):
        return "folded-stacks"
    raise AssertionError(f"no expected kind for corpus file {rel}: add it to the table")


def _sample_kind(rel: str) -> str | None:
    name = Path(rel).name
    if name.endswith((".py", ".md")) or name == "pingpong.timehist-s.txt":
        return None  # the -s summary has no per-event rows: not perf sched timehist's table
    if name.endswith(".perf.data"):
        return "perf-data"
    if name.endswith(".json") or "normal-json" in name:
        return "fio-json"
    if rel.startswith("monitors/"):
        return "monitor"
    if rel.startswith("trace/"):
        return {"trace-formats.txt": "tracepoint-formats", "trace.fields.jsonl.gz": "perf-trace-fields",
                "trace.script.gz": "perf-trace"}[name.split(".", 1)[1]]
    for prefix in ("fio-log", "fio-terse", "iostat", "vmstat"):
        if rel.startswith(prefix + "/"):
            return prefix
    if rel.startswith("lock_stat/"):
        return "lock-stat"
    if name.endswith(".csv"):
        return "perf-stat"
    if "timehist" in name:
        return "perf-sched-timehist"
    if rel.startswith("sched/"):
        return "perf-sched"
    if "-block-" in name:
        return "perf-block"
    if name.startswith("perf-6.1-"):
        return "perf-script"
    raise AssertionError(f"no expected kind for sample {rel}: add it to the table")


def test_every_corpus_file(corpus: Path) -> None:
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    assert len(files) > 200
    wrong = []
    for f in files:
        rel = f.relative_to(corpus).as_posix()
        got, want = _recognised(f.read_bytes()), _corpus_kind(rel)
        if got != want:
            wrong.append(f"{rel}: {got} (expected {want})")
    assert not wrong, "\n".join(wrong)


def test_every_format_sample() -> None:
    files = sorted(p for p in SAMPLES.rglob("*") if p.is_file())
    wrong = []
    for f in files:
        rel = f.relative_to(SAMPLES).as_posix()
        got, want = _recognised(f.read_bytes()), _sample_kind(rel)
        if got != want:
            wrong.append(f"{rel}: {got} (expected {want})")
    assert not wrong, "\n".join(wrong)
    seen = {_sample_kind(f.relative_to(SAMPLES).as_posix()) for f in files}
    # perf-offcpu: the offcpu dataset's recording (test_every_file_in_the_datasets)
    assert seen >= set(KINDS) - {"blktrace", "blkparse", "fio-hist-log", "folded-stacks", "fio-jobfile", "perf-offcpu"}


# the bundle's artifact kind -> what the content is (perf-stat-block and perf-stat-offcpu are perf stat
# CSV; perf-offcpu, sched_switch/sched_waking with call chains, is recognised as itself, not as
# perf-script, so a loose file is weighed by blocked time, not counted as samples)
_DATASET_KIND = {"fio-json": "fio-json", "fio-log": "fio-log", "perf-block": "perf-block", "perf-sched": "perf-sched",
                 "perf-script": "perf-script", "lock-stat": "lock-stat", "perf-stat": "perf-stat",
                 "perf-stat-block": "perf-stat", "perf-stat-offcpu": "perf-stat", "perf-offcpu": "perf-offcpu", "fio-jobfile": "fio-jobfile", "blkparse": "blkparse",
                 "monitor": "monitor", "perf-trace": "perf-trace", "perf-trace-fields": "perf-trace-fields",
                 "tracepoint-formats": "tracepoint-formats"}


def test_every_file_in_the_datasets() -> None:
    bundles = sorted(DATASETS.rglob("*.iolens.tar.gz"))
    assert bundles, "datasets/ has no bundles"
    checked = 0
    wrong = []
    for b in bundles:
        with tarfile.open(b) as t:
            m = json.load(t.extractfile("manifest.json"))
            arts = list(m.get("artifacts", [])) + [a for r in m["runs"] for a in r["artifacts"]]
            for a in arts:
                want = _DATASET_KIND.get(a["kind"])
                data = t.extractfile(a["path"]).read()
                got = _recognised(data)
                if a["kind"] in _DATASET_KIND:
                    checked += 1
                    if got != want:
                        wrong.append(f"{b.name}:{a['path']} [{a['kind']}]: {got}")
                elif got is not None and a["kind"] not in ("cmd-stdout",):
                    wrong.append(f"{b.name}:{a['path']} [{a['kind']}] taken for {got}")
    assert not wrong, "\n".join(wrong)
    assert checked > 40


def test_a_short_prefix_cannot_tell_yet() -> None:
    text = (SAMPLES / "fio-3.33-randread-normal-json.txt").read_bytes()
    cut = text[:text.index(b"\n{") + 1]  # fio's normal lines, the JSON not reached
    r = recognise(cut, complete=False)
    assert r.answer == MAYBE and r.kind is None and r.verdicts["fio-json"].answer == MAYBE
    assert recognise(cut, complete=True).answer == NO  # the whole file: no JSON, no fio-json
    assert recognise(text, complete=True).kind == "fio-json"
    vm = (SAMPLES / "vmstat" / "vmstat.txt").read_bytes()
    assert recognise(vm[:vm.index(b"\n") + 1], complete=False).verdicts["vmstat"].answer == MAYBE
    assert recognise(b"\x00\x74", complete=False).verdicts["blktrace"].answer == MAYBE


def test_gzip_is_looked_through_and_the_name_does_not_matter() -> None:
    data = gzip.compress((SAMPLES / "iostat" / "iostat-x.txt").read_bytes())
    r = recognise(data, complete=True)
    assert (r.kind, r.gzip) == ("iostat", True)
    assert recognise(b"", complete=True).reason == "the file is empty"
    r = recognise(b"just some notes\nabout a run\n", complete=True)
    assert r.kind is None and r.answer == NO and "kinds iolens recognises" in r.reason


def test_tracepoints_other_than_block_and_sched() -> None:
    text = (b"     kworker/u4:1    1234 [000]   100.000001: writeback:writeback_start: bdi 254:0: sb_dev 0:0 nr_pages=1\n"
            b"     kworker/u4:1    1234 [000]   100.000002: writeback:writeback_written: bdi 254:0: sb_dev 0:0 nr_pages=0\n")
    r = recognise(text, complete=True)
    assert r.kind == "perf-trace" and r.verdicts["perf-block"].answer == NO
