"""Every artifact kind of the bundle format (docs/bundle-format.md, "Artifact kinds"), in one list.

The collector writes only kinds listed here (its tests check it, collectors/tests), ingest has a
handler for every kind marked `parsed` (ingest/registry.py; backend/tests/test_bundle_contract.py
checks both ways), and a kind not listed is kept in the bundle and listed with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Kind:
    name: str
    per: Literal["run", "capture", "run or capture"]
    parsed: bool     # True: ingest reads it into tables; False: kept in the bundle (and listed)
    what: str


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("fio-json", "run", True, "fio --output-format=json+ (or json) output"),
    Kind("fio-output", "run", False, "fio's output file of a run that wrote no JSON (fio refused the job, was killed)"),
    Kind("fio-stderr", "run", False, "fio's standard error"),
    Kind("fio-jobfile", "capture", True, "the fio job file that ran (text kept in capture_texts)"),
    Kind("stdout", "run", False, "a command's standard output"),
    Kind("stderr", "run", False, "a command's standard error"),
    Kind("blkparse", "run", True, "blkparse text of the run's blktrace"),
    Kind("perf-block", "run", True, "perf script text of the block tracepoints"),
    Kind("perf-stat-block", "run", True, "perf stat -x, counts of the block tracepoints"),
    Kind("perf-script", "run", True, "perf script text of a perf record -g (call stacks)"),
    Kind("lock-stat", "run or capture", True, "the text of /proc/lock_stat"),
    Kind("perf-sched", "run", True, "perf script text of the sched tracepoints"),
    Kind("perf-stat", "run", True, "perf stat -x, output during the run"),
    Kind("perf-offcpu", "run", True, "perf script text of sched_switch and sched_waking with call chains (--offcpu)"),
    Kind("perf-stat-offcpu", "run", True, "perf stat -x, counts of sched_switch and sched_waking (--offcpu)"),
    Kind("fio-log", "run", True, "a fio bw/iops/lat log"),
    Kind("fio-terse", "run", True, "fio terse output (--minimal, terse versions 2-5)"),
    Kind("fio-terse-upload", "capture", False, "the terse file as uploaded, wrapped into a bundle by the server"),
    Kind("cmd-stdout", "run", True, "standard output of iolens-collect cmd's command (iolens-metric lines)"),
    Kind("cmd-rusage", "run", True, "JSON: wall time and wait4(2) resource use of the command"),
    Kind("diskstats", "run", True, "/proc/diskstats before or after the command (field phase)"),
    Kind("sweep-plan", "capture", True, "the sweep plan (TOML) the collector ran (text kept in capture_texts)"),
    Kind("perf-trace", "run", False, "perf script text of any tracepoints (--trace)"),
    Kind("perf-trace-fields", "run", True, "the same events, one JSON object per line with every field typed"),
    Kind("tracepoint-formats", "run", False, "the tracefs format file of each traced event (read with perf-trace-fields)"),
    Kind("monitor", "run", True, "the kernel's counters sampled during the run (--monitors)"),
    Kind("kernel-config", "capture", True, "the kernel's .config (--kernel-config)"),
    Kind("blktrace", "run", True, "blktrace's binary per-CPU files of the run's trace (DEV.blktrace.N)"),
    Kind("folded-stacks", "run", True, "folded stacks 'frame;frame;... COUNT' (FlameGraph, inferno)"),
    Kind("iostat", "run or capture", True, "iostat -x output (loose files), read into the monitors tables"),
    Kind("vmstat", "run or capture", True, "vmstat output (loose files), read into the monitors tables"),
    Kind("fio-hist-log", "run", False, "a fio latency histogram log (loose files)"),
    Kind("perf-sched-timehist", "run", False, "perf sched timehist text (loose files)"),
)}

PARSED_KINDS = frozenset(k.name for k in KINDS.values() if k.parsed)
KEPT_KINDS = frozenset(k.name for k in KINDS.values() if not k.parsed)
