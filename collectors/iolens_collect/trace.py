"""The tracepoint probe (`--trace EVENT[:FILTER]`, repeatable): any kernel tracepoint, with every
field of its format, recorded and counted per repeat.

    --trace xfs:xfs_ail_insert            one tracepoint
    --trace 'writeback:*'                 every tracepoint of a subsystem (a glob over tracefs)
    --trace 'block:block_rq_issue:nr_sector > 8'   with a filter in the kernel (perf's --filter)

Per repeat, around the workload (start and stop: perfrec.py), as the other tracepoint probes:

- `perf record -a -k CLOCK_MONOTONIC --max-size NM -e EVENT [--filter F] ...` and, from it,
  `perf script --ns -F trace:comm,pid,tid,cpu,time,event,trace` gzip-compressed into
  `runs/rNNN/trace.script.gz` (kind `perf-trace`: the events as perf prints them);
- every field of every event, typed, from the same perf.data: `perf script -s` with a small
  script run by perf's own Python (FIELDS_SCRIPT below) writes one JSON object per event
  (`event`, `time_ns`, `cpu`, `pid`, `tid`, `comm`, `fields`: name -> value as libtraceevent
  decoded it; byte arrays as hex) into `runs/rNNN/trace.fields.jsonl.gz` (kind
  `perf-trace-fields`). A perf built without Python gets a note and the text only;
- the format of each event as tracefs describes it (`events/SYS/NAME/format`: field names,
  C types, sizes, signedness), all events in `runs/rNNN/trace-formats.txt` (kind
  `tracepoint-formats`, each block preceded by `system: SYS`): ingest types the columns from it;
- `perf stat -x, -I 1000 -a -e EVENT [--filter F] ...` into `runs/rNNN/perf-stat-trace.csv`
  (kind `perf-stat`, `scope` `system`, `probe` `trace`), started before the recording and stopped
  after it; recorded below 90% of counted marks the run as having lost events (`probes.trace.lost`).

A tracepoint that this kernel does not have, or a glob that matches none, is named in a note and
left out; with none left the probe is dropped and the capture goes on.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from typing import Dict, List, Optional, Tuple

from . import perfrec
from .perfrec import Artifact, Perf, RunProbe, Start, TracepointProbe

__all__ = ["TraceProbe", "parse_spec", "expand", "FIELDS_SCRIPT", "add_options", "enabled", "check", "start"]

SCRIPT_FIELDS = "trace:comm,pid,tid,cpu,time,event,trace"

# Run inside perf (`perf script -s`), by perf's embedded Python 3: one JSON line per event.
FIELDS_SCRIPT = r'''
import json, sys
_w = sys.stdout.write
def _v(v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    return v
def trace_unhandled(event_name, context, fields, sample=None):
    s = (sample or {}).get("sample") or {}
    ev = (sample or {}).get("ev_name") or event_name.replace("__", ":", 1)
    rec = {"event": ev, "time_ns": s.get("time"), "cpu": s.get("cpu", fields.get("common_cpu")),
           "pid": s.get("pid"), "tid": s.get("tid", fields.get("common_pid")), "comm": fields.get("common_comm"),
           "fields": {k: _v(v) for k, v in fields.items() if not k.startswith("common_")}}
    _w(json.dumps(rec, separators=(",", ":")) + "\n")
'''


def parse_spec(spec: str) -> Tuple[str, Optional[str]]:
    """'sys:name[:filter]' -> ('sys:name', filter or None); ValueError when it is not that."""
    parts = spec.split(":", 2)
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise ValueError(f"--trace {spec!r}: expected SYSTEM:EVENT[:FILTER] (e.g. xfs:xfs_ail_insert, 'writeback:*')")
    for p in parts[:2]:
        if not all(c.isalnum() or c in "_*?[]-" for c in p):
            raise ValueError(f"--trace {spec!r}: {p!r} is not a tracepoint system or name (letters, digits, _, globs)")
    flt = parts[2].strip() if len(parts) == 3 else None
    return f"{parts[0]}:{parts[1]}", flt or None


def expand(events_dir: str, specs: List[Tuple[str, Optional[str]]]) -> Tuple[List[Tuple[str, Optional[str]]], List[str]]:
    """Globs against tracefs: ([(sys:name, filter)] in the order given, without repeats, [what matched nothing])."""
    out: List[Tuple[str, Optional[str]]] = []
    missing: List[str] = []
    seen = set()
    for ev, flt in specs:
        sysglob, nameglob = ev.split(":", 1)
        found = []
        try:
            systems = sorted(os.listdir(events_dir))
        except OSError:
            systems = []
        for sy in systems:
            if not fnmatch.fnmatchcase(sy, sysglob) or not os.path.isdir(os.path.join(events_dir, sy)):
                continue
            for name in sorted(os.listdir(os.path.join(events_dir, sy))):
                if fnmatch.fnmatchcase(name, nameglob) and os.path.isfile(os.path.join(events_dir, sy, name, "format")):
                    found.append(f"{sy}:{name}")
        if not found:
            missing.append(ev)
        for e in found:
            if e not in seen:
                seen.add(e)
                out.append((e, flt))
    return out, missing


class TraceProbe(TracepointProbe):
    name = "trace"
    what = "traced events"
    stat_file = "perf-stat-trace.csv"
    stat_kind = "perf-stat"
    stat_extra = {"scope": "system", "probe": "trace"}
    script_file = "trace.script.gz"
    script_kind = "perf-trace"
    script_options = ("--ns", "-F", SCRIPT_FIELDS)

    def __init__(self, perf: Perf, events_dir: Optional[str], specs: List[str], max_mb: int = 512):
        super().__init__(perf, max_mb)
        self.events_dir = events_dir
        self.specs = [parse_spec(s) for s in specs]
        self.events: List[Tuple[str, Optional[str]]] = []
        self.compared: Tuple[str, ...] = ()
        self._stage = ""
        self._t0 = 0
        self._extra: List[Artifact] = []
        self._extra_info: Dict[str, object] = {}

    def setup(self) -> Optional[str]:
        """Expand the globs; the reason the probe cannot run, or None."""
        if self.events_dir is None:
            return None  # the caller already noted why
        self.events, self.missing = expand(self.events_dir, self.specs)
        self.record_events = [e for e, _ in self.events]
        self.compared = tuple(self.record_events)
        if not self.events:
            return f"trace: this kernel has no tracepoint {', '.join(self.missing)}; nothing traced"
        return None

    def _events_argv(self) -> List[str]:
        argv: List[str] = []
        for e, flt in self.events:
            argv += ["-e", e] + (["--filter", flt] if flt else [])
        return argv

    def _record_argv(self, data: str) -> List[str]:
        assert self.perf is not None
        return [self.perf.path, "record", "-a", "-k", "CLOCK_MONOTONIC", "--max-size", f"{self.max_mb}M",
                *self._events_argv(), "-o", data]

    def _stat_argv(self, out: str) -> List[str]:
        assert self.perf is not None
        return [self.perf.path, "stat", "-x,", "-I", "1000", "-a", *self._events_argv(), "-o", out]

    def _info(self) -> Dict[str, object]:
        return {"events": [{"event": e, "filter": f} for e, f in self.events]}

    def finish(self, run_id: str, stage: str, t0_ns: int):
        self._stage, self._t0, self._extra, self._extra_info = stage, t0_ns, [], {}
        arts, info, notes = super().finish(run_id, stage, t0_ns)
        # `events` is the recorded total from here on (as the other probes); the list is `traced`
        info["traced"] = [{"event": e, "filter": f} for e, f in self.events]
        info.update(self._extra_info)
        return arts + self._extra, info, notes

    def _check(self, run_id: str, recorded: Dict[str, int]) -> List[str]:
        """After perf script, before perf.data is removed: the formats and the typed fields."""
        assert self.perf is not None and self.events_dir is not None
        notes: List[str] = []
        rel_fmt = f"runs/{run_id}/trace-formats.txt"
        with open(os.path.join(self._stage, rel_fmt), "w", encoding="utf-8") as out:
            for e, _ in self.events:
                sy, name = e.split(":", 1)
                try:
                    with open(os.path.join(self.events_dir, sy, name, "format"), encoding="utf-8",
                              errors="replace") as f:
                        out.write(f"system: {sy}\n{f.read().rstrip()}\n\n")
                except OSError as exc:
                    notes.append(f"trace: cannot read the format of {e}: {exc.strerror or exc}")
        self._extra.append(Artifact(rel_fmt, "tracepoint-formats"))
        script = os.path.join(self.scratch or "", "iolens_trace_fields.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(FIELDS_SCRIPT)
        rel = f"runs/{run_id}/trace.fields.jsonl.gz"
        dest = os.path.join(self._stage, rel)
        res = perfrec.script_to_gzip([self.perf.path, "script", "-s", script, "-i", self.data], dest)
        lines = res.get("lines")
        self._extra_info.update(fields_cmd=["perf", "script", "-s", "iolens_trace_fields.py", "-i", "perf.data"],
                                fields_bytes=perfrec.size_of(dest), fields_s=res["seconds"])
        if res["exit_code"] == 0 and not res["text_bytes"] and not sum(recorded.values()):
            try:  # nothing was recorded: no fields file, and nothing wrong with perf
                os.unlink(dest)
            except OSError:
                pass
            self._extra_info["fields_bytes"] = None
        elif res["exit_code"] != 0 or not res["text_bytes"]:
            why = " / ".join(res.get("messages", [])[-3:]) or f"exit {res['exit_code']}"  # type: ignore[arg-type]
            notes.append(f"trace: run {run_id}: perf could not run its Python script ({why}; perf built without "
                         "libpython?): the events are kept as text, without their typed fields")
            try:
                os.unlink(dest)
            except OSError:
                pass
            self._extra_info["fields_bytes"] = None
        else:
            self._extra.append(Artifact(rel, "perf-trace-fields", trace_clock_at_start_ns=self._t0))
            if lines is not None:
                self._extra_info["fields_events"] = lines
        shutil.rmtree(os.path.join(self.scratch or "", "__pycache__"), ignore_errors=True)
        return notes

    @staticmethod
    def summary(run_id: str, info: Dict[str, object]) -> str:
        rec = info.get("recorded") or {}
        cnt = info.get("counted") or {}
        parts = [f"{e} {rec.get(e, 0)}/{cnt.get(e, '?')}" for e in list(rec)[:4]]  # type: ignore[union-attr]
        more = f" +{len(rec) - 4} more" if len(rec) > 4 else ""  # type: ignore[arg-type]
        return (f"{run_id}  trace  {info.get('events', '?')} events in {info.get('duration_s')} s "
                f"(recorded/counted: {', '.join(parts)}{more}), perf.data "
                f"{perfrec.human_bytes(info.get('perf_data_bytes'))}, trace.script.gz "
                f"{perfrec.human_bytes(info.get('bytes'))}, fields {perfrec.human_bytes(info.get('fields_bytes'))}")


# -- the probe's options, checks and start (probes.py calls these for every module of PROBES) --
PERF, TRACEFS = True, True


def add_options(g, positive) -> None:
    g.add_argument("--trace", action="append", metavar="SYS:EVENT[:FILTER]",
                   help="any tracepoint, repeatable (xfs:xfs_ail_insert, 'writeback:*', "
                        "'block:block_rq_issue:nr_sector > 8'): perf record into runs/rNNN/trace.script.gz "
                        "(kind perf-trace), every field typed (perf-trace-fields), the formats, and perf stat "
                        "of the same to flag lost events (default: off)")


def enabled(o) -> bool:
    return bool(o.trace)


def check(o, root: str) -> None:
    for spec in o.trace or []:
        parse_spec(spec)  # ValueError names the spec


def start(o, ctx: Start, checked: None) -> Optional[RunProbe]:
    if not ctx.ready("trace", "traced events"):
        return None
    p = TraceProbe(ctx.perf, ctx.events_dir, o.trace, ctx.max_mb)
    problem = p.setup()
    if problem:
        ctx.note(problem)
        return None
    if p.missing:
        ctx.note(f"trace: this kernel has no tracepoint {', '.join(p.missing)}; traced the others")
    ctx.say("trace: " + ", ".join(e + (f" (filter {f})" if f else "") for e, f in p.events))
    return p
