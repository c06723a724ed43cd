"""The block-layer event that both block parsers produce (blkparse.py, perf_block.py).

One `BlockEvent` per line of the tool's output that describes an event of the block layer. The two
tools name the same kernel events differently; both are mapped to the action names below, which
follow blktrace's letters (blktrace_api.h, blkparse(1) "TRACE ACTIONS"):

| action | blkparse | perf tracepoint | what happened |
|---|---|---|---|
| queue | Q | block:block_bio_queue | a bio was queued (intent to do I/O) |
| getrq | G | block:block_getrq | a request was allocated for a bio |
| insert | I | block:block_rq_insert | a request was inserted in the scheduler / dispatch queue |
| issue | D | block:block_rq_issue | a request was issued to the driver (the device owns it now) |
| complete | C | block:block_rq_complete | the driver completed (part of) a request |
| requeue | R | block:block_rq_requeue | the driver gave an issued request back; it will be issued again |
| backmerge | M | block:block_bio_backmerge | a bio was merged at the end of an existing request |
| frontmerge | F | block:block_bio_frontmerge | a bio was merged at the front: the request now starts earlier |
| rq_merge | - | block:block_rq_merge | a request was merged into another one and disappears |
| remap | A | block:block_bio_remap, block_rq_remap | I/O remapped, e.g. partition -> disk |
| plug, unplug | P, U, T | block:block_plug, block_unplug | plugging (batching) of the submitter's queue |
| split | X | block:block_split | a bio was split in two |
| other | B, S, m, ... | anything else under block: | counted, not used |

Times are in nanoseconds of the trace's own clock (blkparse: since the trace's first event;
perf: perf's clock, by default the kernel's local clock). Sectors are 512-byte units of the device
named by `dev` ("major,minor"), after any remap.
"""

from __future__ import annotations

from typing import NamedTuple


class BlockEvent(NamedTuple):
    t_ns: int               # trace clock, ns
    cpu: int                # CPU that recorded the event
    pid: int | None         # process (thread) id in whose context the event happened; 0 = interrupt/idle
    comm: str | None        # its name when the tool printed one ("(null)" -> None)
    action: str             # see the module docstring
    dev: str                # "major,minor" of the device the event concerns
    rwbs: str               # the kernel's RWBS string: op letter(s) and flags, e.g. "WS", "RA", "FWFS"
    sector: int | None      # first sector (512 B) of the request or bio; None when not printed
    nr_sectors: int | None  # its length in sectors; None when not printed
    bytes: int | None       # request size in bytes when the tool printed it (perf rq events)
    error: int | None       # completion status (complete, requeue); 0 = success


# RWBS first letters (kernel blk_fill_rwbs, blkparse fill_rwbs): an optional leading 'F' is a
# pre-flush flag when another op letter follows it ("FWS"); 'F' alone (or "FF...") is a flush op.
_OPS = {"R": "read", "W": "write", "D": "discard", "F": "flush", "N": "none"}


def op_of(rwbs: str) -> str:
    """'RA' -> 'read', 'WS' -> 'write', 'FWFS' -> 'write', 'DS' -> 'discard', 'FF' -> 'flush',
    'N' -> 'none' (no data), anything else 'other'."""
    s = rwbs
    if len(s) > 1 and s[0] == "F" and s[1] in "RWDN":
        s = s[1:]
    return _OPS.get(s[:1], "other")
