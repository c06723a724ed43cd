"""The view kinds that notebook exports draw: one line per kind, under the kind name of the
frontend's cell registry (frontend/src/cells/registry.ts). Text (text.py) and HTML (html.py) both
draw through this table; a kind without an entry is exported as its name and a link to the cell.
"""

from __future__ import annotations

from . import block, events, fio, flame, lockstat, monitors, offcpu, sched, sweep, timeline
from .context import ViewExport

VIEW_EXPORTS: dict[str, ViewExport] = {
    "fio": fio.FioExport(),
    "block": block.BlockExport(),
    "sched": sched.SchedExport(),
    "lockstat": lockstat.LockStatExport(),
    "sweep": sweep.SweepExport(),
    "sweepline": sweep.SweepLineExport(),
    "fiolog": sweep.FioLogExport(),
    "monitors": monitors.MonitorsExport(),
    "events": events.EventsExport(),
    "flame": flame.FlameExport(),
    "offcpu": offcpu.OffcpuExport(),
    "timeline": timeline.TimelineExport(),
}
