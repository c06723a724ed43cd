"""Scheduler traces and bundles of the sched tests (not a test module).

HAND is a trace written here, small enough that every figure in test_sched.py is computed by hand
in its comments; SAMPLES holds the real fio <-> kworker recording."""

from __future__ import annotations

from pathlib import Path

from bundles import add_file, fio_capture, write_bundle

SAMPLES = Path(__file__).resolve().parent / "formats" / "samples" / "sched"


def trace_line(t_us: int, cpu: int, comm: str, tid: int, event: str, trace: str) -> str:
    sec, us = divmod(100_000_000 + t_us, 1_000_000)  # t = 0 is 100.000000 s on perf's clock
    return f"{comm:>16} {tid:>6} [{cpu:03d}] {sec:5d}.{us:06d}: {event:>24}: {trace}"


def switch_line(t, cpu, pc, pp, ps, nc, np_):
    head = ("swapper" if pp == 0 else pc, pp)
    return trace_line(t, cpu, *head, "sched:sched_switch",
                 f"prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={ps} ==> next_comm={nc} next_pid={np_} "
                 "next_prio=120")


def wake_line(t, kind, comm, pid, waker, waker_pid, cpu=1):
    return trace_line(t, cpu, waker, waker_pid, f"sched:sched_{kind}",
                 f"comm={comm} pid={pid} prio=120 target_cpu={cpu:03d}")


KW = "kworker/1:1"
# fio (500) pinned to CPU 1 with its completion kworker (40); bash (600) on CPU 0. Times in us.
HAND_LINES = [
    wake_line(0, "waking", "fio", 500, "swapper", 0),                   # 1
    wake_line(2, "wakeup", "fio", 500, "swapper", 0),                   # 2
    switch_line(3, 0, "swapper/0", 0, "R", "bash", 600),                # 3  CPU 0
    switch_line(5, 1, "swapper/1", 0, "R", "fio", 500),                 # 4  fio in: waited 5 - 0 (waking)
    wake_line(10, "waking", KW, 40, "fio", 500),                        # 5
    wake_line(11, "wakeup", KW, 40, "fio", 500),                        # 6
    switch_line(12, 1, "fio", 500, "R+", KW, 40),                       # 7  kworker preempts fio; kworker waited 2
    switch_line(15, 1, KW, 40, "I", "fio", 500),                        # 8  round trip 1: kworker 3 us inside fio
    wake_line(20, "waking", KW, 40, "fio", 500),                        # 9
    wake_line(21, "wakeup", KW, 40, "fio", 500),                        # 10
    switch_line(22, 1, "fio", 500, "R+", KW, 40),                       # 11 round trip 2: fio 7 us inside kworker
    switch_line(26, 1, KW, 40, "I", "fio", 500),                        # 12 round trip 3: kworker 4 us inside fio
    switch_line(30, 1, "fio", 500, "S", "swapper/1", 0),                # 13 fio sleeps
    switch_line(100_000, 0, "bash", 600, "S", "swapper/0", 0),          # 14 CPU 0
    trace_line(100_001, 0, "bash", 600, "sched:sched_migrate_task",      # 15 to CPU 1, in the second 100 ms
          "comm=bash pid=600 prio=120 orig_cpu=0 dest_cpu=1"),
    wake_line(150_000, "waking", "fio", 500, "swapper", 0),             # 16
    wake_line(150_001, "wakeup", "fio", 500, "swapper", 0),             # 17
    switch_line(150_004, 1, "swapper/1", 0, "R", "fio", 500),           # 18 fio waited 4 (waking)
    switch_line(150_010, 1, "fio", 500, "S", "swapper/1", 0),           # 19
]
HAND = "\n".join(HAND_LINES) + "\n"
DURATION_S = 0.150010


def stat_text(waking_cpu1_second: int = 1) -> str:
    """perf stat -x, -I 100 -A -a of the same run: the trace's own counts (sched_switch 10,
    sched_waking 4), or sched_waking counted far above what was recorded."""
    rows = []
    for end, per_cpu in ((0.1, {0: (1, 1, 0), 1: (6, 6, 3)}), (0.2, {0: (1, 1, 0), 1: (2, 2, waking_cpu1_second)})):
        for event, i in (("context-switches", 0), ("sched:sched_switch", 1), ("sched:sched_waking", 2)):
            for cpu, vals in per_cpu.items():
                rows.append(f"     {end:.9f},CPU{cpu},{vals[i]},,{event},100000000,100.00,,")
    return "\n".join(rows) + "\n"


def sched_bundle(tmp: Path, label: str, trace: str | bytes, stat: str | None, cpus: str | None = "1",
                 name: str | None = None, **stat_fields) -> Path:
    m, files = fio_capture(label, [[{"name": "t", "iops": 1000}]])
    if cpus is not None:
        m["runs"][0]["params"] = {"cpus": cpus}
    add_file(m, files, "runs/r000/sched.txt", trace, "perf-sched", run=0)
    if stat is not None:
        add_file(m, files, "runs/r000/perf-stat.csv", stat, "perf-stat", run=0)
        m["runs"][0]["artifacts"][-1].update(stat_fields)
    return write_bundle(tmp / (name or f"{label}.iolens.tar.gz"), m, files)


def upload(client, path: Path):
    with path.open("rb") as f:
        return client.post("/api/captures", files={"file": (path.name, f, "application/gzip")})
