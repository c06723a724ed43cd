"""`iolens bundle --label L [--kernel RELEASE] [--tag K=V]... FILE... -o BUNDLE`: a capture bundle from
loose files (fio JSON, perf script, blktrace, folded stacks...), recognised by content
(ingest/loose.py, the same code as the library page's upload). docs/loose-files.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def _tag(text: str) -> tuple[str, str]:
    k, sep, v = text.partition("=")
    if not sep or not k:
        raise argparse.ArgumentTypeError(f"--tag {text!r}: expected K=V")
    return k, v


def add_parser(sub: Any) -> None:
    b = sub.add_parser(
        "bundle", help="make a capture bundle from loose files (fio JSON, perf script, blktrace, folded stacks...)",
        description="Each FILE is recognised by its content, not its name, read whole by its parser, and placed: each "
                    "fio result is one run (a repeat), in the order given, and the other files go with them. The "
                    "bundle says what it does not know (host facts, device...). docs/loose-files.md.")
    b.add_argument("files", nargs="+", metavar="FILE", help="the files, in run order")
    b.add_argument("--label", required=True, metavar="L", help="the capture's name (required)")
    b.add_argument("--kernel", metavar="RELEASE", help="the kernel release the files come from (default: unknown, "
                                                       "or what a file says, e.g. iostat's first line)")
    b.add_argument("--tag", action="append", type=_tag, default=[], metavar="K=V",
                   help="a comparison axis, repeatable (default: none)")
    b.add_argument("--event", metavar="NAME",
                   help="the perf event that folded stacks count (cpu-clock, cycles...): their counts are its sample "
                        "periods, so they compare with perf script stacks of that event (default: unknown)")
    b.add_argument("-o", "--output", required=True, metavar="BUNDLE", help="the bundle to write (.iolens.tar.gz)")
    b.add_argument("--force", action="store_true", help="overwrite BUNDLE if it exists (default: refuse)")


def run(args: argparse.Namespace) -> int:
    from ..ingest import loose

    out = Path(args.output)
    if out.exists() and not args.force:
        print(f"iolens bundle: {out} exists (--force to overwrite)", file=sys.stderr)
        return 2
    items = []
    for name in args.files:
        p = Path(name)
        if not p.is_file():
            print(f"iolens bundle: {name}: no such file", file=sys.stderr)
            return 2
        items.append((p.name if args.files.count(name) == 1 else name, p.read_bytes()))
    try:
        argv = ["iolens", "bundle", "--label", args.label, *(["--kernel", args.kernel] if args.kernel else []),
                *(x for k, v in args.tag for x in ("--tag", f"{k}={v}")),
                *(["--event", args.event] if args.event else []), *(n for n, _ in items), "-o", out.name]
        plan = loose.plan(items, args.label, kernel=args.kernel, tags=dict(args.tag), argv=argv,
                          event=args.event)
    except loose.LooseError as exc:
        print(f"iolens bundle: nothing written; {len(exc.problems)} problem(s):", file=sys.stderr)
        for line in exc.problems:
            print(f"  {line}", file=sys.stderr)
        return 2
    width = max(len(f.name) for f in plan.files)
    for f in plan.files:
        where = "capture" if f.run is None else f"r{f.run:03d}"
        print(f"{f.name:<{width}}  {f.kind:<20} {where:<7}  {f.reason}")
    loose.write(plan, out)
    print(f"bundle: {out} ({plan.runs} run{'s' if plan.runs != 1 else ''}, {len(plan.files)} files, "
          f"{out.stat().st_size} bytes)")
    for n in plan.notes:
        print(f"note: {n}")
    return 0
