"""Command line of iolens-collect (argparse); the work is done in capture.py."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import List, Optional

from . import __version__
from .capture import EXIT_INTERRUPTED, CaptureError, Options, run
from .probes import DEFAULT_MAX_MB, Settings, add_options

RUN_DESCRIPTION = """\
Run an fio workload on this host, --repeat times, and write a capture bundle
(docs/bundle-format.md) with fio's JSON output, the job file and host facts
(kernel, CPU, memory, cgroup, and the block device and file system under each
file fio uses).

Safety: the collector never lets fio write to a block device or to a file that
exists before the capture, unless --allow-destructive is given. Files fio
creates are removed at the end unless --keep-files.
"""

RUN_EPILOG = """\
examples:
  iolens-collect run --label ext4-4k --tag fs=ext4 --repeat 3 --fio job.fio -o ext4.iolens.tar.gz
  iolens-collect run --label xfs-locks --repeat 3 --lock-stat --fio job.fio -o xfs.iolens.tar.gz
  iolens-collect run --label xfs-stacks --stacks --freq 199 --fio job.fio -o xfs-stacks.iolens.tar.gz
  iolens-collect run --label pinned-w1000 --sched --cpus 1 --cgroup iolens-w1000 --cpu-weight 1000 \\
      --fio job.fio -o pinned-w1000.iolens.tar.gz
  iolens-collect run --label loop0-blk --block loop0 --fio job.fio -o loop0.iolens.tar.gz
  iolens-collect run --label quick --fio-args='--name=w --rw=randwrite --bs=4k --size=64m \\
      --filename=/mnt/test/w.dat' -o quick.iolens.tar.gz

exit status: 0 captured; 1 fio failed (the bundle is still written when a run
produced JSON); 2 bad input; 3 refused by the safety rule; 130 interrupted.
"""


def _tag(text: str):
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected K=V, got {text!r}")
    return key.strip(), value


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iolens-collect",
        description="Capture fio runs and host facts into an iolens bundle.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"iolens-collect {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    r = sub.add_parser(
        "run",
        help="run an fio workload and write a bundle",
        description=RUN_DESCRIPTION,
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    r.add_argument("--label", required=True, metavar="NAME",
                   help="name of this capture, 1-200 characters (required)")
    r.add_argument("--tag", action="append", type=_tag, default=[], metavar="K=V",
                   help="a comparison axis such as fs=ext4; repeat for more (default: no tags)")
    r.add_argument("--repeat", type=_positive, default=1, metavar="N",
                   help="run the workload N times; fio failing stops the repeats (default: 1)")
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--fio", metavar="JOBFILE", dest="fio_jobfile",
                     help="fio job file to run ('-' reads standard input); stored in the bundle "
                          "as workload/job.fio (no default: one of --fio/--fio-args is required)")
    src.add_argument("--fio-args", metavar="'ARGS'",
                     help="fio options as one string, split like a shell, e.g. "
                          "--fio-args '--name=w --rw=write --size=64m'; an equivalent job file "
                          "is stored as workload/job.fio (no default: one of --fio/--fio-args is "
                          "required)")
    r.add_argument("--allow-destructive", action="store_true",
                   help="let fio write to block devices and to files that already exist "
                        "(default: off, such targets are refused)")
    r.add_argument("--keep-files", action="store_true",
                   help="keep the data files fio created (default: off, they are removed)")
    r.add_argument("--force", action="store_true",
                   help="overwrite the bundle file if it exists (default: off, refuse)")
    lock = r.add_mutually_exclusive_group()
    lock.add_argument("--lock-stat", action="store_true",
                      help="record the kernel's lock contention statistics of each repeat: turn "
                           "/proc/sys/kernel/lock_stat on, clear /proc/lock_stat before each repeat "
                           "(system-wide) and keep it after, set it back at the end; needs root and a "
                           "kernel with CONFIG_LOCK_STAT, else a note says why and the capture goes on "
                           "(default: off)")
    lock.add_argument("--lock-stat-snapshot", metavar="FILE",
                      help="attach a /proc/lock_stat dump taken by hand to the capture as a whole "
                           "(default: none)")
    g = r.add_argument_group(
        "perf probes (per repeat, all CPUs; perf 5.10+, root or perf_event_paranoid <= -1; "
        "what cannot be captured is noted in the manifest and the capture goes on)")
    add_options(g, _positive)  # every probe of probes.PROBES that has its own module adds its options
    g.add_argument("--probe-max-mb", type=_positive, metavar="MB",
                   help=f"cap on each perf recording per run: perf record --max-size (default: "
                        f"{DEFAULT_MAX_MB})")
    w = r.add_argument_group("workload placement")
    w.add_argument("--cgroup", metavar="NAME",
                   help="run fio in a new cgroup NAME at the root of the cpu hierarchy (v2: "
                        "/sys/fs/cgroup/NAME; v1: /sys/fs/cgroup/cpu/NAME), created before the first "
                        "repeat and removed at the end; an existing NAME is refused; needs root "
                        "(default: fio runs in the collector's cgroup)")
    w.add_argument("--cpu-weight", type=_positive, metavar="N",
                   help="cpu.weight of --cgroup, 1-10000 (on cgroup v1: cpu.shares = N x 1024 / 100) "
                        "(default: the kernel's, 100 / 1024 shares)")
    w.add_argument("--cpus", metavar="LIST",
                   help="CPUs fio may run on, like taskset -c: 1, 0-3, 0,2 (default: those of the "
                        "collector)")
    r.add_argument("--fio-logs", type=_positive, metavar="MSEC",
                   help="keep fio's bandwidth, IOPS and latency logs over time, averaged over MSEC ms "
                        "(fio's log_avg_msec), as runs/rNNN/logs/*.log, kind fio-log (default: off)")
    k = r.add_argument_group("the kernel")
    k.add_argument("--kernel-config", metavar="FILE",
                   help="the running kernel's .config (/proc/config.gz, /boot/config-RELEASE; gzip is "
                        "read): kept whole as kernel/config, kind kernel-config; the options that decide "
                        "whether captures compare (preemption, HZ, LOCK_STAT, debug options) go to "
                        "host.kernel.config (default: none)")
    k.add_argument("--lab-facts", metavar="FILE",
                   help="facts of the VM the capture runs in, as JSON (written by iolens-lab: kernel "
                        "source, accelerator, qemu command line): kept as host.lab (default: none)")
    r.add_argument("-o", "--output", required=True, metavar="BUNDLE",
                   help="bundle file to write, by convention NAME.iolens.tar.gz (required)")
    from . import sweep  # sweep and cmd: their own options plus those of run above (sweep.py)

    sweep.add_parsers(sub, r)
    return parser


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _attach_fio_args(argv: List[str]) -> List[str]:
    """`--fio-args '--bs=4k'` -> `--fio-args=--bs=4k`: argparse would take a lone '--bs=4k' for an
    option of ours (a value with a space in it is already accepted as it is)."""
    out: List[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":
            out.extend(argv[i:])
            break
        if argv[i] == "--fio-args" and i + 1 < len(argv):
            out.append("--fio-args=" + argv[i + 1])
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def options_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: List[str]) -> Options:
    """Options of `run`, `sweep` and `cmd` (sweep.py completes the last two: plan, driver)."""
    tags = {}
    for key, value in args.tag:
        if key in tags:
            parser.error(f"--tag {key} given twice")
        tags[key] = value
    return Options(
        label=args.label or "", output=args.output, tags=tags, repeat=args.repeat or 1,
        fio_jobfile=getattr(args, "fio_jobfile", None), fio_args=getattr(args, "fio_args", None),
        allow_destructive=getattr(args, "allow_destructive", False), keep_files=getattr(args, "keep_files", False),
        force=args.force, argv=argv,
        lock_stat=args.lock_stat, lock_stat_snapshot=args.lock_stat_snapshot,
        probes=Settings(values=vars(args), cgroup=args.cgroup, cpu_weight=args.cpu_weight, cpus=args.cpus,
                        probe_max_mb=args.probe_max_mb),
        fio_logs=getattr(args, "fio_logs", None),
        kernel_config=getattr(args, "kernel_config", None), lab_facts=getattr(args, "lab_facts", None),
    )


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(_attach_fio_args(argv))  # exits 2 on bad usage, 0 for --help/--version
    if args.command in ("sweep", "cmd"):
        from . import sweep

        try:
            opts = sweep.options(parser, args, argv, options_from_args,
                                 lambda again: parser.parse_args(_attach_fio_args(again)))
        except CaptureError as exc:
            sys.stderr.write(f"iolens-collect: error: {exc}\n")
            return exc.exit_code
    else:
        opts = options_from_args(parser, args, argv)
    # SIGTERM behaves like Ctrl-C: fio is stopped and its files are removed.
    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    except ValueError:  # not the main thread
        pass
    try:
        return run(opts)
    except CaptureError as exc:
        sys.stderr.write(f"iolens-collect: error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        what = "the command stopped" if args.command == "cmd" else "fio stopped, its files removed"
        sys.stderr.write(f"\niolens-collect: interrupted; {what}, no bundle written\n")
        return EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
