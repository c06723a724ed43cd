"""The workload's own tasks: the command name a capture's workload runs as, which the flame graph
views select by default so that other processes on the machine do not fill their largest changes
(the flame cell's difference, the text report's flame table, the capture page's top function).
One rule with the frontend's workloadComm/pairComm (cells/flame/state.ts), both tested on
testdata/vectors/workload-comm.json."""

from __future__ import annotations

from typing import Any

# A cmd capture run through one of these: its command name says nothing of the workload.
_WRAPPERS = {"sh", "bash", "dash", "env", "sudo", "nice", "taskset", "chrt", "ionice", "stdbuf", "timeout"}


def workload_comm(c: Any) -> str | None:
    """The command name (as perf prints it: at most 15 characters) of a capture's workload, when its
    bundle says what ran: fio's workers are 'fio'; a cmd capture's command, its program's base name.
    None when unknown. The rule of the frontend's workloadComm (cells/flame/state.ts), both tested on
    testdata/vectors/workload-comm.json. `c`: a capture (models.CapturePublic) or its dict."""
    if c is None:
        return None
    get = (lambda k: c.get(k)) if isinstance(c, dict) else (lambda k: getattr(c, k, None))
    kinds = get("artifact_kinds") or []
    if get("workload_kind") == "fio":
        return "fio" if "fio-json" in kinds or "fio-terse" in kinds else None
    summary = get("workload_summary")
    if get("workload_kind") == "cmd" and summary and "cmd-rusage" in kinds:
        prog = summary.split(" ")[0].split("/")[-1]
        if not prog or prog in _WRAPPERS:
            return None
        return prog[:15]
    return None


def pair_comm(a: Any, b: Any) -> str | None:
    """The pair's default task filter: the workload's command when both captures ran the same one."""
    ca = workload_comm(a)
    return ca if ca is not None and ca == workload_comm(b) else None


def single_comm(c: Any, event: str | None) -> str | None:
    """One capture's default task filter: the workload's own tasks when its graph is of off-CPU stacks
    (event offcpu or wakeup, or no event chosen on a capture whose only stacks are off-CPU ones: the
    flame view's default event), where every sleeping task of the machine has some and other processes
    fill it; a CPU profile shows every task. The frontend's singleComm, both tested on
    testdata/vectors/workload-comm.json."""
    if c is None:
        return None
    kinds = (c.get("artifact_kinds") if isinstance(c, dict) else getattr(c, "artifact_kinds", None)) or []
    offcpu = event in ("offcpu", "wakeup") or (event is None and "perf-offcpu" in kinds and "perf-script" not in kinds)
    return workload_comm(c) if offcpu else None
