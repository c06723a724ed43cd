"""`iolens convert FORMAT FILE ...`: the parsers of iolens/formats as command-line converters.

One entry per format in CONVERTERS: its options (`configure`) and what it prints (`run`). Adding a
format's converter touches this file only.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..formats import gz


def open_text(name: str) -> IO[str]:
    """FILE or '-' (standard input), gzip-compressed or not (detected from the first bytes)."""
    raw = sys.stdin.buffer if name == "-" else Path(name).open("rb")
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    return gz.text(buffered, source_name(name))  # a damaged gzip stream: FormatError (file, line)


def source_name(name: str) -> str:
    return "<stdin>" if name == "-" else name


@dataclass(frozen=True)
class Converter:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, IO[str]], None]  # raises FormatError


def _fio_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["json"], default="json", help="output format (default: json)")


def _fio_run(args: argparse.Namespace, out: IO[str]) -> None:
    from ..formats.fio_json import parse_fio_json

    with open_text(args.file) as f:
        result = parse_fio_json(f.read(), source=source_name(args.file))
    json.dump(dataclasses.asdict(result), out, indent=2, default=str, allow_nan=False)
    out.write("\n")


def _perf_script_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["folded", "json"], default="folded",
                   help="folded: what inferno-collapse-perf 0.12.8 prints (default); "
                        "json: the merged call tree {name, value, children}")
    p.add_argument("--pid", action="store_true", help="root frame comm-PID (default: comm)")
    p.add_argument("--tid", action="store_true", help="root frame comm-PID/TID (implies --pid)")
    p.add_argument("--kernel", action="store_true", help="annotate kernel frames with _[k]")
    p.add_argument("--jit", action="store_true", help="annotate JIT frames with _[j]")
    p.add_argument("--all", action="store_true", help="all annotations (--kernel --jit)")
    p.add_argument("--addrs", action="store_true", help="[module <addr>] where a symbol is unknown")
    p.add_argument("--event-filter", metavar="EVENT",
                   help="keep samples of EVENT (default: the first event of the input, as inferno)")
    p.add_argument("--skip-after", metavar="FUNC", action="append", default=[],
                   help="drop the callers of FUNC (repeatable)")
    p.add_argument("--nthreads", type=int, default=0, metavar="N", help="threads (default: one per CPU)")


def _perf_script_run(args: argparse.Namespace, out: IO[str]) -> None:
    # The Rust core reads FILE itself ('-' and gzip as open_text), so the text skips Python.
    from ..formats import perf_script_native as native
    from ..formats.perf_script import FoldOptions, call_tree, format_folded

    opts = FoldOptions(pid=args.pid, tid=args.tid, kernel=args.kernel or args.all, jit=args.jit or args.all,
                       addrs=args.addrs, event_filter=args.event_filter, skip_after=tuple(args.skip_after))
    args.nthreads = max(args.nthreads, 0)
    if args.to == "folded":
        try:
            fd = out.fileno()
        except (AttributeError, OSError, ValueError):  # not a real file (tests capture output)
            fd = None
        if fd is not None:
            out.flush()
            native.write_folded(args.file, fd, opts, nthreads=args.nthreads)
        else:
            out.write(format_folded(native.fold(args.file, opts, nthreads=args.nthreads)[0]))
    else:
        json.dump(call_tree(native.fold(args.file, opts, nthreads=args.nthreads)[0]), out, separators=(",", ":"))
        out.write("\n")


def _lock_stat_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["json", "csv"], default="json",
                   help="json: the whole dump, classes with their rows and points (default); "
                        "csv: one line per class and read/write state, times in ns")
    p.add_argument("--points", action="store_true",
                   help="with --to csv: the contention and contending points instead (default: off)")


LOCK_STAT_CSV_CLASSES = (
    "class", "occurrence", "base_name", "name_version", "subclass", "rw", "rw_shown", "con_bounces", "contentions",
    "wait_min_ns", "wait_max_ns", "wait_total_ns", "wait_avg_ns", "acq_bounces", "acquisitions", "hold_min_ns",
    "hold_max_ns", "hold_total_ns", "hold_avg_ns", "line",
)
LOCK_STAT_CSV_POINTS = (
    "class", "occurrence", "kind", "index", "count", "address", "symbol", "function", "offset", "size", "module", "line",
)


def _lock_stat_run(args: argparse.Namespace, out: IO[str]) -> None:
    import csv

    from ..formats.lock_stat import parse_lock_stat

    with open_text(args.file) as f:
        dump = parse_lock_stat(f.read(), source=source_name(args.file))
    for w in dump.warnings:
        print(f"iolens convert: warning: {w}", file=sys.stderr)
    if args.to == "json":
        json.dump(dataclasses.asdict(dump), out, indent=2, allow_nan=False)
        out.write("\n")
        return
    writer = csv.writer(out, lineterminator="\n")
    if args.points:
        writer.writerow(LOCK_STAT_CSV_POINTS)
        for c in dump.classes:
            for p in c.contention_points + c.contending_points:
                writer.writerow([c.name, c.occurrence, p.kind, p.index, p.count, p.address, p.symbol, p.function,
                                 p.offset, p.size, p.module, p.line])
        return
    writer.writerow(LOCK_STAT_CSV_CLASSES)
    for c in dump.classes:
        for r in c.rows:
            writer.writerow([c.name, c.occurrence, c.base_name, c.name_version, c.subclass, r.rw, int(r.rw_shown),
                             *(getattr(r, k) for k in LOCK_STAT_CSV_CLASSES[7:])])


def _block_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["ios", "events"], default="ios",
                   help="ios: one CSV row per I/O, issue matched to completion as at ingest; "
                        "events: one CSV row per block event (default: ios)")


def _block_run(kind: str) -> Callable[[argparse.Namespace, IO[str]], None]:
    def run(args: argparse.Namespace, out: IO[str]) -> None:
        import csv

        from ..formats.blkparse import BlkparseReader
        from ..formats.block_events import BlockEvent
        from ..formats.perf_block import PerfBlockReader
        from ..ingest.block import ROW_COLUMNS, IoMatcher

        reader = BlkparseReader(source_name(args.file)) if kind == "blkparse" else PerfBlockReader(source_name(args.file))
        w = csv.writer(out, lineterminator="\n")
        with open_text(args.file) as f:
            if args.to == "events":
                w.writerow(BlockEvent._fields)
                w.writerows(reader.events(f))
            else:
                m = IoMatcher()
                w.writerow([c for c, _ in ROW_COLUMNS])
                w.writerows(m.feed(reader.events(f)))
                w.writerows(m.finish())
                other = {k: v for k, v in sorted(m.counts.items()) if k != "matched" and v}
                print(f"iolens convert: {m.counts.get('matched', 0):,} I/Os matched issue to completion; "
                      + ("unmatched events: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in other.items())
                         if other else "no event left unmatched"), file=sys.stderr)
    return run


def _sched_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["csv", "jsonl"], default="csv",
                   help="csv: the events of one kind (--event), one row each with a header (default); "
                        "jsonl: every event, one JSON object per line with its kind in 'event'")
    p.add_argument("--event", choices=["switch", "wakeup", "migrate"], default="switch",
                   help="with --to csv: sched_switch (default), the wakeups (waking, wakeup, wakeup_new) or "
                        "sched_migrate_task")


def _sched_run(args: argparse.Namespace, out: IO[str]) -> None:
    """sched_switch / wakeup / migrate events, in file order (streamed: any size)."""
    import csv

    from ..formats.perf_sched import Migrate, SchedReader, Switch, Wake

    reader = SchedReader(source_name(args.file))
    kinds = {Switch: "switch", Wake: "wakeup", Migrate: "migrate"}
    with open_text(args.file) as f:
        if args.to == "jsonl":
            for ev in reader.events(f):
                out.write(json.dumps({"event": kinds[type(ev)], **ev._asdict()}, allow_nan=False) + "\n")
        else:
            cls = next(c for c, k in kinds.items() if k == args.event)
            w = csv.writer(out, lineterminator="\n")
            w.writerow(cls._fields)
            w.writerows(ev for ev in reader.events(f) if type(ev) is cls)
    if reader.skipped:
        print("iolens convert: other events skipped: "
              + ", ".join(f"{k} ({v})" for k, v in sorted(reader.skipped.items())), file=sys.stderr)


def _timehist_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["json"], default="json", help="output format (default: json)")


def _timehist_run(args: argparse.Namespace, out: IO[str]) -> None:
    from ..formats.perf_sched import parse_timehist

    with open_text(args.file) as f:
        result = parse_timehist(f.read(), source=source_name(args.file))
    json.dump(dataclasses.asdict(result), out, indent=1, allow_nan=False)
    out.write("\n")


def _perf_stat_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["json", "totals"], default="json",
                   help="json: every counter line as a row (default); totals: total per event")
    p.add_argument("--separator", "-x", default=",", help="the -x separator perf stat was given (default ',')")


def _perf_stat_run(args: argparse.Namespace, out: IO[str]) -> None:
    from ..formats.perf_stat import parse_perf_stat

    with open_text(args.file) as f:
        stat = parse_perf_stat(f.read(), source=source_name(args.file), separator=args.separator)
    json.dump(stat.totals() if args.to == "totals" else dataclasses.asdict(stat), out, indent=1, allow_nan=False)
    out.write("\n")


def _fio_log_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kind", choices=["bw", "iops", "lat", "clat", "slat"],
                   help="which log (default: from the file name, PREFIX_KIND.N.log)")
    p.add_argument("--to", choices=["csv", "json"], default="csv",
                   help="csv: t_ms,value,ddir,bs,offset,prio, values in bytes/s, IO/s or ns (default); json")


def _fio_log_run(args: argparse.Namespace, out: IO[str]) -> None:
    from ..formats.fio_log import parse_fio_log

    with open_text(args.file) as f:
        log = parse_fio_log(f.read(), source=source_name(args.file) if args.file != "-" else "stdin", kind=args.kind)
    if args.to == "json":
        json.dump(dataclasses.asdict(log), out, indent=1, allow_nan=False)
        out.write("\n")
        return
    out.write(f"# fio {log.kind} log, value in {log.unit}\nt_ms,value,ddir,bs,offset,prio\n")
    for e in log.entries:
        out.write(f"{e.t_ms},{_exact(e.value)},{e.ddir},{e.bs},{'' if e.offset is None else e.offset},"
                  f"{'' if e.prio is None else e.prio}\n")


def _exact(v: float) -> str:
    """Every digit of a value: 1273222 (not 1.27322e+06), 0.5, 1e+20 as Python's shortest round trip."""
    return str(int(v)) if v.is_integer() and abs(v) < 1e18 else repr(v)


def _fio_terse_configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", choices=["json"], default="json", help="output format (default: json)")


def _fio_terse_run(args: argparse.Namespace, out: IO[str]) -> None:
    from ..formats.fio_terse import parse_fio_terse

    with open_text(args.file) as f:
        result = parse_fio_terse(f.read(), source=source_name(args.file))
    json.dump(dataclasses.asdict(result), out, indent=2, default=str, allow_nan=False)
    out.write("\n")


CONVERTERS: list[Converter] = [
    Converter("fio-json", "fio's JSON output (fio 2.x-3.x, json or json+) as normalised rows",
              _fio_configure, _fio_run),
    Converter("fio-log", "a fio bw/iops/lat/clat/slat log (write_*_log) as CSV or JSON, units normalised",
              _fio_log_configure, _fio_log_run),
    Converter("fio-terse", "fio's terse output (--minimal, versions 2-5) as the same rows as fio-json",
              _fio_terse_configure, _fio_terse_run),
    Converter("perf-script", "perf script text with call stacks as folded stacks, exactly as "
              "inferno-collapse-perf 0.12.8 folds them, or as a call tree",
              _perf_script_configure, _perf_script_run),
    Converter("lock-stat", "/proc/lock_stat (version 0.4) as lock classes and their contention points, "
              "times in ns", _lock_stat_configure, _lock_stat_run),
    Converter("blkparse", "blkparse's default text (blktrace 1.x) as one CSV row per I/O (ns since the "
              "first event) or per block event", _block_configure, _block_run("blkparse")),
    Converter("perf-block", "perf script text of the block tracepoints as one CSV row per I/O (ns since the "
              "first event) or per block event", _block_configure, _block_run("perf-block")),
    Converter("perf-sched", "perf script / perf sched script text of the sched tracepoints (switch, wakeup, waking, "
              "migrate_task) as one row per event", _sched_configure, _sched_run),
    Converter("perf-sched-timehist", "perf sched timehist text (with -w, -M, -n, -V, --state, call chains) as "
              "rows, times in ns", _timehist_configure, _timehist_run),
    Converter("perf-stat", "perf stat -x, output (with -I, -A, --per-core/thread, --summary) as rows or totals "
              "per event", _perf_stat_configure, _perf_stat_run),
]


def add_parsers(convert: argparse.ArgumentParser) -> None:
    sub = convert.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for c in CONVERTERS:
        p = sub.add_parser(c.name, help=c.help, description=c.help)
        p.add_argument("file", metavar="FILE", help="input file, '-' for standard input; gzip is detected")
        c.configure(p)
        p.set_defaults(converter=c)


def run(args: argparse.Namespace) -> int:
    from .convert_fast import guarded

    return guarded(args.file, lambda: args.converter.run(args, sys.stdout))
