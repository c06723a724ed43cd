"""The off-CPU cell ('offcpu' in src/cells/registry.ts) in text and HTML exports: per capture and
run what was recorded and weighted, the lost-events checks, the threads with the most time off the
CPU; with a pair (a, b in the state), each side's time off the CPU, how much of it the other side
ended, and its heaviest blocked and woken-by stacks. The flame graphs stay in the app (a link).

State (src/cells/offcpu/state.ts): `c=` capture, `r=` run, `a=` and `b=` the pair's sides
(percent-encoded), `m=` flame or icicle (the app only).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from urllib.parse import unquote

from .. import models
from ..store.rules import flame as rules
from ..views import flame as flame_view
from ..views import flame_svg as fs
from ..views import offcpu as offcpu_view
from . import textfmt as tf
from .context import ExportContext, parse_state

TOP_THREADS = 8
TOP_STACKS = 3
LEAF_FRAMES = 4  # frames shown of a stack, nearest the leaf


@dataclass
class OffcpuData:
    summaries: list[models.OffcpuSummary] = field(default_factory=list)
    pair: models.OffcpuPair | None = None
    missing: list[str] = field(default_factory=list)  # captures without off-CPU stacks
    run: str | None = None  # the cell's r=: the one run shown (None: every run)
    error: str | None = None  # what the export cannot show, naming the parameter (an r= the capture lacks)
    pair_error: str | None = None  # why the pair (a=, b=) is not shown


def _ms(ns: int) -> str:
    """A column's time: always ms, so that the rows compare at a glance."""
    return f"{ns / 1e6:,.1f} ms"


def _time(ns: int) -> str:
    """A time in a sentence, in the unit that reads best (72.4 s, not 72,369.1 ms), as the app shows it."""
    return tf.format_value(ns, "ns")


def top_stacks(tree: models.FlameTree, n: int = TOP_STACKS) -> list[tuple[list[str], int]]:
    """The n stacks (root first) with the most self weight."""
    path: list[str] = []
    out: list[tuple[list[str], int]] = []
    for i, (name, depth) in enumerate(zip(tree.name, tree.depth)):
        del path[max(depth - 1, 0):]
        if depth:
            path.append(tree.names[name])
        if tree.self_weight[i] > 0:
            out.append((list(path), tree.self_weight[i]))
    out.sort(key=lambda x: -x[1])
    return out[:n]


def _stack_text(frames: list[str]) -> str:
    """'comm [state] ... a -> b -> leaf' with the frames nearest the leaf."""
    head = [f for f in frames[:2]]
    tail = frames[2:]
    shown = ([".."] if len(tail) > LEAF_FRAMES else []) + tail[-LEAF_FRAMES:]
    return " ".join(head) + (": " + " -> ".join(shown) if shown else "")


class OffcpuExport:
    title = "Off-CPU"

    @staticmethod
    def read_state(state: str) -> dict[str, str | None]:
        """The fields of the cell's state the export uses, as src/cells/offcpu/state.ts decodes them."""
        st = parse_state(state)
        a, b = st.get("a"), st.get("b")
        pair = a is not None and b is not None and a != "" and b != ""
        return {"cap": st.get("c") or None, "run": st.get("r") or None,
                "a": unquote(a) if pair and a else None, "b": unquote(b) if pair and b else None}

    def data(self, ctx: ExportContext, state: str) -> OffcpuData:
        st = self.read_state(state)
        out = OffcpuData(run=st["run"])
        ids = [st["cap"]] if st["cap"] else [c.id for c in ctx.captures]
        for cid in ids:
            try:
                out.summaries.append(offcpu_view.summary(ctx.store, str(cid), limit=TOP_THREADS))
            except (flame_view.NoStacks, flame_view.UnknownCapture):
                out.missing.append(str(cid))
        if st["run"] is not None and out.summaries:
            # r= is a run of the capture the cell shows (c=, else the notebook's first with off-CPU
            # stacks), as the app's: that capture's run alone, or say why not
            s0 = out.summaries[0]
            try:
                s0 = offcpu_view.summary(ctx.store, s0.capture.id, run=st["run"], limit=TOP_THREADS)
            except offcpu_view.BadQuery as exc:
                out.error = f"r={st['run']}: {exc}"
                out.summaries = [s0]
                return out
            out.summaries = [s0.model_copy(update={"runs": [r for r in s0.runs if r.run_id == st["run"]]})]
        if st["a"] and st["b"] and out.summaries:
            s0 = out.summaries[0]
            run = st["run"] or (s0.runs[0].run_id if s0.runs else None)
            if run is not None:
                try:
                    out.pair = offcpu_view.pair(ctx.store, s0.capture.id, run, str(st["a"]), str(st["b"]))
                except offcpu_view.BadQuery as exc:
                    out.pair_error = f"pair a={st['a']}, b={st['b']} in {run}: {exc}"
        return out

    def text(self, ctx: ExportContext, data: OffcpuData) -> list[str]:
        lines: list[str] = []
        if not data.summaries:
            return tf.wrap("No off-CPU stacks in these captures: record them with iolens-collect run --offcpu.",
                           indent="    ")
        if data.error is not None:
            return tf.wrap(f"! {data.error}", indent="    ", subsequent="      ")
        for s in data.summaries:
            lines.append(f"    {ctx.name(s.capture.id)}"[:72])
            for r in s.runs:
                lost = "  LOST EVENTS" if r.events_lost else ""
                lines += tf.wrap(f"{r.run_id}: {r.intervals:,} waits weighted, {_time(r.blocked_ns)} off the CPU over all "
                                 f"threads; not weighted: {r.open_at_end:,} still off at the end (>= "
                                 f"{_time(r.open_at_end_ns)}), {r.in_at_start:,} off since before, {r.unpaired:,} "
                                 f"unpaired{lost}", indent="      ")
                for c in r.checks:
                    if c.ok is False:
                        lines += tf.wrap(f"! {c.detail}", indent="        ")
            if data.pair is None:
                lines.append("      thread                     off the CPU   waits  states")
                for t in s.tasks:
                    states = " ".join(f"{k} {100 * v / (t.blocked_ns or 1):.0f}%" for k, v in
                                      sorted(t.states.items(), key=lambda kv: -kv[1])[:3])
                    lines.append(f"      {tf.fit(f'{t.comm}[{t.tid}]', 26):<26} {_ms(t.blocked_ns):>12} "
                                 f"{t.intervals:>7,}  {states}"[:72])
        p = data.pair
        if p is not None:
            lines.append("")
            lines.append(f"    pair in {p.run_id}: {p.a.label} <-> {p.b.label}"[:72])
            for side, other in ((p.a, p.b), (p.b, p.a)):
                lines += tf.wrap(f"{side.label}: {_time(side.blocked_ns)} off the CPU in {side.intervals:,} waits; "
                                 f"{side.woken_by_partner:,} waits ({_time(side.woken_by_partner_ns)}) ended by "
                                 f"{other.label}; {side.wakeups_by_partner:,} of its {side.wakeups:,} wakeups "
                                 "raised by it", indent="      ")
                lines.append("        blocked in (by time):")
                for frames, w in top_stacks(side.blocked):
                    lines += tf.wrap(f"{_ms(w)}  {_stack_text(frames)}", indent="          ")
                lines.append("        woken by (by count):")
                for frames, w in top_stacks(side.woken_by):
                    lines += tf.wrap(f"{w:,}  {_stack_text(frames)}", indent="          ")
        if data.pair_error is not None:
            lines += tf.wrap(f"! {data.pair_error}", indent="    ", subsequent="      ")
        if data.missing:
            lines += tf.wrap("No off-CPU stacks in: " + ", ".join(ctx.name(c) for c in data.missing), indent="    ")
        return lines

    def html(self, ctx: ExportContext, data: OffcpuData) -> str:
        """The text, then for a pair each side's two flame graphs as inline SVG (views/flame_svg.py)."""
        out = "<pre>" + html.escape("\n".join(self.text(ctx, data))) + "</pre>"
        p = data.pair
        if p is not None:
            for side in (p.a, p.b):
                out += tree_svg(side.blocked, f"{side.label}: where it blocked",
                                f"run {p.run_id} · width = time off the CPU until it ran again · "
                                f"{_ms(side.blocked_ns)} in {side.intervals:,} waits", "ns")
                out += tree_svg(side.woken_by, f"{side.label}: what woke it",
                                f"run {p.run_id} · width = wakeups (sched_waking), root = the waker · "
                                f"{side.wakeups:,} wakeups", "count")
        return out


def tree_svg(tree: models.FlameTree, title: str, subtitle: str, unit: str, width: int = 1100) -> str:
    """One of a pair's trees as a static flame graph (the flame cell's colours and layout)."""
    if not tree.name or sum(tree.self_weight) == 0:
        return f'<p class="muted">{html.escape(title)}: nothing recorded.</p>'
    lay = rules.Layout.of(tree.name, tree.depth, tree.self_weight)
    total = lay.total[0]
    names = tree.names

    def colour(i: int) -> str:
        return rules.GREY if tree.depth[i] <= 1 else rules.hex_rgb(rules.frame_rgb(names[tree.name[i]]))

    def tooltip(i: int) -> str:
        w = lay.total[i]
        amount = _ms(w) if unit == "ns" else f"{w:,} wakeups"
        return f"{names[tree.name[i]]}\n{amount} ({100 * w / (total or 1):.2f}%)"

    spec = fs.SvgSpec(names=names, lay=lay, title=title, subtitle=subtitle, colour=colour, tooltip=tooltip,
                      width=width, footer="iolens", max_rows=40)
    return f'<figure class="chart" data-chart="offcpu-pair">{fs.render(spec)}</figure>'
