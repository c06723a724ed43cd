"""The off-CPU probe (`--offcpu`): the call chain of every task switching out, and of every wakeup,
on every CPU during each repeat, so that the server can weigh stacks by the time tasks spent off
the CPU, and show for two tasks that ping-pong who woke whom from where.

Per repeat, around fio (start and stop: perfrec.py):

- `perf record -a -g -k CLOCK_MONOTONIC -m 4096 --max-size NM -e sched:sched_switch
  -e sched:sched_waking`, then `perf script --ns -F trace:comm,pid,tid,cpu,time,event,trace,ip,sym,dso`
  gzip-compressed into `runs/rNNN/offcpu.script.gz`, artifact kind `perf-offcpu`. Each event is
  perf's tracepoint line followed by its call chain, leaf first, then a blank line. The call
  chain of sched_switch is the stack of the task switching out (prev_pid: the event fires in its
  context), down to `__schedule`; the call chain of sched_waking is the stack of whoever raised
  the wakeup (a task, or an interrupt / softirq on top of whatever ran).
- `--offcpu-stacks kernel` adds `--kernel-callchains`: kernel frames only, about a third of the
  text on a machine busy with deep user stacks (browsers, compilers); the default `all` keeps
  the user frames too.
- All CPUs (`-a`), not the workload's pids or cgroup: the tasks that block the workload and wake
  it (the dio completion kworker, ksoftirqd, the loop device's worker) are not in it.
- `perf stat -x, -I 1000 -A -a -e sched:sched_switch,sched:sched_waking` into
  `runs/rNNN/perf-stat-offcpu.csv`, artifact kind `perf-stat-offcpu`: what the recording is checked
  against (docs/lost-events.md, one rule): the collector notes a loss in `probes.offcpu.lost`, and
  ingest marks the run.

`-m 4096` (16 MB of ring buffer per CPU instead of perf's 512 kB) because a call chain per context
switch is ~20x the data of a plain sched trace: with the default, a 1 s fio run at 15k IOPS here lost
a chunk of events.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from . import perfrec
from .perfrec import Perf, RunProbe, Start, TracepointProbe

__all__ = ["OffcpuProbe", "RECORD_EVENTS", "SCRIPT_FIELDS", "MMAP_PAGES", "STACKS", "add_options", "enabled", "check", "start"]

RECORD_EVENTS = ("sched:sched_switch", "sched:sched_waking")
SCRIPT_FIELDS = "trace:comm,pid,tid,cpu,time,event,trace,ip,sym,dso"
MMAP_PAGES = 4096
STACKS = ("all", "kernel")  # --offcpu-stacks: the frames recorded


class OffcpuProbe(TracepointProbe):
    name = "offcpu"
    what = "off-CPU stacks"
    stat_file = "perf-stat-offcpu.csv"
    stat_kind = "perf-stat-offcpu"
    script_file = "offcpu.script.gz"
    script_kind = "perf-offcpu"
    script_options = ("--ns", "-F", SCRIPT_FIELDS)
    compared = RECORD_EVENTS

    def __init__(self, perf: Perf, events_dir: Optional[str], max_mb: int = 512, stacks: str = "all"):
        super().__init__(perf, max_mb)
        self.events_dir = events_dir
        self.stacks = stacks
        self.record_events = list(RECORD_EVENTS)

    def setup(self) -> Optional[str]:
        if self.events_dir is None:
            return None  # the caller already noted why
        self.missing = perfrec.missing_tracepoints(self.events_dir, RECORD_EVENTS)
        if "sched:sched_switch" in self.missing:
            return "offcpu: this kernel has no sched:sched_switch tracepoint; no off-CPU stacks in this capture"
        self.record_events = [e for e in RECORD_EVENTS if e not in self.missing]
        return None

    def _info(self) -> Dict[str, object]:
        return {"scope": "all CPUs (-a)", "call_graph": "fp", "stacks": self.stacks, "mmap_pages": MMAP_PAGES}

    def _record_argv(self, data: str) -> List[str]:
        assert self.perf is not None
        argv = [self.perf.path, "record", "-a", "-g", "-k", "CLOCK_MONOTONIC", "-m", str(MMAP_PAGES),
                "--max-size", f"{self.max_mb}M"]
        if self.stacks == "kernel":
            argv.append("--kernel-callchains")
        for e in self.record_events:
            argv += ["-e", e]
        return argv + ["-o", data]

    def _stat_argv(self, out: str) -> List[str]:
        assert self.perf is not None
        return [self.perf.path, "stat", "-x,", "-I", "1000", "-A", "-a", "-e", ",".join(self.record_events),
                "-o", out]

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        rec = info.get("recorded") or {}
        cnt = info.get("counted") or {}
        sw = "sched:sched_switch"
        return (f"{run_id}  offcpu  {info.get('events', '?')} events with call chains in {info.get('duration_s')} s "
                f"(sched_switch recorded {rec.get(sw, '?')} counted {cnt.get(sw, '?')}), perf.data "  # type: ignore[union-attr]
                f"{perfrec.human_bytes(info.get('perf_data_bytes'))}, offcpu.script.gz "
                f"{perfrec.human_bytes(info.get('bytes'))}, perf {perfrec.or_q(info.get('perf_cpu_s'))} CPU-s "
                f"({info.get('perf_cpu_pct', '?')}%), perf script {info.get('script_s')} s")


# -- the probe's options, checks and start (probes.py calls these for every module of PROBES) --
PERF, TRACEFS = True, True


def add_options(g, positive) -> None:
    g.add_argument("--offcpu", action="store_true",
                   help="off-CPU and wakeup stacks: perf record -a -g of sched_switch and sched_waking "
                        "into runs/rNNN/offcpu.script.gz (kind perf-offcpu; the server weighs each stack "
                        "of a task switching out by the time until it runs again) and perf stat -I 1000 "
                        "-A of the same into runs/rNNN/perf-stat-offcpu.csv (kind perf-stat-offcpu) "
                        "(default: off)")
    g.add_argument("--offcpu-stacks", choices=STACKS, metavar="WHICH",
                   help="--offcpu frames: all (kernel and user) or kernel (perf record --kernel-callchains: "
                        "about a third of the text on a machine full of deep user stacks) (default: all)")


def enabled(o) -> bool:
    return bool(o.offcpu)


def check(o, root: str) -> None:
    if o.offcpu_stacks is not None and not o.offcpu:
        raise ValueError("--offcpu-stacks needs --offcpu")
    if o.offcpu_stacks is not None and o.offcpu_stacks not in STACKS:
        raise ValueError(f"--offcpu-stacks must be one of {', '.join(STACKS)}")


def start(o, ctx: Start, checked: None) -> Optional[RunProbe]:
    if not ctx.ready("offcpu", "off-CPU stacks"):
        return None
    p = OffcpuProbe(ctx.perf, ctx.events_dir, ctx.max_mb, o.offcpu_stacks or "all")
    problem = p.setup()
    if problem:
        ctx.note(problem)
        return None
    if p.missing:
        ctx.note(f"offcpu: this kernel has no {', '.join(p.missing)}; recorded the others")
    return p
