"""perf script -> folded stacks: the Rust core and the Python reference against inferno 0.12.8.

References: shared/corpus/perf-script (FlameGraph's test inputs and inferno's outputs for every
option) and our own perf 6.1 captures in samples/ with inferno's outputs in golden/perf-script/.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from iolens.formats import perf_script_native as native
from iolens.formats.errors import FormatError
from iolens.formats.perf_script import (
    FoldOptions,
    PerfScriptFolder,
    call_tree,
    event_line_parts,
    fix_partially_demangled_rust_symbol,
    fold_text,
    format_folded,
    parse_folded,
    sample_table,
    stack_line_parts,
    tidy_generic,
)

HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "samples"
GOLDEN = HERE / "golden" / "perf-script"
OWN_SAMPLES = ["perf-6.1-dd-cpu-clock", "perf-6.1-gzip-two-events"]

# inferno-collapse-perf flag -> our options (the file suffix of the expected output is -FLAG)
OPTIONS: dict[str, FoldOptions] = {
    "": FoldOptions(),
    "pid": FoldOptions(pid=True),
    "tid": FoldOptions(tid=True),
    "kernel": FoldOptions(kernel=True),
    "jit": FoldOptions(jit=True),
    "all": FoldOptions(kernel=True, jit=True),
    "addrs": FoldOptions(addrs=True),
}


def read_text(path: Path) -> str:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def corpus_cases(corpus: Path, flag: str) -> list[tuple[Path, Path]]:
    """(input, inferno's output) for every corpus input that has an expected file for flag."""
    root = corpus / "perf-script"
    cases = []
    for inp in sorted((root / "input").iterdir()):
        stem = inp.name.removesuffix(".gz").removesuffix(".txt")
        exp = root / "expected-inferno" / f"{stem}-collapsed{'-' + flag if flag else ''}.txt"
        if exp.exists():
            cases.append((inp, exp))
    return cases


def own_cases(flag: str) -> list[tuple[Path, Path]]:
    return [(SAMPLES / f"{s}.txt.gz", GOLDEN / f"{s}-collapsed{'-' + flag if flag else ''}.txt") for s in OWN_SAMPLES]


def diff(got: dict[str, int], want: dict[str, int]) -> str:
    missing = sorted(set(want) - set(got))[:3]
    extra = sorted(set(got) - set(want))[:3]
    counts = [(k, got[k], want[k]) for k in sorted(set(got) & set(want)) if got[k] != want[k]][:3]
    return f"missing {missing} extra {extra} counts {counts}"


# -- golden: the whole corpus, every option, both implementations --------------------------------

@pytest.mark.parametrize("flag", list(OPTIONS), ids=lambda f: f or "default")
def test_native_matches_inferno_on_the_corpus(corpus, flag):
    cases = corpus_cases(corpus, flag) + own_cases(flag)
    assert len(cases) >= 15  # the 13 FlameGraph inputs (and example-perf-stacks.txt.gz), and ours
    failures = []
    for inp, exp in cases:
        want = parse_folded(exp.read_text(encoding="utf-8"))
        got, info = native.fold(inp, OPTIONS[flag])
        if got != want:
            failures.append(f"{inp.name}: {diff(got, want)}")
        elif info.total != sum(want.values()) or info.stacks != len(want):
            failures.append(f"{inp.name}: info {info}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("flag", list(OPTIONS), ids=lambda f: f or "default")
def test_python_reference_matches_inferno_on_the_corpus(corpus, flag):
    failures = []
    for inp, exp in corpus_cases(corpus, flag) + own_cases(flag):
        want = parse_folded(exp.read_text(encoding="utf-8"))
        got = fold_text(read_text(inp), OPTIONS[flag])
        if got != want:
            failures.append(f"{inp.name}: {diff(got, want)}")
    assert not failures, "\n".join(failures)


def test_output_text_is_infernos_byte_for_byte(tmp_path):
    """Sorted as inferno sorts (by stack, byte order), "stack count" per line."""
    for name in OWN_SAMPLES:
        out = tmp_path / f"{name}.folded"
        with out.open("wb") as f:
            native.write_folded(SAMPLES / f"{name}.txt.gz", f.fileno())
        want = (GOLDEN / f"{name}-collapsed.txt").read_text(encoding="utf-8")
        assert out.read_text(encoding="utf-8") == format_folded(parse_folded(want))
        assert sorted(want.splitlines()) == want.splitlines()  # the golden files were sorted


# -- chunks and threads ---------------------------------------------------------------------------

def test_tiny_chunks_and_threads_give_identical_results(corpus):
    """Chunks split at blank lines fold independently; chunks without one (1 byte, 61 bytes)
    continue on the same thread. Every split must give the same result."""
    names = ["perf-vertx-stacks-01.txt", "perf-java-stacks-01.txt", "perf-iperf-stacks-pidtid-01.txt",
             "example-perf-stacks.txt.gz"]
    inputs = [corpus / "perf-script" / "input" / n for n in names] + [SAMPLES / f"{s}.txt.gz" for s in OWN_SAMPLES]
    for inp in inputs:
        for opts in (FoldOptions(), FoldOptions(tid=True, kernel=True, jit=True, addrs=True)):
            want, _ = native.fold(inp, opts, nthreads=1, chunk_bytes=1 << 30)
            for chunk, threads in ((1, 2), (61, 3), (700, 2), (4096, 3)):
                got, _ = native.fold(inp, opts, nthreads=threads, chunk_bytes=chunk)
                assert got == want, f"{inp.name} chunk {chunk} threads {threads}: {diff(got, want)}"


def test_python_reference_in_small_pieces(corpus):
    for inp in [corpus / "perf-script" / "input" / "perf-java-stacks-01.txt", SAMPLES / f"{OWN_SAMPLES[1]}.txt.gz"]:
        text = read_text(inp)
        want = fold_text(text)
        assert fold_text(text[i:i + 7] for i in range(0, len(text), 7)) == want
        assert native.fold(text.encode(), nthreads=1)[0] == want


def arrow_tables(inp: Path | bytes, *, nthreads: int = 0, chunk_bytes: int = 0
                 ) -> tuple[native.TablesSummary, list[str], list[tuple]]:
    """write_tables_arrow's two tables as DuckDB reads them, run after run (the pass on a thread,
    as ingest runs it): the summary, the stacks' texts by id (checked to count from 0) and the
    samples in order."""
    stream = native.TableStream()
    out: dict = {}

    def run():
        out["summary"] = native.write_tables_arrow(inp, stream, nthreads=nthreads, chunk_bytes=chunk_bytes)

    t = threading.Thread(target=run)
    t.start()
    con = duckdb.connect()
    got: dict[str, list[tuple]] = {"samples": [], "stacks": []}
    columns = {"samples": native.SAMPLE_COLUMNS, "stacks": native.STACK_COLUMNS}
    try:
        while (table := stream.next_table()) is not None:
            con.register("run", stream)
            cols = ", ".join(f"CAST({c} AS {ty}) AS {c}" for c, ty in columns[table])
            got[table] += con.execute(f"SELECT {cols} FROM run").fetchall()
            con.unregister("run")
    finally:
        t.join()
    assert [i for i, _ in got["stacks"]] == list(range(len(got["stacks"])))
    return out["summary"], [s for _, s in got["stacks"]], got["samples"]


def test_tables_in_chunks_and_threads_keep_rows_and_order():
    inp = SAMPLES / f"{OWN_SAMPLES[1]}.txt.gz"
    outs = [arrow_tables(inp, nthreads=threads, chunk_bytes=chunk)
            for chunk, threads in ((1 << 30, 1), (97, 2), (5000, 3))]
    assert outs[0] == outs[1] == outs[2]


# -- the ingest tables: Rust core vs Python reference ---------------------------------------------

def test_tables_match_the_python_reference_and_fold_to_infernos_output(corpus):
    """The tables as ingest loads them (Arrow batches, nulls included: no CPU, no pid, no stack, no
    event) are the pure-Python reference's, row for row and in order."""
    inputs = sorted((corpus / "perf-script" / "input").iterdir()) + [SAMPLES / f"{s}.txt.gz" for s in OWN_SAMPLES]
    for inp in inputs:
        summary, stacks, rows = arrow_tables(inp, chunk_bytes=3000)
        ref_stacks, ref_rows = sample_table(read_text(inp))
        assert stacks == ref_stacks, inp.name
        assert rows == ref_rows, inp.name
        assert summary.samples == len(rows) and summary.stacks == len(stacks)
        # The samples of the first event, summed per stack, are inferno's default output.
        folded: dict[str, int] = {}
        for *_, sid, weight, event in rows:
            if sid is not None and event in (summary.first_event, None):
                folded[stacks[sid]] = folded.get(stacks[sid], 0) + weight
        assert folded == fold_text(read_text(inp)), inp.name


def test_the_samples_come_in_one_run_and_the_stacks_in_another():
    """Batches of both tables, more than one of each (a batch holds a DuckDB row group, 122,880
    rows: DuckDB's insert compresses and writes such a batch while the INSERT runs), in two runs:
    every sample, then every stack. The rows are whole."""
    n = 150_000
    text = b"".join(b"fio 1 [000] 1.%06d: 1 cpu-clock:\n\tffff f%d (/lib/m.so)\n\n" % (i, i) for i in range(n))
    stream = native.TableStream()
    t = threading.Thread(target=lambda: native.write_tables_arrow(text, stream, nthreads=2, chunk_bytes=1 << 16))
    t.start()
    runs = []
    con = duckdb.connect()
    while (table := stream.next_table()) is not None:
        con.register("run", stream)
        runs.append((table, con.execute("SELECT count(*) FROM run").fetchall()[0][0]))
        con.unregister("run")
    t.join()
    assert runs == [("samples", n), ("stacks", n)]


def test_arrow_samples_span_batches_and_long_names(tmp_path):
    """More samples than a batch holds (122,880), and a command name of 2 MiB (the CSV load refused
    lines over 1 MiB; a batch holds its text whole)."""
    n = 150_000
    text = b"".join(b"fio %d [%03d] 1.%06d: 1 cpu-clock:\n\tffff f%d (/lib/m.so)\n\n" % (i % 7 + 1, i % 3, i, i % 5)
                    for i in range(n))
    text += b"x" * (2 << 20) + b" 5 [000] 2.0: 1 cpu-clock:\n\tffff g (/lib/m.so)\n\n"
    inp = tmp_path / "big.txt"
    inp.write_bytes(text)
    summary, _, rows = arrow_tables(inp)
    assert summary.samples == len(rows) == n + 1
    assert rows[0] == (1_000_000_000, 0, None, 1, "fio", 0, 1, "cpu-clock")  # one number: the tid
    assert rows[n - 1][:5] == (1_000_000_000 + (n - 1) * 1000, (n - 1) % 3, None, (n - 1) % 7 + 1, "fio")
    assert rows[n][4] == "x" * (2 << 20) and rows[n][3] == 5


def test_tables_keep_time_cpu_and_task():
    text = (
        "V8 WorkerThread 24636/25607 [002]  94564.109216:     257597 cycles:uppp: \n"
        "\t7f53389994d0 foo+0x10 (/usr/lib/libx.so)\n"
        "\n"
        "java 12688 6544038.708352: cpu-clock:\n"
        "\n"
    )
    stacks, rows = sample_table(text)
    assert stacks == ["V8_WorkerThread;foo"]
    assert rows == [
        (94564109216000, 2, 24636, 25607, "V8 WorkerThread", 0, 257597, "cycles"),
        (6544038708352000, None, None, 12688, "java", None, 1, "cpu-clock"),
    ]


# -- the odd lines ------------------------------------------------------------------------------
# Every expected value below is what inferno-collapse-perf 0.12.8 printed for the same text, except
# where a comment says otherwise.

def both(text: str, options: FoldOptions = FoldOptions()) -> dict[str, int]:
    """Fold with the Python reference and the Rust core (with tiny chunks); they must agree."""
    ref = fold_text(text, options)
    fast, _ = native.fold(text.encode(), options, nthreads=2, chunk_bytes=16)
    assert fast == ref
    return ref


def test_event_without_stack_is_dropped():
    text = "dd 1 [000] 1.0: 5 cpu-clock:\n\ndd 1 [000] 1.1: 5 cpu-clock:\n\tffff f ([kernel.kallsyms])\n\n"
    assert both(text) == {"dd;f": 5}


def test_unknown_frames_use_the_module():
    text = ("a 1 1.0: 1 cycles:\n"
            "\t7f1 [unknown] (/usr/lib/libc.so.6)\n"
            "\t0 [unknown] ([unknown])\n"
            "\t7f2  (/lib/x86_64-linux-gnu/libc-2.15.so)\n\n")
    assert both(text) == {"a; ;[unknown];[libc.so.6]": 1}
    assert both(text, FoldOptions(addrs=True)) == {"a; ;[unknown <0>];[libc.so.6 <7f1>]": 1}


def test_inlined_frames_and_java():
    text = ("java 7 1.0: 1 cycles:\n"
            "\t7f1 Lorg/Foo;.bar(I)V->Lorg/Baz;.qux->x_[i] (/tmp/perf-7.map)\n"
            "\t7f2 Interpreter (/tmp/perf-7.map)\n\n")
    assert both(text, FoldOptions(jit=True)) == {"java;Interpreter_[j];org/Foo:.bar_[j];org/Baz:.qux_[i];x_[i]": 1}
    assert both(text, FoldOptions(kernel=True)) == {"java;Interpreter;org/Foo:.bar;org/Baz:.qux_[i];x_[i]": 1}


def test_comm_with_spaces_digits_and_pid_tid():
    text = ("V8 WorkerThread 24636/25607 [000] 94564.109216: 3 cycles:\n\tffff f (/x)\n\n"
            "kworker/0:2 123 [001] 1.0: 4 cycles:\n\tffff g ([kernel.kallsyms])\n\n")
    assert both(text) == {"V8_WorkerThread;f": 3, "kworker/0:2;g": 4}
    assert both(text, FoldOptions(pid=True)) == {"V8_WorkerThread-24636;f": 3, "kworker/0:2-?;g": 4}
    assert both(text, FoldOptions(tid=True)) == {"V8_WorkerThread-24636/25607;f": 3, "kworker/0:2-?/123;g": 4}
    assert event_line_parts("V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:")[:3] == (
        "V8 WorkerThread", "24636", "25607")


def test_event_modifiers_select_one_event_and_period_weights():
    text = ("perf 1 [000] 1.0: 1 page-faults:u: \n\tffff pf (/x)\n\n"
            "dd 2 [000] 1.1: 250000 cycles:ppp: \n\tffff a (/x)\n\n"
            "dd 2 [000] 1.2: 250000 cycles:ppp: \n\tffff a (/x)\n\n")
    assert both(text) == {"perf;pf": 1}  # the first event only, never merged with others
    assert both(text, FoldOptions(event_filter="cycles")) == {"dd;a": 500000}
    # no period: each sample counts 1; "cpu-clock:u" and "cpu-clock" are one event
    assert both("a 1 1.0: cpu-clock:u:\n\tf1 x (/m)\n\na 1 1.1: cpu-clock:\n\tf1 x (/m)\n\n") == {"a;x": 2}


def test_one_line_events_comments_and_a_last_stack_without_blank_line():
    text = ("# ========\n# captured on: today\n"
            "false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])\n"
            "vote   913    72.176760:     257597 cycles:uppp:\n"
            "\tffff main+0x1a (/bin/vote)\n"
            "# a comment inside a stack\n"
            "\tffff __libc_start_main (/lib/libc.so)")
    assert both(text) == {"false;[unknown]": 34467, "vote;__libc_start_main;main": 257597}


def test_tidy_rules():
    assert tidy_generic("go/build.(*importReader).readByte") == "go/build.(*importReader).readByte"
    assert tidy_generic("foo<Vec::<usize>>(Vec<usize>)") == "foo<Vec::<usize>>"
    assert tidy_generic("(anonymous namespace)::myBar()") == "(anonymous namespace)::myBar"
    assert tidy_generic("{lambda(int, int)#2}::operator()") == "{lambda(int, int)#2}::operator"
    assert tidy_generic("a;b") == "a:b"
    assert fix_partially_demangled_rust_symbol(
        "_$LT$std..fs..ReadDir$u20$as$u20$core..iter..traits..iterator..Iterator$GT$::next::hc14f1750ca79129b"
    ) == "<std::fs::ReadDir as core::iter::traits::iterator::Iterator>::next"
    assert stack_line_parts("\t  ffffffff8103ce3b native_safe_halt+0x6 ([kernel.kallsyms])") == (
        "ffffffff8103ce3b", "native_safe_halt+0x6", "[kernel.kallsyms]")
    assert stack_line_parts("ffff nomodule") is None


def test_skip_after_drops_callers_and_comm():
    text = "a 1 1.0: 1 c:\n\tf leaf (/m)\n\tf mid (/m)\n\tf main (/m)\n\n"
    assert both(text, FoldOptions(skip_after=("mid",))) == {"mid;leaf": 1}


def test_invalid_utf8_and_crlf():
    text = "caf\xe9 1 1.0: 1 c:\r\n\tf x\xff (/m)\r\n\r\n".encode("latin-1")
    ref = fold_text(text.decode("utf-8", errors="replace"))
    assert ref == {"caf\ufffd;x\ufffd": 1}
    assert native.fold(text)[0] == ref


def test_weird_lines_are_counted_not_fatal():
    # inferno 0.12.8 panics here ("assertion failed: self.event_filter.is_some()": its first
    # paragraph has no event line); we skip the line and fold the rest.
    f = PerfScriptFolder()
    f.feed("not an event line\n\ndd 1 1.0: 1 c:\n\tno-module-here\n\tffff ok (/m)\n\n")
    f.finish()
    assert f.counts == {"dd;ok": 1} and f.weird_lines == 2
    assert native.fold(b"not an event line\n\n")[1].weird_lines == 1


def test_perf_data_is_refused_with_advice(tmp_path):
    p = tmp_path / "perf.data"
    p.write_bytes(b"PERFILE2" + b"\0" * 100)
    with pytest.raises(FormatError, match="perf script"):
        native.fold(p)


def test_call_tree():
    tree = call_tree({"a;b": 2, "a;c": 1, "d": 4})
    assert tree == {"name": "root", "value": 7, "children": [
        {"name": "a", "value": 3, "children": [{"name": "b", "value": 2, "children": []},
                                               {"name": "c", "value": 1, "children": []}]},
        {"name": "d", "value": 4, "children": []}]}


# -- the command line ---------------------------------------------------------------------------

def iolens(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iolens", *args], capture_output=True, timeout=120, **kw)


def test_convert_perf_script_file_stdin_and_json():
    inp = SAMPLES / f"{OWN_SAMPLES[0]}.txt.gz"
    want = (GOLDEN / f"{OWN_SAMPLES[0]}-collapsed-all.txt").read_bytes()
    r = iolens("convert", "perf-script", str(inp), "--to", "folded", "--all")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == sorted(want.splitlines())
    r = iolens("convert", "perf-script", "-", "--all", input=gzip.decompress(inp.read_bytes()))
    assert r.returncode == 0 and sorted(r.stdout.splitlines()) == sorted(want.splitlines())
    r = iolens("convert", "perf-script", str(inp), "--to", "json")
    tree = json.loads(r.stdout)
    assert tree["name"] == "root" and tree["value"] == sum(parse_folded(want.decode()).values())
    r = iolens("convert", "perf-script", str(SAMPLES / "nope.txt"))
    assert r.returncode == 1 and b"No such file" in r.stderr
