"""Lock classes linked to perf call stacks over real HTTP (views/lock_stacks.py): a bundle with both
per-run lock_stat dumps and the real perf script text of datasets/stacks-xfs, a capture with only
lock_stat, one with only stacks (datasets/stacks-ext4) and one with neither. Every count is checked
against a count made here from the perf script text folded by the Python reference folder
(formats/perf_script.py, not the native ingest, not SQL)."""

from __future__ import annotations

import gzip
import re
import tarfile
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle
from lockstat_dumps import dump, points, row
from notebook_helpers import check_mail_safe, save
from server import running_server

from iolens.formats.perf_script import fold_text, sample_table

REPO = Path(__file__).resolve().parents[2]
XFS = next((REPO / "datasets" / "stacks-xfs").glob("*.iolens.tar.gz"))
EXT4 = next((REPO / "datasets" / "stacks-ext4").glob("*.iolens.tar.gz"))

ILOCK = "&xfs_nondir_ilock_class"
DATA_SEM = "&ei->i_data_sem"
WORK = "(work_completion)(&iomap_dio_complete_work)"

# Written out here on purpose (not imported from the view): what the test counts as the same
# function and as a lock slow path.
CLONE = re.compile(r"((\.(isra|constprop|part|cold|llvm|lto_priv)(\.[0-9]+)*)*)(_\[[kij]\])?$")
SLOW = re.compile(r"native_queued_spin_lock_slowpath|queued_spin_lock_slowpath|__pv_queued_spin_lock_slowpath"
                  r"|queued_(read|write)_lock_slowpath|__mutex_lock.*|mutex_spin_on_owner|osq_lock"
                  r"|rwsem_down_.*_slowpath|rwsem_optimistic_spin|rwsem_spin_on_owner"
                  r"|__down|__down_(common|interruptible|killable|timeout)"
                  r"|(__)?rt_mutex_slowlock.*|rtlock_slowlock.*|rt_spin_lock_slowlock.*|percpu_rwsem_wait|__percpu_down_read")


def perf_texts(bundle: Path) -> list[bytes]:
    """The gzip'd perf script text of each run of a dataset bundle, in run order."""
    with tarfile.open(bundle) as tar:
        names = sorted(n for n in tar.getnames() if n.endswith("perf.script.gz"))
        return [tar.extractfile(n).read() for n in names]  # type: ignore[union-attr]


def with_stacks(m: dict, files: dict[str, bytes], texts: list[bytes]) -> None:
    for i, t in enumerate(texts):
        add_file(m, files, f"runs/r{i:03d}/perf.script.gz", t, "perf-script", run=i)


ILOCK_DUMP = dump(
    row(ILOCK, 75, 900.0, suffix="-W")
    + row(ILOCK, 3, 20.0, suffix="-R")
    + points(ILOCK,
             [(50, "xfs_trans_alloc_inode+0x7e/0x1c0 [xfs]"), (20, "xfs_ilock+0x9d/0x110 [xfs]"),
              (5, "xfs_btree_readahead_fsblock+0x44/0x90 [xfs]"), (2, "0xffffffffc0a1b2c3")],
             [(30, "xfs_iomap_write_unwritten+0x1a2/0x3a0 [xfs]"), (2, "xfs_no_such_function+0x1/0x20 [xfs]")]),
    row(DATA_SEM, 10, 50.0) + points(DATA_SEM, [(10, "ext4_map_blocks+0x12c/0x5f0")],
                                     [(10, "ext4_da_get_block_prep+0x3e/0x4a0")]),
    row(WORK, 4, 8.0) + points(WORK, [(4, "__flush_work+0x8a/0x2e0")], []),
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lockstacks")
    xfs, ext4 = perf_texts(XFS), perf_texts(EXT4)
    with running_server(tmp / "data") as client:
        def up(name: str, m: dict, files: dict[str, bytes]) -> str:
            path = write_bundle(tmp / f"{name}.iolens.tar.gz", m, files)
            r = client.post("/api/captures", files={"file": (path.name, path.read_bytes(), "application/gzip")})
            assert r.status_code == 201, r.text
            return r.json()["id"]

        m, files = fio_capture("both", [[{"iops": 1000}] for _ in xfs])
        for i in range(2):   # lock_stat dumps of the first two runs (the stacks of every run)
            add_file(m, files, f"runs/r{i:03d}/lock_stat.txt", ILOCK_DUMP, "lock-stat", run=i)
        with_stacks(m, files, xfs)
        both = up("both", m, files)

        m, files = fio_capture("lockonly", [[{"iops": 1000}]])
        add_file(m, files, "runs/r000/lock_stat.txt", dump(
            row(ILOCK, 9, 90.0, suffix="-W") + row(ILOCK, 0, 0.0, suffix="-R")
            + points(ILOCK, [(9, "xfs_trans_alloc_inode+0x7e/0x1c0 [xfs]")],
                     [(9, "xfs_ilock_iocb_for_write+0x2c/0x120 [xfs]")])), "lock-stat", run=0)
        lockonly = up("lockonly", m, files)

        m, files = fio_capture("perf-ext4", [[{"iops": 1000}] for _ in ext4])
        with_stacks(m, files, ext4)
        perf = up("perf-ext4", m, files)

        plain = up("plain", *fio_capture("plain", [[{"iops": 1000}]]))
        client.ids = {"both": both, "lockonly": lockonly, "perf": perf, "plain": plain}  # type: ignore[attr-defined]
        client.texts = {both: xfs, perf: ext4}  # type: ignore[attr-defined]
        yield client


def reference(texts: list[bytes]) -> dict[str, list[int]]:
    """Folded stack -> [weight, samples] over the runs, for the first event (cpu-clock), by the Python
    reference folder; the weights are checked against inferno's fold (fold_text) of the same text."""
    out: dict[str, list[int]] = {}
    for gz in texts:
        text = gzip.decompress(gz).decode()
        stacks, rows = sample_table(text)
        first = next(r[7] for r in rows)
        per_run: dict[str, list[int]] = {}
        for *_, sid, weight, event in rows:
            if sid is None or event != first:
                continue
            v = per_run.setdefault(stacks[sid], [0, 0])
            v[0] += weight
            v[1] += 1
        assert {k: v[0] for k, v in per_run.items()} == fold_text(text)
        for k, (w, n) in per_run.items():
            v = out.setdefault(k, [0, 0])
            v[0] += w
            v[1] += n
    return out


def expected(folded: dict[str, list[int]], sym: str) -> dict:
    """What the view must say of `sym` in these stacks, counted by hand."""
    w = n = sw = sn = 0
    frames: set[str] = set()
    stacks = []
    for stack, (sw_, sn_) in folded.items():
        fr = stack.split(";")[1:]
        fn = [CLONE.sub("", f, count=1) for f in fr]
        if sym not in fn:
            continue
        at = fn.index(sym)
        slow = any(SLOW.fullmatch(f) for f in fn[at + 1:])
        frames |= {f for f, g in zip(fr, fn) if g == sym}
        w, n = w + sw_, n + sn_
        if slow:
            sw, sn = sw + sw_, sn + sn_
        stacks.append((-sw_, stack, sn_, slow))
    total = sum(v[0] for v in folded.values())
    top = [{"folded": s, "weight": -nw, "samples": ns, "slowpath": sl} for nw, s, ns, sl in sorted(stacks)[:5]]
    return {"samples": n, "weight": w, "share_pct": pytest.approx(100 * w / total), "slow_samples": sn,
            "slow_weight": sw, "frames": sorted(frames), "top": top}


def stacks_of(api, cid: str, lock_class: str, *others: str, **params):
    return api.get(f"/api/captures/{cid}/lock-stat/stacks",
                   params={"class": lock_class, **({"with": ",".join(others)} if others else {}), **params})


def test_call_sites_in_the_same_and_other_captures_stacks(served):
    api, ids = served, served.ids
    r = stacks_of(api, ids["both"], ILOCK, ids["lockonly"], ids["perf"], ids["plain"])
    assert r.status_code == 200, r.text
    got = r.json()
    caps = {c["id"]: c for c in got["captures"]}
    assert [c["id"] for c in got["captures"]] == [ids[k] for k in ("both", "lockonly", "perf", "plain")]
    assert caps[ids["both"]]["lock_stat"] and caps[ids["both"]]["stacks"]
    assert caps[ids["lockonly"]]["lock_stat"] and not caps[ids["lockonly"]]["stacks"]
    assert "--stacks" in caps[ids["lockonly"]]["reason"]
    assert not caps[ids["perf"]]["lock_stat"] and caps[ids["perf"]]["stacks"]
    assert (caps[ids["both"]]["event"], caps[ids["both"]]["weight_unit"], caps[ids["both"]]["runs"]) == (
        "cpu-clock", "ns", [f"r{i:03d}" for i in range(len(served.texts[ids["both"]]))])

    ref = {cid: reference(texts) for cid, texts in served.texts.items()}
    for cid, folded in ref.items():
        assert caps[cid]["total_weight"] == sum(v[0] for v in folded.values())
        assert caps[cid]["total_samples"] == sum(v[1] for v in folded.values())

    names = [s["name"] for s in got["symbols"]]
    # contention points by count (summed over both runs' dumps), then contending points; the call
    # site of the other capture's lock_stat is added; the bare address is not a symbol
    assert names == ["xfs_trans_alloc_inode", "xfs_ilock", "xfs_btree_readahead_fsblock",
                     "xfs_iomap_write_unwritten", "xfs_ilock_iocb_for_write", "xfs_no_such_function"]
    by = {s["name"]: s for s in got["symbols"]}
    assert [(x["capture"], x["kind"], x["count"]) for x in by["xfs_trans_alloc_inode"]["sources"]] == [
        (ids["both"], "contention", 100), (ids["lockonly"], "contention", 9)]
    assert by["xfs_ilock_iocb_for_write"]["sources"][0]["symbol"] == "xfs_ilock_iocb_for_write+0x2c/0x120 [xfs]"
    for name in names:
        sym = by[name]
        assert [p["capture"] for p in sym["stacks"]] == [ids["both"], ids["perf"]]
        for p in sym["stacks"]:
            want = expected(ref[p["capture"]], name)
            assert {k: p[k] for k in want} == want, (name, p["capture"])
            assert p["slow_pct"] == (pytest.approx(100 * p["slow_weight"] / p["weight"]) if p["weight"] else None)
        assert sym["found"] == any(p["samples"] for p in sym["stacks"])

    # what the data holds, so that the checks above are not vacuous
    xfs = {p["capture"]: p for p in by["xfs_trans_alloc_inode"]["stacks"]}[ids["both"]]
    assert xfs["samples"] > 0 and 0 < xfs["slow_samples"] < xfs["samples"]
    assert any(t["slowpath"] and "rwsem_down_write_slowpath" in t["folded"] for t in xfs["top"])
    clone = {p["capture"]: p for p in by["xfs_btree_readahead_fsblock"]["stacks"]}[ids["both"]]
    assert clone["frames"] == ["xfs_btree_readahead_fsblock.isra.0"] and clone["samples"] > 0
    assert got["absent"] == ["xfs_no_such_function"] and not by["xfs_no_such_function"]["found"]
    notes = " ".join(got["notes"])
    assert "xfs_no_such_function" in notes and "1 call site printed without a symbol" in notes
    assert "cpu-clock samples are CPU time" in notes
    assert "rwsem_down_*_slowpath" in got["slowpath"] and "_raw_spin_lock" not in got["slowpath"]
    assert got["elapsed_ms"] >= 0


def test_a_class_named_after_a_function_and_other_classes(served):
    api, ids = served, served.ids
    ref = reference(served.texts[ids["both"]])
    got = stacks_of(api, ids["both"], WORK).json()
    # __flush_work is not sampled; iomap_dio_complete_work, an identifier of the name, is a frame
    assert [s["name"] for s in got["symbols"]] == ["__flush_work", "iomap_dio_complete_work"]
    work = got["symbols"][1]
    assert work["sources"] == [{"capture": ids["both"], "kind": "class", "symbol": WORK, "count": None}]
    want = expected(ref, "iomap_dio_complete_work")
    assert want["samples"] > 0 and {k: work["stacks"][0][k] for k in want} == want
    assert got["absent"] == ["__flush_work"]

    sem = stacks_of(api, ids["both"], DATA_SEM, ids["perf"]).json()
    for s in sem["symbols"]:
        for p in s["stacks"]:
            want = expected(reference(served.texts[p["capture"]]), s["name"])
            assert {k: p[k] for k in want} == want


def test_without_stacks_and_errors(served):
    api, ids = served, served.ids
    got = stacks_of(api, ids["lockonly"], ILOCK, ids["plain"]).json()
    assert all(not c["stacks"] for c in got["captures"])
    assert all(s["stacks"] == [] and not s["found"] for s in got["symbols"])
    assert "None of these captures has perf call stacks" in got["notes"][0]
    assert "iolens-collect run --stacks" in got["notes"][0]

    assert stacks_of(api, ids["both"], "no such lock").status_code == 404
    assert "no lock class 'no such lock'" in stacks_of(api, ids["both"], "no such lock").json()["error"]
    assert stacks_of(api, ids["perf"], ILOCK).status_code == 404  # no lock_stat at all
    r = stacks_of(api, ids["both"], ILOCK, "ffffffffffffffff")
    assert r.status_code == 404 and r.json()["detail"] == {"missing": ["ffffffffffffffff"]}
    assert api.get(f"/api/captures/{ids['both']}/lock-stat/stacks").status_code == 422  # class is required
    assert stacks_of(api, ids["both"], ILOCK, occurrence=-1).status_code == 422


def test_text_and_html_exports_link_the_top_classes_to_stacks(served):
    api, ids = served, served.ids
    caps = [ids["both"], ids["lockonly"], ids["perf"]]
    doc = {"format_version": 1, "title": "ilock", "captures": caps, "baseline": ids["both"],
           "cells": [{"type": "view", "kind": "lockstat", "state": "", "full": False}]}
    nid = save(api, doc).json()["id"]
    text = api.get(f"/api/notebooks/{nid}/export").text
    check_mail_safe(text)
    cell = text[text.index("-- [1] Lock contention"):]
    assert "&xfs_nondir_ilock_class (write)" in cell and "in perf stacks: xfs_trans_alloc_inode" in cell
    got = stacks_of(api, ids["both"], ILOCK, ids["lockonly"], ids["perf"]).json()
    p = next(s for s in got["symbols"] if s["name"] == "xfs_trans_alloc_inode")["stacks"][0]
    # the capture's line: its share, samples and slow-path share, as the API says
    line = next(ln for ln in cell.splitlines() if ln.strip().startswith("both") and "samples" in ln)
    assert f"{p['samples']:,} samples" in line and f"slow {p['slow_pct']:.0f} %" in line
    assert "not in perf stacks: xfs_no_such_function" in cell
    page = api.get(f"/api/notebooks/{nid}/export", params={"format": "html"}).text
    assert "in perf stacks: <code>xfs_trans_alloc_inode</code>" in page

    # lock_stat without any stacks: the export says what to record
    doc = dict(doc, captures=[ids["lockonly"]], baseline=ids["lockonly"])
    text = api.get(f"/api/notebooks/{save(api, doc).json()['id']}/export").text
    check_mail_safe(text)
    assert "No capture here has perf call stacks" in text and "--stacks" in text
    assert "in perf stacks:" not in text
