"""The scheduler cell ('sched' in src/cells/registry.ts) in text and HTML exports: the key numbers
of the comparison, the top ping-pong pair per capture, and the loss warnings; charts and tables
stay in the app (a link).

Its state (src/cells/sched/state.ts): `v=` the view, `run=`, `cpus=`, `by=`, `m=`, `step=`,
`lay=`, `stat=`, `w=` the ping-pong window (us), `reason=`. The export uses `w`; the rest only
changes what the app shows. Per capture: its workload and CPUs, its runs, whether they lost events
(docs/sched.md "Lost events"); per key metric the mean over runs, spread, n and the change vs the
baseline (the fio table's form); the pair with the most round trips on the workload's CPUs (task
groups), and the first workload <-> kworker pair when it is not that one (issue 4's storm).

Under the notebook's timeline selection (exports/selection.py) the figures and pairs count only its
range (ns since each run's start), in every run of each capture, each run on its own trace: moved
to the trace's time 0 by that run's own offset (the views' clock 'run', views/sched_range.py;
store/rules/run_span.py), as the app's cell does; the export says so first. The metrics of perf
stat's and fio's own whole-run counts are left out then.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from .. import models
from ..views import sched as sched_view
from . import selection, svg_misc
from . import textfmt as tf
from .context import ExportContext, parse_state
from .metric_table import baseline_first, few_shown, html_legend, html_table, text_block, text_legend

# The figures a mail needs (views/sched.py METRICS keys), in this order.
KEY_METRICS = ("switches_workload", "switches_workload_counted", "involuntary_pct", "pingpong_per_s",
               "workload_cpus_used", "workload_delay_p99", "kworker_delay_p99")
PAIRS_ASKED = 50  # pairs read per capture to find the first workload <-> kworker one
_RUN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_CPUS = re.compile(r"^\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?)*$")  # cells/sched/state.ts CPU_LIST


@dataclass
class CapturePairs:
    capture_id: str
    top: models.SchedPingPongRow | None = None
    storm: models.SchedPingPongRow | None = None  # the first workload <-> kworker pair, when not the top one


@dataclass
class SchedData:
    cmp: models.SchedComparison
    window_us: int
    pairs: list[CapturePairs] = field(default_factory=list)
    run: str | None = None    # the cell's run and CPU choices: the app's tables only, said in the text
    cpus: str | None = None
    span: tuple[int, int] | None = None  # the range counted, ns since each run's start (the selection; clock 'run')
    time_note: str | None = None         # the timeline selection: how it is applied, or why not


def _window(state: dict[str, str]) -> int:
    w = state.get("w", "")
    return int(w) if w.isdigit() and 1 <= int(w) <= 10000 else sched_view.DEFAULT_WINDOW_US


def is_storm(r: models.SchedPingPongRow) -> bool:
    """The workload and a kworker switching to each other (the kworker completing its direct I/O)."""
    return (r.a.workload and r.b.group == "kworker/*") or (r.b.workload and r.a.group == "kworker/*")


def _task(t: models.SchedTask) -> str:
    return t.comm if t.pid is None else f"{t.comm}[{t.pid}]"


def _cpus(cpus: list[int]) -> str:
    s = sorted(set(cpus))
    parts, i = [], 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
            j += 1
        parts.append(f"{s[i]}-{s[j]}" if j > i else str(s[i]))
        i = j + 1
    return ",".join(parts)


def _workload(st: models.SchedCaptureStatus) -> str:
    who = st.workload_comm or "workload"
    if not st.workload_cpus:
        return f"{who}, CPUs not known"
    return f"{who} on CPU{'s' if len(st.workload_cpus) > 1 else ''} {_cpus(st.workload_cpus)}"


def _lost_runs(st: models.SchedCaptureStatus) -> list[str]:
    runs = []
    for w in st.warnings:
        if w.startswith("run ") and ":" in w:
            r = w[4:w.index(":")]
            if r not in runs:
                runs.append(r)
    return runs


class SchedExport:
    title = "Scheduler"

    @staticmethod
    def read_state(state: str) -> dict[str, int | str | None]:
        st = parse_state(state)
        run = st.get("run")
        cpus = st.get("cpus")
        return {"windowUs": _window(st), "run": run if run and _RUN.match(run) else None,
                "cpus": cpus if cpus and (cpus in ("all", "workload") or _CPUS.match(cpus)) else None}

    @staticmethod
    def _time(ctx: ExportContext) -> tuple[tuple[int, int] | None, str | None]:
        """The timeline selection as the scheduler's range on the runs' clock (as the app's SchedShared:
        each run moves it to its own trace by its own sched_offset_ns), and the notice saying so."""
        t = selection.shared_time(ctx)
        if t is None:
            return None, None
        span = (t.from_ns, t.to_ns)
        return span, selection.notice(
            ctx, t, f"the figures and pairs below count only {span[0] / 1e9:.3f}-{span[1] / 1e9:.3f} s since each "
                    "run's start, in every run of each capture, each on its own trace (moved by that run's own "
                    "offset); rates are per second of that range; perf stat's and fio's own counts cover whole "
                    "runs and are left out")

    def data(self, ctx: ExportContext, state: str) -> SchedData:
        ids = [c.id for c in ctx.captures]
        span, note = self._time(ctx)
        cmp = sched_view.compare(ctx.store, ids, ctx.doc.baseline, span=span, clock="run")
        read = self.read_state(state)
        data = SchedData(cmp, int(read["windowUs"] or sched_view.DEFAULT_WINDOW_US),
                         run=read["run"], cpus=read["cpus"], span=span, time_note=note)  # type: ignore[arg-type]
        for cid in ids:
            p = CapturePairs(cid)
            if cmp.status[cid].runs:
                rows = sched_view.pingpong(ctx.store, cid, cpus="workload", group_by="group",
                                           window_us=data.window_us, limit=PAIRS_ASKED, span=span,
                                           clock="run").rows
                p.top = rows[0] if rows else None
                p.storm = next((r for r in rows[1:] if is_storm(r)), None)
            data.pairs.append(p)
        return data

    def _rows(self, cmp: models.SchedComparison) -> list[models.MetricRow]:
        by = {m.metric: m for m in cmp.metrics}
        return [by[k] for k in KEY_METRICS if k in by]

    def text(self, ctx: ExportContext, data: SchedData) -> list[str]:
        cmp = data.cmp
        caps = baseline_first(cmp.captures, cmp.baseline)
        traced = [c for c in caps if cmp.status[c.id].runs]
        name = {c.id: tf.fit(ctx.name(c.id), 14) + (" *" if c.id == cmp.baseline else "") for c in caps}
        head = tf.wrap(data.time_note, indent="    ") + [""] if data.time_note else []
        if not traced:
            lines = head + tf.wrap("No scheduler trace in these captures. Record one with iolens-collect run ... "
                            "--sched [--cgroup NAME --cpu-weight N --cpus LIST] (docs/sched.md).", indent="    ")
            return lines
        lines = head + tf.wrap(
            "Scheduler traces (perf sched) of each capture's workload CPUs (listed below with the workload's "
            "command; every task on them counts): mean over the capture's runs with a trace; spread: +-stddev when n >= 3, "
            "min-max when n = 2; "
            + (f"change vs the baseline {ctx.name(cmp.baseline)} (*); "
               f"{text_legend(few_shown(self._rows(cmp), cmp.baseline))}" if len(cmp.captures) > 1
               else "one capture: no baseline to compare with."), indent="    ")
        chosen = ([f"run {data.run}"] if data.run else []) + (
            [f"CPUs {data.cpus}"] if data.cpus and data.cpus != "workload" else [])
        if chosen:
            lines += tf.wrap(f"The cell's choice of {' and '.join(chosen)} applies to its charts and tables in the "
                             "app, not to these figures.", indent="    ")
        lines += ["", f"    {'capture':<16}  {'workload':<24} {'runs':>4}  events"]
        for c in caps:
            st = cmp.status[c.id]
            if not st.runs:
                lines.append(f"    {name[c.id]:<16}  no scheduler trace (recorded without --sched)")
                continue
            lost = _lost_runs(st)
            ev = ("LOST in " + ", ".join(lost) if lost else "LOST") if st.events_lost else "complete"
            lines.append(f"    {name[c.id]:<16}  {tf.fit(_workload(st), 24):<24} {len(st.runs):>4}  {ev}")
        lines += [""] + text_block(self._rows(cmp), traced, cmp.baseline, lambda cid: name[cid])
        lines += [""]
        lines += tf.wrap(f"Top ping-pong pair on the workload's CPUs (task groups; a round trip is Y -> X -> Y "
                         f"with X running <= {data.window_us} us), and the first workload <-> kworker pair:",
                         indent="    ")
        for p in data.pairs:
            if p.capture_id not in {c.id for c in traced}:
                continue
            if p.top is None:
                lines.append(f"      {name[p.capture_id]:<16} none")
                continue
            for i, r in enumerate([p.top] + ([p.storm] if p.storm else [])):
                who = name[p.capture_id] if i == 0 else ""
                mark = "  [workload <-> kworker]" if is_storm(r) else ""
                lines.append(f"      {who:<16} {r.run_id} CPU {r.cpu}  "
                             f"{tf.fit(_task(r.a) + ' <-> ' + _task(r.b), 36)}")
                share = "-" if r.share is None else f"{r.share * 100:.1f} %"
                preempt = f"{r.preempting / r.round_trips * 100:.0f} %" if r.round_trips else "-"
                lines += tf.wrap(f"{tf.format_value(r.per_s, '/s')} round trips, {share} of the CPU's switches, "
                                 f"{preempt} preempting{mark}", indent=" " * 23)
        lost = [c for c in traced if cmp.status[c.id].events_lost]
        for c in lost:
            lines.append("")
            runs = ", ".join(_lost_runs(cmp.status[c.id]))
            lines += tf.wrap(f"! Events lost in {ctx.name(c.id)}{f' (run {runs})' if runs else ''}: "
                             "counts and rates from those runs are too low (perf stat's counted figures are not).",
                             indent="    ", subsequent="      ")
            for w in cmp.status[c.id].warnings:
                lines += tf.wrap(w, indent="      - ", subsequent="        ")
        untraced = [c for c in caps if not cmp.status[c.id].runs]
        if untraced:
            lines.append("")
            lines += tf.wrap(f"Without a scheduler trace (compared all the same, no figures): "
                             f"{', '.join(ctx.name(c.id) for c in untraced)}. Record one with --sched.",
                             indent="    ")
        return lines

    def html(self, ctx: ExportContext, data: SchedData) -> str:
        e = html.escape
        cmp = data.cmp
        caps = baseline_first(cmp.captures, cmp.baseline)
        traced = [c for c in caps if cmp.status[c.id].runs]
        if not traced:
            return ('<p class="muted">No scheduler trace in these captures. Record one with <code>iolens-collect run '
                    '... --sched [--cgroup NAME --cpu-weight N --cpus LIST]</code>.</p>')
        out = [selection.html_notice(data.time_note)] if data.time_note else []
        status = []
        for c in caps:
            st = cmp.status[c.id]
            badge = " <span class=base>baseline</span>" if c.id == cmp.baseline else ""
            if not st.runs:
                status.append(f"<tr><th>{e(c.label)}{badge}</th><td colspan=3 class=muted>no scheduler trace "
                              f"(recorded without <code>--sched</code>)</td></tr>")
                continue
            ev = (f'<span class="tone-worse">events lost in {e(", ".join(_lost_runs(st)) or "some runs")}</span>'
                  if st.events_lost else '<span class="tone-better">no events lost</span>')
            status.append(f"<tr><th>{e(c.label)}{badge}</th><td>{e(_workload(st))}</td><td class=num>"
                          f"{len(st.runs)} runs</td><td>{ev}</td></tr>")
        out.append(f'<table class="caps"><tbody>{"".join(status)}</tbody></table>')
        for c in traced:
            st = cmp.status[c.id]
            if st.events_lost:
                items = "".join(f"<li>{e(w)}</li>" for w in st.warnings)
                out.append(f'<p class="error">&#9888; {e(c.label)} lost scheduler events: counts and rates from '
                           f'those runs are too low.</p><ul class="small">{items}</ul>')
        out.append(svg_misc.sched(ctx, cmp, [c.id for c in traced], data.span))
        out.append(html_table(self._rows(cmp), traced, cmp.baseline))
        prow = []
        for p in data.pairs:
            c = next((x for x in traced if x.id == p.capture_id), None)
            if c is None or p.top is None:
                continue
            for i, r in enumerate([p.top] + ([p.storm] if p.storm else [])):
                mark = ' <span class="base">workload &#8644; kworker</span>' if is_storm(r) else ""
                share = "&ndash;" if r.share is None else f"{r.share * 100:.1f} %"
                preempt = f"{r.preempting / r.round_trips * 100:.1f} %" if r.round_trips else "&ndash;"
                prow.append(f"<tr><th>{e(c.label) if i == 0 else ''}</th><td>{e(r.run_id)}</td><td class=num>{r.cpu}</td>"
                            f"<td><code>{e(_task(r.a))}</code> &#8644; <code>{e(_task(r.b))}</code>{mark}</td>"
                            f"<td class=num>{e(tf.format_value(r.per_s, '/s'))}</td><td class=num>{share}</td>"
                            f"<td class=num>{preempt}</td></tr>")
        if prow:
            out.append(f"<h4>Top ping-pong pair on the workload's CPUs (task groups, brief run &le; {data.window_us} "
                       "&micro;s), and the first workload &#8644; kworker pair</h4>"
                       '<div class="scroll"><table><thead><tr><th>capture</th><th>run</th><th class=num>CPU</th>'
                       '<th>pair</th><th class=num>round trips/s</th><th class=num>of the CPU\'s switches</th>'
                       f'<th class=num>preempting</th></tr></thead><tbody>{"".join(prow)}</tbody></table></div>')
        out.append(f'<p class="legend muted">{html_legend(cmp.captures, few_shown(self._rows(cmp), cmp.baseline))} Charts per CPU, task and pair tables, wakeup delay histograms: '
                   'in the app.</p>')
        return "\n".join(out)
