"""iolens-lab: the same capture on several kernels, each booted in a VM (docs/lab.md).

    iolens-lab run PLAN -o DIR      boot each kernel of the plan, capture, one bundle per kernel
    iolens-lab check PLAN           read the plan and say what it would do (nothing boots)
    iolens-lab prepare PLAN         fetch and build the plan's kernels (cached), nothing boots
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import List, Optional

from .build import BuildError
from .labplan import LabPlanError, load
from .runner import LabError, _prepare, check_plan, run_plan

EXIT_PLAN = 2
EXIT_FAILED = 3


def _say(text: str) -> None:
    sys.stderr.write(f"{time.strftime('%H:%M:%S')} {text}\n")
    sys.stderr.flush()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="iolens-lab", description=__doc__.split("\n\n")[0],
                                allow_abbrev=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    r = sub.add_parser("run", help="boot each kernel of PLAN in a VM and capture; one bundle per kernel in DIR",
                       allow_abbrev=False)
    r.add_argument("plan", metavar="PLAN")
    r.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="directory for the bundles (LABEL-KERNEL[-FS].iolens.tar.gz) and the guests' console logs "
                        "(LABEL-KERNEL.console.log)")
    r.add_argument("--kernel", action="append", default=[], metavar="NAME",
                   help="only this kernel of the plan (repeatable)")
    r.add_argument("--accel", choices=("auto", "kvm", "tcg"), help="override the plan's accel")
    r.add_argument("--echo", action="store_true", help="show the guest's output on the terminal too")
    c = sub.add_parser("check", help="read PLAN, check packages and tools; nothing boots", allow_abbrev=False)
    c.add_argument("plan", metavar="PLAN")
    b = sub.add_parser("prepare", help="fetch (Debian packages) and build (sources) the plan's kernels, "
                                       "into the lab's cache; nothing boots", allow_abbrev=False)
    b.add_argument("plan", metavar="PLAN")
    b.add_argument("--kernel", action="append", default=[], metavar="NAME")
    return p


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM stops the guest too, like Ctrl-C
    except ValueError:  # not the main thread
        pass
    try:
        plan = load(args.plan)
        if args.command == "check":
            check_plan(plan)
            for k in plan.kernels:
                _say(f"kernel {k.name}: {k.describe()}")
            _say(f"{len(plan.kernels)} kernel(s) x {len(plan.filesystems)} file system(s) "
                 f"({', '.join(plan.filesystems)}): {len(plan.kernels) * len(plan.filesystems)} bundle(s); "
                 f"the collector runs `{plan.command}` in each guest")
            return 0
        if args.command == "prepare":
            check_plan(plan)
            for k in plan.kernels:
                if not args.kernel or k.name in args.kernel:
                    prep = _prepare(plan, k, _say)
                    _say(f"kernel {k.name}: {prep.release} at {prep.image}")
            return 0
        results = run_plan(plan, args.output, _say, only=args.kernel or None, echo=args.echo,
                           force_accel=args.accel)
    except LabPlanError as exc:
        sys.stderr.write(f"iolens-lab: error: {exc}\n")
        return EXIT_PLAN
    except (LabError, BuildError) as exc:
        sys.stderr.write(f"iolens-lab: error: {exc}\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        sys.stderr.write("\niolens-lab: interrupted; finished bundles are in the output directory, a rerun "
                         "resumes\n")
        return 130
    failed = [r for r in results if r.status == "failed"]
    for r in results:
        line = f"{r.kernel:<16} {r.fs:<5} {r.status:<6} {r.bundle or r.why}"
        print(line)
    if failed:
        _say(f"{len(failed)} of {len(results)} capture(s) failed (console logs in {args.output}); "
             "a rerun retries them and keeps the others")
        return EXIT_FAILED
    return 0
