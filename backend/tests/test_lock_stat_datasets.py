"""The lock_stat datasets (datasets/lockstat-*): made again from their sources, labelled for what they
are, and read by ingest into the published figures."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from iolens.ingest import ingest_file
from iolens.store.db import Store
from iolens.views import lock_stat as view

REPO = Path(__file__).resolve().parents[2]
DATASETS = REPO / "datasets"
DOC = DATASETS / "lockstat-kernel-doc"
ZONE = DATASETS / "lockstat-zone-lock-reconstructed"


def manifest(bundle: Path) -> dict:
    with tarfile.open(bundle) as tar:
        return json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]


def test_reconstructed_dumps_are_what_the_script_writes(tmp_path):
    r = subprocess.run([sys.executable, str(DATASETS / "reconstruct-lockstat.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for kernel in ("vanilla", "revert"):
        made = (tmp_path / f"5.11-rc5-{kernel}.lock_stat.txt").read_bytes()
        assert (ZONE / f"zone-lock-5.11-rc5-{kernel}.lock_stat.txt").read_bytes() == made
        m = manifest(ZONE / f"zone-lock-5.11-rc5-{kernel}.iolens.tar.gz")
        assert "reconstructed" in m["label"] and "fio from this machine" in m["label"]
        assert m["tags"]["lock_stat"] == "reconstructed"
    assert "Reconstructed" in (ZONE / "RECIPE.md").read_text()


def test_kernel_doc_dumps_are_the_corpus_files(corpus: Path):
    for n in (1, 2):
        name = {1: "example1_denumbered", 2: "example2-subclass_denumbered"}[n]
        shipped = (DOC / f"kernel-doc-example{n}.lock_stat.txt").read_bytes()
        assert shipped == (corpus / "lock_stat" / f"linux-doc-lockstat.rst_{name}.txt").read_bytes()
        m = manifest(DOC / f"kernel-doc-example{n}.iolens.tar.gz")
        assert m["label"] == f"lock_stat from lockstat.rst example {n}, fio from this machine"
        assert [a["kind"] for a in m["artifacts"]] == ["fio-jobfile", "lock-stat"]


def test_ingested_figures_are_the_published_ones(tmp_path):
    store = Store(tmp_path / "db.duckdb")
    ids = {}
    for bundle in sorted(DATASETS.glob("lockstat-*/*.iolens.tar.gz")):
        r = ingest_file(store, bundle, bundles_dir=tmp_path / "bundles")
        ids[bundle.name.split(".iolens")[0]] = r.capture_id
    vanilla, revert = ids["zone-lock-5.11-rc5-vanilla"], ids["zone-lock-5.11-rc5-revert"]
    cmp = view.compare(store, [revert, vanilla], revert)
    assert cmp.per_op and all(a.scope == "capture" and a.ops for a in cmp.availability.values())
    (row,) = cmp.rows
    assert (row.lock_class, row.rw) == ("&zone->lock", "W")
    v, r_ = row.cells[vanilla].stat, row.cells[revert].stat
    assert v is not None and r_ is not None
    # Mel Gorman's figures: wait total 1555485.48 us vs 699661.56 us, contentions 1203433 vs 739037
    assert (v.wait_total_ns, v.contentions, v.wait_max_ns) == (1_555_485_480, 1_203_433, 120_550)
    assert (r_.wait_total_ns, r_.contentions, r_.wait_max_ns) == (699_661_560, 739_037, 66_120)
    assert row.cells[vanilla].status == "changed" and row.cells[vanilla].delta_wait > 0
    pts = view.class_points(store, vanilla, "&zone->lock")
    assert [p.count for p in pts.points if p.kind == "contention"] == [1097346, 61903, 36529, 7655]

    doc = view.compare(store, [ids["kernel-doc-example1"], ids["kernel-doc-example2"]])
    statuses = {(r.lock_class, r.rw): r.cells[ids["kernel-doc-example2"]].status for r in doc.rows}
    assert statuses == {("&mm->mmap_sem", "W"): "vanished", ("&mm->mmap_sem", "R"): "vanished",
                        ("unix_table_lock", "W"): "vanished", ("&rq->lock", "W"): "appeared",
                        ("&rq->lock/1", "W"): "appeared"}


@pytest.mark.parametrize("folder", ["lockstat-kernel-doc", "lockstat-zone-lock-reconstructed"])
def test_recipes_name_their_script(folder):
    text = (DATASETS / folder / "RECIPE.md").read_text()
    assert "make-lockstat.sh" in text and "fio" in text
