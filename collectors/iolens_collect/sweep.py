"""``iolens-collect sweep PLAN`` and ``iolens-collect cmd [--sweep NAME=v1,v2]... -- COMMAND``: the
command lines, and the drivers they hand to capture.run (which runs every point x repeat with the
same probes, progress and bundle writer as ``run``).

Both accept every option of ``run`` except the workload's (--fio, --fio-args): the options are
shared with run's parser (`share_options`), so a probe added to ``run`` is an option of ``sweep``
and ``cmd`` too. A plan's [probes] table is read as those same options (plan.probe_argv); the
command line wins over the plan.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import fio, fiologs, jobedit
from .capture import CaptureError, FioDriver, Options, Point
from .plan import SCHEDULER, Plan, PlanError, load_plan, parse_sweep_option, point_name

__all__ = ["add_parsers", "options", "share_options", "fio_driver", "SchedulerSwitch"]

# Options of `run` that sweep and cmd define themselves (or do not have).
_OWN = {"help", "label", "tag", "repeat", "fio_jobfile", "fio_args", "output"}
_NOT_FOR_CMD = {"allow_destructive", "keep_files", "fio_logs"}
PLAN_REL = "workload/plan.toml"

SWEEP_DESCRIPTION = """\
Run an fio job over every combination of the parameter values in PLAN (a TOML file,
docs/sweeps.md), each point --repeat times, and write one bundle with every run's
fio output and its parameters. The plan gives the base job, the parameters (any fio
option; `scheduler` sets the device's I/O scheduler), the repeats and the probes.

Progress and the time left go to standard error. The runs are staged in
BUNDLE.partial/ beside the bundle: interrupted, run the same command again to
resume where it stopped (--restart starts over). The safety rule of `run` applies
to every point.
"""

SWEEP_EPILOG = """\
example plan (dio.toml):
  label = "6.18-xfs"
  repeat = 3
  [fio]
  args = "--name=dio --directory=/mnt/test --size=1g --ioengine=libaio --direct=1 --runtime=10 --time_based"
  logs = 500          # bw/iops/lat logs averaged over 500 ms
  [sweep]
  rw = ["randread", "randwrite"]
  bs = ["4k", "16k"]
  iodepth = [1, 8, 32]

  iolens-collect sweep dio.toml -o 6.18-xfs.iolens.tar.gz
  iolens-collect sweep dio.toml --label 6.19-xfs --tag kernel=6.19 --stacks -o 6.19-xfs.iolens.tar.gz

exit status: 0 captured; 1 a run failed (its point's other repeats are skipped, the
other points run, the bundle holds every run); 2 bad input; 3 refused by the safety
rule; 130 interrupted (the runs made so far are kept for a resume).
"""

CMD_DESCRIPTION = """\
Run any command as the workload, --repeat times at each point of --sweep, and write
a bundle with, per run: wall time, user and system CPU time of the command and all
it waited for (wait4 rusage), /proc/diskstats before and after (read/write IOPS and
bandwidth of the device), and the command's output. Lines it prints as
`iolens-metric NAME VALUE [UNIT]` are its own figures (e.g. a rate in inodes/s).
{NAME} in the command is replaced by the value of the swept parameter NAME.
"""

CMD_EPILOG = """\
examples:
  iolens-collect cmd --label bulkstat-6.18 --repeat 3 --sweep n=64,256,1024,4096 \\
      --device loop0 -o bulkstat.iolens.tar.gz -- ./bulkstat.sh /mnt/xfs {n}
  iolens-collect cmd --label tar --device vda -o tar.iolens.tar.gz -- tar cf /dev/null /usr/share

exit status: 0 captured; 1 the command failed in some run (the bundle holds every
run); 2 bad input; 130 interrupted (the runs made so far are kept for a resume).
"""


def _tag(text: str) -> Tuple[str, str]:
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


def _sweep(text: str) -> Tuple[str, List[str]]:
    try:
        return parse_sweep_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def share_options(src: argparse.ArgumentParser, dst: argparse.ArgumentParser, skip: set) -> None:
    """Give `dst` the options of `src` (the same Action objects, as argparse's parents= does), in
    their argument groups and mutually exclusive groups, except the dests in `skip`."""
    default_titles = {None, "options", "optional arguments", "positional arguments"}
    where: Dict[int, Any] = {}
    for g in src._action_groups:  # noqa: SLF001 - argparse keeps no public API for this
        acts = [a for a in g._group_actions if a.dest not in skip and a.option_strings]
        if not acts:
            continue
        target = dst if g.title in default_titles else dst.add_argument_group(g.title, g.description)
        for a in acts:
            where[id(a)] = target
    for mg in src._mutually_exclusive_groups:
        acts = [a for a in mg._group_actions if a.dest not in skip]
        if len(acts) < 2:
            continue
        container = where.get(id(acts[0]), dst)
        new = container.add_mutually_exclusive_group(required=False)
        for a in acts:
            where[id(a)] = new
    for a in src._actions:
        if a.dest in skip or not a.option_strings or id(a) not in where:
            continue
        where[id(a)]._add_action(a)


_parsers: Dict[str, argparse.ArgumentParser] = {}


def add_parsers(sub, run_parser: argparse.ArgumentParser) -> None:
    s = sub.add_parser("sweep", help="run an fio job over a matrix of parameters (a plan file) and write a bundle",
                       description=SWEEP_DESCRIPTION, epilog=SWEEP_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    s.add_argument("plan", metavar="PLAN", help="the sweep plan, a TOML file (docs/sweeps.md)")
    s.add_argument("--label", metavar="NAME", help="name of this capture (default: the plan's label)")
    s.add_argument("--tag", action="append", type=_tag, default=[], metavar="K=V",
                   help="a comparison axis such as kernel=6.18; added to the plan's tags, wins over them "
                        "(default: the plan's tags)")
    s.add_argument("--repeat", type=_positive, metavar="N",
                   help="run each point N times (default: the plan's repeat, else 1)")
    s.add_argument("--restart", action="store_true",
                   help="throw away the runs of an interrupted sweep of this bundle and start over (default: "
                        "resume it)")
    s.add_argument("-o", "--output", required=True, metavar="BUNDLE",
                   help="bundle file to write, by convention NAME.iolens.tar.gz (required)")
    share_options(run_parser, s, _OWN)
    _parsers["sweep"] = s

    c = sub.add_parser("cmd", help="run any command (optionally over swept parameters) and write a bundle",
                       description=CMD_DESCRIPTION, epilog=CMD_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    c.add_argument("--label", required=True, metavar="NAME", help="name of this capture, 1-200 characters (required)")
    c.add_argument("--tag", action="append", type=_tag, default=[], metavar="K=V",
                   help="a comparison axis; repeat for more (default: no tags)")
    c.add_argument("--repeat", type=_positive, default=1, metavar="N",
                   help="run the command N times at each point (default: 1)")
    c.add_argument("--sweep", action="append", type=_sweep, default=[], metavar="NAME=v1,v2,...",
                   help="a swept parameter: {NAME} in the command takes each value; repeat for more (the "
                        "cartesian product runs, the last --sweep changing fastest) (default: no sweep)")
    c.add_argument("--order", choices=("points", "rounds"), default="points",
                   help="points: the repeats of a point one after the other; rounds: every point once, "
                        "then again (default: points)")
    c.add_argument("--device", action="append", default=[], metavar="DEV",
                   help="a block device whose /proc/diskstats counters make the run's IOPS and bandwidth "
                        "(loop0, /dev/vda, 7:0); repeat for more (default: the device of the current "
                        "directory's file system)")
    c.add_argument("--restart", action="store_true",
                   help="throw away the runs of an interrupted capture of this bundle and start over "
                        "(default: resume it)")
    c.add_argument("-o", "--output", required=True, metavar="BUNDLE",
                   help="bundle file to write, by convention NAME.iolens.tar.gz (required)")
    share_options(run_parser, c, _OWN | _NOT_FOR_CMD)
    c.add_argument("cmd_argv", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARG...]",
                   help="the command, after --; {NAME} is replaced by a swept value")
    _parsers["cmd"] = c


def _key_argv(argv: List[str]) -> List[str]:
    """The arguments that make a capture "the same" for a resume (not --force, --restart)."""
    return [a for a in argv if a not in ("--force", "--restart")]


def options(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: List[str],
            build: Callable[[argparse.ArgumentParser, argparse.Namespace, List[str]], Options],
            reparse: Callable[[List[str]], argparse.Namespace]) -> Options:
    """Options for capture.run from a `sweep` or `cmd` command line (CaptureError, exit 2, on bad input)."""
    if args.command == "cmd":
        return _cmd_options(parser, args, argv, build)
    try:
        plan = load_plan(args.plan)
    except PlanError as exc:
        raise CaptureError(str(exc)) from None
    sp = _parsers["sweep"]
    for opt in plan.probes:
        if not opt.startswith("--"):
            continue
        action = sp._option_string_actions.get(opt)  # noqa: SLF001
        if action is None or action.dest in _OWN or action.dest in ("restart",):
            known = sorted({o[2:].replace("-", "_") for a in sp._actions for o in a.option_strings  # noqa: SLF001
                            if o.startswith("--") and a.dest not in _OWN and a.dest != "restart"})
            raise CaptureError(f"plan {args.plan}: [probes] {opt[2:].replace('-', '_')} is not an option of "
                               f"iolens-collect run (known: {', '.join(known)})")
    if plan.probes:  # the plan's options first, the command line's after: the command line wins
        args = reparse(["sweep"] + plan.probes + argv[1:])
    opts = build(parser, args, argv)
    label = args.label or plan.label
    if not label:
        raise CaptureError(f"no label: give --label NAME or label = \"NAME\" in {args.plan}")
    opts.label = label
    opts.tags = {**plan.tags, **opts.tags}
    opts.repeat = args.repeat or plan.repeat or 1
    logs = getattr(args, "fio_logs", None) or plan.logs
    opts.fio_logs = logs
    try:
        opts.driver = fio_driver(plan, opts.repeat, logs)
    except (fio.FioError, PlanError) as exc:
        raise CaptureError(str(exc)) from None
    jobfile_sha = None
    if plan.jobfile:
        import hashlib

        with open(plan.jobfile, "rb") as f:
            jobfile_sha = hashlib.sha256(f.read()).hexdigest()
    opts.resume_key = {"command": "sweep", "argv": _key_argv(argv), "plan_sha256": plan.sha256,
                       "jobfile_sha256": jobfile_sha, "cwd": os.getcwd()}
    opts.restart = args.restart
    return opts


def _cmd_options(parser, args, argv, build) -> Options:
    command = list(args.cmd_argv)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise CaptureError("no command: iolens-collect cmd [options] -- COMMAND [ARG...]")
    names = [n for n, _ in args.sweep]
    dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if dup:
        raise CaptureError(f"--sweep {dup} given twice")
    joined = " ".join(command)
    for n in names:
        if "{" + n + "}" not in joined:
            raise CaptureError(f"--sweep {n}: the command does not use {{{n}}}, so every point would run the same "
                               "command")
    opts = build(parser, args, argv)
    params = [(n, list(v)) for n, v in args.sweep]
    points = _points(params)
    from .cmdrun import CmdDriver

    opts.driver = CmdDriver(command, points, args.device, order=args.order,
                            workload_extra=({"sweep": _sweep_info(params, args.order, opts.repeat, None)}
                                            if params else {}))
    opts.resume_key = {"command": "cmd", "argv": _key_argv(argv), "cwd": os.getcwd()}
    opts.restart = args.restart
    return opts


def _points(params: List[Tuple[str, List[Any]]]) -> List[Point]:
    plan = Plan(path="", data=b"", kind="cmd", params=params)
    return [Point(i, p, point_name(p)) for i, p in enumerate(plan.points())]


def _sweep_info(params: List[Tuple[str, List[Any]]], order: str, repeat: int, plan_rel: Optional[str]) -> dict:
    return {"parameters": [{"name": n, "values": list(v)} for n, v in params], "order": order, "repeat": repeat,
            "points": len(_points(params)), "plan": plan_rel}


def _base_workload(plan: Plan) -> fio.Workload:
    if plan.jobfile is not None:
        return fio.load_jobfile(plan.jobfile)
    if plan.fio_args is not None:
        return fio.parse_fio_args(plan.fio_args)
    job = dict(plan.job or {})
    name = str(job.pop("name"))
    lines = [f"; made by iolens-collect from [fio.job] of {os.path.basename(plan.path)}", f"[{name}]"]
    for k, v in job.items():
        lines.append(k if v is True else f"{k}={jobedit.option_text(v)}")
    text = "\n".join(lines) + "\n"
    sections = fio.parse_jobfile(text, source=f"plan {plan.path} [fio.job]")
    return fio.Workload(jobfile_bytes=text.encode(), sections=sections, jobs=fio.jobs_from_sections(sections))


def fio_driver(plan: Plan, repeat: int, logs: Optional[int]) -> FioDriver:
    if plan.kind == "cmd":
        from .cmdrun import CmdDriver

        points = _points(plan.params)
        extra = [(PLAN_REL, plan.data, "sweep-plan")]
        return CmdDriver(plan.command or [], points, plan.devices, order=plan.order, extra_files=extra,  # type: ignore[return-value]
                         workload_extra={"sweep": _sweep_info(plan.params, plan.order, repeat, PLAN_REL)})
    base = _base_workload(plan)
    if logs:
        base = fiologs.inject(base, logs)
    points: List[Point] = []
    extra_files: List[Tuple[str, bytes, str]] = [(PLAN_REL, plan.data, "sweep-plan")]
    for i, params in enumerate(plan.points()):
        fio_params = [(k, jobedit.option_text(v)) for k, v in params.items() if k != SCHEDULER]
        name = point_name(params)
        w = jobedit.add_job_options(base, lambda k, n, fp=fio_params: list(fp),
                                    f"iolens-collect sweep, point p{i:03d}: {name}") if fio_params else base
        rel = f"workload/points/p{i:03d}.fio"
        extra_files.append((rel, w.jobfile_bytes, "fio-jobfile"))
        points.append(Point(i, dict(params), name, w, rel))
    switch = SchedulerSwitch(plan.scheduler_device) if any(n == SCHEDULER for n, _ in plan.params) else None
    values = [v for n, vs in plan.params if n == SCHEDULER for v in vs]
    driver = FioDriver(points, extra_files=extra_files,
                       workload_extra={"sweep": _sweep_info(plan.params, plan.order, repeat, PLAN_REL)},
                       fio_logs=logs,
                       before_run=switch.before_run if switch else None,
                       on_host=(lambda h, say: switch.on_host(h, [str(v) for v in values], say)) if switch else None,
                       after_all=switch.restore if switch else None, base=base)
    driver.order = plan.order  # type: ignore[attr-defined]
    return driver


class SchedulerSwitch:
    """The `scheduler` parameter: the I/O scheduler of a block device, written to
    /sys/block/DEV/queue/scheduler before the first run of each point and set back at the end
    (also after a failure or an interrupt). A kernel setting, not data: needs root, like lock_stat."""

    def __init__(self, device: Optional[str], root: str = "/"):
        self.device = device
        self.root = root
        self.original: Optional[str] = None
        self.current: Optional[str] = None

    @property
    def path(self) -> str:
        return os.path.join(self.root, "sys/block", self.device or "?", "queue/scheduler")

    def on_host(self, host_facts: dict, values: List[str], say: Callable[[str], None]) -> List[str]:
        if self.device is None:
            for t in host_facts.get("targets") or []:
                dev = (t or {}).get("device") or {}
                name = dev.get("parent") or dev.get("name")
                if name:
                    self.device = name
                    break
        if self.device is None:
            raise CaptureError("the plan sweeps scheduler, but no block device is under the job's files: give it "
                               "with [scheduler] device = \"DEV\"")
        try:
            with open(self.path) as f:
                text = f.read().strip()
        except OSError as exc:
            raise CaptureError(f"scheduler: cannot read {self.path}: {exc.strerror or exc}") from None
        available = [w.strip("[]") for w in text.split()]
        active = next((w.strip("[]") for w in text.split() if w.startswith("[")), None)
        missing = [v for v in values if v not in available]
        if missing:
            raise CaptureError(f"scheduler: {self.device} has no {', '.join(missing)} (available: "
                               f"{', '.join(available)})")
        if not os.access(self.path, os.W_OK):
            raise CaptureError(f"scheduler: {self.path} is not writable (root is needed to switch the I/O scheduler)")
        self.original = self.current = active
        say(f"scheduler: {self.device} is set for each point ({', '.join(values)}); it is {active} now and is "
            "set back at the end")
        return [f"scheduler: the I/O scheduler of {self.device} was set per point (runs[].params.scheduler); "
                f"it was {active} before the capture and was set back at the end"]

    def _write(self, value: str) -> None:
        with open(self.path, "w") as f:
            f.write(value)
        self.current = value

    def before_run(self, point: Point, say: Callable[[str], None]) -> None:
        value = point.params.get(SCHEDULER)
        if value is None or str(value) == self.current:
            return
        try:
            self._write(str(value))
        except OSError as exc:
            raise CaptureError(f"scheduler: cannot set {self.device} to {value}: {exc.strerror or exc}") from None

    def restore(self, say: Callable[[str], None]) -> List[str]:
        if self.original is None or self.current == self.original:
            return []
        try:
            self._write(self.original)
        except OSError as exc:
            problem = f"scheduler: could not set {self.device} back to {self.original}: {exc.strerror or exc}"
            say(problem)
            return [problem]
        return []
