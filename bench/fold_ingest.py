#!/usr/bin/env python3
"""Benchmark: folding and ingest of perf script text, iolens vs inferno-collapse-perf (issue 17, "Speed").

Inputs: **replicated, not recorded at that size**: the real `perf script` text of datasets/stacks-xfs
(both runs of its bundle: fio 4k writes on XFS, `perf record -g`), copied until the text is big
enough, in two shapes:
- `distinct`: every symbol (and the module of every frame perf could not name) renamed per copy
  (`xfs_file_write_iter` -> `xfs_file_write_iter_c7`), so that the copies do not merge: the merged
  call tree has ~50k, 200k and 450k nodes (IOLENS_BENCH_NODES), the stacks are mostly distinct;
- `few`: the same text copied as it is, to the same sizes: a few hundred distinct stacks.
Each copy's timestamps are shifted past the previous one's. Cached in IOLENS_BENCH_DIR (default
/var/tmp/iolens-bench-fold) with the recipe.

Tools, each run as a command from a cold process (start-up included), output to a file:
- fold: `iolens convert perf-script TEXT --to folded` vs `inferno-collapse-perf TEXT` (0.12.8, from
  crates.io: `cargo install inferno --version 0.12.8 --locked`); the outputs must be byte-equal.
- ingest: `iolens ingest --db NEW BUNDLE` of a bundle holding the text as the collector writes it
  (runs/r000/perf.script.gz, gzip level 6), into a new database file each time; MB/s of text.
IOLENS_BENCH_RUNS runs (default 5), alternating (iolens, inferno, ingest, then again); medians of the
wall time and of the CPU time (user + system, from wait4: less sensitive to other jobs than the wall
time). The load average (1 min) is printed beside every run: the machine is shared.

IOLENS_BENCH_BASE=DIR: also run the iolens of another checkout (DIR, with its own .venv, e.g. a
`git worktree` of the commit before a change) in the same alternation, fold and ingest, and print
both side by side: on a shared machine only figures of the same window compare.

Targets: folding at most 1.0x inferno's median on every input; ingest at least 200 MB/s of text.
Prints the figures (record them in bench/README.md); exits non-zero when a target is missed.
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from perf_fold import find_inferno, machine
from stack_inputs import Copier, tree_nodes

REPO = Path(__file__).resolve().parents[1]
DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-fold"))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "5"))
NODES = [int(s) for s in os.environ.get("IOLENS_BENCH_NODES", "50000,200000,450000").split(",")]
SHAPES = os.environ.get("IOLENS_BENCH_SHAPES", "distinct,few").split(",")
BASE = Path(os.environ["IOLENS_BENCH_BASE"]) if os.environ.get("IOLENS_BENCH_BASE") else None
FOLD_RATIO, INGEST_MBS = 1.0, 200.0


def log(msg: str) -> None:
    print(f"[fold_ingest] {msg}", file=sys.stderr, flush=True)


def make_inputs() -> list[dict]:
    """Per size: the `distinct` text with >= N nodes, and the `few` text of the same size (cached)."""
    sys.path.insert(0, str(REPO / "backend"))
    from iolens.formats.perf_script_native import fold

    metas_path = DIR / "inputs.json"
    cached: dict[int, list[dict]] = {}
    if metas_path.exists():
        for m in json.loads(metas_path.read_text()):
            if (DIR / m["text"]).exists() and (DIR / m["bundle"]).exists():
                cached.setdefault(m["target"], []).append(m)
    # A size made before (with both shapes) is kept: IOLENS_BENCH_NODES=450000 alone does not
    # remake the inputs, nor drop the other sizes from the cache.
    cached = {t: ms for t, ms in cached.items() if len(ms) == 2}
    if all(t in cached for t in NODES):
        return [m for t in NODES for m in cached[t]]
    DIR.mkdir(parents=True, exist_ok=True)
    copier = Copier()
    metas = [m for t, ms in cached.items() if t not in NODES for m in ms]
    for target in NODES:
        copies = copier.copies_for(target)
        for shape in ("distinct", "few"):
            tag = f"{shape}-{target // 1000}k"
            text = DIR / f"{tag}.perf.txt"
            with text.open("w") as out:
                for k in range(copies):
                    out.write(copier.copy(k, shape == "distinct"))
            folded, _ = fold(str(text))
            bundle = DIR / f"{tag}.iolens.tar.gz"
            make_bundle(text, bundle, tag)
            metas.append({"shape": shape, "target": target, "tag": tag, "copies": copies, "text": text.name,
                          "bundle": bundle.name, "bytes": text.stat().st_size, "stacks": len(folded),
                          "nodes": tree_nodes(folded)})
            log(f"made {text.name}: {copies} copies, {metas[-1]['nodes']:,} nodes, {len(folded):,} stacks, "
                f"{metas[-1]['bytes'] / 1e6:.0f} MB")
    metas_path.write_text(json.dumps(metas, indent=1))
    metas = [m for m in metas if m["target"] in NODES]
    (DIR / "RECIPE.txt").write_text(
        "perf script text of datasets/stacks-xfs (both runs), copied with timestamps shifted per copy; "
        "distinct: every symbol renamed per copy (sym -> sym_cK, [unknown] (mod) -> (mod_cK)); few: as it is.\n"
        "Bundles: `iolens bundle TEXT.gz --label TAG` (runs/r000/perf.script.gz, gzip -6).\n")
    return metas


def make_bundle(text: Path, bundle: Path, tag: str) -> None:
    """A bundle holding the text as the collector stores it: gzip level 6, kind perf-script."""
    gz = text.with_suffix(".txt.gz")
    with text.open("rb") as src, gzip.GzipFile(gz, "wb", compresslevel=6, mtime=0) as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
    bundle.unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "iolens", "bundle", str(gz), "--label", f"bench {tag}", "-o", str(bundle)],
                   check=True, stdout=subprocess.DEVNULL)
    gz.unlink()


# --- the runs --------------------------------------------------------------------------------

def timed(cmd: list[str], out_path: Path | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system) of one run of cmd, stdout to out_path."""
    with (out_path.open("wb") if out_path else open(os.devnull, "wb")) as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"fold_ingest: {' '.join(cmd)} failed")
    return wall, usage.ru_utime + usage.ru_stime


def ingest_once(bundle: Path, db: Path, python: str = sys.executable) -> tuple[float, float]:
    db.parent.mkdir(parents=True, exist_ok=True)
    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    if (db.parent / "bundles").exists():
        subprocess.run(["rm", "-rf", str(db.parent / "bundles")], check=True)
    return timed([python, "-m", "iolens", "ingest", "--db", str(db), str(bundle)], None)


def load() -> float:
    return os.getloadavg()[0]


def compile_bytecode() -> None:
    """Byte-compile iolens and its dependencies, as an installed iolens is (pip and `uv sync
    --compile-bytecode` do it): with PYTHONDONTWRITEBYTECODE set and no __pycache__, every start
    of `iolens` compiles every module it imports from source (~2 s of CPU for ingest's imports)."""
    import sysconfig

    for d in (REPO / "backend" / "iolens", Path(sysconfig.get_paths()["purelib"])):
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", str(d)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if BASE is not None:
        py = str(BASE / ".venv" / "bin" / "python")
        purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        for d in (BASE / "backend" / "iolens", Path(purelib)):
            subprocess.run([py, "-m", "compileall", "-q", "-j", "0", str(d)], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> int:
    metas = [m for m in make_inputs() if m["shape"] in SHAPES]
    inferno = find_inferno()
    compile_bytecode()
    print(f"machine: {machine()}")
    print(f"input: datasets/stacks-xfs's real perf script text, copied (see {DIR / 'RECIPE.txt'}); "
          f"{RUNS} runs each, alternating; median wall time of the whole command, start-up included")
    ok = True
    rows = []
    for m in metas:
        text, bundle = DIR / m["text"], DIR / m["bundle"]
        subprocess.run(["cat", str(text), str(bundle)], stdout=subprocess.DEVNULL, check=True)  # page cache
        cmds = {
            "iolens": [sys.executable, "-m", "iolens", "convert", "perf-script", str(text), "--to", "folded"],
            "inferno": [inferno, str(text)],
        }
        if BASE is not None:
            cmds["base"] = [str(BASE / ".venv" / "bin" / "python"), *cmds["iolens"][1:]]
        names = [*cmds, "ingest", *(["base-ingest"] if BASE is not None else [])]
        runs: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        loads: list[float] = []
        for i in range(RUNS):
            for name, cmd in cmds.items():
                wall, c = timed(cmd, DIR / f"{name}.folded")
                runs[name].append(wall)
                cpu[name].append(c)
            wall, c = ingest_once(bundle, DIR / "db" / "bench.duckdb")
            runs["ingest"].append(wall)
            cpu["ingest"].append(c)
            if BASE is not None:
                wall, c = ingest_once(bundle, DIR / "db-base" / "bench.duckdb", str(BASE / ".venv" / "bin" / "python"))
                runs["base-ingest"].append(wall)
                cpu["base-ingest"].append(c)
            loads.append(load())
            log(f"{m['tag']} run {i + 1}/{RUNS}: iolens {runs['iolens'][-1]:.2f} s, inferno {runs['inferno'][-1]:.2f} s, "
                f"ingest {runs['ingest'][-1]:.2f} s, load {loads[-1]:.1f}")
        equal = (DIR / "iolens.folded").read_bytes() == (DIR / "inferno.folded").read_bytes()
        if BASE is not None:
            equal &= (DIR / "base.folded").read_bytes() == (DIR / "inferno.folded").read_bytes()
        med = {k: statistics.median(v) for k, v in runs.items()}
        mcpu = {k: statistics.median(v) for k, v in cpu.items()}
        ratio = med["iolens"] / med["inferno"]
        mbs = m["bytes"] / 1e6 / med["ingest"]
        ok &= equal and ratio <= FOLD_RATIO and mbs >= INGEST_MBS
        rows.append((m, med, mcpu, ratio, mbs, equal, loads))
        print(f"{m['tag']:>14}: {m['bytes'] / 1e6:4.0f} MB, {m['nodes']:>7,} nodes, {m['stacks']:>7,} stacks | "
              f"fold iolens {med['iolens']:.2f} s (CPU {mcpu['iolens']:.2f}), inferno {med['inferno']:.2f} s "
              f"(CPU {mcpu['inferno']:.2f}), ratio {ratio:.2f}{'' if equal else ' OUTPUTS DIFFER'} | "
              f"ingest {med['ingest']:.2f} s (CPU {mcpu['ingest']:.2f}) = {mbs:.0f} MB/s | "
              f"load {min(loads):.1f}-{max(loads):.1f}", flush=True)
        if BASE is not None:
            print(f"{'':>14}  base {BASE}: fold {med['base']:.2f} s (CPU {mcpu['base']:.2f}), ratio "
                  f"{med['base'] / med['inferno']:.2f} | ingest {med['base-ingest']:.2f} s (CPU {mcpu['base-ingest']:.2f}) = "
                  f"{m['bytes'] / 1e6 / med['base-ingest']:.0f} MB/s", flush=True)
    print("\n| input | text | nodes | stacks | fold: iolens (CPU) | inferno (CPU) | ratio | ingest (CPU) | MB/s | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m, med, mcpu, ratio, mbs, equal, loads in rows:
        print(f"| {m['tag']} | {m['bytes'] / 1e6:.0f} MB | {m['nodes']:,} | {m['stacks']:,} | "
              f"{med['iolens']:.2f} s ({mcpu['iolens']:.2f}) | {med['inferno']:.2f} s ({mcpu['inferno']:.2f}) | "
              f"**{ratio:.2f}**{'' if equal else ' (differ)'} | {med['ingest']:.2f} s ({mcpu['ingest']:.2f}) | "
              f"**{mbs:.0f}** | {min(loads):.1f}-{max(loads):.1f} |")
    if BASE is not None:
        print(f"\nSame runs, {BASE} (base) against this checkout:\n")
        print("| input | fold: base (CPU) | this (CPU) | inferno (CPU) | ratio base / this | ingest: base (CPU) | "
              "this (CPU) | MB/s base / this | load avg |")
        print("|---|---|---|---|---|---|---|---|---|")
        for m, med, mcpu, ratio, mbs, _equal, loads in rows:
            print(f"| {m['tag']} | {med['base']:.2f} s ({mcpu['base']:.2f}) | {med['iolens']:.2f} s ({mcpu['iolens']:.2f}) | "
                  f"{med['inferno']:.2f} s ({mcpu['inferno']:.2f}) | {med['base'] / med['inferno']:.2f} / **{ratio:.2f}** | "
                  f"{med['base-ingest']:.2f} s ({mcpu['base-ingest']:.2f}) | {med['ingest']:.2f} s ({mcpu['ingest']:.2f}) | "
                  f"{m['bytes'] / 1e6 / med['base-ingest']:.0f} / **{mbs:.0f}** | {min(loads):.1f}-{max(loads):.1f} |")
    print(f"\ntargets: fold ratio <= {FOLD_RATIO}, ingest >= {INGEST_MBS:.0f} MB/s: {'met' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
