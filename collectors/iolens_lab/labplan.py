"""Lab plans (``iolens-lab run PLAN``): which kernels, which guest, which disk, which capture.

The plan is the TOML subset the collector's sweeps read (iolens_collect/tomlsub.py); docs/lab.md
has the reference and examples. Every key is checked before anything boots, and an error names
the plan's line::

    label = "deb-6.1-vs-6.12"
    timeout = 900                  # seconds for one guest (boot + capture), then it is stopped
    accel = "auto"                 # auto (KVM when it works, else TCG), kvm, tcg

    [guest]
    cpus = 2
    memory = "2G"
    cmdline = ["mitigations=off"]  # added to every kernel's command line

    [disk]                         # an emulated NVMe disk, a fresh sparse image for each kernel
    size = "4G"
    fs = ["xfs", "ext4"]           # one capture per file system ("raw": no file system)
    mkfs = { xfs = "-m reflink=0", ext4 = "-E lazy_itable_init=0" }
    mount = { xfs = "noatime" }

    [collect]                      # the collector, run in the guest on the disk
    command = "sweep"              # run, sweep or cmd
    plan = "sweep.toml"            # sweep: the sweep plan ({dir}, {dev} are replaced in it)
    args = ["--block", "{dev}", "--sched", "--stacks"]

    [kernels.deb61]                # one table per kernel, in this order
    package = "linux-image-6.1.0-56-amd64-unsigned"
    [kernels.lockstat]
    build = "debian:linux-source-6.12"
    fragment = ["CONFIG_LOCK_STAT=y"]
    patches = ["0001-x.patch"]
    [kernels.mine]
    image = "~/linux/arch/x86/boot/bzImage"
    config = "~/linux/.config"
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _HERE not in sys.path:  # python3 -m iolens_lab from collectors/: the collector is beside it
    sys.path.insert(0, _HERE)

from iolens_collect import tomlsub  # noqa: E402
from iolens_collect.plan import PlanError as SweepPlanError  # noqa: E402

__all__ = ["LabPlanError", "LabPlan", "Kernel", "load", "parse", "FILESYSTEMS", "MIN_DISK"]

FILESYSTEMS = ("xfs", "ext4", "raw")
MIN_DISK = {"xfs": 300 << 20, "ext4": 64 << 20, "raw": 16 << 20}
COMMANDS = ("run", "sweep", "cmd")
ACCELS = ("auto", "kvm", "tcg")
_TOP = ("label", "timeout", "accel", "tags", "guest", "disk", "collect", "kernels")
_GUEST = ("cpus", "memory", "cmdline", "qemu", "setup", "background")
_DISK = ("size", "fs", "mkfs", "mount", "serial", "image_dir")
_COLLECT = ("command", "args", "plan", "fio", "lock_stat")
_KERNEL_KINDS = ("package", "image", "build")
_KERNEL = {"package": ("package", "cmdline", "label"),
           "image": ("image", "config", "modules", "cmdline", "label"),
           "build": ("build", "ref", "fragment", "fragment_file", "patches", "localversion", "jobs", "cmdline",
                     "label")}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$", re.I)
_DEB_KERNEL = re.compile(r"^linux-image-[0-9][A-Za-z0-9.+~-]*$")
# Options the collector sets itself in the guest: a plan must not give them.
_COLLECT_FIXED = ("-o", "--output", "--label", "--lab-facts", "--kernel-config", "--force")


class LabPlanError(ValueError):
    """The plan cannot be used; the message names the file and line."""


@dataclass
class Kernel:
    name: str
    kind: str  # package | image | build
    spec: Dict[str, Any]  # the table as written (paths made absolute)
    line: int  # the [kernels.NAME] line
    cmdline: List[str] = field(default_factory=list)
    label: str = ""

    def describe(self) -> str:
        if self.kind == "package":
            return f"Debian package {self.spec['package']}"
        if self.kind == "image":
            return f"image {self.spec['image']}"
        p = self.spec.get("patches") or []
        return f"build of {self.spec['build']}" + (f" + {len(p)} patch(es)" if p else "")


@dataclass
class LabPlan:
    path: str
    text: str
    label: str
    timeout: float
    accel: str
    tags: Dict[str, str]
    cpus: int
    memory: str
    cmdline: List[str]
    qemu: List[str]
    setup: List[str]
    background: List[str]
    disk_size: int
    filesystems: List[str]
    mkfs: Dict[str, str]
    mount: Dict[str, str]
    serial: str
    image_dir: str
    command: str
    args: List[str]
    sweep_plan: Optional[str]  # absolute path
    sweep_text: Optional[str]
    lock_stat: bool
    kernels: List[Kernel]

    def key(self, kernel: Kernel, fs: str) -> str:
        """What decides one bundle's measurements; a rerun that finds a bundle with the same key keeps it.

        In it: the guest, the disk, the collector's command and arguments (and the sweep plan's
        text), the accelerator asked for, and the kernel by what it is: a package by name, an image
        by its bytes, a build by its source, ref, fragment (lines, the fragment file's read in),
        patches (their bytes, in order) and local version. Left out: what only names or files the
        bundle (the plan's and kernel's labels, its tags), the timeout, the build's job count, where
        the disk image goes, and the plan's own directory (paths are not in it): a plan copied with its
        patches to another checkout, or whose tags changed, keeps its bundles (the runner brings a
        kept bundle's label and tags up to date).
        """
        ident: Dict[str, Any] = {"kind": kernel.kind, "cmdline": kernel.cmdline}
        spec = kernel.spec
        if kernel.kind == "package":
            ident["package"] = spec["package"]
        elif kernel.kind == "image":
            ident["image_sha256"] = _file_sha256(spec["image"])
            ident["config_sha256"] = _file_sha256(spec["config"]) if spec.get("config") else None
        else:
            src = spec["build"]
            if src.startswith("debian:"):
                source = src
            elif os.path.isdir(src):  # a git tree: the commit its ref names
                r = subprocess.run(["git", "-C", src, "rev-parse", "--verify", (spec.get("ref") or "HEAD") + "^{commit}"],
                                   capture_output=True, text=True)
                source = "git:" + (r.stdout.strip() if r.returncode == 0 else os.path.basename(src.rstrip(os.sep)))
            else:
                source = "tarball:" + _file_sha256(src)
            ident.update({
                "build": source,
                "ref": spec.get("ref", ""), "fragment": spec["fragment"], "localversion": spec["localversion"],
                "patches": [_file_sha256(p) for p in spec.get("patches", [])],
            })
        parts = {
            "guest": [self.cpus, self.memory, self.cmdline, self.qemu, self.setup, self.background],
            "disk": [self.disk_size, fs, self.mkfs.get(fs, ""), self.mount.get(fs, ""), self.serial],
            "collect": [self.command, self.args, self.sweep_text, self.lock_stat],
            "kernel": ident,
            "accel": self.accel,
        }
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


    def key_v1(self, kernel: Kernel, fs: str) -> str:
        """The key of the lab's first version (2026-11-25), which also hashed the labels, the tags and
        the plan's paths: a bundle made then with this very plan entry is recognised by it (and
        given the key above)."""
        parts = {
            "guest": [self.cpus, self.memory, self.cmdline, self.qemu, self.setup, self.background],
            "disk": [self.disk_size, fs, self.mkfs.get(fs, ""), self.mount.get(fs, ""), self.serial],
            "collect": [self.command, self.args, self.sweep_text, self.lock_stat, self.label, self.tags],
            "kernel": [kernel.kind, kernel.spec, kernel.cmdline, kernel.label],
            "accel": self.accel,
        }
        if kernel.kind == "build":
            parts["patches"] = [_file_sha256(p) for p in kernel.spec.get("patches", [])]
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class _Lines:
    """Line numbers of tables and keys in the plan's text (the TOML reader gives values only)."""

    def __init__(self, text: str):
        self.tables: Dict[str, int] = {}
        self.keys: Dict[Tuple[str, str], int] = {}
        table = ""
        for n, raw in enumerate(text.splitlines(), 1):
            s = raw.strip()
            m = re.match(r"^\[\s*([^\]]+?)\s*\]", s)
            if m and not s.startswith("[["):
                table = ".".join(p.strip().strip('"\'') for p in m.group(1).split("."))
                self.tables.setdefault(table, n)
                continue
            m = re.match(r"""^("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""", s)
            if m:
                key = m.group(1).strip('"\'')
                self.keys.setdefault((table, key), n)

    def of(self, table: str, key: Optional[str] = None) -> int:
        if key is not None and (table, key) in self.keys:
            return self.keys[(table, key)]
        if table in self.tables:
            return self.tables[table]
        # a dotted key written at the top ("disk.size = ...") or an inline table
        head, _, last = table.rpartition(".")
        if key is None and (head, last) in self.keys:
            return self.keys[(head, last)]
        return 1


def parse_size(text: Any) -> Optional[int]:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        return None
    m = _SIZE.match(text.strip())
    if not m:
        return None
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    return int(float(m.group(1)) * mult)


def load(path: str) -> LabPlan:
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise LabPlanError(f"plan {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise LabPlanError(f"plan {path}: not UTF-8 text") from None
    return parse(text, path)


def parse(text: str, path: str) -> LabPlan:
    base = os.path.dirname(os.path.abspath(path))
    lines = _Lines(text)

    def err(table: str, key: Optional[str], message: str) -> LabPlanError:
        return LabPlanError(f"plan {path}, line {lines.of(table, key)}: {message}")

    try:
        doc = tomlsub.loads(text)
    except tomlsub.TomlError as exc:
        raise LabPlanError(f"plan {path}, {exc} (the TOML the lab reads: docs/lab.md)") from None

    def check_keys(table: str, value: Any, known: Tuple[str, ...]) -> Dict[str, Any]:
        if not isinstance(value, dict):
            raise err(table, None, f"[{table}] must be a table")
        for k in value:
            if k not in known:
                raise err(table, k, f"unknown option {table + '.' if table else ''}{k} "
                                    f"(known{' in [' + table + ']' if table else ''}: {', '.join(known)})")
        return value

    def string(table: str, key: str, v: Any) -> str:
        if not isinstance(v, str) or not v:
            raise err(table, key, f"{key} must be a non-empty string")
        return v

    def strings(table: str, key: str, v: Any) -> List[str]:
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise err(table, key, f"{key} must be a string or a list of strings")
        return list(v)

    def path_of(table: str, key: str, v: Any, must_exist: bool = True, is_dir: bool = False) -> str:
        p = os.path.join(base, os.path.expanduser(string(table, key, v)))
        if must_exist and not (os.path.isdir(p) if is_dir else os.path.exists(p)):
            raise err(table, key, f"{key}: no such {'directory' if is_dir else 'file'}: {v}")
        return os.path.abspath(p)

    def number(table: str, key: str, v: Any, lo: float, hi: float, integer: bool = True) -> float:
        ok = isinstance(v, int) if integer else isinstance(v, (int, float))
        if isinstance(v, bool) or not ok or not lo <= v <= hi:
            raise err(table, key, f"{key} must be {'an integer' if integer else 'a number'} from {lo:g} to {hi:g}")
        return v

    check_keys("", doc, _TOP)
    label = string("", "label", doc.get("label", os.path.splitext(os.path.basename(path))[0]))
    if len(label) > 150:
        raise err("", "label", "label is longer than 150 characters")
    timeout = float(number("", "timeout", doc.get("timeout", 1800), 30, 86400, integer=False))
    accel = doc.get("accel", "auto")
    if accel not in ACCELS:
        raise err("", "accel", f"accel must be one of {', '.join(ACCELS)}, not {accel!r}")
    tags = doc.get("tags", {})
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise err("tags", None, "tags must be a table of strings")

    guest = check_keys("guest", doc.get("guest", {}), _GUEST)
    cpus = int(number("guest", "cpus", guest.get("cpus", 2), 1, 64))
    memory = string("guest", "memory", guest.get("memory", "2G"))
    if parse_size(memory) is None or parse_size(memory) < (256 << 20):
        raise err("guest", "memory", f"memory {memory!r}: give a size of at least 256M, like \"2G\"")
    cmdline = strings("guest", "cmdline", guest.get("cmdline", []))
    qemu = strings("guest", "qemu", guest.get("qemu", []))
    setup = strings("guest", "setup", guest.get("setup", []))
    background = strings("guest", "background", guest.get("background", []))

    disk = check_keys("disk", doc.get("disk", {}), _DISK)
    fss = strings("disk", "fs", disk.get("fs", "xfs"))
    for fs in fss:
        if fs not in FILESYSTEMS:
            raise err("disk", "fs", f"fs {fs!r} is not one of {', '.join(FILESYSTEMS)}")
    if len(set(fss)) != len(fss):
        raise err("disk", "fs", "a file system is listed twice")
    size = parse_size(disk.get("size", "4G"))
    if size is None:
        raise err("disk", "size", f"size {disk.get('size')!r}: give a size like \"4G\" or \"512M\"")
    for fs in fss:
        if size < MIN_DISK[fs]:
            raise err("disk", "size", f"the disk ({size >> 20} MiB) is too small for {fs}: at least "
                                      f"{MIN_DISK[fs] >> 20} MiB")
    if size > (1 << 40):
        raise err("disk", "size", "the disk is larger than 1 TiB")
    per_fs: Dict[str, Dict[str, str]] = {}
    for key in ("mkfs", "mount"):
        v = disk.get(key, {})
        if isinstance(v, str):
            v = {fs: v for fs in fss}
        if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
            raise err("disk", key, f"{key} must be a string (for every file system) or a table fs = \"options\"")
        for fs in v:
            if fs not in FILESYSTEMS or fs == "raw":
                raise err("disk", key, f"{key}: {fs!r} is not a file system of this plan ({', '.join(fss)})")
        per_fs[key] = dict(v)
    serial = string("disk", "serial", disk.get("serial", "iolens-lab"))
    if not re.match(r"^[A-Za-z0-9_-]{1,20}$", serial):
        raise err("disk", "serial", "serial: 1-20 characters of A-Z a-z 0-9 _ -")
    image_dir = path_of("disk", "image_dir", disk["image_dir"], is_dir=True) if "image_dir" in disk else ""

    if "collect" not in doc:
        raise err("", None, "the plan has no [collect] table (what the collector runs in the guest)")
    col = check_keys("collect", doc["collect"], _COLLECT)
    command = col.get("command", "run")
    if command not in COMMANDS:
        raise err("collect", "command", f"command must be one of {', '.join(COMMANDS)}, not {command!r}")
    args = strings("collect", "args", col.get("args", []))
    for a in args:
        if a.split("=", 1)[0] in _COLLECT_FIXED:
            raise err("collect", "args", f"args: {a.split('=', 1)[0]} is set by the lab (one bundle per kernel "
                                         "and file system, labelled LABEL-KERNEL[-FS])")
    sweep_plan = sweep_text = None
    if command == "sweep":
        if "plan" not in col:
            raise err("collect", None, "command = \"sweep\" needs plan = \"FILE\" (a sweep plan, docs/sweeps.md)")
        sweep_plan = path_of("collect", "plan", col["plan"])
        try:
            sweep_text = open(sweep_plan, encoding="utf-8").read()
            probe = sweep_text.replace("{dir}", "/run/iolens-lab/mnt").replace("{dev}", "/dev/nvme0n1")
            from iolens_collect.plan import parse_plan
            parse_plan(probe, source=sweep_plan)
        except SweepPlanError as exc:
            raise err("collect", "plan", f"the sweep plan is not usable: {exc}") from None
    elif "plan" in col:
        raise err("collect", "plan", f"plan is for command = \"sweep\", not {command!r}")
    if command == "run" and not any(a.startswith(("--fio", "--fio-args")) for a in args):
        raise err("collect", "args", "command = \"run\" needs --fio JOBFILE or --fio-args '...' in args")
    lock_stat = col.get("lock_stat", False)
    if not isinstance(lock_stat, bool):
        raise err("collect", "lock_stat", "lock_stat must be true or false")

    kernels_doc = doc.get("kernels")
    if not isinstance(kernels_doc, dict) or not kernels_doc:
        raise err("", None, "the plan names no kernel: add a [kernels.NAME] table (package, image or build)")
    kernels: List[Kernel] = []
    for name, spec in kernels_doc.items():
        table = f"kernels.{name}"
        if not _NAME.match(name):
            raise err(table, None, f"kernel name {name!r}: 1-64 characters of A-Z a-z 0-9 . _ -")
        if not isinstance(spec, dict):
            raise err(table, None, f"[{table}] must be a table")
        kinds = [k for k in _KERNEL_KINDS if k in spec]
        if len(kinds) != 1:
            raise err(table, None, f"kernel {name}: give exactly one of package = \"linux-image-...\", "
                                   "image = \"bzImage\" or build = \"SOURCE\"")
        kind = kinds[0]
        check_keys(table, spec, _KERNEL[kind])
        out: Dict[str, Any] = {}
        if kind == "package":
            pkg = string(table, "package", spec["package"])
            if not _DEB_KERNEL.match(pkg):
                raise err(table, "package", f"package {pkg!r} is not a Debian kernel image package "
                                            "(linux-image-6.12.117+deb12-amd64-unsigned, linux-image-6.1.0-56-amd64)")
            out["package"] = pkg
        elif kind == "image":
            out["image"] = path_of(table, "image", spec["image"])
            if "config" in spec:
                out["config"] = path_of(table, "config", spec["config"])
            if "modules" in spec:
                out["modules"] = path_of(table, "modules", spec["modules"], is_dir=True)
        else:
            src = string(table, "build", spec["build"])
            if src.startswith("debian:"):
                if not re.match(r"^debian:linux-source-\d+\.\d+$", src):
                    raise err(table, "build", f"build {src!r}: Debian's source is debian:linux-source-X.Y")
                out["build"] = src
            else:
                out["build"] = path_of(table, "build", src)
            if "ref" in spec:
                out["ref"] = string(table, "ref", spec["ref"])
            frag = strings(table, "fragment", spec.get("fragment", []))
            for line in frag:
                if not re.match(r"^(CONFIG_[A-Za-z0-9_]+=.*|# CONFIG_[A-Za-z0-9_]+ is not set)$", line):
                    raise err(table, "fragment", f"fragment line {line!r} is not CONFIG_X=value")
            if "fragment_file" in spec:
                fpath = path_of(table, "fragment_file", spec["fragment_file"])
                frag = frag + [ln for ln in open(fpath).read().splitlines() if ln.strip()]
            out["fragment"] = frag
            out["patches"] = [path_of(table, "patches", p) for p in strings(table, "patches", spec.get("patches", []))]
            lv = spec.get("localversion", "-" + name)
            if not isinstance(lv, str) or not re.match(r"^[A-Za-z0-9_.+-]{0,32}$", lv):
                raise err(table, "localversion", "localversion: up to 32 characters of A-Z a-z 0-9 _ . + -")
            out["localversion"] = lv
            out["jobs"] = int(number(table, "jobs", spec.get("jobs", 0), 0, 256))
        kcmd = strings(table, "cmdline", spec.get("cmdline", []))
        klabel = spec.get("label", name)
        if not isinstance(klabel, str) or not klabel:
            raise err(table, "label", "label must be a non-empty string")
        kernels.append(Kernel(name=name, kind=kind, spec=out, line=lines.of(table), cmdline=kcmd, label=klabel))

    return LabPlan(path=os.path.abspath(path), text=text, label=label, timeout=timeout, accel=accel,
                   tags=dict(tags), cpus=cpus, memory=memory, cmdline=cmdline, qemu=qemu, setup=setup,
                   background=background, disk_size=size, filesystems=fss, mkfs=per_fs["mkfs"],
                   mount=per_fs["mount"], serial=serial, image_dir=image_dir, command=command, args=args,
                   sweep_plan=sweep_plan, sweep_text=sweep_text, lock_stat=lock_stat, kernels=kernels)


def kernel_line(plan: LabPlan, kernel: Kernel, key: str) -> int:
    return _Lines(plan.text).of(f"kernels.{kernel.name}", key)
