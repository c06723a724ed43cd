"""The mailing-list report of a sweep comparison drawn as text, Markdown or JSON (its data:
views/report.py): `iolens report`, GET and POST /api/report, the Report button of the sweep
matrix cell.

Text (default) and Markdown are plain ASCII, at most 72 columns, no tabs, so they survive being
quoted in a reply ('> ' prefixes); tables wider than that are split into several tables that
repeat the row headers. JSON is the same content as data.

Layout of the text:

    IOPS relative to 6.18-ext4 (the baseline)
    <permalink to the matrix view>

    Captures (* = baseline):
      * 6.18-ext4   kernel 6.18.44, fs=ext4, up to 3 repeats
        6.18-xfs    kernel 6.18.44, fs=xfs, up to 3 repeats
    Workload (6.18-ext4): fio --name=dio ... (or the job file, or the command)
    Swept: rw = randread, randwrite; bs = 4k, 16k; iodepth = 1, 8, 32
    Host facts that differ: ...

    IOPS (IO/s, higher is better)
    rw        bs   iodepth   6.18-ext4*     6.18-xfs
    randread  4k         1   20.5k +-1.2%   +12.3% *
    ...
    <legend>

Cells: the baseline's mean of the repeats with the 95% confidence interval of that mean, as
+-% of it; every other capture's change of the mean against the baseline at the same point,
'+12.3%' (or the ratio '1.123x' with ratio=True), then '*' when Welch's t-test gives p < 0.05
with at least 3 repeats on both sides, '?' when either side has fewer than 3 repeats (not
tested). '-' when a capture has no value at that point.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from .. import __version__, models
from ..views.report import ReportData
from . import textfmt as tf

Format = Literal["text", "markdown", "json"]
WIDTH = tf.WIDTH
BETTER = {"higher": "higher is better", "lower": "lower is better", "neutral": "no better direction"}
Rows = Literal["points", "captures"]


# --- table layout ------------------------------------------------------------------------------


@dataclass
class Grid:
    """A table: row headers (several sub-columns), value columns with (multi-line) headers."""

    head_names: list[str]  # names of the row-header sub-columns (printed on the last header line)
    rows: list[list[str]]  # per row: its row-header sub-column texts
    col_heads: list[list[str]]  # per value column: its header lines (top to bottom)
    cells: list[list[str]]  # [row][column]
    head_left: list[str] | None = None  # the row header's text on each header line (default: names on the last)


def _fit_chunks(widths: list[int], lead: int, sep: int = 2, width: int = WIDTH) -> list[list[int]]:
    """Value columns in chunks that fit `width` after a `lead`-wide row header."""
    chunks: list[list[int]] = [[]]
    used = lead
    for i, w in enumerate(widths):
        if chunks[-1] and used + sep + w > width:
            chunks.append([])
            used = lead
        chunks[-1].append(i)
        used += sep + w
    return chunks


def render_grid(g: Grid, markdown: bool = False, width: int = WIDTH) -> list[str]:
    nlines = max([len(h) for h in g.col_heads] + [1])
    heads = [[""] * (nlines - len(h)) + h for h in g.col_heads]
    sub_w = [max([len(g.head_names[k])] + [len(r[k]) for r in g.rows]) for k in range(len(g.head_names))]
    if g.head_left is not None and len(sub_w) == 1:
        sub_w[0] = max([sub_w[0]] + [len(x) for x in g.head_left])
    lead = sum(sub_w) + 2 * max(0, len(sub_w) - 1)
    col_w = [max([len(x) for x in heads[i]] + [len(r[i]) for r in g.cells] + [1]) for i in range(len(heads))]
    out: list[str] = []
    for n, chunk in enumerate(_fit_chunks(col_w, lead + (4 if markdown else 0), 3 if markdown else 2, width)):
        if n:
            out.append("")
        if markdown:
            for line in range(nlines):
                if line < nlines - 1 and not any(heads[i][line] for i in chunk):
                    continue
                if g.head_left is not None:
                    lh = [([""] * nlines + g.head_left)[-nlines:][line]] + [""] * (len(sub_w) - 1)
                else:
                    lh = [g.head_names[k] if line == nlines - 1 else "" for k in range(len(sub_w))]
                out.append("| " + " | ".join([f"{x:<{sub_w[k]}}" for k, x in enumerate(lh)]
                                              + [f"{heads[i][line]:>{col_w[i]}}" for i in chunk]) + " |")
            out.append("|" + "|".join(["-" * (w + 2) for w in sub_w] + ["-" * (col_w[i] + 1) + ":" for i in chunk]) + "|")
            for r, row in enumerate(g.rows):
                out.append("| " + " | ".join([f"{x:<{sub_w[k]}}" for k, x in enumerate(row)]
                                              + [f"{g.cells[r][i]:>{col_w[i]}}" for i in chunk]) + " |")
            continue
        for line in range(nlines):
            if g.head_left is not None:
                left = ([""] * nlines + g.head_left)[-nlines:]
                lh = f"{left[line]:<{lead}}"
            else:
                lh = "  ".join(f"{(g.head_names[k] if line == nlines - 1 else ''):<{sub_w[k]}}" for k in range(len(sub_w)))
            out.append((lh + "".join(f"  {heads[i][line]:>{col_w[i]}}" for i in chunk)).rstrip())
        out.append("-" * min(width, lead + sum(2 + col_w[i] for i in chunk)))
        for r, row in enumerate(g.rows):
            lh = "  ".join(f"{x:<{sub_w[k]}}" for k, x in enumerate(row))
            out.append((lh + "".join(f"  {g.cells[r][i]:>{col_w[i]}}" for i in chunk)).rstrip())
    return out


def _num(v: float | None, unit: str) -> str:
    return tf.format_value(v, unit).replace(" IO/s", "") if unit == "IO/s" else tf.format_value(v, unit)


def base_cell(c: models.SweepCell | None, unit: str) -> str:
    if c is None or c.mean is None:
        return "-"
    text = _num(c.mean, unit)
    if c.n < 2 or c.ci_high is None or not c.mean:
        return f"{text} (n={c.n})"
    half = abs(c.ci_high - c.mean) / abs(c.mean) * 100
    if c.n < 3:
        return f"{text} (n={c.n})"
    return f"{text} +-{half:.1f}%" if half < 99.95 else f"{text} +-{half:.0f}%"


def other_cell(c: models.SweepCell | None, ratio: bool = False) -> str:
    if c is None or c.mean is None:
        return "-"
    if c.ratio is None or not math.isfinite(c.ratio):
        return "n/a"
    if ratio:
        text = f"{c.ratio:.3f}x"
    else:
        pct = (c.ratio - 1) * 100
        text = f"{pct:+.1f}%" if abs(pct) < 999.95 else f"x{c.ratio:.3g}"
        if text in ("+0.0%", "-0.0%"):
            text = "+-0.0%"
    return text + (" *" if c.significant else " ?" if c.too_few else "  ")


def grid(m: models.SweepMatrix, short: dict[str, str], rows: Rows = "points", ratio: bool = False) -> Grid:
    base = m.baseline
    caps = m.rows
    names = [p.name for p in m.params] or ["point"]

    def cell(cap: models.SweepRow, key: str) -> str:
        c = cap.cells.get(key)
        return base_cell(c, m.metric.unit) if cap.capture == base else other_cell(c, ratio)

    def label(cap: models.SweepRow) -> str:
        return short[cap.capture] + ("*" if cap.capture == base else "")

    if rows == "points":
        return Grid(head_names=names,
                    rows=[[p.params.get(n, "") for n in names] if m.params else [p.key] for p in m.points],
                    col_heads=[[label(c)] for c in caps],
                    cells=[[cell(c, p.key) for c in caps] for p in m.points])
    return Grid(head_names=["capture"], head_left=names if m.params else None,
                rows=[[label(c)] for c in caps],
                col_heads=[[p.params.get(n, "") for n in names] if m.params else [p.key] for p in m.points],
                cells=[[cell(c, p.key) for p in m.points] for c in caps])


LEGEND = ("Baseline (*): mean of the repeats, +- the 95% confidence interval of that mean. Others: change of "
          "the mean against the baseline at the same point. * Welch's t-test p < 0.05 (3 or more repeats on "
          "both sides); ? fewer than 3 repeats, not tested; - no data.")
LEGEND_RATIO = LEGEND.replace("change of the mean against", "ratio of the mean to")


def _workload_lines(d: ReportData, short: dict[str, str], markdown: bool) -> list[str]:
    out: list[str] = []
    w = d.workloads.get(d.baseline, {})
    who = short[d.baseline]
    if w.get("kind") == "cmd" and w.get("command"):
        out += tf.wrap(f"Command ({who}): " + " ".join(_shell(a) for a in w["command"]), subsequent="    ")
    elif w.get("fio_args"):
        args = [a for a in w["fio_args"] if not _log_option(a)]
        out += tf.wrap(f"fio ({who}): fio " + " ".join(_shell(a) for a in args), subsequent="    ")
    elif d.texts.get(d.baseline):
        lines = [ln for ln in d.texts[d.baseline].splitlines()
                 if ln.strip() and not ln.lstrip().startswith(";") and not _log_option(ln)]
        out.append(f"fio job file ({who}):")
        out += [("    " + tf.fit(ln, WIDTH - 4)) for ln in lines[:24]]
        if len(lines) > 24:
            out.append(f"    ({len(lines) - 24} more lines at the link)")
    else:
        cmd = d.matrices[0].commands.get(d.baseline)
        if cmd:
            out += tf.wrap(f"Command ({who}, first run): " + " ".join(_shell(a) for a in cmd), subsequent="    ")
    logs = (w.get("fio_logs") or {}).get("avg_msec")
    if logs:
        out.append(f"    (and fio's bw, IOPS and latency logs, averaged over {logs} ms)")
    params = d.matrices[0].params
    if params:
        out += tf.wrap("Swept: " + "; ".join(f"{p.name} = {', '.join(p.values)}" for p in params), subsequent="    ")
    if markdown and out:
        return ["```"] + out + ["```"]
    return out


def _log_option(a: str) -> bool:
    """Options iolens-collect --fio-logs added (fiologs.py): not the user's job."""
    return "${IOLENS_FIO_LOGS}" in a or a.lstrip("-").startswith("log_avg_msec=")


def _shell(a: str) -> str:
    import shlex

    return shlex.quote(a)


def _header(d: ReportData, short: dict[str, str], markdown: bool) -> list[str]:
    m = d.matrices[0]
    lines = tf.wrap(("### " if markdown else "") + d.title)
    lines.append(d.permalink if not markdown else f"<{d.permalink}>")
    lines.append("")
    renamed = any(short[r.capture] != tf.to_ascii(r.label) for r in m.rows)
    lines.append("Captures (* = baseline)" + (", short names used below:" if renamed else ":"))
    width = max(len(short[r.capture]) for r in m.rows)
    for r in m.rows:
        star = "*" if r.capture == d.baseline else " "
        facts = [f"kernel {r.kernel}" if r.kernel else "", *(f"{k}={v}" for k, v in r.tags.items()),
                 f"up to {r.repeats} repeat{'s' if r.repeats != 1 else ''}"]
        head = (f"- {short[r.capture] + (' (baseline)' if star == '*' else ''):<{width + 11}}  " if markdown
                else f"  {star} {short[r.capture]:<{width}}  ")
        text = (f"{tf.to_ascii(r.label)}; " if renamed else "") + ", ".join(f for f in facts if f)
        lines += tf.wrap(text, indent=head, subsequent=" " * len(head))
    lines.append("")
    lines += _workload_lines(d, short, markdown)
    if m.host_diff:
        lines += ["", "Host facts that differ:"]
        for hd in m.host_diff[:12]:
            vals = ", ".join(f"{short[r.capture]}{'*' if r.capture == d.baseline else ''}: "
                             f"{hd.values.get(r.capture) if hd.values.get(r.capture) is not None else '(none)'}"
                             for r in m.rows)
            lines += tf.wrap(f"{hd.key}: {vals}", indent=("- " if markdown else "  "), subsequent="    ")
        if len(m.host_diff) > 12:
            lines.append(f"  ({len(m.host_diff) - 12} more at the link)")
    return lines


def render(d: ReportData, fmt: Format = "text", rows: Rows = "points", ratio: bool = False) -> str:
    if fmt == "json":
        return json.dumps(to_json(d, ratio), indent=1, ensure_ascii=True) + "\n"
    markdown = fmt == "markdown"
    m0 = d.matrices[0]
    short = dict(zip([r.capture for r in m0.rows], tf.short_names([r.label for r in m0.rows], width=14)))
    lines = _header(d, short, markdown)
    for m in d.matrices:
        info = m.metric
        lines += [""]
        lines += tf.wrap(f"{'#### ' if markdown else ''}{info.label} ({info.unit or 'no unit'}, {BETTER[info.better]})")
        lines.append("")
        if not m.points:
            lines.append("  (no values)")
            continue
        lines += render_grid(grid(m, short, rows, ratio), markdown=markdown)
    lines.append("")
    lines += tf.wrap(LEGEND_RATIO if ratio else LEGEND)
    lines += ["", "-- ", f"iolens {__version__}: {d.permalink if not markdown else '<' + d.permalink + '>'}"]
    out = tf.hard_lines(lines)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def to_json(d: ReportData, ratio: bool = False) -> dict[str, Any]:
    return {
        "title": d.title,
        "permalink": d.permalink,
        "baseline": d.baseline,
        "captures": d.captures,
        "workloads": d.workloads,
        "metrics": [m.model_dump() for m in d.matrices],
        "legend": LEGEND_RATIO if ratio else LEGEND,
        "iolens": __version__,
    }
