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

import os
import shutil
from typing import Dict, List, Optional, Tuple

from . import perfrec
from .perfrec import Artifact, Perf, RunProbe, Session

__all__ = ["SchedProbe", "RECORD_EVENTS", "STAT_EVENTS", "LOSS_THRESHOLD", "compare"]

RECORD_EVENTS = ("sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking",
                 "sched:sched_migrate_task")
STAT_SOFTWARE = ("context-switches", "cpu-migrations", "task-clock")
STAT_EVENTS = ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup", "sched:sched_migrate_task")
SCRIPT_FIELDS = "trace:comm,pid,tid,cpu,time,event,trace"
# compared with perf stat (as ingest does); sched_migrate_task is counted but not compared
COMPARED = ("sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup")
# recorded / counted below this: events were lost (ingest uses the same threshold)
LOSS_THRESHOLD = 0.90


def compare(recorded: Dict[str, int], counted: Dict[str, Optional[int]], events) -> List[Tuple[str, int, int]]:
    """(event, recorded, counted) for the events recorded well below what perf stat counted."""
    lost = []
    for ev in events:
        n, c = recorded.get(ev), counted.get(ev)
        if n is None or not c:
            continue
        if c - n > 32 and n < LOSS_THRESHOLD * c:
            lost.append((ev, n, c))
    return lost


class SchedProbe(RunProbe):
    name = "sched"

    def __init__(self, perf: Perf, events_dir: Optional[str], max_mb: int = 512):
        super().__init__()
        self.perf = perf
        self.events_dir = events_dir
        self.max_mb = max_mb
        self.record_events: List[str] = list(RECORD_EVENTS)
        self.stat_events: List[str] = list(STAT_EVENTS)
        self.missing: List[str] = []
        self.data = ""
        self.stat_rel = ""

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
        argv = [self.perf.path, "record", "-a", "-k", "CLOCK_MONOTONIC", "--max-size", f"{self.max_mb}M"]
        for e in self.record_events:
            argv += ["-e", e]
        return argv + ["-o", data]

    def _stat_argv(self, out: str) -> List[str]:
        return [self.perf.path, "stat", "-x,", "-I", "1000", "-A", "-a",
                "-e", ",".join(list(STAT_SOFTWARE) + self.stat_events), "-o", out]

    def launch(self, run_id: str, scratch: str) -> None:
        self.scratch = scratch
        self.data = os.path.join(scratch, "sched.data")
        self.stat_rel = f"runs/{run_id}/perf-stat.csv"
        self._stat_out = os.path.join(scratch, "perf-stat.csv")
        stat = Session(self._stat_argv(self._stat_out),
                       perfrec.control_shown(["perf"] + self._stat_argv("perf-stat.csv")[1:]),
                       os.path.join(scratch, "sched.stat.stderr"), counter=True)
        rec = Session(self._record_argv(self.data),
                      perfrec.control_shown(["perf"] + self._record_argv("perf.data")[1:]),
                      os.path.join(scratch, "sched.record.stderr"))
        self.sessions = [stat, rec]  # enable: stat first; disable: record first
        stat.launch()
        rec.launch()

    def finish(self, run_id: str, stage: str, t0_ns: int) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        stat, rec = self.sessions
        notes: List[str] = []
        arts: List[Artifact] = []
        rc = rec.stop()
        stat_rc = stat.stop()
        info: Dict[str, object] = {"tool": self.perf.version, "cmd": rec.shown, "stat_cmd": stat.shown,
                                   "size_cap_mb": self.max_mb, "record_exit_code": rc, "stat_exit_code": stat_rc}
        if self.missing:
            info["missing_tracepoints"] = self.missing
        data_bytes = perfrec.size_of(self.data)
        info.update(perfrec.overhead(rec, data_bytes))
        info.update(rec.record_summary())
        info["stat_perf_cpu_s"] = stat.cpu_s
        if info.get("size_cap_reached"):
            notes.append(f"sched: run {run_id}: the recording reached the --probe-max-mb cap ({self.max_mb} MB); "
                         "perf stopped recording there")
        counted: Dict[str, Optional[int]] = {}
        if os.path.exists(self._stat_out) and os.path.getsize(self._stat_out) > 0:
            shutil.move(self._stat_out, os.path.join(stage, self.stat_rel))
            arts.append(Artifact(self.stat_rel, "perf-stat", scope="system"))
            counted = perfrec.count_stat_csv(os.path.join(stage, self.stat_rel))
            info["counted"] = counted
        else:
            notes.append(f"sched: run {run_id}: perf stat wrote nothing (exit {stat_rc}: "
                         f"{perfrec.stderr_tail(stat.stderr_path) or 'no message'}); no counters for this run")
        if data_bytes is None:
            notes.append(f"sched: run {run_id}: perf record wrote no perf.data (exit {rc}: "
                         f"{perfrec.stderr_tail(rec.stderr_path) or 'no message'}); no scheduler events for this run")
            return arts, info, notes
        rel = f"runs/{run_id}/sched.script.gz"
        script = [self.perf.path, "script", "--ns", "-F", SCRIPT_FIELDS, "-i", self.data]
        info["script_cmd"] = ["perf", "script", "--ns", "-F", SCRIPT_FIELDS, "-i", "perf.data"]
        needles = [f" {e}:".encode() for e in self.record_events]
        res = perfrec.script_to_gzip(script, os.path.join(stage, rel), count=needles)
        recorded = {k: v for k, v in res["counts"].items()}  # type: ignore[union-attr]
        info.update(recorded=recorded, events=sum(recorded.values()), text_bytes=res["text_bytes"],
                    script_s=res["seconds"], bytes=perfrec.size_of(os.path.join(stage, rel)))
        d = info.get("duration_s")
        if d:
            info["events_per_s"] = int(sum(recorded.values()) / d)  # type: ignore[operator]
        if "lost_chunks" in res:
            info["lost_chunks"] = res["lost_chunks"]
            notes.append(f"sched: run {run_id}: perf lost {res['lost_chunks']} chunks of events (ring buffer overrun)")
        if res["exit_code"] != 0:
            notes.append(f"sched: run {run_id}: perf script exited {res['exit_code']}: "
                         + " / ".join(res.get("messages", [])[-4:]))  # type: ignore[arg-type]
        lost = compare(recorded, counted, COMPARED)
        if lost:
            info["lost"] = {ev: {"recorded": n, "counted": c} for ev, n, c in lost}
            notes.append(f"sched: run {run_id}: perf record kept fewer events than perf stat counted: "
                         + ", ".join(f"{ev} {n} of {c} ({100.0 * n / c:.1f}%)" for ev, n, c in lost)
                         + ("; the recording stopped at the --probe-max-mb cap" if info.get("size_cap_reached")
                            else "; perf record lost events (interrupt context, idle CPUs?)"))
        os.unlink(self.data)
        arts.insert(0, Artifact(rel, "perf-sched", trace_clock_at_start_ns=t0_ns))
        return arts, info, notes

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
