"""Bench inputs made from real stacks: the perf script text of datasets/stacks-xfs, copied with its
timestamps shifted per copy and, for mostly distinct stacks, every symbol renamed per copy.

Shared by flame_speed.py (first paint against speedscope) and fold_ingest.py (folding and ingest
against inferno), so that both measure the same input shapes.

The text is that of datasets/stacks-xfs as captured on 2026-11-22 (two runs, 119 kB: fio's 4k writes
on XFS, 2,583 samples), read from the repository's history (SOURCE_COMMIT), not the folder's current
bundle: the dataset was recaptured on 2026-11-28 with four repeats on a loaded machine (other
sessions' compilers and browsers in the stacks: another shape), and the inputs, so the figures of
bench/README.md, must not change with it. A shallow clone lacks that commit: `git fetch --unshallow`.
"""
from __future__ import annotations

import gzip
import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = "datasets/stacks-xfs/6.18.44-fc-v669-xfs-stacks.iolens.tar.gz"
SOURCE_COMMIT = "5221f60e2b5a2f171d7213d76c321c5ae31cc443"
SOURCE_BLOB = "751c56bc272b2d66a45cc4f527e560e52b4f4249"   # git's id of that file, checked


def source_bundle() -> bytes:
    """The bundle the inputs are made of, from git (SOURCE at SOURCE_COMMIT)."""
    spec = f"{SOURCE_COMMIT}:{SOURCE}"
    blob = subprocess.run(["git", "-C", str(REPO), "rev-parse", spec], capture_output=True, text=True)
    if blob.returncode or blob.stdout.strip() != SOURCE_BLOB:
        sys.exit(f"bench: {SOURCE} at commit {SOURCE_COMMIT[:7]} is not in this checkout's history "
                 f"({blob.stderr.strip() or blob.stdout.strip()}); in a shallow clone: git fetch --unshallow")
    return subprocess.run(["git", "-C", str(REPO), "cat-file", "blob", SOURCE_BLOB], capture_output=True, check=True).stdout

# "\t ffffffff81612f3e find_mergeable_anon_vma+0x6e ([kernel.kallsyms])"
FRAME = re.compile(r"^(\s+[0-9a-fA-F]+ )(.*?)(\+0x[0-9a-fA-F]+)? \((.*)\)$")
# "fio 29783/29783 [000]  5106.371798:    5025125 cpu-clock:pppH: "
EVENT_TS = re.compile(r"^(.*?\[\d+\]\s+)(\d+)\.(\d+)(:.*)$")


def base_text() -> list[str]:
    """The perf script text of every run of the source bundle, as lines."""
    lines: list[str] = []
    with tarfile.open(fileobj=io.BytesIO(source_bundle())) as tar:
        for m in sorted(tar.getmembers(), key=lambda m: m.name):
            if m.name.endswith(("perf.script.gz", "perf.script")):
                data = tar.extractfile(m).read()  # type: ignore[union-attr]
                text = gzip.decompress(data) if m.name.endswith(".gz") else data
                lines.extend(text.decode().splitlines())
                lines.append("")
    return lines


def rename(line: str, k: int) -> str:
    """A frame line with its symbol (or, for [unknown], its module) suffixed with _cK."""
    m = FRAME.match(line)
    if not m:
        return line
    addr, sym, off, mod = m.groups()
    if sym == "[unknown]":
        if mod != "[unknown]":
            mod = f"{mod}_c{k}"
    else:
        sym = f"{sym}_c{k}"
    return f"{addr}{sym}{off or ''} ({mod})"


def shift(line: str, ns: int) -> str:
    """An event line with its timestamp moved by ns (printed with the same number of digits)."""
    m = EVENT_TS.match(line)
    if not m:
        return line
    head, sec, frac, tail = m.groups()
    digits = len(frac)
    t = int(sec) * 10**digits + int(frac) + ns // 10 ** (9 - digits)
    return f"{head}{t // 10**digits}.{t % 10**digits:0{digits}d}{tail}"


def tree_nodes(folded: dict[str, int]) -> int:
    """Nodes of the merged call tree of folded stacks (the root included)."""
    kids: dict[tuple[int, str], int] = {}
    for stack in folded:
        node = 0
        for fr in stack.split(";"):
            nxt = kids.get((node, fr))
            if nxt is None:
                nxt = kids[(node, fr)] = len(kids) + 1
            node = nxt
    return len(kids) + 1


class Copier:
    """Copies of the base text, one after the other in time; `renamed` copies have distinct symbols."""

    def __init__(self) -> None:
        self.base = base_text()
        times = [int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0"))
                 for m in map(EVENT_TS.match, self.base) if m]
        self.span = max(times) - min(times) + 1_000_000
        self.samples = len(times)

    def copy(self, k: int, renamed: bool = True) -> str:
        return "\n".join(shift(rename(line, k) if renamed else line, k * self.span) for line in self.base) + "\n"

    def copies_for(self, target_nodes: int) -> int:
        """How many renamed copies make a call tree of at least target_nodes nodes: each copy adds
        the same number (its renamed frames); command names and frames without a symbol are shared."""
        sys.path.insert(0, str(REPO / "backend"))
        from iolens.formats.perf_script_native import fold

        one = tree_nodes(fold(self.copy(0).encode())[0])
        per = tree_nodes(fold((self.copy(0) + self.copy(1)).encode())[0]) - one
        return 1 + max(0, -(-(target_nodes - one) // per))
