#!/usr/bin/env python3
"""Benchmark: `iolens convert perf-script BIG --to folded` vs `inferno-collapse-perf BIG`.

Issue 3's target: wall time ratio <= 1.0 on >= 500 MB of real perf script text made on this
machine, and peak RSS < 500 MB. Steps:

1. BIG: reused if present and large enough, else made here with perf (root): `perf record -F 20000
   -g -a` over a kernel-heavy workload (dd, find, gzip) for RECORD_SECONDS, then `perf script`,
   appended until the text reaches IOLENS_BENCH_MB (default 600). Cached in IOLENS_BENCH_DIR
   (default /var/tmp/iolens-bench); delete it to make a new one.
2. inferno-collapse-perf 0.12.8 from PATH or ~/.cargo/bin, else `cargo install inferno --version
   0.12.8 --locked` (crates.io).
3. Each tool 3 times, alternating, output to a file; median wall time, peak RSS of the child
   (wait4); the outputs must be equal as multisets of lines.

Prints the figures; record them in bench/README.md. Exit status 0 when both targets are met.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIR = Path(os.environ.get("IOLENS_BENCH_DIR", "/var/tmp/iolens-bench"))
TARGET_MB = int(os.environ.get("IOLENS_BENCH_MB", "600"))
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "3"))
RECORD_SECONDS = 10
INFERNO_VERSION = "0.12.8"
WORKLOAD = (
    f"timeout {RECORD_SECONDS} dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null & "
    f"timeout {RECORD_SECONDS} sh -c 'while :; do find /usr -xdev >/dev/null 2>&1; done' & "
    f"timeout {RECORD_SECONDS} sh -c 'while :; do head -c 50000000 /dev/urandom | gzip -1 >/dev/null; done' & "
    "wait"
)


def log(msg: str) -> None:
    print(f"[perf_fold] {msg}", file=sys.stderr, flush=True)


def make_input() -> Path:
    big = DIR / "perf-script-big.txt"
    if big.exists() and big.stat().st_size >= TARGET_MB * 1_000_000:
        log(f"reusing {big} ({big.stat().st_size / 1e6:.0f} MB)")
        return big
    perf = shutil.which("perf")
    if perf is None or os.geteuid() != 0:
        sys.exit("perf_fold: making the input needs perf and root (perf record -a); "
                 f"or put >= {TARGET_MB} MB of perf script text at {big}")
    DIR.mkdir(parents=True, exist_ok=True)
    tmp = big.with_suffix(".tmp")
    recipe = DIR / "RECIPE.txt"
    with tmp.open("wb") as out, recipe.open("w") as r:
        r.write(f"uname -r: {platform.release()}\n{subprocess.run([perf, '--version'], capture_output=True, text=True).stdout}")
        n = 0
        while tmp.stat().st_size < TARGET_MB * 1_000_000:
            data = DIR / f"rec{n}.data"
            cmd = [perf, "record", "-F", "20000", "-g", "-a", "-o", str(data), "--", "sh", "-c", WORKLOAD]
            r.write(shlex.join(cmd) + f"\n{perf} script -i {data} >> {big.name}\n")
            log(f"recording {RECORD_SECONDS} s ({tmp.stat().st_size / 1e6:.0f} of {TARGET_MB} MB so far)")
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            out.flush()
            subprocess.run([perf, "script", "-i", str(data)], check=True, stdout=out, stderr=subprocess.DEVNULL)
            out.flush()
            data.unlink()
            n += 1
    tmp.rename(big)
    log(f"made {big} ({big.stat().st_size / 1e6:.0f} MB); recipe in {recipe}")
    return big


def find_inferno() -> str:
    """inferno-collapse-perf 0.12.8 (it has no --version: ask cargo what it installed)."""
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo/bin/cargo")
    binary = Path.home() / ".cargo/bin/inferno-collapse-perf"
    installed = ""
    if Path(cargo).exists():
        installed = subprocess.run([cargo, "install", "--list"], capture_output=True, text=True).stdout
    if f"inferno v{INFERNO_VERSION}:" in installed and binary.exists():
        return str(binary)
    on_path = shutil.which("inferno-collapse-perf")
    if on_path and not Path(cargo).exists():
        log(f"using {on_path}; its version cannot be checked without cargo")
        return on_path
    log(f"installing inferno {INFERNO_VERSION} with cargo (crates.io)")
    subprocess.run([cargo, "install", "inferno", "--version", INFERNO_VERSION, "--locked", "--force"], check=True)
    return str(binary)


def timed(cmd: list[str], out_path: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one run of cmd, stdout to out_path."""
    with out_path.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"perf_fold: {cmd[0]} exited with {proc.returncode}")
    return wall, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def same_multiset(a: Path, b: Path) -> bool:
    if a.read_bytes() == b.read_bytes():
        return True
    env = {**os.environ, "LC_ALL": "C"}
    sa, sb = a.with_suffix(".sorted"), b.with_suffix(".sorted")
    subprocess.run(["sort", "-o", str(sa), str(a)], check=True, env=env)
    subprocess.run(["sort", "-o", str(sb), str(b)], check=True, env=env)
    return sa.read_bytes() == sb.read_bytes()


def machine() -> str:
    model = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return f"nproc {os.cpu_count()}, Linux {platform.release()}, {model}"


def main() -> int:
    big = make_input()
    inferno = find_inferno()
    size = big.stat().st_size
    tools = {
        "iolens": [sys.executable, "-m", "iolens", "convert", "perf-script", str(big), "--to", "folded"],
        "inferno": [inferno, str(big)],
    }
    subprocess.run(["cat", str(big)], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
    for i in range(RUNS):
        for name, cmd in tools.items():
            wall, rss = timed(cmd, DIR / f"{name}.folded")
            results[name].append((wall, rss))
            log(f"run {i + 1}/{RUNS} {name}: {wall:.2f} s, peak RSS {rss:.0f} MB")
    equal = same_multiset(DIR / "iolens.folded", DIR / "inferno.folded")
    lines = sum(1 for _ in (DIR / "inferno.folded").open("rb"))

    med = {n: statistics.median(w for w, _ in r) for n, r in results.items()}
    rss = {n: max(m for _, m in r) for n, r in results.items()}
    ratio = med["iolens"] / med["inferno"]
    print(f"machine: {machine()}")
    print(f"input: {big} {size / 1e6:.0f} MB of perf script text, {lines} distinct folded stacks")
    for n in tools:
        walls = ", ".join(f"{w:.2f}" for w, _ in results[n])
        print(f"{n:8s} median {med[n]:.2f} s ({walls}), {size / 1e6 / med[n]:.0f} MB/s, peak RSS {rss[n]:.0f} MB")
    print(f"ratio iolens/inferno (wall, median): {ratio:.2f}   (target <= 1.0)")
    print(f"outputs equal as multisets: {equal}")
    ok = equal and ratio <= 1.0 and rss["iolens"] < 500 and size >= 500_000_000
    print("targets met" if ok else "TARGETS NOT MET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
