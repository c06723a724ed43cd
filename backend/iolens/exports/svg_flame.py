"""The flame graph cell's graph in the HTML export (exports/flame.py keeps its data, text and
table): one capture's flame graph, or the differential graph of two, drawn by views/flame_svg.py
with the app's layout and colours (testdata/vectors/flame.json), at the page's width, with the
cell's selection (event, runs, tasks, CPUs, time range), zoom, search, flame or icicle and the
diff's colouring (`m=icicle`, `c=total` of src/cells/flame/state.ts), and for one capture the
order of siblings and the transforms (`o=heavy`, `x=`). At most MAX_ROWS levels: a
page, not a scroll (the graph says how many deeper levels it leaves to the app).
"""

from __future__ import annotations

import html
import zlib
from typing import Any

from ..store.rules import flame_stacks
from ..views import flame as flame_view
from .context import ExportContext, parse_state
from .svgplot import W

MAX_ROWS = 40


def look(state: str) -> dict[str, str]:
    """What only the graph uses of the state: flame or icicle, and the diff's colouring."""
    st = parse_state(state)
    return {"mode": "icicle" if st.get("m") == "icicle" else "flame", "colour": "total" if st.get("c") == "total" else "self",
            "order": "heavy" if st.get("o") == "heavy" else "name", "x": st.get("x", "")}


def graph(ctx: ExportContext, d: Any, st: dict[str, Any], state: str) -> str:
    """The graph as inline SVG (d: exports/flame.py FlameData; st: FlameExport.read_state)."""
    lk = look(state)
    lo, hi = d.window
    f = flame_view.Filters(event=d.event, cpus=tuple(d.cpus) if d.cpus is not None else None, comm=d.comm,
                           from_ns=lo, to_ns=hi)
    search = st["search"] or None
    if d.view == "diff":
        a, b = d.sides
        # two time ranges of one capture (the heatmap's A and B): the runs of the selection, B's own range
        rb = getattr(d, "range_b", None)
        runs = tuple(st["runs"]) if rb is not None and st["runs"] else None
        svg = flame_view.diff_svg(ctx.store, a.capture, b.capture, f, zoom=st["zoom"], search=search,
                                  mode=lk["mode"], colour_by=lk["colour"], width=W, max_rows=MAX_ROWS,  # type: ignore[arg-type]
                                  runs_a=runs, runs_b=runs, range_b=rb)
        title = (f"Differential flame graph: {ctx.label(a.capture)} to {ctx.label(b.capture)}" if rb is None else
                 f"Differential flame graph of two time ranges of {ctx.label(a.capture)}")
    else:
        s = d.sides[0]
        f = flame_view.Filters(**{**f.__dict__, "runs": tuple(st["runs"]) if st["runs"] else None, "tid": d.tid})
        try:
            transforms = flame_stacks.parse_transforms(lk["x"]) if lk["x"] else []
        except ValueError:
            transforms = []  # as the app: a transform list it cannot read is not applied
        svg = flame_view.svg(ctx.store, s.capture, f, zoom=st["zoom"], search=search, mode=lk["mode"],  # type: ignore[arg-type]
                             width=W, max_rows=MAX_ROWS, order=lk["order"], transforms=transforms)
        title = f"Flame graph: {ctx.label(s.capture)}"
    # inline: no XML namespace needed; one document holds several graphs, their pattern ids must differ
    uid = f"c{d.index}" if d.index is not None else f"h{zlib.crc32(svg.encode()):08x}"
    svg = svg[svg.index("<svg"):].replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)
    svg = svg.replace('id="noise"', f'id="noise-{uid}"').replace("url(#noise)", f"url(#noise-{uid})")
    svg = svg.replace("<svg ", f'<svg class="flame" role="img" aria-label="{html.escape(title)}" ', 1)
    name = "flame-diff" if d.view == "diff" else "flame"
    return f'<figure class="chart" data-chart="{name}">{svg}</figure>'
