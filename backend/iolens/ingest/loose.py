"""A capture bundle from loose files: fio JSON, perf script, blktrace... recognised by content.

`iolens bundle` (cli) and the library page's upload of loose files (api) both call `plan()` then
`write()`: the same code decides what each file is and where it goes.

- Each file is recognised by its content (formats/detect.py), never its name, then read whole by
  its parser, so a damaged file is refused with its name, line and field before anything is
  written. A file that is none of the kinds is refused with its name.
- Runs: each fio result (fio JSON or terse file) is one run, in the order given (repeats of one
  point). The other per-run files go with them: all to the one run when there is one; else one
  file of a kind per run, in the order given; blktrace's per-CPU files are grouped into traces by
  their stem (`DEV.blktrace.N`), one trace per run. When that cannot be decided the files are
  refused, saying why. With no fio result, the capture has one run and an unknown workload.
- A perf.data (binary) is turned into text with the local `perf script` (its version and the
  command are kept in the artifact); where perf is missing it is refused with the command to run
  where it was recorded.
- The manifest says what is not known (`notes`): no host facts (CPU, memory, devices, mount
  options), the device, the kernel unless `--kernel` or a file gives it (iostat's first line does:
  its release, host name and CPU count are taken, and said to be).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import subprocess
import tempfile
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..bundle.writer import artifact, write_bundle
from ..formats import detect, gz
from ..formats.errors import FormatError

# recognised kind -> (artifact kind in the bundle, where it goes: "run-defining" | "run" | "capture" | "run-or-capture")
PLACEMENT: dict[str, tuple[str, str]] = {
    "fio-json": ("fio-json", "run-defining"),
    "fio-terse": ("fio-terse", "run-defining"),
    "fio-jobfile": ("fio-jobfile", "capture"),
    "fio-log": ("fio-log", "run"),
    "fio-hist-log": ("fio-hist-log", "run"),
    "perf-script": ("perf-script", "run"),
    "perf-offcpu": ("perf-offcpu", "run"),
    "folded-stacks": ("folded-stacks", "run"),
    "perf-block": ("perf-block", "run"),
    "perf-sched": ("perf-sched", "run"),
    "perf-trace": ("perf-trace", "run"),
    "perf-stat": ("perf-stat", "run"),
    "blktrace": ("blktrace", "run"),
    "blkparse": ("blkparse", "run"),
    "lock-stat": ("lock-stat", "run-or-capture"),
    "perf-sched-timehist": ("perf-sched-timehist", "run"),
    "iostat": ("iostat", "run-or-capture"),
    "vmstat": ("vmstat", "run-or-capture"),
    "monitor": ("monitor", "run"),
    "tracepoint-formats": ("tracepoint-formats", "run"),
    "perf-trace-fields": ("perf-trace-fields", "run"),
}
# kinds of which a run holds one (perf script text and folded stacks both fill the run's stacks)
_ONE_PER_RUN = {"perf-script": "stacks", "folded-stacks": "stacks", "perf-block": "block events",
                "blkparse": "block events", "blktrace": "block events", "perf-sched": "perf-sched",
                "lock-stat": "lock-stat", "perf-offcpu": "off-CPU stacks"}
_GZIP_KEPT = {"perf-script", "perf-offcpu", "perf-block", "perf-sched", "blkparse", "perf-trace", "monitor", "perf-trace-fields"}  # their readers take gzip
_FIO_LOG_NAME = re.compile(r"(?:^|[_-])(bw|iops|lat|clat|slat)(?:\.(\d+))?\.log(?:\.gz)?$")
_BLKTRACE_NAME = re.compile(r"^(.*)\.blktrace\.(\d+)$")


class LooseError(Exception):
    """Files that cannot make a bundle: one line per file, naming it."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass
class LooseFile:
    name: str            # the name as given (shown in messages, kept in the manifest)
    data: bytes          # the content as stored in the bundle (gunzipped where the reader needs text)
    kind: str            # recognised kind (detect.KINDS)
    reason: str          # what the detector saw
    gzip: bool = False   # stored gzip-compressed
    converted: dict[str, Any] | None = None   # perf.data -> text: file, command, perf version
    extra: dict[str, Any] = field(default_factory=dict)     # extra artifact fields (fio-log: log, ...)
    run: int | None = None   # run index, None for the capture
    path: str = ""           # member name in the bundle


@dataclass
class Plan:
    label: str
    files: list[LooseFile]
    runs: int
    workload: dict[str, Any]
    host: dict[str, Any]
    notes: list[str]
    tags: dict[str, str]
    argv: list[str]

    def summary(self) -> list[dict[str, Any]]:
        """What was recognised, per file (the CLI prints it, the API returns it)."""
        return [{"file": f.name, "kind": f.kind, "reason": f.reason, "run": None if f.run is None else f"r{f.run:03d}",
                 "path": f.path, "size": len(f.data), "converted": f.converted} for f in self.files]


def _gunzip(name: str, data: bytes) -> bytes:
    try:
        return gz.gunzip(data, name)  # zlib.error too (a flipped byte), not only a cut
    except FormatError as exc:
        raise LooseError([str(exc)]) from None


def recognise(name: str, data: bytes) -> detect.Recognition:
    """Recognise by a bounded prefix, reading more while the detectors cannot tell yet."""
    size = detect.PREFIX_BYTES
    while True:
        complete = size >= len(data)
        r = detect.recognise(data[:size], complete)
        if r.answer != detect.MAYBE or complete or size >= detect.MAX_PREFIX_BYTES:
            if r.answer == detect.MAYBE:
                return detect.Recognition(None, detect.NO, f"cannot tell what it is from its first {size} bytes ({r.reason})",
                                          r.gzip, [], r.verdicts)
            return r
        size *= 8


def perf_data_to_text(name: str, data: bytes, perf: str | None) -> tuple[bytes, dict[str, Any]]:
    """perf.data -> `perf script` text with the local perf. Raises LooseError when perf is missing
    or refuses the file."""
    if perf is None:
        raise LooseError([f"{name}: a perf.data file (binary), and perf is not installed here to turn it into text; "
                          f"run `perf script -F +pid -i {name} > {name}.txt` on the machine that recorded it "
                          "(its symbols are there) and give the text instead"])
    with tempfile.TemporaryDirectory(prefix="iolens-perf-") as tmp:
        src = Path(tmp) / "perf.data"
        src.write_bytes(data)
        src.chmod(0o600)
        cmd = [perf, "script", "-F", "+pid", "-i", str(src)]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=600, check=False)
            version = subprocess.run([perf, "--version"], capture_output=True, text=True, timeout=30,
                                     check=False).stdout.strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LooseError([f"{name}: perf script failed: {exc}"]) from None
    if p.returncode != 0 or not p.stdout.strip():
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LooseError([f"{name}: `perf script` could not read this perf.data: {err[-1] if err else 'no output'}"])
    shown = ["perf", "script", "-F", "+pid", "-i", name]
    return p.stdout, {"file": name, "command": shown, "perf": version,
                      "note": "symbols resolved on the machine that made the bundle, not necessarily the one that recorded"}


def _validate(f: LooseFile) -> None:
    """Read the whole file with its parser: refuse a damaged file now, naming it."""
    from ..formats import blktrace_bin, fio_json, fio_log, fio_terse, folded, iostat, lock_stat, perf_stat, vmstat
    text = None if f.kind in ("blktrace",) else f.data.decode("utf-8", "replace")
    name = f.name
    k = f.kind
    if k == "fio-json":
        fio_json.parse_fio_json(text, name)
    elif k == "fio-terse":
        fio_terse.parse_fio_terse(text, name)
    elif k == "fio-log":
        fio_log.parse_fio_log(text, name, kind=f.extra["log"])
    elif k == "folded-stacks":
        folded.parse_folded(text, name)
    elif k == "blktrace":
        for _ in blktrace_bin.BlktraceReader([(name, f.data)]).events():
            pass  # every record read and checked, none kept
    elif k == "lock-stat":
        lock_stat.parse_lock_stat(text, name)
    elif k == "perf-stat":
        perf_stat.parse_perf_stat(text, name)
    elif k == "iostat":
        iostat.parse_iostat(text, name)
    elif k == "vmstat":
        vmstat.parse_vmstat(text, name)
    # perf script / block / sched / blkparse text is read in one streaming pass at ingest (large files)


def plan(files: list[tuple[str, bytes]], label: str, *, kernel: str | None = None, tags: dict[str, str] | None = None,
         perf: str | None = None, argv: list[str] | None = None, find_perf: bool = True,
         event: str | None = None) -> Plan:
    """Recognise, check and place every file; raises LooseError listing every file refused."""
    if not label or len(label) > 200:
        raise LooseError(["--label: give the capture a name of 1 to 200 characters"])
    if not files:
        raise LooseError(["no files given"])
    if perf is None and find_perf:
        perf = shutil.which("perf")
    problems: list[str] = []
    loose: list[LooseFile] = []
    seen: dict[str, str] = {}
    for name, data in files:
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            problems.append(f"{name}: the same content as {seen[digest]} (given twice?)")
            continue
        seen[digest] = name
        r = recognise(name, data)
        if r.kind is None:
            problems.append(f"{name}: not a file iolens reads: {r.reason}")
            continue
        content, zipped, converted = data, r.gzip, None
        kind, reason = r.kind, r.reason
        try:
            if kind == "perf-data":
                text, converted = perf_data_to_text(name, data, perf)
                r2 = detect.recognise(text[:detect.MAX_PREFIX_BYTES], len(text) <= detect.MAX_PREFIX_BYTES)
                if r2.kind not in ("perf-script", "perf-offcpu", "perf-block", "perf-sched", "perf-trace"):
                    raise LooseError([f"{name}: perf script printed text that is not stacks or tracepoints ({r2.reason})"])
                kind, reason = r2.kind, f"perf.data turned into text with {converted['perf']}: {r2.reason}"
                content, zipped = gzip.compress(text, 6, mtime=0), True
            elif zipped and kind not in _GZIP_KEPT:
                content, zipped = _gunzip(name, data), False
        except LooseError as exc:
            problems.extend(exc.problems)
            continue
        f = LooseFile(name, content, kind, reason, zipped, converted)
        if kind == "folded-stacks" and event:
            f.extra = {"event": event}
        if kind == "monitor":
            from ..formats.monitors import source_of
            f.extra = {"source": source_of(content.decode("utf-8", "replace")) if not zipped else
                       source_of(gzip.decompress(content)[:65536].decode("utf-8", "replace"))}
        if kind == "fio-log":
            m = _FIO_LOG_NAME.search(Path(name).name)
            if not m:
                problems.append(f"{name}: a fio log, but its content does not say which (bw, iops, lat, clat, slat): "
                                "name it as fio does (JOB_bw.1.log, JOB_clat.1.log...)")
                continue
            f.extra = {"log": m.group(1), **({"clone": int(m.group(2))} if m.group(2) else {})}
        try:
            if not zipped:
                _validate(f)
        except FormatError as exc:
            problems.append(str(exc))
            continue
        loose.append(f)
    if problems:
        raise LooseError(problems)
    p, problems = _place(loose, label, kernel, tags or {}, argv or [])
    if problems:
        raise LooseError(problems)
    return p


def _place(loose: list[LooseFile], label: str, kernel: str | None, tags: dict[str, str],
           argv: list[str]) -> tuple[Plan, list[str]]:
    """Where every file goes, the host facts the files give and the notes; and the problems
    (files that cannot be placed), which `plan` raises and `preview` lists."""
    notes: list[str] = ["made from loose files (iolens bundle, or the library page): no host facts were captured "
                        "(CPU, memory, devices, scheduler, file system and mount options are unknown)"]
    defining = [f for f in loose if PLACEMENT[f.kind][1] == "run-defining"]
    nruns = max(1, len(defining))
    if not defining:
        notes.append("no fio output among the files: the workload is unknown; one run holds every file")
    for i, f in enumerate(defining):
        f.run = i
    problems: list[str] = []
    by_kind: dict[str, list[LooseFile]] = {}
    for f in loose:
        if f.run is None and PLACEMENT[f.kind][1] != "capture":
            by_kind.setdefault(f.kind, []).append(f)
    for kind, group in by_kind.items():
        where = PLACEMENT[kind][1]
        if kind == "blktrace":  # one trace = the per-CPU files DEV.blktrace.N of one stem
            traces: dict[str, list[LooseFile]] = {}
            for f in group:
                m = _BLKTRACE_NAME.match(Path(f.name).name)
                traces.setdefault(m.group(1) if m else f.name, []).append(f)
            units = list(traces.values())
        else:
            units = [[f] for f in group]
        names = ", ".join(f.name for f in group)
        if len(units) == nruns:
            for i, u in enumerate(units):
                for f in u:
                    f.run = None if where == "run-or-capture" and nruns == 1 and kind == "lock-stat" else i
        elif len(units) == 1 and where == "run-or-capture":
            for f in units[0]:
                f.run = None
        elif nruns == 1 and kind not in _ONE_PER_RUN:
            for f in group:
                f.run = 0
        else:
            problems.append(f"{names}: {len(units)} {kind} {'traces' if kind == 'blktrace' else 'files'} for {nruns} "
                            f"run(s): give one per fio result, in the same order" +
                            (" (one run holds one)" if kind in _ONE_PER_RUN else ""))
    for i in range(nruns):
        groups: dict[str, list[LooseFile]] = {}
        for f in loose:
            if f.run == i and f.kind in _ONE_PER_RUN:
                groups.setdefault(_ONE_PER_RUN[f.kind], []).append(f)
        for what, fs in groups.items():
            if len({f.kind for f in fs}) > 1 or (fs[0].kind != "blktrace" and len(fs) > 1):
                problems.append(f"{', '.join(f.name for f in fs)}: two sources of {what} for run r{i:03d} "
                                "(one per run)")
    # member names: runs/rNNN/NAME or files/NAME, unique
    used: set[str] = set()
    for f in loose:
        base = re.sub(r"[^A-Za-z0-9._-]", "_", Path(f.name).name) or "file"
        if f.converted:
            base += ".script.gz"
        elif f.gzip and not base.endswith(".gz"):
            base += ".gz"
        elif not f.gzip and base.endswith(".gz"):
            base = base[:-3]
        folder = "files" if f.run is None else f"runs/r{f.run:03d}"
        path, n = f"{folder}/{base}", 1
        while path in used:
            n += 1
            path = f"{folder}/{n}-{base}"
        used.add(path)
        f.path = path
    host: dict[str, Any] = {}
    fio_version = None
    for f in defining:
        if f.kind == "fio-json":
            m = re.search(rb'"fio ?version"\s*:\s*"([^"]*)"', f.data)
            fio_version = fio_version or (m.group(1).decode() if m else None)
        elif f.kind == "fio-terse":
            parts = f.data.split(b";", 3)
            fio_version = fio_version or (parts[1].decode() if len(parts) > 2 and parts[1].startswith(b"fio") else None)
    for f in loose:
        if f.kind == "iostat":
            from ..formats.iostat import parse_iostat
            try:
                s = parse_iostat(f.data.decode("utf-8", "replace"), f.name).system
            except FormatError:
                continue  # a preview's prefix cut inside a report
            if s is not None and "kernel" not in host:
                host = {"hostname": s.hostname, "kernel": {"release": s.release}, "cpu": {"count": s.cpus}}
                notes.append(f"host name, kernel release and CPU count as iostat printed them in {f.name}")
    if kernel:
        seen_rel = host.get("kernel", {}).get("release")
        if seen_rel and seen_rel != kernel:
            notes.append(f"--kernel {kernel} given; {seen_rel} printed by iostat (kept: --kernel)")
        host.setdefault("kernel", {})["release"] = kernel
    elif "kernel" not in host:
        notes.append("kernel release unknown (give --kernel RELEASE)")
    folded = [f for f in loose if f.kind == "folded-stacks" and "event" not in f.extra]
    if folded:
        notes.append(f"folded stacks ({', '.join(f.name for f in folded)}): the event they count is unknown "
                     "(give --event cpu-clock, say, to compare them with perf script stacks of that event)")
    if any(f.kind in ("blktrace", "blkparse", "perf-block", "iostat") for f in loose):
        notes.append("the traced device's model, scheduler and queue settings are unknown")
    for f in loose:
        if f.converted:
            notes.append(f"{f.name}: a perf.data turned into text here ({f.converted['perf']}); "
                         "symbols may differ from those of the machine that recorded it")
    jobfile = next((f.path for f in loose if f.kind == "fio-jobfile"), None)
    workload: dict[str, Any]
    if defining:
        workload = {"kind": "fio", "fio_version": fio_version, "jobfile": jobfile, "fio_args": None, "targets": []}
    else:
        workload = {"kind": "cmd", "jobfile": jobfile, "targets": []}
    return Plan(label, loose, nruns, workload, host, notes, tags, argv), problems


def manifest(p: Plan, created_at: datetime | None = None) -> dict[str, Any]:
    when = (created_at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def art(f: LooseFile) -> dict[str, Any]:
        a = artifact(PLACEMENT[f.kind][0], f.path, f.data, source_file=f.name, **f.extra)
        if f.converted:
            a["converted_from"] = f.converted
        return a

    runs = []
    for i in range(p.runs):
        runs.append({"id": f"r{i:03d}", "index": i, "repeat": i, "params": {}, "started_at": None, "ended_at": None,
                     "exit_code": None, "cmdline": [], "artifacts": [art(f) for f in p.files if f.run == i]})
    return {
        "format": "iolens-bundle", "format_version": 1,
        "collector": {"name": "iolens bundle", "version": __version__, "argv": p.argv},
        "label": p.label, "tags": p.tags, "created_at": when, "host": p.host, "workload": p.workload,
        "runs": runs, "artifacts": [art(f) for f in p.files if f.run is None], "notes": p.notes,
        "source": {"kind": "loose-files", "files": [f.name for f in p.files]},
    }


def write(p: Plan, out: Path, created_at: datetime | None = None) -> dict[str, Any]:
    """Write the bundle to `out` with the bundle writer (bundle/writer.py: checked, atomic)."""
    m = manifest(p, created_at)
    write_bundle(m, [(f.path, f.data) for f in p.files], out)
    return m


def _is_bundle(data: bytes) -> bool:
    """A capture bundle (tar, or tar.gz, holding manifest.json): not a loose file."""
    raw = data
    if data[:2] == b"\x1f\x8b":
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, 1 << 16)
        except zlib.error:
            return False
    return len(raw) > 262 and raw[257:262] == b"ustar"


def preview(items: list[tuple[str, bytes, int]], perf: str | None = None, find_perf: bool = True) -> dict[str, Any]:
    """What each file is, from its first bytes (`(name, prefix, full size)`), and where it would
    go: the library page shows this before the upload. Nothing is parsed whole, nothing stored."""
    if perf is None and find_perf:
        perf = shutil.which("perf")
    seen: list[dict[str, Any]] = []
    placed: list[LooseFile] = []
    problems: list[str] = []
    index: dict[int, LooseFile] = {}
    for i, (name, data, size) in enumerate(items):
        r = detect.recognise(data, len(data) >= size)
        kind, reason, answer = r.kind, r.reason, r.answer
        if _is_bundle(data):
            kind, answer, reason = None, detect.NO, "a capture bundle (tar with a manifest): upload it with Upload bundles"
        elif kind == "perf-data":
            if perf is None:
                problems.append(f"{name}: a perf.data file (binary), and perf is not installed on the server to turn it "
                                f"into text; run `perf script -F +pid -i {name} > {name}.txt` where it was recorded")
            else:
                kind, reason = "perf-script", f"{reason}; turned into text with the server's perf at upload"
        elif kind is None and answer == detect.MAYBE:
            reason = f"cannot tell from the first {len(data)} bytes ({reason}); read whole at upload"
        title = detect.TITLES.get(kind) if kind else None
        seen.append({"file": name, "size": size, "kind": kind, "title": title, "answer": answer, "reason": reason,
                     "run": None})
        if kind is not None:
            f = LooseFile(name, data, kind, reason)
            if kind == "fio-log" and not _FIO_LOG_NAME.search(Path(name).name):
                problems.append(f"{name}: a fio log, but its content does not say which (bw, iops, lat, clat, slat): "
                                "name it as fio does (JOB_bw.1.log, JOB_clat.1.log...)")
            placed.append(f)
            index[i] = f
        elif answer == detect.NO:
            problems.append(f"{name}: not a file iolens reads: {reason}")
    runs, notes = 0, []
    if placed:
        p, more = _place(placed, "preview", None, {}, [])
        problems += more
        runs, notes = p.runs, p.notes
        for i, f in index.items():
            seen[i]["run"] = None if f.run is None else f"r{f.run:03d}"
    return {"files": seen, "runs": runs, "notes": notes, "problems": problems}
