"""A notebook as plain text for a mailing list: ASCII only, at most 72 columns, no tabs, the
permalink at the top; Markdown as text, tables as text, charts as their key numbers and a link.
It survives being quoted in a reply ('> ' prefixes) because nothing depends on tabs or width
beyond 72 columns."""

from __future__ import annotations

from .. import __version__, models
from . import markdown, selection, sql
from . import textfmt as tf
from .context import ExportContext
from .registry import VIEW_EXPORTS


def _markdown(text: str) -> list[str]:
    out: list[str] = []
    for b in markdown.parse(text):
        if out:
            out.append("")
        out += _block(b, "")
    return out


def _block(b: markdown.Block, indent: str) -> list[str]:
    width = tf.WIDTH
    if b.kind == "heading":
        t = tf.to_ascii(markdown.spans_text(markdown.inline(b.text)))
        lines = tf.wrap(t, width, indent)
        if b.level <= 2:
            lines.append(indent + ("=" if b.level == 1 else "-") * min(len(t), width - len(indent)))
        return lines
    if b.kind == "para":
        return tf.wrap(markdown.spans_text(markdown.inline(b.text)), width, indent)
    if b.kind == "code":
        return [indent + "    " + tf.to_ascii(line) for line in b.text.split("\n")]
    if b.kind == "rule":
        return [indent + "-" * 8]
    if b.kind == "quote":
        out: list[str] = []
        for c in b.children:
            if out:
                out.append(indent + ">")
            out += _block(c, indent + "> ")
        return out
    if b.kind == "list":
        out = []
        for n, item in enumerate(b.items):
            mark = f"{b.start + n}. " if b.ordered else "- "
            out += tf.wrap(markdown.spans_text(markdown.inline(item)), width, indent + "  " + mark,
                           indent + "  " + " " * len(mark))
        return out
    return []


def _rule(title: str) -> str:
    head = f"-- {title} "
    return tf.fit(head, tf.WIDTH) + "-" * max(0, tf.WIDTH - len(head))


LONG_FACT = 120  # characters: the compare page's limit too (frontend/src/pages/ComparePage.tsx)


def _header(ctx: ExportContext) -> list[str]:
    v = ctx.version
    lines = tf.wrap(f"iolens notebook: {v.document.title}")
    lines.append(ctx.permalink)
    saved = v.created_at.replace("T", " ").replace("Z", " UTC")
    lines += tf.wrap(f"Version {v.id}, saved {saved}" + (f", edited from {v.parent}" if v.parent else "")
                     + f" (iolens {__version__})")
    renamed = any(ctx.name(c.id) != tf.to_ascii(c.label) for c in ctx.captures)
    lines += ["", "Captures (* = baseline)" + (", with the short names used below:" if renamed else ":")]
    width = max([len(ctx.name(c.id)) for c in ctx.captures] + [1])
    for c in ctx.captures:
        star = "*" if c.id == v.document.baseline else " "
        if renamed:
            lines.append(f"  {star} {ctx.name(c.id):<{width}}  {tf.fit(c.label, 66 - width)}")
            lines.append(f"    {'':<{width}}  id {c.id}")
        else:
            lines.append(f"  {star} {tf.fit(c.label, 48)}  {c.id}")
        facts = [f"kernel {c.kernel}" if c.kernel else "", *(f"{k}={val}" for k, val in c.tags.items()),
                 f"{c.runs} run{'s' if c.runs != 1 else ''}, up to {c.repeats} repeat{'s' if c.repeats != 1 else ''}"]
        pad = "    " + " " * (width + 2) if renamed else "      "
        lines += tf.wrap(", ".join(f for f in facts if f), indent=pad)
    missing = [cid for cid in v.document.captures if cid not in {c.id for c in ctx.captures}]
    if missing:
        lines += tf.wrap(f"Not in this server's store: {', '.join(missing)}", indent="  ")
    lines += _facts(ctx, width)
    # As the compare page: a fact this long is a command line (the kernel's, qemu's, the lab's); a
    # reply on a mailing list names them, the link has them whole.
    long = [d for d in ctx.host_diff if any(len(v or "") > LONG_FACT for v in d.values.values())]
    short = [d for d in ctx.host_diff if d not in long]
    if short:
        lines += ["", "Host facts that differ:"]
        for d in short[:16]:
            lines.append(f"  {tf.fit(d.key, 68)}")
            for c in ctx.captures:
                star = " *" if c.id == v.document.baseline else ""
                val = d.values.get(c.id)
                name = tf.fit(ctx.name(c.id), 18 - len(star)) + star
                head = f"    {name:<{min(18, width + 2)}}  "
                lines += tf.wrap(val if val is not None else "(none)", indent=head, subsequent=" " * len(head))
        if len(short) > 16:
            lines.append(f"  ({len(short) - 16} more at the link)")
    if long:
        lines += [""] + tf.wrap(f"Command lines that differ (whole at the link): {', '.join(d.key for d in long)}",
                                indent="", subsequent="  ")
    t = selection.shared_time(ctx)
    if t is not None:
        lines += [""] + tf.wrap(selection.notice(ctx, t, f"set in cell [{t.cell + 1}], followed by the flame graph, "
                                                         "block layer and scheduler cells as in the app; each says how"))
    return lines


def _facts(ctx: ExportContext, width: int) -> list[str]:
    """Incomparable set-ups, then the kernel and workload facts that differ (views/comparison.py)."""
    f = ctx.facts
    if f is None:
        return []
    lines: list[str] = []
    for w in f.warnings:
        lines += [""] + tf.wrap(f"WARNING ({w.what}): {w.message}", indent="", subsequent="  ")
    releases = set(f.kernels.values())
    rows: list[tuple[str, dict[str, str | None]]] = [] if len(releases) == 1 else [("kernel release", dict(f.kernels))]
    rows += [(o.option, o.values) for o in f.kernel_options]
    rows += [(d.key, d.values) for d in f.workload_diff]
    lines.append("")
    if len(releases) == 1:
        lines.append(f"Kernel release: {next(iter(releases)) or '(unknown)'} in every capture")
    if rows:
        lines.append("Kernel and workload facts that differ:")
    for key, values in rows:
        lines.append(f"  {tf.fit(key, 68)}")
        for c in ctx.captures:
            star = " *" if c.id == ctx.doc.baseline else ""
            name = tf.fit(ctx.name(c.id), 18 - len(star)) + star
            head = f"    {name:<{min(18, width + 2)}}  "
            val = values.get(c.id)
            lines += tf.wrap(val if val is not None else "(none)", indent=head, subsequent=" " * len(head))
    if f.config_diff_count is not None:
        lines.append(f"  ({f.config_diff_count} options of the whole .config differ; the list is at the link)")
    return lines


def render(ctx: ExportContext) -> str:
    lines = _header(ctx)
    for i, cell in enumerate(ctx.doc.cells):
        lines.append("")
        if isinstance(cell, models.MarkdownCell):
            lines.append(_rule(f"[{i + 1}]"))
            lines.append("")
            lines += _markdown(cell.text)
        elif isinstance(cell, models.SqlCell):
            lines.append(_rule(f"[{i + 1}] SQL"))
            lines.append("")
            lines += sql.text(ctx, i, cell, sql.run(ctx, cell))
        else:
            ex = VIEW_EXPORTS.get(cell.kind)
            lines.append(_rule(f"[{i + 1}] {ex.title if ex else cell.kind}"))
            lines.append("")
            if ex is None:
                lines += tf.wrap(f"This view ({cell.kind}) is not part of the text report; see it at", indent="    ")
                lines.append("    " + ctx.cell_link(i))
            else:
                try:
                    lines += ex.text(ctx, ex.data(ctx, cell.state))
                except Exception as exc:  # one view that cannot be drawn does not sink the report
                    lines += tf.wrap(f"This view could not be exported ({exc}); see it at", indent="    ")
                    lines.append("    " + ctx.cell_link(i))
    lines += ["", "-" * tf.WIDTH]
    lines += tf.wrap(f"The notebook with its charts and every number: {ctx.permalink}")
    out = tf.hard_lines(lines)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"
