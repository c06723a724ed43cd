"""Running the workload in a cgroup of its own (`--cgroup NAME [--cpu-weight N]`) and on chosen
CPUs (`--cpus LIST`): the configuration of issue 4's context-switch storm (fio pinned with
taskset, inside a cgroup with cpu.weight=1000, what Kubernetes gives a pod).

- The cgroup is created at the root of the hierarchy that has the cpu controller, as this
  process sees it: on cgroup v2 `/sys/fs/cgroup/NAME` (with `cpu.weight`; `+cpu` is written to
  the root's `cgroup.subtree_control` first when it is missing there, and taken back at the
  end); on cgroup v1 and hybrid hosts the cpu hierarchy, `/sys/fs/cgroup/cpu/NAME` (or
  `cpu,cpuacct/NAME`), with `cpu.shares` = weight x 1024 / 100 (systemd's conversion: the v2
  default weight 100 is the v1 default 1024 shares; 1000 -> 10240). Other v1 hierarchies are
  left alone: fio stays where the collector is in them.
- A NAME that already exists is refused: the collector only uses, and removes, a cgroup it made.
- fio enters the cgroup and takes its CPU affinity in the child between fork and exec
  (`preexec`), so fio and every job process or thread it starts are in it from the start. The
  collector and perf are not moved.
- The cgroup is removed at the end, also after a failure or an interrupt (`remove`).

The configuration goes into the host facts (`host.cgroup`, now describing fio's cgroup, with
`created` and `collector_path`), so it is a comparison axis like the kernel.
Every path is read through ``root`` so that tests can point this at a fake tree.
"""

from __future__ import annotations

import errno
import os
import re
import time
from typing import Callable, Dict, List, Optional

from . import host

__all__ = ["CgroupError", "WorkloadCgroup", "parse_cpus", "format_cpus", "weight_to_shares", "NAME"]

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
SHARES_MIN, SHARES_MAX = 2, 262144
WEIGHT_MIN, WEIGHT_MAX = 1, 10000


class CgroupError(ValueError):
    """The cgroup cannot be set up as asked; the capture does not start."""


def weight_to_shares(weight: int) -> int:
    """cgroup v2 cpu.weight -> v1 cpu.shares (systemd: 100 <-> 1024), clamped to v1's range."""
    return max(SHARES_MIN, min(SHARES_MAX, weight * 1024 // 100))


def parse_cpus(text: str) -> List[int]:
    """`1`, `0-3`, `0,2-3` -> sorted CPU numbers (the list format of taskset -c and sysfs)."""
    cpus = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            raise ValueError(f"empty item in CPU list {text!r}")
        m = re.match(r"^(\d+)(?:-(\d+))?$", part)
        if not m:
            raise ValueError(f"bad CPU list {text!r} (expected e.g. 1 or 0-3 or 0,2)")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if hi < lo:
            raise ValueError(f"bad CPU range {part!r}")
        cpus.update(range(lo, hi + 1))
    return sorted(cpus)


def format_cpus(cpus) -> str:
    return host._ranges(cpus)


def _read(path: str) -> Optional[str]:
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


class WorkloadCgroup:
    """One cgroup made for the workload. ``plan()`` checks, ``create()`` makes it, ``preexec()``
    (in the fio child) enters it, ``remove()`` takes it away."""

    def __init__(self, name: str, weight: Optional[int] = None, root: str = "/",
                 rmdir: Callable[[str], None] = os.rmdir):
        if not NAME.match(name):
            raise CgroupError(f"--cgroup {name!r}: use 1-64 characters of A-Z a-z 0-9 _ . - "
                              "(not starting with . or -), one level")
        if weight is not None and not WEIGHT_MIN <= weight <= WEIGHT_MAX:
            raise CgroupError(f"--cpu-weight {weight}: cgroup cpu.weight is {WEIGHT_MIN}-{WEIGHT_MAX}")
        self.name = name
        self.weight = weight
        self.root = root
        self.rmdir = rmdir  # tests on a fake tree pass shutil.rmtree
        self.version: Optional[int] = None
        self.mount: Optional[host.Mount] = None
        self.dir = ""  # the directory as the kernel names it (no fake root)
        self.path = ""  # the cgroup's path in /proc/PID/cgroup
        self.created = False
        self.enabled_cpu = False  # we wrote +cpu to the v2 root's subtree_control
        self.settings: Dict[str, str] = {}
        self.procs_file = ""

    def p(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip("/")) if self.root != "/" else path

    # -- where ---------------------------------------------------------------------------
    def plan(self) -> None:
        text = _read(self.p("/proc/self/mountinfo"))
        if text is None:
            raise CgroupError("--cgroup: /proc/self/mountinfo is not readable")
        mounts = host.parse_mountinfo(text)
        v1 = [m for m in mounts if m.fstype == "cgroup" and "cpu" in m.super_options.split(",")]
        v2 = [m for m in mounts if m.fstype == "cgroup2"]
        if v1:
            self.version, self.mount = 1, v1[0]
        elif v2:
            self.version, self.mount = 2, v2[-1]
            ctrl = (_read(self.p(os.path.join(self.mount.mountpoint, "cgroup.controllers"))) or "").split()
            if self.weight is not None and "cpu" not in ctrl:
                raise CgroupError(f"--cpu-weight: the cgroup v2 hierarchy at {self.mount.mountpoint} has no cpu "
                                  f"controller (cgroup.controllers: {' '.join(ctrl) or 'empty'}); "
                                  "it may be bound to a v1 hierarchy")
        else:
            raise CgroupError("--cgroup: no cgroup file system with the cpu controller is mounted "
                              "(neither cgroup v1 'cpu' nor cgroup2)")
        self.dir = os.path.join(self.mount.mountpoint, self.name)
        base = self.mount.root.rstrip("/") if self.mount.root not in ("", "/") else ""
        self.path = f"{base}/{self.name}"
        if os.path.lexists(self.p(self.dir)):
            raise CgroupError(f"--cgroup {self.name}: {self.dir} already exists; the collector only uses a "
                              "cgroup it creates (and removes): choose another name, or remove it (rmdir)")
        self.procs_file = self.p(os.path.join(self.dir, "cgroup.procs"))

    # -- make ----------------------------------------------------------------------------
    def create(self) -> None:
        if self.mount is None:
            self.plan()
        assert self.mount is not None
        parent = self.p(self.mount.mountpoint)
        if self.version == 2 and self.weight is not None:
            sub = os.path.join(parent, "cgroup.subtree_control")
            if "cpu" not in (_read(sub) or "").split():
                try:
                    _write(sub, "+cpu")
                except OSError as exc:
                    raise CgroupError(f"--cpu-weight: cannot enable the cpu controller for children of "
                                      f"{self.mount.mountpoint} ({exc.strerror or exc})") from None
                self.enabled_cpu = True
        try:
            os.mkdir(self.p(self.dir))
        except OSError as exc:
            hint = "; it needs root" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else ""
            raise CgroupError(f"--cgroup: cannot create {self.dir} ({exc.strerror or exc}{hint})") from None
        self.created = True
        try:
            if self.weight is not None:
                if self.version == 2:
                    _write(self.p(os.path.join(self.dir, "cpu.weight")), f"{self.weight}\n")
                else:
                    _write(self.p(os.path.join(self.dir, "cpu.shares")), f"{weight_to_shares(self.weight)}\n")
        except OSError as exc:
            raise CgroupError(f"--cpu-weight: cannot write {'cpu.weight' if self.version == 2 else 'cpu.shares'} in "
                              f"{self.dir} ({exc.strerror or exc})") from None
        for f in (("cpu.weight", "cpu.max") if self.version == 2 else ("cpu.shares", "cpu.cfs_quota_us")):
            v = _read(self.p(os.path.join(self.dir, f)))
            if v is not None:
                self.settings[f] = v

    def preexec(self) -> None:
        """In the fio child, before exec: move into the cgroup."""
        with open(self.procs_file, "w") as f:
            f.write(str(os.getpid()))

    # -- take away -----------------------------------------------------------------------
    def remove(self, wait: float = 5.0) -> List[str]:
        """Remove the cgroup (processes still in it are moved to its parent first). Returns problems."""
        problems: List[str] = []
        if self.created:
            deadline = time.monotonic() + wait
            while True:
                try:
                    self.rmdir(self.p(self.dir))
                    self.created = False
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() >= deadline:
                        if exc.errno == errno.EBUSY and self._evacuate():
                            deadline = time.monotonic() + 1.0
                            continue
                        problems.append(f"cgroup: could not remove {self.dir} ({exc.strerror or exc}); "
                                        f"remove it by hand (rmdir {self.dir})")
                        break
                    time.sleep(0.05)
        if self.enabled_cpu and self.mount is not None:
            self.enabled_cpu = False
            try:
                _write(self.p(os.path.join(self.mount.mountpoint, "cgroup.subtree_control")), "-cpu")
            except OSError as exc:
                problems.append(f"cgroup: could not take the cpu controller back from "
                                f"{self.mount.mountpoint}/cgroup.subtree_control ({exc.strerror or exc})")
        return problems

    def _evacuate(self) -> bool:
        """Move what is left in the cgroup to its parent; True if anything was moved."""
        if self.mount is None:
            return False
        pids = (_read(self.procs_file) or "").split()
        moved = False
        for pid in pids:
            try:
                _write(self.p(os.path.join(self.mount.mountpoint, "cgroup.procs")), pid)
                moved = True
            except OSError:
                pass
        return moved

    # -- facts ---------------------------------------------------------------------------
    def facts(self, cpus: Optional[str]) -> Optional[dict]:
        """host.cgroup for fio: read as host.cgroup_facts reads the collector's, with the cpu
        hierarchy's path replaced by ours, plus what the collector created."""
        own = _read(self.p("/proc/self/cgroup")) or ""
        lines = []
        for line in own.splitlines():
            parts = line.split(":", 2)
            if len(parts) == 3:
                hid, ctrls, path = parts
                if (self.version == 1 and "cpu" in ctrls.split(",")) or (self.version == 2 and hid == "0" and ctrls == ""):
                    line = f"{hid}:{ctrls}:{self.path}"
            lines.append(line)
        if self.version == 2 and not any(ln.startswith("0::") for ln in lines):
            lines.append(f"0::{self.path}")
        collector_path = None
        for line in own.splitlines():
            parts = line.split(":", 2)
            if len(parts) == 3 and ((self.version == 1 and "cpu" in parts[1].split(","))
                                    or (self.version == 2 and parts[0] == "0" and parts[1] == "")):
                collector_path = parts[2]
        facts = host.Facts(self.root)
        mounts = host.parse_mountinfo(_read(self.p("/proc/self/mountinfo")) or "")
        out = host.cgroup_facts(facts, "\n".join(lines) + "\n", mounts) or {}
        created = {
            "name": self.name,
            "version": self.version,
            "path": self.path,
            "dir": self.dir,
            "cpu_weight": self.weight,
            "cpus": cpus,
        }
        if self.version == 1:
            created["cpu.shares"] = int(self.settings["cpu.shares"]) if self.settings.get("cpu.shares", "").isdigit() \
                else (weight_to_shares(self.weight) if self.weight is not None else None)
        else:
            created["cpu.weight"] = int(self.settings["cpu.weight"]) if self.settings.get("cpu.weight", "").isdigit() \
                else self.weight
            if self.enabled_cpu:
                created["enabled_cpu_controller"] = True
        out["collector_path"] = collector_path
        out["created"] = created
        return out
