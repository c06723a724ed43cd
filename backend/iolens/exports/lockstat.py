"""The lock contention cell ('lockstat' in src/cells/registry.ts) in text and HTML exports: the top
lock classes (the comparison's first rows, or one capture's top classes), each with its figures per
capture with lock_stat and, when the notebook's captures have perf call stacks, one short "in perf
stacks" line per call site found there (views/lock_stacks.py). Tables and call-site panels stay in
the app (a link).

Its state (src/cells/lockstat/state.ts): `v=top` one capture's top classes (absent: the
comparison), `by=` their order, `cap=` that capture (absent: the baseline).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import models
from ..views import lock_stacks as stacks_view
from ..views import lock_stat as lock_view
from . import svg_misc
from . import textfmt as tf
from .context import ExportContext, parse_state

TOP = 5  # classes in an export
BY = {"wait_total": "total wait", "contentions": "contentions", "wait_avg": "average wait"}


@dataclass
class ClassRow:
    lock_class: str
    occurrence: int
    rw: list[str]                                   # "W", "R": the rows merged into this class
    cells: dict[str, models.LockClassStat]          # capture id -> stat (write row first)
    change: dict[str, tuple[float | None, float | None, str]] = field(default_factory=dict)  # delta, ratio, status
    stacks: models.LockStacks | None = None


@dataclass
class LockData:
    view: str                                       # cmp | top
    caps: list[str]                                 # captures with lock_stat, baseline first
    missing: list[str]                              # captures without lock_stat
    per_op: bool
    sort: str
    total: int
    rows: list[ClassRow]
    any_stacks: bool


def _name(lock_class: str, occurrence: int) -> str:
    return lock_class if not occurrence else f"{lock_class} ({occurrence + 1}. of this name)"


class LockStatExport:
    title = "Lock contention"

    @staticmethod
    def read_state(state: str) -> dict[str, str | None]:
        st = parse_state(state)
        return {"view": "top" if st.get("v") == "top" else "cmp",
                "by": st["by"] if st.get("by") in BY else "wait_total", "cap": st.get("cap") or None}

    def data(self, ctx: ExportContext, state: str) -> LockData:
        st = self.read_state(state)
        ids = [c.id for c in ctx.captures]
        cmp = lock_view.compare(ctx.store, ids, ctx.doc.baseline, limit=200)
        caps = [c for c in ids if cmp.availability[c].available]
        missing = [c for c in ids if c not in caps]
        rows: list[ClassRow] = []
        if st["view"] == "top" and caps:
            cap = st["cap"] if st["cap"] in caps else caps[0]
            by = st["by"]
            top = lock_view.top_classes(ctx.store, cap, by, limit=50)  # type: ignore[arg-type]
            for r in top.rows:
                if r.stat.contentions == 0 and r.stat.acquisitions == 0:
                    continue
                self._add(rows, r.lock_class, r.occurrence, r.rw, {cap: r.stat}, {})
            data = LockData("top", [cap], missing, bool(top.availability.ops), f"by {BY[by]}, most first",
                            top.total, rows[:TOP], False)
        else:
            for r in cmp.rows:
                self._add(rows, r.lock_class, r.occurrence, r.rw,
                          {c: cell.stat for c, cell in r.cells.items() if cell.stat is not None},
                          {c: (cell.delta_wait, cell.ratio_wait, cell.status) for c, cell in r.cells.items()})
            data = LockData("cmp", caps, missing, cmp.per_op, cmp.sort, cmp.total, rows[:TOP], False)
        for row in data.rows:
            owner = next((c for c in ids if c in row.cells), None)
            if owner is None:
                continue
            try:
                row.stacks = stacks_view.lock_stacks(ctx.store, owner, row.lock_class, row.occurrence,
                                                     [c for c in ids if c != owner])
            except stacks_view.UnknownLockClass:
                row.stacks = None
            data.any_stacks = data.any_stacks or bool(row.stacks and any(c.stacks for c in row.stacks.captures))
        return data

    @staticmethod
    def _add(rows: list[ClassRow], cls: str, occ: int, rw: str, cells: dict, change: dict) -> None:
        """Merge the -W/-R rows of a class into one (the first one seen keeps its place)."""
        for r in rows:
            if (r.lock_class, r.occurrence) == (cls, occ):
                r.rw.append(rw)
                return
        rows.append(ClassRow(cls, occ, [rw], cells, change))

    # --- perf stacks lines --------------------------------------------------------------------

    @staticmethod
    def _stack_items(s: models.LockStacks) -> tuple[list[tuple[str, str, list[tuple[str, str, str, str, str]]]], list[str]]:
        """([(call site, what lock_stat says of it, [(capture, share, samples, weight, slow-path share)])]
        for the call sites found in stacks, names of the ones found nowhere)."""
        units = {c.id: c.weight_unit for c in s.captures}
        found, absent = [], []
        for sym in s.symbols:
            if not sym.found:
                absent.append(sym.name)
                continue
            first = sym.sources[0].capture  # its counts only: counts of two kernels are not added
            counts = {k: sum(x.count or 0 for x in sym.sources if x.capture == first and x.kind == k)
                      for k in ("contention", "contending") if any(x.capture == first and x.kind == k
                                                                 for x in sym.sources)}
            origin = ("class name" if any(x.kind == "class" for x in sym.sources) else
                      ", ".join(f"{'waited' if k == 'contention' else 'held'} {v:,}" for k, v in counts.items()))
            per = []
            for p in sym.stacks:
                if not p.samples:
                    continue
                w = tf.format_value(p.weight, "ns") if units[p.capture] == "ns" else f"{p.weight:,} ev"
                slow = "-" if p.slow_pct is None else f"{p.slow_pct:.0f} %"
                per.append((p.capture, _pct(p.share_pct), f"{p.samples:,}", w, slow))
            found.append((sym.name, origin, per))
        return found, absent

    # --- text ---------------------------------------------------------------------------------

    def text(self, ctx: ExportContext, data: LockData) -> list[str]:
        if not data.caps:
            return tf.wrap("No lock_stat in these captures. Record it with iolens-collect run --lock-stat on a "
                           "kernel with CONFIG_LOCK_STAT (or attach a dump with --lock-stat-snapshot FILE); "
                           "elsewhere `perf lock contention -a -b -- COMMAND` is the alternative.", indent="    ")
        unit = "wait/IO" if data.per_op else "wait"
        if data.view == "top":
            head = (f"Top lock classes of {ctx.name(data.caps[0])} (lock_stat) {data.sort}; {data.total} classes "
                    f"in all.")
        else:
            head = (f"Lock classes contended in at least one capture (lock_stat), {data.sort}; baseline "
                    f"{ctx.name(ctx.doc.baseline)} (*). {unit} = "
                    + ("total wait / fio I/Os of the same runs." if data.per_op else "total wait (some capture has "
                       "no fio I/O count).")
                    + f" The first {len(data.rows)} of {data.total}.")
        # one unit per wait column over the whole table, in its head (testdata/vectors/time-column.json)
        avg_unit, avg_fmt, wait_unit, wait_fmt = _wait_columns(data)
        lines = tf.wrap(head, indent="    ")
        if data.any_stacks:
            lines += tf.wrap("In perf stacks, per capture with stacks: the share of its samples whose call stack "
                             "has the call site's frame, those samples, their weight (cpu-clock: CPU time), and "
                             "the part of it under a lock slow path (slow).", indent="    ")
        for row in data.rows:
            # the numbers are of the class's first row (-W before -R); the other is in the app
            rw = "" if row.rw == ["W"] else f" ({'write' if row.rw[0] == 'W' else 'read'})"
            lines += ["", "  " + tf.fit(_name(row.lock_class, row.occurrence) + rw, 68)]
            lines.append(f"    {'capture':<18} {'contentions':>12} {f'avg wait, {avg_unit}':>13} {f'{unit}, {wait_unit}':>13}  vs base")
            for cid in data.caps:
                s = row.cells.get(cid)
                star = " *" if cid == ctx.doc.baseline and data.view == "cmp" else ""
                name = tf.fit(ctx.name(cid), 18 - len(star)) + star
                if s is None:
                    lines.append(f"    {name:<18} {'-':>12}")
                    continue
                wait = s.wait_per_op_ns if data.per_op else s.wait_total_ns
                ch = ""
                if cid in row.change and row.change[cid][2] != "baseline":
                    _, ratio, status = row.change[cid]
                    ch = {"appeared": "new", "vanished": "gone"}.get(status) or tf.format_ratio(ratio)
                lines.append(f"    {name:<18} {s.contentions:>12,} {avg_fmt(s.wait_avg_ns):>13} {wait_fmt(wait):>13}  {ch}".rstrip())
            if row.stacks is None:
                continue
            if not any(c.stacks for c in row.stacks.captures):
                continue
            found, absent = self._stack_items(row.stacks)
            for name, origin, per in found:
                lines += tf.wrap(f"{name} ({origin})", indent="    in perf stacks: ", subsequent="      ")
                for cid, share, n, w, slow in per:
                    lines.append(f"      {tf.fit(ctx.name(cid), 16):<16} {share:>7} {n:>7} {'sample ' if n == '1' else 'samples'} "
                                 f"{w:>8}  slow {slow}")
            if absent:
                lines += tf.wrap(f"not in perf stacks: {', '.join(absent)}", indent="    ", subsequent="      ")
        if data.rows and not data.any_stacks:
            lines += [""] + tf.wrap("No capture here has perf call stacks to link these call sites to: add one "
                                    "recorded with iolens-collect run --stacks.", indent="    ")
        if data.missing:
            lines += [""] + tf.wrap(f"Without lock_stat: {', '.join(ctx.name(c) for c in data.missing)}.",
                                    indent="    ")
        return lines

    # --- HTML ---------------------------------------------------------------------------------

    def html(self, ctx: ExportContext, data: LockData) -> str:
        e = html.escape
        if not data.caps:
            return ('<p class="muted">No lock_stat in these captures. Record it with <code>iolens-collect run '
                    '--lock-stat</code> on a kernel with <code>CONFIG_LOCK_STAT</code>; elsewhere '
                    '<code>perf lock contention -a -b -- COMMAND</code> is the alternative.</p>')
        unit = "wait/I/O" if data.per_op else "total wait"
        label = {c.id: c.label for c in ctx.captures}
        head = "".join(
            f'<th colspan="{3 if data.view == "top" or cid == ctx.doc.baseline else 4}" class="cap">{e(label.get(cid, cid))}'
            f'{" <span class=base>baseline</span>" if cid == ctx.doc.baseline and data.view == "cmp" else ""}</th>'
            for cid in data.caps)
        avg_unit, avg_fmt, wait_unit, wait_fmt = _wait_columns(data)
        sub = "".join(f'<th class="num">contentions</th><th class="num">avg wait ({e(_pretty(" " + avg_unit)[1:])})</th>'
                      f'<th class="num">{unit} ({e(_pretty(" " + wait_unit)[1:])})</th>'
                      + ("" if data.view == "top" or cid == ctx.doc.baseline else '<th class="num">vs base</th>')
                      for cid in data.caps)
        body = []
        ncols = 1 + sum(3 if data.view == "top" or c == ctx.doc.baseline else 4 for c in data.caps)
        for row in data.rows:
            tds = []
            for cid in data.caps:
                s = row.cells.get(cid)
                extra = not (data.view == "top" or cid == ctx.doc.baseline)
                if s is None:
                    tds.append('<td class="num muted">&ndash;</td><td></td><td></td>' + ("<td></td>" if extra else ""))
                    continue
                wait = s.wait_per_op_ns if data.per_op else s.wait_total_ns
                tds.append(f'<td class="num">{s.contentions:,}</td><td class="num">{e(avg_fmt(s.wait_avg_ns))}</td>'
                           f'<td class="num">{e(wait_fmt(wait))}</td>')
                if extra:
                    delta, ratio, status = row.change.get(cid, (None, None, ""))
                    tone = "worse" if (delta or 0) > 0 else "better" if (delta or 0) < 0 else "same"
                    text = {"appeared": "new", "vanished": "gone"}.get(status) or tf.for_html(tf.format_ratio(ratio))
                    tds.append(f'<td class="num ratio tone-{tone}">{e(text)}</td>')
            rw = "" if row.rw == ["W"] else f' <span class="muted small">{"write" if row.rw[0] == "W" else "read"}</span>'
            body.append(f'<tr><th style="white-space:nowrap"><code>{e(_name(row.lock_class, row.occurrence))}</code>{rw}</th>'
                        f"{''.join(tds)}</tr>")
            if row.stacks is not None and any(c.stacks for c in row.stacks.captures):
                found, absent = self._stack_items(row.stacks)
                items = "".join(
                    f"<li>in perf stacks: <code>{e(name)}</code> ({e(origin)}): "
                    + "; ".join(f"{e(label.get(cid, cid))} <b>{e(share)}</b> of samples ({e(n)}, {e(_pretty(w))}; "
                                f"slow path {e(slow)})" for cid, share, n, w, slow in per)
                    + "</li>" for name, origin, per in found)
                if absent:
                    items += f'<li class="muted">not in perf stacks: {e(", ".join(absent))}</li>'
                body.append(f'<tr><td colspan="{ncols}"><ul class="small" style="margin:0">{items}</ul></td></tr>')
        out = [svg_misc.lockstat(ctx, data) + f'<div class="scroll"><table class="lockstat numbers"><thead><tr><th rowspan="2">Lock class</th>{head}</tr>'
               f'<tr>{sub}</tr></thead><tbody>{"".join(body)}</tbody></table></div>']
        legend = (f"The first {len(data.rows)} of {data.total} classes, {e(data.sort)}. "
                  + ("Per I/O: divided by the fio I/Os of the same runs. " if data.per_op else ""))
        if data.any_stacks:
            legend += ("In perf stacks: samples whose call stack has the call site's frame, their share of the "
                       "capture's samples, and the part under a lock slow path. ")
        elif data.rows:
            legend += ("No capture here has perf call stacks to link the call sites to "
                       "(<code>iolens-collect run --stacks</code>). ")
        if data.missing:
            legend += f"Without lock_stat: {e(', '.join(label.get(c, c) for c in data.missing))}."
        out.append(f'<p class="legend muted">{legend}</p>')
        return "\n".join(out)


def _pct(p: float) -> str:
    return "0 %" if p == 0 else f"{p:.1f} %" if p >= 1 else f"{p:.2f} %" if p >= 0.1 else f"{p:.3f} %"


def _wait_columns(data: LockData) -> tuple[str, Callable[[float | None], str], str, Callable[[float | None], str]]:
    """The units and formatters of the average wait and the wait column (total, or per I/O) over
    every row and capture: one unit per column, chosen from its values (textfmt.time_column)."""
    stats = [s for row in data.rows for s in row.cells.values() if s is not None]
    avg_unit, avg_fmt = tf.time_column([s.wait_avg_ns for s in stats])
    wait_unit, wait_fmt = tf.time_column([s.wait_per_op_ns if data.per_op else s.wait_total_ns for s in stats])
    return avg_unit, avg_fmt, wait_unit, wait_fmt


def _pretty(s: str) -> str:
    return s.replace(" us", " \u00b5s")
