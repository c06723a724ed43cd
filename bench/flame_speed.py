#!/usr/bin/env python3
"""Benchmark: flame graph first paint and interaction, iolens vs speedscope (issue 17, "Speed").

Input: **replicated, not recorded at that size**: the real `perf script` text of
datasets/stacks-xfs (both runs of its bundle: fio 4k writes on XFS with `perf record -g`), copied
until the merged call tree has ~50k, 200k and 450k nodes, with every symbol (and the module of
every frame perf could not name) renamed per copy (`xfs_file_write_iter` -> `xfs_file_write_iter_c7`)
so that the copies do not merge, and each copy's timestamps shifted past the previous one. The
command names stay, as do `[unknown]` frames without a module. Cached in IOLENS_BENCH_DIR (default
/var/tmp/iolens-bench-flame) with the folded stacks of the same text.

Both tools, in headless Chromium (Debian's /usr/bin/chromium, playwright-core; a fresh browser
context per load, 1440x900):
- iolens: the text made into a bundle (`iolens bundle`) and ingested once (`iolens ingest`), then
  `iolens serve`; the time from navigation to the notebook page with one flame cell until the
  flame canvas is painted (the first frame drawn, then the next animation frame).
- speedscope 1.25.0 (npm, locked in bench/package-lock.json; its release files served from a
  local static server): `index.html#profileURL=...` of the folded stacks (its best case: the
  stacks already merged) and of the perf script text, from navigation until it has parsed the
  profile (the title names it) and two animation frames have run (it draws on the first).
- JS heap: the used heap after a forced garbage collection, once the graph is painted (CDP).
IOLENS_BENCH_RUNS (default 5) runs of each, alternating (iolens, speedscope folded, speedscope
perf script, then again); medians reported. IOLENS_BENCH_SIZES: node counts, comma-separated.
IOLENS_BENCH_SCRIPT=0 skips speedscope on perf script text (slow: ~50 s at 450k nodes), and
IOLENS_BENCH_SCRIPT_RUNS sets its runs (default IOLENS_BENCH_RUNS; taken in the first rounds).

Interaction (iolens, on each size, after the timed loads): from the input event (its timeStamp)
to the end of the first frame that shows the change (the canvas drawn again, or the tooltip shown):
a task posted from that frame's animation callback, which runs once the frame's style, layout and
paint are done ("after next paint", as INP counts; until 2026-11-27 it waited for the animation
frame after that one, a frame more). Click to zoom into a frame, Esc to zoom out, each keystroke
of a typed search, a hover over a frame. 5 of each, median.

The server's answer alone (`GET /api/captures/ID/flame` as the page asks for it, its columns answer:
the bytes the browser gets) is timed too:
the first call after the server starts (no cache) and the next ones; then, on a server started
again and left idle IOLENS_BENCH_WARM_S seconds (default 30; 0: not), the first call once the server
has made the whole-capture answers ahead (views/flame_answer.py warm).

Needs `make build` (frontend/dist) and node; installs bench/node_modules (speedscope) with
`npm ci --prefix bench` when missing. Prints the figures (record them in bench/README.md); exits
non-zero when a target is missed: first paint <= 0.25x speedscope's folded time at every size,
< 1 s at 450k nodes, every interaction median < 50 ms.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench-flame"))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "5"))
SIZES = [int(s) for s in os.environ.get("IOLENS_BENCH_SIZES", "50000,200000,450000").split(",")]
SCRIPT = os.environ.get("IOLENS_BENCH_SCRIPT", "1") != "0"
# speedscope on perf script text is slow (minutes at 450k nodes on a loaded machine): its own run count
SCRIPT_RUNS = int(os.environ.get("IOLENS_BENCH_SCRIPT_RUNS", str(RUNS)))
# Another checkout of iolens (e.g. `git worktree add ../before main~3`, built with `make build`) to
# measure beside this one in the same run, on a copy of the same store: "iolens (before)".
BEFORE = os.environ.get("IOLENS_BENCH_BEFORE")
WARM_S = float(os.environ.get("IOLENS_BENCH_WARM_S", "30"))
SPEEDSCOPE = REPO / "bench" / "node_modules" / "speedscope"
PAINT_RATIO, PAINT_450K_MS, INTERACTION_MS = 0.25, 1000.0, 50.0

sys.path.insert(0, str(REPO / "backend"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from stack_inputs import Copier, tree_nodes  # noqa: E402


def log(msg: str) -> None:
    print(f"[flame_speed] {msg}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_input(target: int) -> dict:
    """perf script text and its folded stacks with a tree of >= target nodes (cached)."""
    from iolens.formats.perf_script import format_folded
    from iolens.formats.perf_script_native import fold

    tag = f"flame-{target // 1000}k"
    text_path, folded_path, meta_path = DIR / f"{tag}.perf.txt", DIR / f"{tag}.folded.txt", DIR / f"{tag}.json"
    if meta_path.exists() and text_path.exists() and folded_path.exists():
        return json.loads(meta_path.read_text())
    DIR.mkdir(parents=True, exist_ok=True)
    copier = Copier()
    copies = copier.copies_for(target)
    tmp = text_path.with_suffix(".tmp")
    with tmp.open("w") as out:
        for k in range(copies):
            out.write(copier.copy(k))
    tmp.rename(text_path)
    folded, _info = fold(text_path.read_bytes())
    folded_path.write_text(format_folded(folded))
    meta = {"tag": tag, "target": target, "nodes": tree_nodes(folded), "copies": copies, "stacks": len(folded),
            "samples": copier.samples * copies,
            "text_mb": text_path.stat().st_size / 1e6, "folded_mb": folded_path.stat().st_size / 1e6}
    meta_path.write_text(json.dumps(meta))
    log(f"made {text_path.name}: {copies} copies, {meta['nodes']:,} nodes, {meta['text_mb']:.0f} MB")
    return meta


def ingest(metas: list[dict]) -> tuple[Path, dict[str, str]]:
    """One store with a capture per size (kept: IOLENS_BENCH_DIR/flame.duckdb); tag -> capture id."""
    db = DIR / "flame.duckdb"
    ids_path = DIR / "flame-ids.json"
    ids: dict[str, str] = json.loads(ids_path.read_text()) if ids_path.exists() and db.exists() else {}
    for m in metas:
        if m["tag"] in ids:
            continue
        bundle = DIR / f"{m['tag']}.iolens.tar.gz"
        subprocess.run([sys.executable, "-m", "iolens", "bundle", "--label", f"bench {m['tag']} ({m['nodes']:,} nodes)",
                        str(DIR / f"{m['tag']}.perf.txt"), "-o", str(bundle)], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL)
        from iolens.ingest import ingest_file
        from iolens.store.db import Store

        store = Store(db)
        try:
            ids[m["tag"]] = ingest_file(store, bundle, bundles_dir=DIR / "bundles", source=bundle.name).capture_id
        finally:
            store.close()
        ids_path.write_text(json.dumps(ids))
        log(f"ingested {m['tag']} as {ids[m['tag']]}")
    return db, ids


# --- servers ----------------------------------------------------------------------------------------


def static_server(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def start_iolens(db: Path, checkout: Path = REPO, port: int = 0, env: dict[str, str] | None = None,
                 log: Path | None = None) -> tuple[subprocess.Popen, str]:
    """`iolens serve` of `checkout` on `db` (`env`: more variables), once it answers: the process and its
    base URL. Its output goes to `log` (default: serve-<db>.log in the bench's directory)."""
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=str(checkout / "backend"), **(env or {}))
    logf = (log or DIR / f"serve-{db.stem}.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "iolens", "serve", "--db", str(db), "--port", str(port),
                               "--log-level", "warning"], cwd=checkout, env=env, stdout=logf, stderr=logf)
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/captures", timeout=2)
            return server, base
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                sys.exit(f"iolens serve --db {db} did not start: run it by hand to see why")
            time.sleep(0.3)


def time_answers(base: str, ids: dict[str, str]) -> dict[str, dict]:
    """The flame answer as the page asks for it (the columns answer, gzip accepted; the JSON one
    for a checkout from before it, which ignores the Accept): first call, then 5 more."""
    out = {}
    for tag, cid in ids.items():
        ms, size = [], 0
        for _ in range(6):
            req = urllib.request.Request(f"{base}/api/captures/{cid}/flame", headers={
                "Accept-Encoding": "gzip", "Accept": "application/vnd.iolens.flame-columns, application/json;q=0.5"})
            t0 = time.perf_counter()
            with urllib.request.urlopen(req, timeout=300) as r:
                body = r.read()
                enc = r.headers.get("Content-Encoding") or "identity"
            ms.append((time.perf_counter() - t0) * 1000)
            size = len(body)
        out[tag] = {"first_ms": ms[0], "warm_ms": statistics.median(ms[1:]), "bytes": size, "encoding": enc}
    return out


# --- main ---------------------------------------------------------------------------------------------


def main() -> int:
    if not (REPO / "frontend" / "dist" / "index.html").exists():
        print("frontend/dist is missing: run `make build` first", file=sys.stderr)
        return 2
    if not SPEEDSCOPE.exists():
        subprocess.run(["npm", "ci", "--prefix", str(REPO / "bench"), "--no-audit", "--no-fund", "--loglevel=error"],
                       check=True)
    load = [os.getloadavg()[0]]
    metas = [make_input(n) for n in SIZES]
    db, ids = ingest(metas)

    www = DIR / "www"
    shutil.rmtree(www, ignore_errors=True)
    shutil.copytree(SPEEDSCOPE / "dist" / "release", www / "speedscope")
    for m in metas:
        for kind in ("perf.txt", "folded.txt"):
            (www / f"{m['tag']}.{kind}").symlink_to(DIR / f"{m['tag']}.{kind}")
    static, static_base = static_server(www)
    servers = []
    before_base = None
    if BEFORE:
        before_db = DIR / "flame-before.duckdb"
        shutil.copyfile(db, before_db)
        before, before_base = start_iolens(before_db, Path(BEFORE).resolve())
        servers.append(before)
    server, base = start_iolens(db, port=int(os.environ.get("IOLENS_BENCH_PORT", "0")))
    servers.append(server)
    try:
        tags = {m["tag"]: ids[m["tag"]] for m in metas}
        answers = time_answers(base, tags)
        answers_before = time_answers(before_base, tags) if before_base else None
        load.append(os.getloadavg()[0])
        plan = {"iolens": base, "before": before_base, "static": static_base, "runs": RUNS, "script": SCRIPT, "script_runs": SCRIPT_RUNS,
                "sizes": [{"tag": m["tag"], "nodes": m["nodes"], "capture": ids[m["tag"]]} for m in metas]}
        proc = subprocess.run(["node", str(REPO / "bench" / "flame_speed.mjs"), json.dumps(plan)], cwd=REPO,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stdout[-4000:], proc.stderr[-4000:], file=sys.stderr)
            return 1
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        load.append(os.getloadavg()[0])
    finally:
        for srv in servers:
            srv.terminate()
            srv.wait(timeout=30)
        static.shutdown()
    warmed = None
    if WARM_S > 0:
        # the first call on a server that has been up (and idle) for a while: the answers made ahead
        server, base = start_iolens(db)
        try:
            time.sleep(WARM_S)
            warmed = time_answers(base, {m["tag"]: ids[m["tag"]] for m in metas})
        finally:
            server.terminate()
            server.wait(timeout=30)

    print(f"machine: nproc {os.cpu_count()}, {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"load average {', '.join(f'{x:.1f}' for x in load)} (start, after the answers, end)")
    print(f"input: datasets/stacks-xfs's real perf script text, copied with every symbol renamed per copy; "
          f"{RUNS} runs of each tool, alternating; medians (runs)")
    ok = True
    for m in metas:
        tag = m["tag"]
        r = res[tag]
        a = answers[tag]
        print(f"\n{tag}: {m['nodes']:,} nodes, {m['stacks']:,} distinct stacks, {m['copies']} copies, "
              f"perf script {m['text_mb']:.0f} MB, folded {m['folded_mb']:.1f} MB")
        if warmed:
            print(f"  server's flame answer, first call {WARM_S:.0f} s after the server started: {warmed[tag]['first_ms']:.0f} ms")
        for label, ans in (("", a), (" (before)", answers_before[tag] if answers_before else None)):
            if ans:
                print(f"  server's flame answer{label}: first call {ans['first_ms']:.0f} ms, then {ans['warm_ms']:.0f} ms "
                      f"({ans['bytes'] / 1e6:.2f} MB, {ans['encoding']})")
        rows = ([("iolens (before)", "before")] if BEFORE else []) + [("iolens", "iolens"), ("speedscope folded", "ss_folded")] \
            + ([("speedscope perf script", "ss_script")] if SCRIPT else [])
        for label, key in rows:
            paint = [x["paint_ms"] for x in r[key]]
            heap = [x["heap_mb"] for x in r[key]]
            print(f"  {label:<24} first paint {statistics.median(paint):8.0f} ms ({', '.join(f'{x:.0f}' for x in paint)}); "
                  f"JS heap {statistics.median(heap):6.0f} MB")
        ip = statistics.median(x["paint_ms"] for x in r["iolens"])
        sf = statistics.median(x["paint_ms"] for x in r["ss_folded"])
        ratio = ip / sf
        good = ratio <= PAINT_RATIO and (m["nodes"] < 400_000 or ip < PAINT_450K_MS)
        ok &= good
        print(f"  ratio iolens / speedscope folded: {ratio:.3f} (target <= {PAINT_RATIO}"
              f"{', and < 1 s at 450k' if m['nodes'] >= 400_000 else ''}): {'met' if good else 'MISSED'}")
        if SCRIPT:
            print(f"  ratio iolens / speedscope perf script: {ip / statistics.median(x['paint_ms'] for x in r['ss_script']):.3f}")
        for label, key in (("iolens (before)", "before"), ("iolens", "iolens")):
            if not r.get(key):
                continue
            if r[key][0].get("layout_ms") is not None:
                decodes = [x["decode_ms"] for x in r[key] if x.get("decode_ms") is not None]
                print(f"  {label} in the page: "
                      + (f"answer read {statistics.median(decodes):.0f} ms, " if decodes else "")
                      + f"layout {statistics.median(x['layout_ms'] for x in r[key]):.0f} ms, "
                      f"first frame {statistics.median(x['draw_ms'] for x in r[key]):.1f} ms")
            for kind, v in r[f"interaction_{key}"].items():
                if not v:
                    print(f"  {label} {kind}: no measurement")
                    ok &= key != "iolens"
                    continue
                med = statistics.median(v)
                good = med < INTERACTION_MS
                if key == "iolens":
                    ok &= good
                print(f"  {label:<16} {kind:<11} median {med:6.1f} ms  max {max(v):6.1f} ms  ({len(v)})"
                      f"{'' if good or key != 'iolens' else '  MISSED'}")
    print(f"\ntargets {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
