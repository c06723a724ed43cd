"""The scheduler probe (`--sched`): context switches, wakeups and migrations on every CPU during
each repeat, recorded and counted.

Per repeat, around fio (start and stop: perfrec.py):

- `perf record -a -k CLOCK_MONOTONIC --max-size NM -e sched:sched_switch -e sched:sched_wakeup
  -e sched:sched_wakeup_new -e sched:sched_waking -e sched:sched_migrate_task`, then
  `perf script --ns -F trace:comm,pid,tid,cpu,time,event,trace` gzip-compressed into
  `runs/rNNN/sched.script.gz`, artifact kind `perf-sched`. That is perf 6.1's default line for a
  tracepoint plus the pid ("comm pid/tid [cpu] secs.nsecs: sched:EVENT: fields"); the `trace:`
  prefix keeps perf from complaining about the other event types.
- `perf stat -x, -I 1000 -A -a -e context-switches,cpu-migrations,task-clock,sched:sched_switch,
  sched:sched_waking,sched:sched_wakeup,sched:sched_migrate_task` into `runs/rNNN/perf-stat.csv`,
  artifact kind `perf-stat` (scope `system`): per CPU and per second, and the reference the
  recording is checked against. perf record silently loses interrupt-context tracepoints on
  idle VMs (DESIGN, "Facts measured"); perf stat counts them right. The collector compares the
  two per tracepoint (`probes.sched.recorded` / `counted`) and notes a loss; ingest does the
  same and marks the capture.

The perf stat counters are started before the recording and stopped after it, so counted >=
recorded when nothing is lost (both also see perf's own start and stop).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from . import perfrec
from .perfrec import LOSS_THRESHOLD, Perf, RunProbe, Start, TracepointProbe, compare

__all__ = ["SchedProbe", "RECORD_EVENTS", "STAT_EVENTS", "LOSS_THRESHOLD", "compare", "add_options", "enabled", "check", "start"]

RECORD_EVENTS = ("sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking",
                 "sched:sched_migrate_task")
STAT_SOFTWARE = ("context-switches", "cpu-migrations", "task-clock")
STAT_EVENTS = ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup", "sched:sched_migrate_task")
SCRIPT_FIELDS = "trace:comm,pid,tid,cpu,time,event,trace"
# compared with perf stat (as ingest does); sched_migrate_task is counted but not compared
COMPARED = ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup")


class SchedProbe(TracepointProbe):
    name = "sched"
    what = "scheduler events"
    stat_file = "perf-stat.csv"
    stat_kind = "perf-stat"
    stat_extra = {"scope": "system"}
    script_file = "sched.script.gz"
    script_kind = "perf-sched"
    script_options = ("--ns", "-F", SCRIPT_FIELDS)
    compared = COMPARED

    def __init__(self, perf: Perf, events_dir: Optional[str], max_mb: int = 512):
        super().__init__(perf, max_mb)
        self.events_dir = events_dir
        self.record_events = list(RECORD_EVENTS)
        self.stat_events: List[str] = list(STAT_EVENTS)

    def setup(self) -> Optional[str]:
        if self.events_dir is None:
            return None  # the caller already noted why
        self.missing = perfrec.missing_tracepoints(self.events_dir, RECORD_EVENTS)
        self.record_events = [e for e in RECORD_EVENTS if e not in self.missing]
        self.stat_events = [e for e in STAT_EVENTS if e not in self.missing]
        if "sched:sched_switch" in self.missing:
            return "sched: this kernel has no sched:sched_switch tracepoint; no scheduler events in this capture"
        return None

    def _record_argv(self, data: str) -> List[str]:
        assert self.perf is not None
        argv = [self.perf.path, "record", "-a", "-k", "CLOCK_MONOTONIC", "--max-size", f"{self.max_mb}M"]
        for e in self.record_events:
            argv += ["-e", e]
        return argv + ["-o", data]

    def _stat_argv(self, out: str) -> List[str]:
        assert self.perf is not None
        return [self.perf.path, "stat", "-x,", "-I", "1000", "-A", "-a",
                "-e", ",".join(list(STAT_SOFTWARE) + self.stat_events), "-o", out]

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        rec = info.get("recorded") or {}
        cnt = info.get("counted") or {}
        sw = "sched:sched_switch"
        return (f"{run_id}  sched  {info.get('events', '?')} events in {info.get('duration_s')} s "
                f"({info.get('events_per_s', '?')}/s; sched_switch recorded {rec.get(sw, '?')} "  # type: ignore[union-attr]
                f"counted {cnt.get(sw, '?')}), perf.data "  # type: ignore[union-attr]
                f"{perfrec.human_bytes(info.get('perf_data_bytes'))} "
                f"({perfrec.human_bytes(info.get('perf_data_bytes_per_s'))}/s), sched.script.gz "
                f"{perfrec.human_bytes(info.get('bytes'))}, perf {perfrec.or_q(info.get('perf_cpu_s'))} CPU-s "
                f"({info.get('perf_cpu_pct', '?')}%)")


# -- the probe's options, checks and start (probes.py calls these for every module of PROBES) --
PERF, TRACEFS = True, True


def add_options(g, positive) -> None:
    g.add_argument("--sched", action="store_true",
                   help="scheduler events: perf record of sched_switch/wakeup/waking/migrate_task "
                        "into runs/rNNN/sched.script.gz (kind perf-sched) and perf stat -I 1000 -A of "
                        "context-switches, cpu-migrations, task-clock and the same tracepoints into "
                        "runs/rNNN/perf-stat.csv (kind perf-stat) (default: off)")


def enabled(o) -> bool:
    return bool(o.sched)


def check(o, root: str) -> None:
    return None


def start(o, ctx: Start, checked: None) -> Optional[RunProbe]:
    if not ctx.ready("sched", "scheduler events"):
        return None
    p = SchedProbe(ctx.perf, ctx.events_dir, ctx.max_mb)
    problem = p.setup()
    if problem:
        ctx.note(problem)
        return None
    if p.missing:
        ctx.note(f"sched: this kernel has no {', '.join(p.missing)}; recorded the others")
    return p
