"""iolens.formats.perf_sched: perf script text of sched tracepoints and perf sched timehist,
against real files (shared/corpus/perf-sched, and tests/formats/samples/sched made on this
project's machine; recipes in samples/README.md)."""

from __future__ import annotations

import functools
import gzip
import pickle
from collections import Counter
from pathlib import Path

import pytest

from iolens.formats.errors import FormatError
from iolens.formats.perf_sched import (
    Migrate,
    SchedReader,
    SchedScript,
    Switch,
    Wake,
    iter_sched_events,
    normalise_state,
    parse_sched_script,
    parse_timehist,
)

SAMPLES = Path(__file__).resolve().parent / "samples" / "sched"
CORPUS_TIMEHIST = [
    "linux-doc-perf-sched.txt_timehist-example.txt",  # perf docs: 4-digit CPU, wide columns
    "lkml-20240606131652.239210235_timehist-after-callchain.txt",  # narrow columns, call chains
    "lkml-20240606131652.239210235_timehist-before.txt",  # "Samples do not have callchains." first
]
SCRIPT_SAMPLES = [
    "fio-pinned.perf-script.txt.gz",  # perf script, fio <-> kworker storm on CPU 1, ":-1 -1" heads
    "pingpong.perf-sched-script.txt.gz",  # perf sched record/script: comms with spaces, other sched events
    "pingpong.perf-script-ns-pid.txt.gz",  # --ns -F comm,pid,tid,cpu,time,event,trace
    "pingpong.perf-script-period.txt.gz",  # -F +period: a number before the event name
]
TIMEHIST_SAMPLES = [
    "pingpong.timehist-default.txt.gz", "pingpong.timehist-wM.txt.gz", "pingpong.timehist-Vn-state.txt.gz",
    "pingpong.timehist-callchain.txt.gz", "pingpong.timehist-s.txt",
]


@functools.cache
def read(name: str) -> str:
    data = (SAMPLES / name).read_bytes()
    return (gzip.decompress(data) if name.endswith(".gz") else data).decode()


@functools.cache
def parsed(name: str) -> SchedScript:
    return parse_sched_script(read(name), name)


def script_summary(name: str) -> dict:
    """A readable dump: counts, the first and last events of each kind, states and pairs."""
    r = parsed(name)
    pairs = Counter(f"{s.prev_comm} -> {s.next_comm}" for s in r.switches)
    return {
        "switches": len(r.switches),
        "wakeups": dict(sorted(Counter(w.kind for w in r.wakeups).items())),
        "migrations": len(r.migrations),
        "skipped": r.skipped,
        "first_ts_ns": r.first_ts_ns,
        "last_ts_ns": r.last_ts_ns,
        "cpus": sorted({s.cpu for s in r.switches}),
        "prev_states": dict(sorted(Counter(s.prev_state for s in r.switches).items())),
        "comms_with_spaces": sorted({c for s in r.switches for c in (s.prev_comm, s.next_comm) if " " in c}),
        "top_pairs": dict(pairs.most_common(6)),
        "first": {"switch": [e._asdict() for e in r.switches[:3]], "wakeup": [e._asdict() for e in r.wakeups[:3]],
                  "migrate": [e._asdict() for e in r.migrations[:2]]},
        "last": {"switch": [e._asdict() for e in r.switches[-2:]], "wakeup": [e._asdict() for e in r.wakeups[-2:]]},
    }


# --------------------------------------------------------------------------------------------
# perf script text: golden dumps of real samples


@pytest.mark.parametrize("name", SCRIPT_SAMPLES)
def test_script_samples_golden(golden, name: str) -> None:
    golden(f"perf-sched/{name.removesuffix('.txt.gz')}.json", script_summary(name))


def test_sample_files_all_covered() -> None:
    present = {p.name for p in SAMPLES.iterdir() if "perf-script" in p.name or "perf-sched-script" in p.name
               or "timehist" in p.name}
    assert present == set(SCRIPT_SAMPLES) | set(TIMEHIST_SAMPLES)


def test_print_options_give_the_same_events() -> None:
    """perf sched script, perf script --ns -F +pid and -F +period of one perf.data: same events."""
    def key(e):  # times to the microsecond; the waker's tid is the thread in every form
        return (type(e).__name__, e.line, e.ts_ns // 1000, *e[2:])

    base = [key(e) for e in iter_sched_events(read(SCRIPT_SAMPLES[1]).splitlines())]
    for name in SCRIPT_SAMPLES[2:]:
        assert [key(e) for e in iter_sched_events(read(name).splitlines())] == base, name
    ns = list(iter_sched_events(read("pingpong.perf-script-ns-pid.txt.gz").splitlines()))
    assert any(e.ts_ns % 1000 for e in ns), "--ns keeps the nanoseconds"


def test_fio_storm_sample_facts() -> None:
    r = parsed("fio-pinned.perf-script.txt.gz")
    on_cpu1 = Counter((s.prev_comm, s.next_comm) for s in r.switches if s.cpu == 1)
    # the scenario's loop: fio and the completion kworker switch to each other
    assert on_cpu1[("fio", "kworker/1:10")] > 25_000 and on_cpu1[("kworker/1:10", "fio")] > 25_000
    kworker_out = Counter(s.prev_state for s in r.switches if s.prev_comm == "kworker/1:10")
    assert kworker_out["R+"] > kworker_out["I"]  # the kworker is preempted (by the fio it wakes)
    unknown = [w for w in r.wakeups if w.waker_comm == ":-1"]
    unknown_switch = [s for s in r.switches if s.prev_comm.startswith("memfd:sealed")]
    assert unknown_switch, "the ':-1 -1' heads (thread unknown to perf) parse"
    assert all(w.waker_pid == -1 for w in unknown)


def test_comm_with_spaces() -> None:
    r = parsed("pingpong.perf-sched-script.txt.gz")
    workers = [s for s in r.switches if s.prev_comm == "io worker 1" and s.next_comm == "io worker 2"]
    assert workers and all(s.prev_pid != s.next_pid for s in workers)
    assert any(w.waker_comm == "io worker 1" and w.comm == "io worker 2" for w in r.wakeups)
    assert r.skipped == {"sched:sched_process_fork": 44, "sched:sched_stat_runtime": 2580}


def test_streaming_reader_counts_as_it_goes() -> None:
    reader = SchedReader("x")
    text = read("pingpong.perf-sched-script.txt.gz")
    n = sum(1 for _ in reader.events(iter(text.splitlines(keepends=True))))
    assert n == 1933 + 863 + 44 + 31
    assert reader.lines == text.count("\n") and reader.first_ts_ns < reader.last_ts_ns


# --------------------------------------------------------------------------------------------
# Quirks, on lines written here (each copied from a real file, then changed as noted)

SWITCH = ("            perf  8356 [000]  2065.406553:       sched:sched_switch: prev_comm=perf prev_pid=8356 "
          "prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0")


def test_one_switch_line() -> None:
    (ev,) = iter_sched_events([SWITCH])
    assert ev == Switch(1, 2065406553000, 0, "perf", 8356, 120, "D", "migration/0", 18, 0)


def test_wakeup_formats_of_older_kernels() -> None:
    old = "  bash  1200 [002]  100.000001: sched:sched_wakeup: comm=sleep pid=1201 prio=120 success=1 target_cpu=003"
    oldest = "  bash  1200 [002]  100.000002: sched:sched_wakeup: comm=sleep pid=1201 prio=120 success=1"
    new = "  bash  1200 [002]  100.000003: sched:sched_wakeup_new: comm=sleep pid=1201 prio=120 target_cpu=001"
    evs = list(iter_sched_events([old, oldest, new]))
    assert evs == [Wake(1, 100000001000, 2, "wakeup", "sleep", 1201, 120, 3, "bash", 1200),
                   Wake(2, 100000002000, 2, "wakeup", "sleep", 1201, 120, None, "bash", 1200),
                   Wake(3, 100000003000, 2, "wakeup_new", "sleep", 1201, 120, 1, "bash", 1200)]


def test_heads_with_odd_comms_and_fields() -> None:
    lines = [
        # a comm holding ": " (the fast path's first ": " is then inside the comm)
        "  a: b  77 [001]  5.000001: sched:sched_migrate_task: comm=x y pid=9 prio=120 orig_cpu=1 dest_cpu=0",
        # a comm that ends in digits, right before the tid
        "  worker 12    4242 [001]  5.000002: sched:sched_waking: comm=w pid=9 prio=120 target_cpu=001",
        # an empty comm (prctl(PR_SET_NAME, ""))
        "            4243 [001]  5.000003:       sched:sched_switch: prev_comm= prev_pid=4243 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
    ]
    a, b, c = iter_sched_events(lines)
    assert a == Migrate(1, 5000001000, 1, "x y", 9, 120, 1, 0)
    assert (b.waker_comm, b.waker_pid) == ("worker 12", 4242)
    assert (c.prev_comm, c.prev_pid) == ("", 4243)


def test_call_chains_and_blank_lines_are_skipped() -> None:
    lines = [SWITCH, "\tffffffff8110c1a4 __schedule+0x2d4 ([kernel.kallsyms])",
             "\tffffffff8110c8d9 schedule+0x49 ([kernel.kallsyms])", "", SWITCH]
    assert [e.line for e in iter_sched_events(lines)] == [1, 5]


@pytest.mark.parametrize(("raw", "state"), [("S", "S"), ("R+", "R+"), ("D|K", "D|K"), ("0", "R"), ("1", "S"),
                                            ("0x100", "R+"), ("0x82", "D|I"), ("258", "D+")])
def test_states(raw: str, state: str) -> None:
    assert normalise_state(raw) == state


def test_errors_name_file_line_and_field() -> None:
    broken = SWITCH.replace("next_pid=18", "next_pid=x")
    with pytest.raises(FormatError) as e:
        list(iter_sched_events([SWITCH, broken], source="runs/r000/sched.txt"))
    assert (e.value.file, e.value.line, e.value.field) == ("runs/r000/sched.txt", 2, "next_pid")
    with pytest.raises(FormatError) as e:
        list(iter_sched_events([SWITCH, "Warning: 3 out of order events recorded."], source="f"))
    assert e.value.line == 2 and "not a perf script event line" in str(e.value)
    assert pickle.loads(pickle.dumps(e.value)).line == 2


def test_other_events_are_counted_not_parsed() -> None:
    r = parse_sched_script("  x  1 [000]  1.000000: sched:sched_stat_runtime: comm=x pid=1 runtime=5 [ns]\n" + SWITCH)
    assert r.skipped == {"sched:sched_stat_runtime": 1} and len(r.switches) == 1


# --------------------------------------------------------------------------------------------
# perf sched timehist


@pytest.mark.parametrize("name", CORPUS_TIMEHIST)
def test_timehist_corpus_golden(corpus: Path, golden, name: str) -> None:
    text = (corpus / "perf-sched" / name).read_text(encoding="utf-8")
    golden(f"perf-sched/{Path(name).stem}.json", parse_timehist(text, name))


def test_timehist_corpus_all_covered(corpus: Path) -> None:
    assert {p.name for p in (corpus / "perf-sched").iterdir()} == set(CORPUS_TIMEHIST)


@pytest.mark.parametrize("name", TIMEHIST_SAMPLES)
def test_timehist_samples_golden(golden, name: str) -> None:
    th = parse_timehist(read(name), name)
    dump = {"columns": th.columns, "notes": th.notes, "rows": len(th.rows),
            "kinds": dict(sorted(Counter(r.kind for r in th.rows).items())),
            "first": th.rows[:4], "last": th.rows[-2:]}
    golden(f"perf-sched/{name.removesuffix('.gz').removesuffix('.txt')}.json", dump)


def test_timehist_values() -> None:
    th = parse_timehist(read("pingpong.timehist-Vn-state.txt.gz"))
    row = next(r for r in th.rows if r.comm == "io worker 2" and r.wait_ns == 5_363_000)
    assert (row.tid, row.pid, row.cpu, row.sch_delay_ns, row.run_ns) == (20726, 20683, 0, 16_000, 8_000)
    assert (row.state, row.next_task, row.cpu_visual) == ("S", "io worker 1[20728]", "s  ")
    wm = parse_timehist(read("pingpong.timehist-wM.txt.gz"))
    mig = next(r for r in wm.rows if r.kind == "migrate")
    assert (mig.task, mig.target, mig.from_cpu, mig.to_cpu) == ("migration/0[18]", "perf[20670]", 0, 1)
    chain = parse_timehist(read("pingpong.timehist-callchain.txt.gz")).rows[0]
    assert chain.callchain[:2] == ["schedule_timeout", "wait_for_completion"]
    summary = parse_timehist(read("pingpong.timehist-s.txt"))
    assert summary.rows == [] and summary.notes[0] == "Runtime summary"


def test_timehist_errors() -> None:
    with pytest.raises(FormatError) as e:
        parse_timehist("    1.000001 [0000]  gcc[1]   0.014\n")
    assert e.value.line == 1 and "before the header" in e.value.message
    text = read("pingpong.timehist-default.txt.gz").splitlines()
    text[5] = text[5][:60]
    with pytest.raises(FormatError) as e:
        parse_timehist("\n".join(text), "th.txt")
    assert (e.value.line, e.value.field) == (6, "times")
