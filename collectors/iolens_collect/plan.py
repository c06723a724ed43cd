"""Sweep plans (``iolens-collect sweep PLAN``): a TOML file that names a base workload, the
parameters to sweep with their values, the repeats and the probes. The format, with examples, is
in docs/sweeps.md; this module reads it (tomlsub.py: a TOML subset that works on Python 3.9) and
checks every key before anything runs.

    label = "6.18-xfs"
    repeat = 3
    [fio]
    args = "--name=dio --directory=/mnt/test --size=1g --ioengine=libaio --direct=1 --runtime=10 --time_based"
    [sweep]
    rw = ["randread", "randwrite"]
    bs = ["4k", "16k"]
    iodepth = [1, 8, 32]

Points are the cartesian product of the swept values, in a stable order: parameters in the order
they are written, values in the order listed, the last parameter changing fastest (like nested
loops). ``order = "points"`` (default) runs the repeats of a point one after the other;
``order = "rounds"`` runs every point once, then again, ``repeat`` times (slow drifts of the
machine then spread over all points instead of landing on the last ones).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

from . import tomlsub

__all__ = ["PlanError", "Plan", "load_plan", "parse_plan", "point_name", "SCHEDULER", "probe_argv",
           "parse_sweep_option", "MAX_POINTS"]

Value = Union[str, int, float, bool]

#: The parameter that sets the I/O scheduler of the device (not a fio option: fio's own is
#: ``ioscheduler``, which it never sets back).
SCHEDULER = "scheduler"
MAX_POINTS = 10000
ORDERS = ("points", "rounds")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_TOP = ("label", "tags", "repeat", "order", "fio", "cmd", "sweep", "scheduler", "probes")
_FIO = ("jobfile", "args", "job", "logs")
_CMD = ("command", "devices")
# fio options a sweep cannot change: they decide how the collector runs fio, or name the job.
_FIO_FIXED = ("name", "output", "output-format", "output_format", "minimal", "status-interval",
              "status_interval", "write_bw_log", "write_iops_log", "write_lat_log", "log_avg_msec")


class PlanError(ValueError):
    """The plan cannot be used; the message names the file, and the line or key."""


@dataclass
class Plan:
    path: str  # as given ('-' never: a plan is a file, it is stored in the bundle)
    data: bytes  # the file, byte for byte (stored as workload/plan.toml)
    kind: str  # "fio" | "cmd"
    params: List[Tuple[str, List[Value]]]  # swept parameters in plan order
    label: Optional[str] = None
    tags: Dict[str, str] = field(default_factory=dict)
    repeat: Optional[int] = None
    order: str = "points"
    # fio: exactly one of these
    jobfile: Optional[str] = None  # path (relative paths are relative to the plan's folder)
    fio_args: Optional[str] = None
    job: Optional[Dict[str, Value]] = None  # [fio.job]: options of one job, "name" included
    logs: Optional[int] = None  # fio time-series logs averaged over this many ms (log_avg_msec)
    # cmd
    command: Optional[List[str]] = None
    devices: List[str] = field(default_factory=list)
    scheduler_device: Optional[str] = None
    probes: List[str] = field(default_factory=list)  # [probes] as `run` options: ["--stacks", "--freq", "199"]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def points(self) -> List[Dict[str, Value]]:
        """Every combination of the swept values, in the plan's order (last parameter fastest)."""
        if not self.params:
            return [{}]
        names = [n for n, _ in self.params]
        return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in self.params))]

    def schedule(self, repeat: int) -> List[Tuple[int, int]]:
        """(point index, repeat index) of every run, in the order they run."""
        n = len(self.points())
        if self.order == "rounds":
            return [(p, r) for r in range(repeat) for p in range(n)]
        return [(p, r) for p in range(n) for r in range(repeat)]


def point_name(params: Dict[str, Value]) -> str:
    """'rw=randread bs=4k iodepth=1' ('all' for the point of a capture that sweeps nothing)."""
    return " ".join(f"{k}={format_value(v)}" for k, v in params.items()) or "all"


def format_value(v: Value) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _where(source: str, key: str) -> str:
    return f"plan {source}: {key}"


def _scalar(source: str, key: str, v: object) -> Value:
    if isinstance(v, (str, bool, int, float)):
        return v
    raise PlanError(f"{_where(source, key)}: expected a string, number or true/false, not {type(v).__name__}")


def parse_plan(text: str, source: str = "plan.toml", data: Optional[bytes] = None) -> Plan:
    """Check a plan's text (everything except the files it names). Raises PlanError."""
    try:
        doc = tomlsub.loads(text)
    except tomlsub.TomlError as exc:
        raise PlanError(f"plan {source}, {exc} (the TOML iolens reads: docs/sweeps.md)") from None
    unknown = [k for k in doc if k not in _TOP]
    if unknown:
        raise PlanError(f"plan {source}: unknown key {unknown[0]!r} (known: {', '.join(_TOP)})")
    if ("fio" in doc) == ("cmd" in doc):
        raise PlanError(f"plan {source}: give the workload as a [fio] table or a [cmd] table (one of them)")
    plan = Plan(path=source, data=data if data is not None else text.encode("utf-8"),
                kind="fio" if "fio" in doc else "cmd", params=[])

    label = doc.get("label")
    if label is not None:
        if not isinstance(label, str) or not 1 <= len(label) <= 200 or not label.strip():
            raise PlanError(f"{_where(source, 'label')}: expected a string of 1-200 characters")
        plan.label = label
    tags = doc.get("tags", {})
    if not isinstance(tags, dict):
        raise PlanError(f"{_where(source, 'tags')}: expected a table, e.g. tags = {{ fs = \"xfs\" }}")
    for k, v in tags.items():
        if isinstance(v, dict) or isinstance(v, list):
            raise PlanError(f"{_where(source, 'tags.' + k)}: expected a string")
        plan.tags[k] = format_value(v)
    if "repeat" in doc:
        rep = doc["repeat"]
        if isinstance(rep, bool) or not isinstance(rep, int) or rep < 1:
            raise PlanError(f"{_where(source, 'repeat')}: expected a whole number >= 1")
        plan.repeat = rep
    order = doc.get("order", "points")
    if order not in ORDERS:
        raise PlanError(f"{_where(source, 'order')}: expected \"points\" or \"rounds\", not {order!r}")
    plan.order = order

    if plan.kind == "fio":
        _fio_table(plan, doc["fio"], source)
    else:
        _cmd_table(plan, doc["cmd"], source)

    sweep = doc.get("sweep", {})
    if not isinstance(sweep, dict):
        raise PlanError(f"{_where(source, 'sweep')}: expected a table of parameter = [values]")
    for name, values in sweep.items():
        key = f"sweep.{name}"
        if not _NAME.match(name):
            raise PlanError(f"{_where(source, key)}: a parameter name is letters, digits and '_'")
        if isinstance(values, dict):
            raise PlanError(f"{_where(source, key)}: expected a list of values, e.g. {name} = [1, 8, 32]")
        if not isinstance(values, list):
            values = [values]
        if not values:
            raise PlanError(f"{_where(source, key)}: the list of values is empty")
        vals = [_scalar(source, key, v) for v in values]
        shown = [format_value(v) for v in vals]
        dup = next((s for i, s in enumerate(shown) if s in shown[:i]), None)
        if dup is not None:
            raise PlanError(f"{_where(source, key)}: value {dup} is listed twice")
        if plan.kind == "fio" and name in _FIO_FIXED:
            raise PlanError(f"{_where(source, key)}: fio option {name} cannot be swept (the collector sets it, "
                            "or it names the job)")
        plan.params.append((name, vals))
    if plan.kind == "cmd":
        text_cmd = " ".join(plan.command or [])
        for name, _ in plan.params:
            if "{" + name + "}" not in text_cmd:
                raise PlanError(f"{_where(source, 'sweep.' + name)}: the command does not use {{{name}}}, "
                                "so every point would run the same command")
    n = 1
    for _, vals in plan.params:
        n *= len(vals)
    if n > MAX_POINTS:
        raise PlanError(f"plan {source}: {n} points is more than {MAX_POINTS}; sweep fewer values")

    sched = doc.get("scheduler", {})
    if not isinstance(sched, dict) or any(k != "device" for k in sched):
        raise PlanError(f"{_where(source, 'scheduler')}: expected a table with one key, device = \"loop0\"")
    if "device" in sched:
        if not isinstance(sched["device"], str) or not sched["device"]:
            raise PlanError(f"{_where(source, 'scheduler.device')}: expected a device name such as \"loop0\"")
        plan.scheduler_device = sched["device"]
    if plan.scheduler_device and not any(n == SCHEDULER for n, _ in plan.params):
        raise PlanError(f"{_where(source, 'scheduler.device')}: given, but [sweep] has no {SCHEDULER} = [...]")

    probes = doc.get("probes", {})
    if not isinstance(probes, dict):
        raise PlanError(f"{_where(source, 'probes')}: expected a table of run options, e.g. stacks = true")
    plan.probes = probe_argv(probes, source)
    return plan


def probe_argv(probes: Dict[str, object], source: str) -> List[str]:
    """[probes] as the command-line options of `run`: `stacks = true` -> --stacks, `freq = 199` ->
    --freq 199, `lock_stat = false` -> nothing. The option parser of `run` checks them."""
    out: List[str] = []
    for key, value in probes.items():
        opt = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            if value:
                out.append(opt)
        elif isinstance(value, (str, int, float)):
            out += [opt, format_value(value)]
        else:
            raise PlanError(f"{_where(source, 'probes.' + key)}: expected true/false, a number or a string")
    return out


def _fio_table(plan: Plan, fio: object, source: str) -> None:
    if not isinstance(fio, dict):
        raise PlanError(f"{_where(source, 'fio')}: expected a table ([fio])")
    unknown = [k for k in fio if k not in _FIO]
    if unknown:
        raise PlanError(f"{_where(source, 'fio.' + unknown[0])}: unknown key (known: {', '.join(_FIO)})")
    given = [k for k in ("jobfile", "args", "job") if k in fio]
    if len(given) != 1:
        raise PlanError(f"{_where(source, 'fio')}: give the base job as one of jobfile = \"job.fio\", "
                        "args = \"--name=... \" or a [fio.job] table" + (f" (got {', '.join(given)})" if given else ""))
    if "jobfile" in fio:
        if not isinstance(fio["jobfile"], str) or not fio["jobfile"]:
            raise PlanError(f"{_where(source, 'fio.jobfile')}: expected a file name")
        plan.jobfile = fio["jobfile"]
    elif "args" in fio:
        args = fio["args"]
        if isinstance(args, list) and all(isinstance(a, str) for a in args):
            args = shlex.join(args)
        if not isinstance(args, str) or not args.strip():
            raise PlanError(f"{_where(source, 'fio.args')}: expected fio options as one string or a list of strings")
        plan.fio_args = args
    else:
        job = fio["job"]
        if not isinstance(job, dict) or not isinstance(job.get("name"), str) or not job.get("name"):
            raise PlanError(f"{_where(source, 'fio.job')}: expected a table of fio options with name = \"JOB\"")
        plan.job = {}
        for k, v in job.items():
            plan.job[k] = _scalar(source, f"fio.job.{k}", v)
    if "logs" in fio:
        logs = fio["logs"]
        if isinstance(logs, bool) or not isinstance(logs, int) or logs < 1:
            raise PlanError(f"{_where(source, 'fio.logs')}: expected the averaging interval in ms (fio's "
                            "log_avg_msec), e.g. logs = 500")
        plan.logs = logs


def _cmd_table(plan: Plan, cmd: object, source: str) -> None:
    if not isinstance(cmd, dict):
        raise PlanError(f"{_where(source, 'cmd')}: expected a table ([cmd])")
    unknown = [k for k in cmd if k not in _CMD]
    if unknown:
        raise PlanError(f"{_where(source, 'cmd.' + unknown[0])}: unknown key (known: {', '.join(_CMD)})")
    command = cmd.get("command")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:
            raise PlanError(f"{_where(source, 'cmd.command')}: cannot split it like a shell: {exc}") from None
    if not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command):
        raise PlanError(f"{_where(source, 'cmd.command')}: expected the command as a list of strings, "
                        "e.g. command = [\"sh\", \"-c\", \"...\"]")
    plan.command = command
    devices = cmd.get("devices", [])
    if isinstance(devices, str):
        devices = [devices]
    if not isinstance(devices, list) or not all(isinstance(d, str) and d for d in devices):
        raise PlanError(f"{_where(source, 'cmd.devices')}: expected a list of device names, e.g. [\"loop0\"]")
    plan.devices = devices


def load_plan(path: str) -> Plan:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise PlanError(f"cannot read plan {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PlanError(f"plan {path} is not UTF-8 text") from None
    plan = parse_plan(text, source=path, data=data)
    if plan.jobfile is not None and not os.path.isabs(plan.jobfile):
        plan.jobfile = os.path.join(os.path.dirname(os.path.abspath(path)), plan.jobfile)
    return plan


def parse_sweep_option(text: str) -> Tuple[str, List[str]]:
    """`--sweep NAME=v1,v2,...` of `iolens-collect cmd`."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name):
        raise ValueError(f"expected NAME=v1,v2,... with NAME of letters, digits and '_', got {text!r}")
    vals = [v for v in values.split(",")]
    if not values or any(v == "" for v in vals):
        raise ValueError(f"--sweep {name}: expected values separated by commas, got {values!r}")
    dup = next((v for i, v in enumerate(vals) if v in vals[:i]), None)
    if dup is not None:
        raise ValueError(f"--sweep {name}: value {dup} is listed twice")
    return name, vals
