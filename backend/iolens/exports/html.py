"""A notebook as ONE static HTML file for list archives and bug trackers: inline CSS, tables and
charts rendered here (SVG), no script and no request to any server (a Content-Security-Policy
says so), so it works from disk. The document and every SQL result are embedded as JSON
(<script type="application/json" id="iolens-notebook">) for anyone who wants the numbers."""

from __future__ import annotations

import html as _html

from .. import __version__, models
from . import markdown, selection, sql
from .context import ExportContext, embedded_json
from .registry import VIEW_EXPORTS

e = _html.escape

CSS = """
:root{--text:#1f2328;--muted:#656d76;--border:#d8dee4;--subtle:#f6f8fa;--accent:#2456c9;--better:#1a7f37;
--worse:#cf222e;--same:#8c959f;font:13px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--text)}
body{margin:0 auto;padding:20px 24px 48px;max-width:1100px}
h1{font-size:18px;margin:0 0 2px}h2{font-size:15px}h3{font-size:14px}h4{font-size:13px;margin:10px 0 4px;font-weight:600}
a{color:var(--accent)}code,pre{font:12px ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace}
pre{background:var(--subtle);border:1px solid var(--border);border-radius:4px;padding:8px 10px;overflow:auto}
.muted{color:var(--muted)}.small{font-size:11.5px}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.warning{border:1px solid #d4a72c;background:#fff8c5;border-radius:4px;padding:6px 10px;margin:8px 0}
.meta{margin:0 0 12px}.scroll{overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;border-bottom:1px solid var(--border);vertical-align:top;text-align:left}
thead th{background:var(--subtle);font-weight:600;border-bottom:1px solid #c4ccd4}
th.cap{border-left:1px solid var(--border)}
.base{font-size:10.5px;font-weight:500;color:var(--accent);border:1px solid #b6c8f0;border-radius:3px;padding:0 3px;margin-left:4px}
.cell{border:1px solid var(--border);border-radius:6px;margin:14px 0;background:#fff}
.cell>header{display:flex;gap:8px;align-items:baseline;padding:5px 10px;border-bottom:1px solid var(--border);
background:var(--subtle);border-radius:6px 6px 0 0;font-weight:600}
.cell>header .idx{color:var(--muted);font-weight:400;font-variant-numeric:tabular-nums}
.cell>header h2{font-size:13.5px;margin:0;font-weight:600}nav.contents{font-size:12px;margin:10px 0 4px;line-height:1.8}
nav.contents a{white-space:nowrap;margin-right:2px}
.cell>div{padding:8px 12px}.cell.markdown{border:none}.cell.markdown>div{padding:2px 0}
table.fio th{white-space:nowrap}.ratio{font-weight:600}.tone-better{color:var(--better)}.tone-worse{color:var(--worse)}.tone-same{color:var(--same)}.tone-few{color:var(--same)}
.legend{margin:8px 0 0}.error{color:var(--worse)}.type{font-weight:400;font-size:10.5px}
details.sql summary{cursor:pointer;color:var(--muted)}
figure.chart{margin:6px 0 14px;break-inside:avoid}figure.chart>svg{display:block;width:100%;max-width:100%;height:auto}
figure.chart svg.chart text,svg.plot text{font-size:11px;fill:var(--muted)}svg.plot .axis-title{font-size:11.5px;fill:var(--text)}
svg.plot .name{fill:var(--text)}figure.chart .grid{stroke:#eef1f4}figure.chart .axis{stroke:#c4ccd4}
.chart-head{font-size:12.5px;margin:2px 0 4px}.chart-head b{font-weight:600}.chart-head .muted{margin-left:6px;font-size:11.5px}
figcaption span{margin-right:14px;font-size:11.5px;display:inline-block}figcaption i{display:inline-block;width:9px;height:9px;border-radius:2px;margin-right:4px}
figcaption i.key{width:18px;height:0;border-radius:0;vertical-align:middle;margin-right:5px}
table.numbers{font-size:12px;margin:6px 0 2px}table.numbers td,table.numbers th{padding:2px 10px 2px 0}
table.numbers td:first-child{max-width:460px;overflow-wrap:anywhere}table.numbers code{font-size:11.5px}
p.source{font-size:11.5px;margin:3px 0 6px}
body>.scroll>table.caps,.long-facts table.caps{width:100%;table-layout:fixed}
body>.scroll>table.caps th:first-child,.long-facts table.caps th:first-child{width:25%}
body>.scroll>table.caps td,.long-facts td{overflow-wrap:anywhere}body>.scroll>table.caps th,.long-facts th{overflow-wrap:break-word}
.long-facts{margin:4px 0 8px}.long-facts summary{cursor:pointer;font-size:12px}.cell h4{margin-top:14px}
.charts2{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}
@page{size:A4 landscape;margin:12mm}
@media print{body{max-width:none;padding:0}.cell{break-inside:auto}.scroll{overflow:visible}
a{color:inherit}figure.chart{break-inside:avoid}.cell>header{break-after:avoid}}
blockquote{margin:0;padding-left:10px;border-left:3px solid var(--border);color:var(--muted)}
footer{margin-top:24px;color:var(--muted);font-size:11.5px}
.time-applied{border:1px solid #b6c8f0;background:#eef3fd;border-radius:4px;padding:4px 10px;margin:2px 0 8px;font-size:12px}
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _captures_table(ctx: ExportContext) -> str:
    base = ctx.doc.baseline
    head = "".join(f'<th>{e(c.label)}{" <span class=base>baseline</span>" if c.id == base else ""}</th>'
                   for c in ctx.captures)
    rows = [
        "<tr><th>Id</th>" + "".join(f"<td><code>{e(c.id)}</code></td>" for c in ctx.captures) + "</tr>",
        "<tr><th>Kernel</th>" + "".join(f"<td><code>{e(c.kernel or '-')}</code></td>" for c in ctx.captures) + "</tr>",
        "<tr><th>Runs</th>" + "".join(f"<td>{c.runs} runs, up to {c.repeats} repeats</td>" for c in ctx.captures) + "</tr>",
        "<tr><th>Tags</th>" + "".join(
            f"<td>{e(', '.join(f'{k}={v}' for k, v in c.tags.items()))}</td>" for c in ctx.captures) + "</tr>",
    ]
    f = ctx.facts
    long: list[str] = []  # facts longer than LONG_FACT (the kernel's, qemu's command lines): folded, last
    if f is not None:
        facts = [("Kernel release", dict(f.kernels), ""), *((o.option, o.values, o.why) for o in f.kernel_options),
                 *((d.key, d.values, "workload") for d in f.workload_diff)]
        for key, values, why in facts[1:]:
            (long if _long(values) else rows).append(
                f'<tr class="fact"><th><code title="{e(why)}">{e(key)}</code></th>' + "".join(
                    f"<td><code>{e(values.get(c.id) or '-')}</code></td>" for c in ctx.captures) + "</tr>")
    for d in ctx.host_diff:
        (long if _long(d.values) else rows).append(f"<tr><th><code>{e(d.key)}</code></th>" + "".join(
            f"<td><code>{e(d.values.get(c.id) or '-')}</code></td>" for c in ctx.captures) + "</tr>")
    warn = "".join(f'<p class="warning"><strong>Not comparable as a kernel change ({e(w.what)}):</strong> {e(w.message)}</p>'
                   for w in (f.warnings if f is not None else []))
    more = (f'<p class="muted">{f.config_diff_count} options of the whole .config differ.</p>'
            if f is not None and f.config_diff_count is not None else "")
    folded = (f'<details class="long-facts"><summary class="muted">{len(long)} differing fact{"s" if len(long) > 1 else ""} '
              f'longer than {LONG_FACT} characters (command lines)</summary><div class="scroll"><table class="caps">'
              f'<thead><tr><th></th>{head}</tr></thead><tbody>{"".join(long)}</tbody></table></div></details>' if long else "")
    return (warn + f'<div class="scroll"><table class="caps"><thead><tr><th></th>{head}</tr></thead><tbody>{"".join(rows)}'
            f'</tbody></table></div>' + folded + more)


LONG_FACT = 120  # as the compare page: longer facts are listed last, folded


def _long(values: dict) -> bool:
    return any(len(str(v or "")) > LONG_FACT for v in values.values())


def _time(ctx: ExportContext) -> str:
    """The notebook's timeline selection, said once at the top: the cells that follow it say how."""
    t = selection.shared_time(ctx)
    if t is None:
        return ""
    text = selection.notice(ctx, t, "followed by the flame graph, block layer and scheduler cells, as in the app; "
                                    "each says how")
    return f'<p class="time-applied">{e(text)} (<a href="#cell-{t.cell + 1}">the timeline</a>)</p>'


def render(ctx: ExportContext) -> str:
    v = ctx.version
    doc = ctx.doc
    cells_html = []
    contents: list[str] = []  # the view and SQL cells, linked from the top of the page
    results: dict[str, object] = {}
    for i, cell in enumerate(doc.cells):
        anchor = f"cell-{i + 1}"
        if isinstance(cell, models.MarkdownCell):
            cells_html.append(f'<section class="cell markdown" id="{anchor}"><div>{markdown.to_html(cell.text)}</div></section>')
            continue
        if isinstance(cell, models.SqlCell):
            data = sql.run(ctx, cell)
            if data.answer:
                a = data.answer
                results[anchor] = {"columns": [{"name": n, "type": t} for n, t in a.columns], "rows": a.rows,
                                   "truncated": a.truncated}
            else:
                results[anchor] = {"error": data.error}
            title, body = "SQL", sql.html_cell(cell, data)
        else:
            ex = VIEW_EXPORTS.get(cell.kind)
            title = ex.title if ex else cell.kind
            if ex is None:
                body = (f'<p class="muted">This view ({e(cell.kind)}) is not part of the static export: '
                        f'<a href="{e(ctx.cell_link(i))}">open it in iolens</a>.</p>')
            else:
                ctx.cell_index, ctx.cell_state = i, cell.state
                try:
                    body = ex.html(ctx, ex.data(ctx, cell.state))
                except Exception as exc:  # one view that cannot be drawn does not sink the file
                    body = (f'<p class="error">This view could not be exported ({e(str(exc))}): '
                            f'<a href="{e(ctx.cell_link(i))}">open it in iolens</a>.</p>')
        kind = "sql" if isinstance(cell, models.SqlCell) else cell.kind
        cells_html.append(f'<section class="cell" id="{anchor}" data-kind="{e(kind)}"><header><h2><span class="idx">'
                          f'{i + 1}</span> {e(title)}</h2></header><div>{body}</div></section>')
        contents.append(f'<a href="#{anchor}">{i + 1}. {e(title)}</a>')
    saved = v.created_at.replace("T", " ").replace("Z", " UTC")
    parent = f', edited from <code>{e(v.parent)}</code>' if v.parent else ""
    data = embedded_json({"iolens": __version__, "id": v.id, "parent": v.parent, "created_at": v.created_at,
                          "permalink": ctx.permalink, "document": doc.model_dump(mode="json"), "results": results})
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="iolens {e(__version__)}">
<title>{e(doc.title)} - iolens notebook {e(v.id)}</title>
<style>{CSS}</style>
</head>
<body>
<h1>{e(doc.title)}</h1>
<p class="meta muted">iolens notebook <a href="{e(ctx.permalink)}">{e(ctx.permalink)}</a> &middot; version
<code>{e(v.id)}</code>, saved {e(saved)}{parent}</p>
{_captures_table(ctx)}
{_time(ctx)}
{f'<nav class="contents muted">Cells: {" &middot; ".join(contents)}</nav>' if len(contents) > 1 else ""}
{"".join(cells_html)}
<footer>Exported by iolens {e(__version__)} from {e(ctx.permalink)}. A static copy: the numbers are embedded
in this file (script#iolens-notebook, JSON).</footer>
<script type="application/json" id="iolens-notebook">{data}</script>
</body>
</html>
"""
