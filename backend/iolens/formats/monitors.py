"""The collector's monitor files (kind `monitor`, `--monitors`) -> timed samples of named values.

A file holds the snapshots of one source, each after a line `#@iolens-monitor t_ns=N` (N: the
collector's CLOCK_MONOTONIC when it read them), byte for byte as the kernel printed them:

| source   | snapshot                         | keys                                   | unit | counter? |
|----------|----------------------------------|----------------------------------------|------|----------|
| vmstat   | /proc/vmstat "name value"        | name                                   | count / pages | counters, except nr_* (levels) |
| meminfo  | /proc/meminfo "Name: value kB"   | Name                                   | bytes (kB x 1024) or count | levels |
| stat     | /proc/stat                       | cpuN.user ... cpuN.steal, cpu.* (all), ctxt, processes, intr, softirq; procs_running, procs_blocked | USER_HZ ticks / count | counters, except procs_* |
| xfs      | /proc/fs/xfs/stat "group v1 v2.."| group.name from xfs_stats.h (log.writes, log.blocks, push_ail.pushes...), group.N beyond | count (xpc.*: bytes) | counters |
| ext4     | "DEV NAME VALUE" lines           | DEV/NAME (vda/lifetime_write_kbytes)   | as named | *_kbytes, *_count: counters; others levels |
| slabinfo | /proc/slabinfo 2.1               | CACHE.active_objs, .num_objs, .objsize, .bytes (num_objs x objsize) | count / bytes | levels |

Non-numeric values (ext4's first_error_func...) are skipped. Errors name the file and line.
Reference: Documentation/filesystems/proc.rst, fs/xfs/xfs_stats.h (Linux 6.12), fs/ext4/sysfs.c,
mm/slab_common.c (slabinfo 2.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import FormatError
from .numbers import is_float, to_int

MARK = "#@iolens-monitor"
SOURCES = ("vmstat", "meminfo", "stat", "xfs", "ext4", "slabinfo")

_STAT_CPU = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice")
# fs/xfs/xfs_stats.h: the groups of /proc/fs/xfs/stat and their fields, in order
XFS_FIELDS = {
    "extent_alloc": ("allocx", "allocb", "freex", "freeb"),
    "abt": ("lookup", "compare", "insrec", "delrec"),
    "blk_map": ("read_ops", "write_ops", "unmap", "add_exlist", "del_exlist", "look_exlist", "cmp_exlist"),
    "bmbt": ("lookup", "compare", "insrec", "delrec"),
    "dir": ("lookup", "create", "remove", "getdents"),
    "trans": ("sync", "async", "empty"),
    "ig": ("attempts", "found", "frecycle", "missed", "dup", "reclaims", "attrchg"),
    "log": ("writes", "blocks", "noiclogs", "force", "force_sleep"),
    "push_ail": ("try_logspace", "sleep_logspace", "pushes", "success", "pushbuf", "pinned", "locked",
                 "flushing", "restarts", "flush"),
    "xstrat": ("quick", "split"),
    "rw": ("write_calls", "read_calls"),
    "attr": ("get", "set", "remove", "list"),
    "icluster": ("iflush_count", "icluster_flushcnt", "icluster_flushinode"),
    "vnodes": ("active", "alloc", "get", "hold", "rele", "reclaim", "remove", "free"),
    "buf": ("get", "create", "get_locked", "get_locked_waited", "busy_locked", "miss_locked", "page_retries",
            "page_found", "get_read"),
    "xpc": ("xstrat_bytes", "write_bytes", "read_bytes"),
    "defer_relog": ("count",),
}


@dataclass
class MonitorSample:
    t_ns: int
    values: dict[str, float]


@dataclass
class MonitorFile:
    source: str
    samples: list[MonitorSample]
    counters: set[str] = field(default_factory=set)   # keys that only grow (report deltas); the others are levels
    units: dict[str, str] = field(default_factory=dict)


def _num(s: str) -> float | None:
    return float(s) if is_float(s) else None  # never NaN or inf


def _vmstat(lines: list[tuple[int, str]], f: MonitorFile) -> dict[str, float]:
    out = {}
    for _, ln in lines:
        parts = ln.split()
        if len(parts) == 2 and (v := _num(parts[1])) is not None:
            out[parts[0]] = v
            if not parts[0].startswith("nr_"):
                f.counters.add(parts[0])
    return out


def _meminfo(lines: list[tuple[int, str]], f: MonitorFile) -> dict[str, float]:
    out = {}
    for _, ln in lines:
        name, _, rest = ln.partition(":")
        parts = rest.split()
        if parts and (v := _num(parts[0])) is not None:
            if len(parts) > 1 and parts[1] == "kB":
                out[name] = v * 1024
                f.units[name] = "bytes"
            else:
                out[name] = v
    return out


def _stat(lines: list[tuple[int, str]], f: MonitorFile) -> dict[str, float]:
    out: dict[str, float] = {}
    for _, ln in lines:
        parts = ln.split()
        if not parts:
            continue
        head = parts[0]
        if head.startswith("cpu"):
            key = "cpu" if head == "cpu" else head
            for name, v in zip(_STAT_CPU, parts[1:]):
                if (x := _num(v)) is not None:
                    out[f"{key}.{name}"] = x
                    f.counters.add(f"{key}.{name}")
                    f.units[f"{key}.{name}"] = "USER_HZ"
        elif head in ("ctxt", "processes", "intr", "softirq") and len(parts) > 1 and (x := _num(parts[1])) is not None:
            out[head] = x
            f.counters.add(head)
        elif head in ("procs_running", "procs_blocked") and len(parts) > 1 and (x := _num(parts[1])) is not None:
            out[head] = x
    return out


def _xfs(lines: list[tuple[int, str]], f: MonitorFile) -> dict[str, float]:
    out = {}
    for _, ln in lines:
        parts = ln.split()
        if len(parts) < 2:
            continue
        names = XFS_FIELDS.get(parts[0], ())
        for i, v in enumerate(parts[1:]):
            if (x := _num(v)) is None:
                continue
            key = f"{parts[0]}.{names[i] if i < len(names) else i}"
            out[key] = x
            f.counters.add(key)
            if parts[0] == "xpc":
                f.units[key] = "bytes"
    return out


def _ext4(lines: list[tuple[int, str]], f: MonitorFile) -> dict[str, float]:
    out = {}
    for _, ln in lines:
        parts = ln.split(None, 2)
        if len(parts) == 3 and (x := _num(parts[2])) is not None:
            key = f"{parts[0]}/{parts[1]}"
            out[key] = x
            if parts[1].endswith(("_kbytes", "_count")):
                f.counters.add(key)
            if parts[1].endswith("_kbytes"):
                f.units[key] = "KiB"
    return out


def _slabinfo(lines: list[tuple[int, str]], f: MonitorFile, source: str) -> dict[str, float]:
    out = {}
    for lineno, ln in lines:
        if ln.startswith("slabinfo -") or ln.startswith("#"):
            continue
        parts = ln.split()
        if len(parts) < 4:
            raise FormatError(source, f"not a slabinfo line: {ln[:60]!r}", line=lineno, field="slabinfo")
        name = parts[0]
        active, num, size = (to_int(parts[i], source, lineno, name, minimum=0) for i in (1, 2, 3))
        out[f"{name}.active_objs"] = active
        out[f"{name}.num_objs"] = num
        out[f"{name}.objsize"] = size
        out[f"{name}.bytes"] = num * size
        f.units[f"{name}.bytes"] = "bytes"
    return out


def parse_monitor(text: str, source_kind: str, source: str = "monitor.txt") -> MonitorFile:
    """One monitor file (`source_kind`: the artifact's `source` field) -> its samples in order."""
    if source_kind not in SOURCES:
        raise FormatError(source, f"unknown monitor source {source_kind!r} (known: {', '.join(SOURCES)})",
                          field="source")
    f = MonitorFile(source_kind, [])
    block: list[tuple[int, str]] = []
    t_ns: int | None = None

    def flush() -> None:
        if t_ns is None:
            return
        if source_kind == "slabinfo":
            vals = _slabinfo(block, f, source)
        else:
            vals = {"vmstat": _vmstat, "meminfo": _meminfo, "stat": _stat, "xfs": _xfs, "ext4": _ext4}[source_kind](block, f)
        f.samples.append(MonitorSample(t_ns, vals))

    for lineno, ln in enumerate(text.split("\n"), 1):
        if ln.startswith(MARK):
            flush()
            block = []
            _, _, rest = ln.partition("t_ns=")
            if not rest.split():
                raise FormatError(source, f"bad sample line {ln[:60]!r}", line=lineno, field="t_ns")
            t = to_int(rest.split()[0], source, lineno, "t_ns", minimum=0)
            if t_ns is not None and t < t_ns:
                raise FormatError(source, f"sample time {t} before the previous one {t_ns}", line=lineno, field="t_ns")
            t_ns = t
            continue
        if not ln.strip():
            continue
        if t_ns is None:
            raise FormatError(source, f"data before the first '{MARK} t_ns=' line", line=lineno)
        block.append((lineno, ln))
    flush()
    if not f.samples:
        raise FormatError(source, "no monitor samples in the file")
    return f


def deltas(f: MonitorFile) -> dict[str, tuple[float, float]]:
    """Per key, (value, seconds between the first and the last sample): for a counter its change
    over the run, for a level its mean over the samples."""
    if not f.samples:
        return {}
    first, last = f.samples[0], f.samples[-1]
    secs = (last.t_ns - first.t_ns) / 1e9
    out = {}
    for k in last.values:
        if k in f.counters and k in first.values:
            out[k] = (last.values[k] - first.values[k], secs)
        elif k not in f.counters:
            vals = [s.values[k] for s in f.samples if k in s.values]
            out[k] = (sum(vals) / len(vals), secs)
    return out


def source_of(text: str) -> str | None:
    """Which source a monitor file holds, from its first snapshot (for loose files, which carry no
    `source` field): None when it is none of them."""
    body = [ln for ln in text.split("\n")[1:40] if ln.strip() and not ln.startswith(MARK)]
    if not body:
        return None
    first = body[0]
    if first.startswith("slabinfo -"):
        return "slabinfo"
    if first.startswith("cpu "):
        return "stat"
    if first.startswith("MemTotal:"):
        return "meminfo"
    if first.split()[0] in XFS_FIELDS:
        return "xfs"
    if len(first.split()) == 2 and first.split()[0].startswith("nr_"):
        return "vmstat"
    if len(first.split(None, 2)) == 3:
        return "ext4"
    return None
