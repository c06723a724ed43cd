"""The stacks probe (`--stacks`): call stacks of every CPU during each repeat, for flame graphs.

Per repeat: `perf record -a -g --call-graph MODE -F HZ -k CLOCK_MONOTONIC --max-size NM` runs
around fio (see perfrec.py for start and stop), then `perf script -F +pid` (the server needs the
pid; plain `perf script` prints only the thread id) is gzip-compressed into
`runs/rNNN/perf.script.gz`, artifact kind `perf-script`. perf.data itself is not kept (the
server refuses binary perf.data). The run's manifest entry gets `probes.stacks`: perf's version,
both commands, sample count, sizes, perf's CPU time and the data rate.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

from . import perfrec
from .perfrec import Artifact, Perf, RunProbe, Session, Start

__all__ = ["StacksProbe", "CALL_GRAPHS", "DEFAULT_FREQ", "add_options", "enabled", "check", "start"]

CALL_GRAPHS = ("fp", "dwarf", "lbr")
DEFAULT_FREQ = 99


class StacksProbe(RunProbe):
    name = "stacks"

    def __init__(self, perf: Perf, freq: int = DEFAULT_FREQ, call_graph: str = "fp", max_mb: int = 512):
        super().__init__()
        self.perf = perf
        self.freq = freq
        self.call_graph = call_graph
        self.max_mb = max_mb
        self.data = ""
        self.record: Session = None  # type: ignore[assignment]

    def _record_argv(self, data: str) -> List[str]:
        return [self.perf.path, "record", "-a", "-g", "--call-graph", self.call_graph, "-F", str(self.freq),
                "-k", "CLOCK_MONOTONIC", "--max-size", f"{self.max_mb}M", "-o", data]

    def launch(self, run_id: str, scratch: str) -> None:
        self.scratch = scratch
        self.data = os.path.join(scratch, "stacks.data")
        shown = perfrec.control_shown(["perf"] + self._record_argv("perf.data")[1:])
        self.record = Session(self._record_argv(self.data), shown, os.path.join(scratch, "stacks.record.stderr"))
        self.sessions = [self.record]
        self.record.launch()

    def finish(self, run_id: str, stage: str, t0_ns: int) -> Tuple[List[Artifact], Dict[str, object], List[str]]:
        notes: List[str] = []
        rc = self.record.stop()
        info: Dict[str, object] = {"tool": self.perf.version, "cmd": self.record.shown,
                                   "freq_hz": self.freq, "call_graph": self.call_graph,
                                   "size_cap_mb": self.max_mb, "record_exit_code": rc}
        data_bytes = perfrec.size_of(self.data)
        info.update(perfrec.overhead(self.record, data_bytes))
        info.update(self.record.record_summary())
        if info.get("size_cap_reached"):
            notes.append(f"stacks: run {run_id}: perf.data reached the --probe-max-mb cap ({self.max_mb} MB); "
                         "perf stopped recording there, the end of the run has no stacks")
        if data_bytes is None:
            notes.append(f"stacks: run {run_id}: perf record wrote no perf.data (exit {rc}: "
                         f"{perfrec.stderr_tail(self.record.stderr_path) or 'no message'}); no stacks for this run")
            return [], info, notes
        rel = f"runs/{run_id}/perf.script.gz"
        script = [self.perf.path, "script", "-F", "+pid", "-i", self.data]
        info["script_cmd"] = ["perf", "script", "-F", "+pid", "-i", "perf.data"]
        res = perfrec.script_to_gzip(script, os.path.join(stage, rel))
        info.update(text_bytes=res["text_bytes"], script_s=res["seconds"],
                    bytes=perfrec.size_of(os.path.join(stage, rel)))
        for key in ("lost_chunks", "lost_samples_pct"):
            if key in res:
                info[key] = res[key]
        if res["exit_code"] != 0:
            notes.append(f"stacks: run {run_id}: perf script exited {res['exit_code']}: "
                         + " / ".join(res.get("messages", [])[-4:]))
        if res.get("lost_chunks"):
            notes.append(f"stacks: run {run_id}: perf lost {res['lost_chunks']} chunks of samples "
                         "(ring buffer overrun); lower --freq")
        os.unlink(self.data)
        return [Artifact(rel, "perf-script", trace_clock_at_start_ns=t0_ns)], info, notes

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        return (f"{run_id}  stacks  {info.get('samples', '?')} samples in {info.get('duration_s')} s, "
                f"perf.data {perfrec.human_bytes(info.get('perf_data_bytes'))} "
                f"({perfrec.human_bytes(info.get('perf_data_bytes_per_s'))}/s), "
                f"perf.script.gz {perfrec.human_bytes(info.get('bytes'))}, "
                f"perf {perfrec.or_q(info.get('perf_cpu_s'))} CPU-s ({info.get('perf_cpu_pct', '?')}%), "
                f"perf script {info.get('script_s')} s")

# -- the probe's options, checks and start (probes.py calls these for every module of PROBES) --
PERF, TRACEFS = True, False


def add_options(g, positive) -> None:
    g.add_argument("--stacks", action="store_true",
                   help="call stacks for flame graphs: perf record -a -g around each repeat, then "
                        "perf script -F +pid gzip-compressed into runs/rNNN/perf.script.gz, kind "
                        "perf-script (default: off)")
    g.add_argument("--freq", type=positive, metavar="HZ",
                   help=f"--stacks sampling frequency per CPU (default: {DEFAULT_FREQ})")
    g.add_argument("--call-graph", choices=CALL_GRAPHS, metavar="MODE",
                   help="--stacks unwinding: fp (frame pointers), dwarf (copies 8 kB of stack per "
                        "sample: large), lbr (Intel hardware only) (default: fp)")


def enabled(o) -> bool:
    return bool(o.stacks)


def check(o, root: str) -> None:
    if o.freq is not None and not o.stacks:
        raise ValueError("--freq needs --stacks")
    if o.call_graph is not None and not o.stacks:
        raise ValueError("--call-graph needs --stacks")
    if o.call_graph is not None and o.call_graph not in CALL_GRAPHS:
        raise ValueError(f"--call-graph must be one of {', '.join(CALL_GRAPHS)}")
    if o.freq is not None and not 1 <= o.freq <= 100000:
        raise ValueError(f"--freq {o.freq}: expected 1-100000 Hz")


def start(o, ctx: Start, checked: None) -> Optional[RunProbe]:
    if not ctx.ready("stacks", "stacks", tracefs=False):
        return None
    return StacksProbe(ctx.perf, o.freq or DEFAULT_FREQ, o.call_graph or "fp", ctx.max_mb)
