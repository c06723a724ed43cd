"""Every parser of iolens/formats against mutated real inputs: seeded, bounded (a few hundred
inputs, well under a minute), taken from ../shared/corpus, the test samples and the bundles of
datasets/.

Each input ends in rows or in a FormatError of one line that names the file (and, with very few
whole-file exceptions, the line): never another exception, a hang, a non-finite number or an
integer too large for the database in the rows.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import math
import os
import random
import re
import signal
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from iolens.formats.errors import FormatError

HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "formats" / "samples"
REPO = HERE.parents[1]
SEED = int(os.environ.get("IOLENS_FUZZ_SEED", "20261125"))
PER_TARGET = int(os.environ.get("IOLENS_FUZZ_PER_TARGET", "30"))
MAX_SEED_BYTES = 48 * 1024
# A hang is an input that takes this much CPU (the process's user + system time, ITIMER_PROF): a wall
# clock limit measured the machine's load instead, as make test's other lanes ran beside it (an fio
# json input had no answer after 5 s of wall time at nice 19). The wall limit only stops a parser that
# waits without computing.
SECONDS_PER_INPUT = 5
WALL_SECONDS_PER_INPUT = 120

# What a mutation puts where a number was: values no parser may let through as a number.
SPECIALS = [
    "NaN", "nan", "-nan", "inf", "-inf", "Infinity", "-Infinity", "1e309", "-1e309", "1e-400", "-1", "-0.5",
    "9" * 5000, "0x1F", "1_000", "\u0661\u0662", "\U0001d7d8", "18446744073709551616", "-9223372036854775809",
    "", " ", "\x00", "+5", "1.2.3", "1e5", "١", "²",
]
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def _parsers() -> dict[str, Callable[[str, str], Any]]:
    from iolens.formats import (
        blkparse,
        cmd_output,
        diskstats,
        fio_json,
        fio_log,
        fio_terse,
        folded,
        iostat,
        lock_stat,
        monitors,
        perf_block,
        perf_sched,
        perf_script,
        perf_stat,
        trace_fields,
        vmstat,
    )

    def lines(text: str) -> io.StringIO:
        return io.StringIO(text)

    def monitor(text: str, source: str) -> Any:
        kind = monitors.source_of(text)
        if kind is None:
            raise FormatError(source, "not a monitor file")
        return monitors.parse_monitor(text, kind, source)

    return {
        "fio-json": lambda t, s: fio_json.parse_fio_json(t, s),
        "fio-terse": lambda t, s: fio_terse.parse_fio_terse(t, s),
        "fio-log": lambda t, s: fio_log.parse_fio_log(t, s),
        "lock-stat": lambda t, s: lock_stat.parse_lock_stat(t, s),
        "blkparse": lambda t, s: list(blkparse.BlkparseReader(s).events(lines(t))),
        "perf-block": lambda t, s: list(perf_block.PerfBlockReader(s).events(lines(t))),
        "perf-sched": lambda t, s: list(perf_sched.SchedReader(s).events(lines(t))),
        "timehist": lambda t, s: perf_sched.parse_timehist(t, s),
        "perf-stat": lambda t, s: perf_stat.parse_perf_stat(t, s),
        "perf-script": lambda t, s: perf_script.sample_table(t),
        "folded": lambda t, s: folded.parse_folded(t, s),
        "iostat": lambda t, s: iostat.parse_iostat(t, s),
        "vmstat": lambda t, s: vmstat.parse_vmstat(t, s),
        "diskstats": lambda t, s: diskstats.parse_diskstats(t, s),
        "rusage": lambda t, s: cmd_output.parse_rusage(t, s),
        "monitor": monitor,
        "trace-formats": lambda t, s: trace_fields.parse_formats(t, s),
        "trace-fields": lambda t, s: list(trace_fields.iter_events(lines(t), s)),
    }


# Seeds: (kind, glob) under the corpus, the samples, and member names inside the datasets' bundles.
CORPUS_SEEDS = [
    ("fio-json", "fio/json/*.json"), ("fio-log", "fio/logs/fio_*[0-9].log"), ("lock-stat", "lock_stat/*denumbered.txt"),
    ("lock-stat", "lock_stat/linux-6.12*.txt"), ("blkparse", "blktrace/*blkparse-default.txt"),
    ("timehist", "perf-sched/*.txt"), ("perf-script", "perf-script/input/perf-*stacks-01.txt"),
    ("folded", "perf-script/expected-inferno/perf-*-stacks-01-collapsed.txt"),
]
SAMPLE_SEEDS = [
    ("fio-json", "fio-3.33-*.json"), ("fio-terse", "fio-terse/*.terse"), ("fio-log", "fio-log/*.log"),
    ("lock-stat", "lock_stat/*.txt"), ("perf-block", "perf-6.1-block-randrw.*.txt.gz"),
    ("perf-sched", "sched/*perf-s*-script*.txt.gz"), ("timehist", "sched/*timehist*.txt.gz"),
    ("perf-stat", "sched/*.csv"), ("perf-stat", "perf-6.1-block-randrw.stat.csv"), ("iostat", "iostat/*.txt"),
    ("vmstat", "vmstat/*.txt"), ("monitor", "monitors/*.txt.gz"), ("trace-formats", "trace/*formats.txt"),
    ("trace-fields", "trace/*.jsonl.gz"),
]
BUNDLE_MEMBERS = [
    ("fio-json", r"/fio\.json$"), ("fio-log", r"_(bw|iops|lat|clat|slat)\.\d+\.log$"), ("lock-stat", r"lock_stat\.txt$"),
    ("perf-stat", r"perf-stat[^/]*\.csv$"), ("perf-sched", r"/sched\.script\.gz$"), ("perf-block", r"/block\.script\.gz$"),
    ("perf-script", r"/perf\.script\.gz$"), ("diskstats", r"/diskstats\.(before|after)$"), ("rusage", r"/rusage\.json$"),
]


def _text(data: bytes, name: str) -> str:
    if name.endswith(".gz"):
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            data = f.read(MAX_SEED_BYTES * 4)
    text = data.decode("utf-8", "replace")
    if len(text) > MAX_SEED_BYTES and not name.endswith(".json"):
        text = text[: text.rfind("\n", 0, MAX_SEED_BYTES) + 1]  # whole lines: the seed itself parses
    return text


def _name(name: str) -> str:
    return name[:-3] if name.endswith(".gz") else name


def seeds(corpus: Path) -> dict[str, list[tuple[str, str]]]:
    """kind -> [(source name, text)]."""
    out: dict[str, list[tuple[str, str]]] = {}
    for kind, pattern in CORPUS_SEEDS:
        for p in sorted(corpus.glob(pattern)):
            out.setdefault(kind, []).append((_name(p.name), _text(p.read_bytes(), p.name)))
    for kind, pattern in SAMPLE_SEEDS:
        for p in sorted(SAMPLES.glob(pattern)):
            out.setdefault(kind, []).append((_name(p.name), _text(p.read_bytes(), p.name)))
    taken: set[tuple[str, str]] = set()
    for bundle in sorted((REPO / "datasets").glob("*/*.iolens.tar.gz")):
        with tarfile.open(bundle) as tar:
            for m in tar.getmembers():
                for kind, pattern in BUNDLE_MEMBERS:
                    if m.isfile() and re.search(pattern, m.name) and (bundle.parent.name, kind) not in taken:
                        taken.add((bundle.parent.name, kind))
                        f = tar.extractfile(m)
                        assert f is not None
                        out.setdefault(kind, []).append((_name(Path(m.name).name), _text(f.read(), m.name)))
    return out


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(["number", "number", "number", "truncate", "duplicate", "delete", "swap", "chars", "long"])
        lines = text.split("\n")
        if op == "number":
            spots = list(_NUMBER.finditer(text))
            if spots:
                m = rng.choice(spots[:5000])
                text = text[: m.start()] + rng.choice(SPECIALS) + text[m.end():]
        elif op == "truncate" and text:
            text = text[: rng.randrange(len(text))]
        elif op == "duplicate" and lines:
            i = rng.randrange(len(lines))
            j = min(len(lines), i + rng.randint(1, 5))
            text = "\n".join(lines[:j] + lines[i:j] + lines[j:])
        elif op == "delete" and lines:
            i = rng.randrange(len(lines))
            text = "\n".join(lines[:i] + lines[i + rng.randint(1, 3):])
        elif op == "swap" and len(lines) > 1:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == "chars" and text:
            chars = list(text)
            for _ in range(rng.randint(1, 8)):
                chars[rng.randrange(len(chars))] = rng.choice(["\x00", "\t", ",", ":", "[", "]", "{", "}", "\"", "-",
                                                                "\u00e9", "\ufffd", "\r", " ", "9", "x"])
            text = "".join(chars)
        elif op == "long" and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, rng.choice(["x", "1", "[", "a b "]) * rng.randint(1000, 20000))
            text = "\n".join(lines)
    return text


class _Timeout(Exception):
    pass


def _alarm(signum: int, _frame: Any) -> None:
    raise _Timeout(f"{SECONDS_PER_INPUT} s of CPU" if signum == signal.SIGPROF else f"{WALL_SECONDS_PER_INPUT} s")


def _values(x: Any) -> Iterator[Any]:
    """Every scalar in a parse result (dataclasses, named tuples, lists, dicts)."""
    stack = [x]
    while stack:
        v = stack.pop()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            stack.extend(v)
        else:
            yield v


def check_one(parse: Callable[[str, str], Any], source: str, text: str) -> str | None:
    """None when the input ends well; else what went wrong."""
    old = signal.signal(signal.SIGPROF, _alarm), signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_PROF, SECONDS_PER_INPUT)
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS_PER_INPUT)
    try:
        result = parse(text, source)
    except FormatError as exc:
        msg = str(exc)
        if "\n" in msg:
            return f"a FormatError of several lines: {msg[:300]!r}"
        if exc.file != source or not msg.startswith(source):
            return f"a FormatError that does not name the file {source!r}: {msg[:300]!r}"
        if len(msg) > 1000:
            return f"a FormatError of {len(msg)} characters: {msg[:200]!r}..."
        return None
    except _Timeout as exc:
        return f"no answer after {exc}"
    except Exception as exc:  # noqa: BLE001 - that is the finding
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old[0])
        signal.signal(signal.SIGALRM, old[1])
    for v in _values(result):
        if isinstance(v, float) and not math.isfinite(v):
            return f"a non-finite number in the rows: {v}"
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**64:
            return f"an integer too large for the database in the rows: {str(v)[:40]}..."
    return None


def test_every_parser_survives_mutated_inputs(corpus: Path) -> None:
    parsers = _parsers()
    found = seeds(corpus)
    assert set(found) == set(parsers), f"parsers without seeds: {sorted(set(parsers) - set(found))}"
    rng = random.Random(SEED)
    failures: list[str] = []
    runs = 0
    for kind in sorted(parsers):
        parse = parsers[kind]
        for source, text in found[kind]:  # the seeds themselves read (or are refused) cleanly
            problem = check_one(parse, source, text)
            if problem:
                failures.append(f"{kind} {source} (unmutated): {problem}")
        for i in range(PER_TARGET):
            source, text = found[kind][i % len(found[kind])]
            mutated = mutate(text, rng)
            problem = check_one(parse, source, mutated)
            runs += 1
            if problem:
                failures.append(f"{kind} {source} (seed {SEED}, input {i}): {problem}")
    assert runs >= 300
    assert not failures, f"{len(failures)} of {runs} inputs ended badly:\n" + "\n".join(failures[:60])
