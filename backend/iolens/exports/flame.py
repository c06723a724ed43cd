"""The flame graph cell ('flame' in src/cells/registry.ts) in the text report: an LKP-style table of
the functions, with where its figures came from. The graph itself stays in the app (a link).

- The difference (`v=diff`): the functions whose share changed most between the two captures,
  each side's self and total share (% of that side's sampled weight), and the change in
  percentage points (pp), largest |change| first: of the self share, or of the total share when
  the cell orders its tables by total (`by=total`). '~' marks a change within the spread between
  repeats (views/flame.py: the per-run share ranges overlap).
- One capture (the default view): its functions by self share (or total, `by=total`), with their
  total share and samples.

Above the table, the context that makes it unambiguous: the event and its unit, the task filter in
force (the workload's own tasks by default in a difference, as the app shows it), CPUs, time range,
and per side the capture, its runs and its sample count.

Its state (src/cells/flame/state.ts): `v=`, `cap=`, `a=`, `b=`, `ev=`, `runs=`, `cpu=`, `tid=`,
`comm=`, `t=`, `by=`, and `z=`, `q=`, `x=` (zoom, search and transforms: the table is of the whole
selection, and says so when they are set).

The notebook's timeline selection (exports/selection.py) applies to one capture's graph as in the
app (src/cells/flame/sharedTime.tsx): that run only, over the range since its first sample; the
export says so first, or why it is not applied (a difference, another capture, no samples).
"""

from __future__ import annotations

import html
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from ..store.derived import OFFCPU_EVENT, OFFCPU_EVENTS, WAKEUP_EVENT
from ..store.rules.flame_stacks import OPS
from ..store.stats import MIN_REPEATS, too_few_repeats
from ..views import flame as flame_view
from ..views.workload import pair_comm, single_comm, workload_comm  # noqa: F401 - the rule lives in views
from . import selection, svg_flame
from . import textfmt as tf
from .context import ExportContext, parse_state

TOP = 15  # functions in a table

ALL_TASKS = "*"
_CAPTURE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RUN_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

def _dec(v: str) -> str:
    return urllib.parse.unquote(v, errors="strict")


def _int(v: str) -> int | None:
    return int(v) if re.fullmatch(r"\d{1,18}", v) else None


@dataclass
class Side:
    capture: str
    runs: list[str]
    samples: int
    weight: int
    stackless: int


@dataclass
class Row:
    name: str
    self_a: float | None
    self_b: float | None
    total_a: float | None
    total_b: float | None
    delta_self: float | None = None
    delta_total: float | None = None
    noise_self: bool | None = None
    noise_total: bool | None = None
    self_samples: int | None = None
    total_samples: int | None = None


@dataclass
class FlameData:
    view: str                      # diff | flame
    index: int | None              # the cell's position, for its link
    by: str                        # self | total
    event: str | None = None
    unit: str = "count"
    comm: str | None = None        # the task filter in force
    comm_why: str = ""             # "the workload's own tasks (the default)", "chosen", ...
    cpus: list[int] | None = None
    tid: int | None = None
    window: tuple[int | None, int | None] = (None, None)
    sides: list[Side] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    functions: int = 0
    noise: bool = False
    noise_reason: str | None = None
    ignored: list[str] = field(default_factory=list)   # state fields the table does not apply
    notes: list[str] = field(default_factory=list)
    missing: str | None = None     # why there is no table
    svg: str = ""                  # the graph, for the HTML export (svg_flame.py)
    range_b: tuple[int, int | None] | None = None  # two ranges of one capture: B's (window is A's)
    time_note: str | None = None   # the timeline selection: applied (how) or not (why)
    range_runs: int = 0            # two ranges of one capture: the capture's runs with samples
    timeline: tuple[str, str | None] | None = None  # the timeline's range applied: its run, the cell's own it replaces

    @property
    def few(self) -> bool:
        """A difference with fewer than MIN_REPEATS runs on a side: its changes marked '?', as the
        tables and the graph (stats.too_few_repeats, testdata/vectors/ratio-tone.json)."""
        return self.view == "diff" and len(self.sides) == 2 and too_few_repeats(
            len(self.sides[0].runs), len(self.sides[1].runs))


class FlameExport:
    title = "Flame graph"

    @staticmethod
    def read_state(state: str) -> dict[str, Any]:
        """The fields of the cell's state the export uses, as src/cells/flame/state.ts decodes them
        (a field that does not decode there is left at its default here)."""
        st = parse_state(state)
        out: dict[str, Any] = {"view": "diff" if st.get("v") == "diff" else "flame", "cap": None, "a": None, "b": None,
                               "event": None, "runs": None, "cpus": None, "tid": None, "comm": None, "from": None,
                               "to": None, "by": "self", "zoom": [], "search": "", "transforms": [], "rangeB": None}
        for key in ("cap", "a", "b"):
            if _CAPTURE_ID.match(st.get(key, "")):
                out[key] = st[key]
        for key, name in (("ev", "event"), ("comm", "comm"), ("q", "search")):
            if key in st:
                try:
                    out[name] = _dec(st[key])
                except UnicodeDecodeError:
                    pass
        if "runs" in st and all(_RUN_ID.match(r) for r in st["runs"].split(",")):
            out["runs"] = st["runs"].split(",")
        if "cpu" in st:
            cpus = [_int(c) for c in st["cpu"].split(",")]
            if all(c is not None and c <= 65535 for c in cpus):
                out["cpus"] = cpus
        if "tid" in st:
            out["tid"] = _int(st["tid"])
        m = re.fullmatch(r"(\d{1,18})-(\d{1,18})?", st.get("t", ""))
        if m:
            lo, hi = int(m.group(1)), int(m.group(2)) if m.group(2) else None
            if (hi is None or hi > lo) and not (lo == 0 and hi is None):
                out["from"], out["to"] = (lo or None), hi
        m = re.fullmatch(r"(\d{1,18})-(\d{1,18})?", st.get("tb", ""))
        if m and (m.group(2) is None or int(m.group(2)) > int(m.group(1))):
            out["rangeB"] = {"from": int(m.group(1)), "to": int(m.group(2)) if m.group(2) else None}
        if st.get("by") in ("self", "total", "name"):
            out["by"] = st["by"]
        if st.get("z"):
            out["zoom"] = [_dec(f) for f in st["z"].split(",")]
        for item in filter(None, st.get("x", "").split(",")):
            op, _, name = item.partition(":")
            if op in OPS and name:
                out["transforms"].append({"op": op, "name": _dec(name)})
        return out

    def data(self, ctx: ExportContext, state: str) -> FlameData:
        st = self.read_state(state)
        data = self._table(ctx, st, state)  # applies the timeline selection to st
        if not data.missing:
            data.svg = svg_flame.graph(ctx, data, st, state)
        return data

    @staticmethod
    def _apply_time(ctx: ExportContext, st: dict[str, Any], cap: str) -> str | None:
        """The notebook's timeline selection on the state `st` of a graph of `cap` (as the app's
        useSharedTime): its run and range since the run's first sample; the notice to show."""
        t = selection.shared_time(ctx)
        if t is None:
            return None
        if st["view"] == "diff" or t.capture != cap:
            why = ("not applied to a difference of two captures (it is a range of one run)" if st["view"] == "diff"
                   else "of another capture: not applied to this graph")
            return selection.notice(ctx, t, why)
        runs = selection.timeline_runs(ctx, cap)
        if t.run not in runs:  # a run= the capture does not have (as the app's flame cell says)
            return selection.notice(ctx, t, f"run {t.run} is not in this capture: not applied")
        off = runs[t.run].samples_offset_ns
        if off is None:
            return selection.notice(ctx, t, f"run {t.run} has no perf samples: not applied")
        lo = max(0, t.from_ns - off)
        hi = max(lo + 1, t.to_ns - off)
        own = own_ranges_text(st["from"], st["to"], st["rangeB"], st["runs"])
        st.update({"runs": [t.run], "from": lo or None, "to": hi, "rangeB": None, "timeline": (t.run, own)})
        return selection.notice(ctx, t, f"applied: run {t.run}, {lo / 1e9:.3f}-{hi / 1e9:.3f} s since its first "
                                        f"sample (the flame graph's time 0, {selection.offset_text(off)})"
                                + (f", in place of the cell's own {own}" if own else ""))

    def _table(self, ctx: ExportContext, st: dict[str, Any], state: str) -> FlameData:
        index = next((i for i, c in enumerate(ctx.doc.cells)
                      if getattr(c, "kind", None) == "flame" and getattr(c, "state", None) == state), None)
        by = "total" if st["by"] == "total" else "self"
        caps = {c.id: c for c in ctx.captures}
        with_stacks = [c.id for c in ctx.captures if "perf-script" in (c.artifact_kinds or ["perf-script"])]
        first = ctx.doc.baseline if ctx.doc.baseline in with_stacks else (with_stacks[0] if with_stacks else ctx.doc.baseline)
        data = FlameData(st["view"], index, by)
        data.time_note = self._apply_time(ctx, st, st["cap"] if st["cap"] in caps else first)
        ignored = []
        if st["zoom"]:
            ignored.append("the zoom (" + " > ".join(st["zoom"][-2:]) + ")")
        if st["search"]:
            ignored.append(f"the search /{st['search']}/")
        if st["transforms"]:
            ignored.append("the transforms (" + ", ".join(f"{t['op']} {t['name']}" for t in st["transforms"]) + ")")
        data.ignored = ignored
        f = flame_view.Filters(event=st["event"], cpus=tuple(st["cpus"]) if st["cpus"] is not None else None,
                               from_ns=st["from"], to_ns=st["to"])
        data.cpus, data.window = st["cpus"], (st["from"], st["to"])
        data.timeline = st.get("timeline")
        if st["view"] == "flame" and st["rangeB"] is not None:
            return self._ranges(ctx, st, data, f, st["cap"] if st["cap"] in caps else first)
        if st["view"] == "diff":
            a = st["a"] if st["a"] in caps else first
            b = st["b"] if st["b"] in caps and st["b"] != a else next(
                (c for c in with_stacks if c != a), next((c for c in caps if c != a), None))
            if b is None:
                data.missing = "A difference needs two captures; this notebook has one."
                return data
            work = pair_comm(caps.get(a), caps.get(b))
            if st["comm"] == ALL_TASKS:
                comm, why = None, "all tasks (chosen)"
            elif st["comm"] is not None:
                comm, why = st["comm"], "chosen"
            elif work is not None:
                comm, why = work, "the workload's own, the default"
            else:
                comm, why = None, "all tasks (the default: the workload's command is not known for both captures)"
            data.comm, data.comm_why = comm, why
            try:
                d = flame_view.diff(ctx.store, a, b, flame_view.Filters(**{**f.__dict__, "comm": comm}), limit=TOP)
            except flame_view.NoStacks as exc:
                data.missing = str(exc)
                return data
            return self._diff_rows(data, d)
        cap = st["cap"] if st["cap"] in caps else first
        work = single_comm(caps.get(cap), st["event"])  # off-CPU stacks: the workload's own tasks, as the app
        if st["comm"] not in (None, ALL_TASKS):
            data.comm, data.comm_why = st["comm"], "chosen"
        elif st["comm"] is None and st["tid"] is None and work is not None:
            data.comm, data.comm_why = work, "the workload's own, the default for off-CPU stacks"
        elif st["comm"] == ALL_TASKS and work is not None:
            data.comm_why = "all tasks (chosen)"
        else:
            data.comm_why = "all tasks"
        data.tid = st["tid"]
        try:
            top = flame_view.top_functions(
                ctx.store, cap, flame_view.Filters(**{**f.__dict__, "comm": data.comm, "tid": st["tid"],
                                                      "runs": tuple(st["runs"]) if st["runs"] else None}),
                by=by, limit=TOP)  # type: ignore[arg-type]
        except flame_view.NoStacks as exc:
            data.missing = str(exc)
            return data
        data.event, data.unit, data.functions = top.filters.event, top.weight_unit, top.functions_count
        data.sides = [Side(cap, list(top.filters.runs or []), top.total_samples, top.total_weight, 0)]
        data.rows = [Row(fn.name, fn.self_pct, None, fn.total_pct, None, self_samples=fn.self_samples,
                         total_samples=fn.total_samples) for fn in top.functions]
        if parse_state(state).get("s") == "time":
            data.notes.append("the cell shows the time order of one thread or CPU (s=time); here are the flame graph "
                              "and the functions of the same selection, the app draws the time order")
        return data

    @staticmethod
    def _diff_rows(data: FlameData, d: Any) -> FlameData:
        data.event, data.unit = d.filters.event, d.weight_unit
        data.sides = [Side(s.capture.id, s.runs, s.total_samples, s.total_weight, s.stackless_samples)
                      for s in (d.a, d.b)]
        data.functions, data.noise, data.noise_reason, data.notes = (d.functions_count, d.noise_available,
                                                                     d.noise_reason, d.notes)
        key = "delta_total" if data.by == "total" else "delta_self"
        rows = sorted(d.functions, key=lambda r: (-abs(getattr(r, key)), r.name))[:TOP]
        data.rows = [Row(r.name, r.self_a if r.samples_a else None, r.self_b if r.samples_b else None,
                         r.total_a if r.samples_a else None, r.total_b if r.samples_b else None,
                         r.delta_self, r.delta_total, r.noise_self, r.noise_total) for r in rows]
        return data

    def _ranges(self, ctx: ExportContext, st: dict[str, Any], data: FlameData, f: flame_view.Filters,
                cap: str) -> FlameData:
        """Two time ranges of one capture (the heatmap's A and B): a difference, A before, B after."""
        data.view = "diff"
        b = st["rangeB"]
        data.comm = st["comm"] if st["comm"] not in (None, ALL_TASKS) else None
        data.comm_why = "chosen" if data.comm is not None else "all tasks"
        data.range_b = (b["from"], b["to"])
        runs = tuple(st["runs"]) if st["runs"] else None
        try:
            d = flame_view.diff(ctx.store, cap, cap, flame_view.Filters(**{**f.__dict__, "comm": data.comm}),
                                runs_a=runs, runs_b=runs, limit=TOP, range_b=(b["from"], b["to"]))
        except (flame_view.NoStacks, flame_view.BadQuery) as exc:
            data.missing = str(exc)
            return data
        data.range_runs = len(d.a.all_runs)
        return self._diff_rows(data, d)

    @staticmethod
    def _range_few(data: FlameData) -> str:
        """Why a difference of two time ranges is grey, as the app's legend says it (range_few_text),
        with the app's one click named."""
        text, every_run = range_few_text(len(data.sides[0].runs), data.range_runs)
        return text + (f" In the app: 'the ranges over every run ({data.range_runs})'." if every_run else "")

    # --- text -------------------------------------------------------------------------------

    def _link(self, ctx: ExportContext, data: FlameData) -> str:
        return ctx.cell_link(data.index) if data.index is not None else ctx.permalink

    def _weight(self, data: FlameData, w: int) -> str:
        if data.unit != "ns":
            return f"{w:,} events"
        return tf.format_value(w, "ns") + (" off the CPU" if data.event == OFFCPU_EVENT else " of CPU")

    @staticmethod
    def _samples(data: FlameData, n: int | None = None) -> str:
        """n samples, or waits (offcpu), or wakeups (wakeup): what one of the event's stacks is;
        without n, the plural alone."""
        one = "wait" if data.event == OFFCPU_EVENT else "wakeup" if data.event == WAKEUP_EVENT else "sample"
        return f"{one}s" if n is None else f"{n:,} {one}{'s' if n != 1 else ''}"

    def _scope(self, data: FlameData) -> str:
        """Event, tasks, CPUs and time range of the selection."""
        unit = ("weight: time off the CPU" if data.event == OFFCPU_EVENT else "weight: CPU time") if data.unit == "ns" \
            else "weight: the event's count"
        tasks = (f"command {data.comm} ({data.comm_why})" if data.comm is not None else data.comm_why)
        if data.tid is not None:
            tasks += f", thread {data.tid}"
        cpus = "all CPUs" if data.cpus is None else "CPU" + ("s " if len(data.cpus) > 1 else " ") + ",".join(
            map(str, data.cpus))
        lo, hi = data.window
        when = ("whole runs" if lo is None and hi is None else
                f"{(lo or 0) / 1e9:.3f} to {'the end' if hi is None else f'{hi / 1e9:.3f} s'} since each run's "
                "first sample")
        if data.timeline is not None:
            run, own = data.timeline
            when = (f"the timeline's selection, {(lo or 0) / 1e9:.3f} to {(hi or 0) / 1e9:.3f} s since run {run}'s first "
                    "sample" + (f" (not the cell's own {own})" if own else ""))
        if data.range_b is not None:
            blo, bhi = data.range_b
            when = (f"two time ranges of one capture, A {(lo or 0) / 1e9:.3f} to "
                    f"{'the end' if hi is None else f'{hi / 1e9:.3f} s'}, B {blo / 1e9:.3f} to "
                    f"{'the end' if bhi is None else f'{bhi / 1e9:.3f} s'} since each run's first sample")
        what = (f"perf {data.event} samples with call stacks" if data.event not in OFFCPU_EVENTS else
                "off-CPU waits with call stacks (sched_switch, from each switch-out to the switch-in; --offcpu)"
                if data.event == OFFCPU_EVENT else "wakeups with the waker's call stacks (sched_waking; --offcpu)")
        return f"{what} ({unit}); tasks: {tasks}; {cpus}; {when}"

    def _side_line(self, ctx: ExportContext, data: FlameData, tag: str, s: Side) -> list[str]:
        star = " (*)" if s.capture == ctx.doc.baseline and len(ctx.captures) > 1 else ""
        runs = (f"run{'s' if len(s.runs) != 1 else ''} {', '.join(s.runs)}" if s.runs else
                "all runs" if data.view == "flame" else "no runs with samples")
        lost = f"; {s.stackless:,} without a stack, left out" if s.stackless else ""
        return tf.wrap(f"{tag}{ctx.name(s.capture)}{star}: {runs}; {self._samples(data, s.samples)}, "
                       f"{self._weight(data, s.weight)}{lost}", indent="    ", subsequent="      ")

    def text(self, ctx: ExportContext, data: FlameData) -> list[str]:
        link = self._link(ctx, data)
        head = tf.wrap(data.time_note, indent="    ") + [""] if data.time_note else []
        if data.missing:
            return head + tf.wrap(data.missing, indent="    ") + tf.wrap("The flame graph:", indent="    ") + ["    " + link]
        lines = head + tf.wrap(self._scope(data) + ".", indent="    ")
        if data.view == "diff":
            a, b = data.sides
            lines += self._side_line(ctx, data, "A ", a) + self._side_line(ctx, data, "B ", b)
            key = "total" if data.by == "total" else "self"
            few = data.few
            lines += tf.wrap(
                f"Share: % of each side's weight (self: samples ending in the function; total: samples with it "
                f"anywhere in the stack). B-A: change in percentage points. The {min(len(data.rows), TOP)} of "
                f"{data.functions:,} functions whose {key} share changed most"
                + (", '~' where the change is within the spread between repeats." if data.noise else
                   "." if few and data.range_b is not None else f"; no noise mark: {data.noise_reason}.")
                + ("" if not few else f" '?': not judged. {self._range_few(data)}" if data.range_b is not None else
                   f" '?': too few repeats to judge a change (fewer than {MIN_REPEATS} on a side), as in the "
                   "compared-metric tables."), indent="    ")
            lines += [""]
            lines.append(f"    {'':<24}{'self share, %':^21} {'total share, %':^21}")
            lines.append(f"    {'function':<24}{'A':>6}{'B':>7}{'B-A':>7}  {'A':>6}{'B':>7}{'B-A':>7}")
            for r in data.rows:
                lines += _long_name(r.name, 23)
                lines.append(f"    {_short_name(r.name, 23):<24}{_share(r.self_a):>6}{_share(r.self_b):>7}"
                             f"{_change(r.delta_self, r.noise_self, few):>8} {_share(r.total_a):>6}{_share(r.total_b):>7}"
                             f"{_change(r.delta_total, r.noise_total, few):>8}".rstrip())
        else:
            lines += self._side_line(ctx, data, "", data.sides[0])
            key = "total" if data.by == "total" else "self"
            lines += tf.wrap(f"Share: % of the selection's weight (self: samples ending in the function; total: "
                             f"samples with it anywhere in the stack). The {len(data.rows)} of {data.functions:,} "
                             f"functions with the largest {key} share; n: their "
                             f"{self._samples(data)}.", indent="    ")
            lines += ["", f"    {'function':<30}{'self %':>8}{'total %':>9}{'self n':>10}{'total n':>10}"]
            for r in data.rows:
                lines += _long_name(r.name, 29)
                lines.append(f"    {_short_name(r.name, 29):<30}{_share(r.self_a):>8}{_share(r.total_a):>9}"
                             f"{r.self_samples or 0:>10,}{r.total_samples or 0:>10,}")
        if not data.rows:
            lines.append("    (no samples in this selection)")
        for n in data.notes:
            lines += tf.wrap(f"Note: {n}.", indent="    ", subsequent="      ")
        if data.ignored:
            lines += [""] + tf.wrap("Not applied to this table, only to the graph: " + "; ".join(data.ignored) + ".",
                                    indent="    ")
        lines += [""] + tf.wrap("The flame graph, zoomable, with every function:", indent="    ")
        lines.append("    " + link)
        return lines

    # --- HTML -------------------------------------------------------------------------------

    def html(self, ctx: ExportContext, data: FlameData) -> str:
        """The graph (svg_flame.py), then the same table in HTML."""
        e = html.escape
        link = e(self._link(ctx, data))
        notice = selection.html_notice(data.time_note)
        if data.missing:
            return notice + f'<p class="muted">{e(data.missing)} <a href="{link}">Open it in iolens</a>.</p>'
        sides = "; ".join(f"{'A' if i == 0 and data.view == 'diff' else 'B' if data.view == 'diff' else ''} "
                          f"{ctx.label(s.capture)}: {len(s.runs) or 'all'} runs, {self._samples(data, s.samples)}, {self._weight(data, s.weight)}"
                          for i, s in enumerate(data.sides))
        ctx_p = f'<p class="muted">{e(tf.for_html(self._scope(data)))}. {e(sides.strip())}.</p>'
        if data.few and data.range_b is not None:
            ctx_p += f'<p class="muted" data-few="true">Grey ?: not judged. {e(self._range_few(data))}</p>'
        if data.view == "diff":
            head = ('<tr><th rowspan=2>function</th><th colspan=3 class=cap>self share, %</th>'
                    '<th colspan=3 class=cap>total share, %</th></tr><tr>' + "<th class=num>A</th><th class=num>B</th>"
                    "<th class=num>B&minus;A, pp</th>" * 2 + "</tr>")
            body = "".join(
                f"<tr><td><code>{e(r.name)}</code></td><td class=num>{_share(r.self_a)}</td><td class=num>{_share(r.self_b)}"
                f"</td><td class=num>{e(_change(r.delta_self, r.noise_self, data.few))}</td><td class=num>{_share(r.total_a)}</td>"
                f"<td class=num>{_share(r.total_b)}</td><td class=num>{e(_change(r.delta_total, r.noise_total, data.few))}</td></tr>"
                for r in data.rows)
        else:
            head = ("<tr><th>function</th><th class=num>self %</th><th class=num>total %</th>"
                    "<th class=num>self samples</th><th class=num>total samples</th></tr>")
            body = "".join(f"<tr><td><code>{e(r.name)}</code></td><td class=num>{_share(r.self_a)}</td>"
                           f"<td class=num>{_share(r.total_a)}</td><td class=num>{r.self_samples or 0:,}</td>"
                           f"<td class=num>{r.total_samples or 0:,}</td></tr>" for r in data.rows)
        return (notice + data.svg + ctx_p + f'<div class="scroll"><table class="fio numbers"><thead>{head}</thead><tbody>{body}'
                f'</tbody></table></div><p class="small muted">Hover a frame for its figures. Zoom, search, the '
                f'inverted tree and the sandwich: <a href="{link}">the flame graph in iolens</a>.</p>')


def own_ranges_text(lo: int | None, hi: int | None, range_b: dict[str, Any] | None, runs: list[str] | None) -> str | None:
    """The cell's own time range(s) and runs that a timeline selection replaces, in words (the app's
    notice says the same: src/cells/flame/sharedTime.tsx ownRangesText), or None without any."""
    def span(a: int | None, b: int | None) -> str:
        return f"{(a or 0) / 1e9:.3f} s to the end" if b is None else f"{(a or 0) / 1e9:.3f}-{b / 1e9:.3f} s"
    parts = []
    if range_b is not None:
        parts.append(f"ranges A {span(lo, hi)} and B {span(range_b['from'], range_b['to'])}")
    elif lo is not None or hi is not None:
        parts.append(f"range {span(lo, hi)}")
    if runs:
        parts.append(f"run{'s' if len(runs) != 1 else ''} {', '.join(runs)}")
    return " of ".join(parts) if parts else None


def range_few_text(selected: int, every: int) -> tuple[str, bool]:
    """Why a difference of two time ranges of one capture has too few runs to colour (fewer than
    MIN_REPEATS in its selection), and whether every run of the capture would colour it: both ranges
    are of the same runs, so recording more repeats of a side is no answer. The app's legend says the
    same (src/logic/flameDiff.ts rangeFewText)."""
    def runs(n: int) -> str:
        return {0: "no run", 1: "one run", 2: "two runs"}.get(n, f"{n} runs")
    if every >= MIN_REPEATS:
        return (f"Both ranges are of {runs(selected)} of this capture's {every}: fewer than {MIN_REPEATS} repeats are "
                "too few to tell a change from noise (the compared-metric tables' grey ?). Over every run, each range "
                f"is the same seconds of each of the {every} runs, and a change is coloured where it stands out of the "
                "spread between them.", True)
    return (f"This capture has {runs(every)} with samples: a difference of two time ranges of it has no noise "
            f"estimate. Telling a change from noise takes the spread between {MIN_REPEATS} or more repeats of the "
            f"same seconds, and both ranges are of the same {'run' if every == 1 else 'runs'}. The tooltips and the "
            "table give each change, not coloured red or blue.", False)


def _long_name(name: str, width: int) -> list[str]:
    """A function name longer than its column gets a line of its own (kernel names are long:
    xfs_direct_write_iomap_begin), its figures on the next line; only a name longer than a whole
    line is cut."""
    return [f"    {tf.fit(name, tf.WIDTH - 4)}"] if len(tf.to_ascii(name)) > width else []


def _short_name(name: str, width: int) -> str:
    return "" if len(tf.to_ascii(name)) > width else tf.to_ascii(name)


def _share(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _change(v: float | None, noise: bool | None, few: bool = False) -> str:
    """A change in pp: '~' within the spread between repeats; '?' with too few repeats on a side to
    judge it (stats.too_few_repeats: the compared-metric tables' and the graph's grey '?')."""
    if v is None:
        return ""
    text = "0.00" if abs(v) < 0.005 else f"{v:+.2f}"
    return text + ("?" if few else "~" if noise else " ")

