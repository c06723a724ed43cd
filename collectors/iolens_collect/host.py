"""Host facts (docs/bundle-format.md, "Host facts"): what machine, kernel, CPU, memory,
tools, cgroup, and for every target file the block device and the file system under it.

Every reader tolerates missing files and returns None; ``Facts.note()`` records why when it
matters, and those notes go into the manifest's ``notes``. All paths are read through
``root`` so that tests can point the probe at a fake tree.
"""

from __future__ import annotations

import os
import platform
import re
import socket
import stat
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

__all__ = [
    "Facts",
    "Mount",
    "collect",
    "parse_mountinfo",
    "find_mount",
    "merge_options",
    "parse_scheduler",
    "parse_os_release",
    "block_device",
    "describe_target",
    "cgroup_facts",
    "virtualization",
    "tool_version",
]


class Facts:
    """Reads files under ``root`` and collects notes about what could not be read."""

    def __init__(self, root: str = "/"):
        self.root = root
        self.notes: List[str] = []

    def path(self, p: str) -> str:
        return os.path.join(self.root, p.lstrip("/")) if self.root != "/" else p

    def read(self, p: str) -> Optional[str]:
        """The file's text without the trailing newline, or None if it cannot be read."""
        try:
            with open(self.path(p), "r", encoding="utf-8", errors="replace") as f:
                return f.read().rstrip("\n")
        except (OSError, ValueError):
            return None

    def read_int(self, p: str) -> Optional[int]:
        v = self.read(p)
        try:
            return int(v.strip()) if v is not None else None
        except ValueError:
            return None

    def exists(self, p: str) -> bool:
        return os.path.exists(self.path(p))

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


# ---------------------------------------------------------------------------------------
# Small parsers (pure functions, tested on text samples)


def parse_os_release(text: Optional[str]) -> Dict[str, str]:
    out = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if not sep or not key.strip() or key.startswith("#"):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out[key.strip()] = value
    return out


def parse_scheduler(text: Optional[str]) -> Tuple[Optional[str], Optional[List[str]]]:
    """``none [mq-deadline] kyber`` -> ("mq-deadline", ["none", "mq-deadline", "kyber"]).
    A device without a choice prints just ``none`` (no brackets)."""
    if text is None:
        return None, None
    names = text.split()
    if not names:
        return None, None
    current = None
    clean = []
    for name in names:
        if name.startswith("[") and name.endswith("]"):
            name = name[1:-1]
            current = name
        clean.append(name)
    if current is None and len(clean) == 1:
        current = clean[0]
    return current, clean


_OCTAL = re.compile(r"\\([0-7]{3})")


def _unescape(field: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as \040 \011 \012 \134
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), field)


@dataclass
class Mount:
    mount_id: int
    parent_id: int
    dev: str  # "major:minor"
    root: str
    mountpoint: str
    mount_options: str
    fstype: str
    source: str
    super_options: str


def parse_mountinfo(text: str) -> List[Mount]:
    """Parse /proc/<pid>/mountinfo (proc(5)): ``id parent M:m root mountpoint options
    [optional fields...] - fstype source super_options``. Malformed lines are skipped."""
    mounts = []
    for line in text.splitlines():
        fields = line.split(" ")
        try:
            sep = fields.index("-", 6)
            mounts.append(
                Mount(
                    mount_id=int(fields[0]),
                    parent_id=int(fields[1]),
                    dev=fields[2],
                    root=_unescape(fields[3]),
                    mountpoint=_unescape(fields[4]),
                    mount_options=fields[5],
                    fstype=fields[sep + 1],
                    source=_unescape(fields[sep + 2]),
                    super_options=fields[sep + 3] if len(fields) > sep + 3 else "",
                )
            )
        except (ValueError, IndexError):
            continue
    return mounts


def _under(path: str, mountpoint: str) -> bool:
    if mountpoint == "/":
        return path.startswith("/")
    return path == mountpoint or path.startswith(mountpoint.rstrip("/") + "/")


def find_mount(mounts: List[Mount], dev: Optional[str], path: str) -> Optional[Mount]:
    """The mount that ``path`` lives on: among the mounts of device ``dev`` ("M:m", from
    st_dev) the one with the longest mountpoint containing ``path``; the last one listed
    wins a tie (a later mount hides an earlier one at the same place). Without a match by
    device (a bind mount seen from another namespace), the longest mountpoint containing
    ``path``."""
    best = None
    for m in mounts:
        if dev is not None and m.dev != dev:
            continue
        if _under(path, m.mountpoint) and (best is None or len(m.mountpoint) >= len(best.mountpoint)):
            best = m
    if best is None and dev is not None:
        same_dev = [m for m in mounts if m.dev == dev]
        if same_dev:
            return same_dev[-1]
        return find_mount(mounts, None, path)
    return best


def merge_options(mount_options: str, super_options: str) -> str:
    """Per-mount options then the file system's own, each once, in order."""
    out = []
    for opt in (mount_options + "," + super_options).split(","):
        if opt and opt not in out:
            out.append(opt)
    return ",".join(out)


def _ranges(cpus) -> str:
    """[0, 1, 2, 5] -> "0-2,5"."""
    cpus = sorted(cpus)
    parts = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


# ---------------------------------------------------------------------------------------
# Block devices and file systems


def block_device(facts: Facts, major: int, minor: int, depth: int = 0) -> Optional[dict]:
    """Facts about block device M:m from /sys/dev/block/M:m. A partition takes its queue and
    identity from the parent disk (``partition`` file, ``..``); device-mapper and md devices
    list the devices under them (``slaves/``); a loop device gives its backing file."""
    link = facts.path(f"/sys/dev/block/{major}:{minor}")
    if not os.path.exists(link):
        facts.note(f"block device {major}:{minor}: not in /sys/dev/block")
        return None
    sysdir = os.path.realpath(link)
    name = os.path.basename(sysdir)
    disk = sysdir
    parent = None
    if os.path.exists(os.path.join(sysdir, "partition")):
        disk = os.path.dirname(sysdir)
        parent = os.path.basename(disk)

    def rd(d: str, rel: str) -> Optional[str]:
        try:
            with open(os.path.join(d, rel), "r", encoding="utf-8", errors="replace") as f:
                v = f.read().strip()
            return v or None
        except OSError:
            return None

    def rd_int(d: str, rel: str) -> Optional[int]:
        v = rd(d, rel)
        try:
            return int(v) if v is not None else None
        except ValueError:
            return None

    scheduler, schedulers = parse_scheduler(rd(disk, "queue/scheduler"))
    rotational = rd_int(disk, "queue/rotational")
    size_sectors = rd_int(sysdir, "size")  # always in 512-byte units
    dev = {
        "name": name,
        "dev": f"{major}:{minor}",
        "parent": parent,
        "model": rd(disk, "device/model"),
        "firmware": rd(disk, "device/firmware_rev") or rd(disk, "device/rev"),
        "vendor": rd(disk, "device/vendor"),
        "scheduler": scheduler,
        "schedulers": schedulers,
        "nr_requests": rd_int(disk, "queue/nr_requests"),
        "rotational": None if rotational is None else bool(rotational),
        "logical_block_size": rd_int(disk, "queue/logical_block_size"),
        "physical_block_size": rd_int(disk, "queue/physical_block_size"),
        "size_bytes": None if size_sectors is None else size_sectors * 512,
        "backing_file": rd(disk, "loop/backing_file"),
        # beyond the contract's list, cheap and often the difference between two runs:
        "write_cache": rd(disk, "queue/write_cache"),
        "read_ahead_kb": rd_int(disk, "queue/read_ahead_kb"),
        "max_sectors_kb": rd_int(disk, "queue/max_sectors_kb"),
    }
    dm_name = rd(disk, "dm/name")
    if dm_name:
        dev["dm_name"] = dm_name
    slaves_dir = os.path.join(disk, "slaves")
    try:
        slave_names = sorted(os.listdir(slaves_dir))
    except OSError:
        slave_names = []
    if slave_names:
        slaves = []
        for s in slave_names:
            mm = rd(os.path.join(slaves_dir, s), "dev")
            sub = None
            if mm and ":" in mm and depth < 4:
                a, b = mm.split(":", 1)
                sub = block_device(facts, int(a), int(b), depth + 1)
            slaves.append(sub if sub is not None else {"name": s})
        dev["slaves"] = slaves
    missing = [k for k in ("model", "firmware", "vendor") if dev[k] is None]
    if missing and depth == 0 and not dev["name"].startswith(("loop", "dm-", "md", "zram", "nbd")):
        facts.note(f"block device {name}: sysfs has no {', '.join(missing)}")
    return dev


def _ancestor(path: str) -> str:
    """``path`` if it exists, else its closest existing parent (targets fio has not created
    yet live on the parent's file system)."""
    p = os.path.abspath(path)
    while not os.path.lexists(p):
        up = os.path.dirname(p)
        if up == p:
            break
        p = up
    return p


def describe_target(facts: Facts, path: str, mounts: List[Mount]) -> dict:
    """{"path", "device", "filesystem"} for one target."""
    out = {"path": path, "device": None, "filesystem": None}
    probe = _ancestor(path)
    try:
        st = os.stat(probe)
    except OSError as exc:
        facts.note(f"target {path}: cannot stat {probe}: {exc.strerror}")
        return out
    if stat.S_ISBLK(st.st_mode):  # the target is a device itself (--allow-destructive)
        out["device"] = block_device(facts, os.major(st.st_rdev), os.minor(st.st_rdev))
        return out
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    real = os.path.realpath(probe)
    mount = find_mount(mounts, f"{major}:{minor}", real)
    if mount is not None:
        out["filesystem"] = {
            "type": mount.fstype,
            "mountpoint": mount.mountpoint,
            "source": mount.source,
            "options": merge_options(mount.mount_options, mount.super_options),
        }
    else:
        facts.note(f"target {path}: no mount in /proc/self/mountinfo for device {major}:{minor}")
    if major != 0:
        out["device"] = block_device(facts, major, minor)
        return out
    # Anonymous device (major 0): tmpfs, overlay, btrfs subvolumes, NFS, FUSE...
    resolved = _device_behind(facts, mount)
    if resolved is not None:
        dev, via = resolved
        out["device"] = block_device(facts, os.major(dev), os.minor(dev))
        if out["device"] is not None:
            out["device"]["via"] = via
            return out
    fstype = mount.fstype if mount else "unknown"
    facts.note(
        f"target {path}: on a {fstype} file system with no block device under it "
        f"(st_dev {major}:{minor}); device facts are null"
    )
    return out


def _device_behind(facts: Facts, mount: Optional[Mount]) -> Optional[Tuple[int, str]]:
    """For a file system on an anonymous device: the block device found through its mount
    source (btrfs reports an anonymous st_dev but mounts /dev/sdX) or, for overlayfs, the
    file system holding ``upperdir`` when that path is visible here."""
    if mount is None:
        return None
    if mount.source.startswith("/dev/"):
        try:
            st = os.stat(mount.source)
            if stat.S_ISBLK(st.st_mode):
                return st.st_rdev, f"mount source {mount.source}"
        except OSError:
            pass
    if mount.fstype == "overlay":
        for opt in mount.super_options.split(","):
            if opt.startswith("upperdir="):
                upper = opt[len("upperdir="):]
                try:
                    st = os.stat(upper)
                except OSError:
                    facts.note(f"overlay upperdir {upper} is not visible here; device unknown")
                    return None
                if os.major(st.st_dev) != 0:
                    return st.st_dev, f"overlay upperdir {upper}"
    return None


# ---------------------------------------------------------------------------------------
# cgroup

_V2_FILES = ("cpu.weight", "cpu.max", "cpuset.cpus", "cpuset.cpus.effective", "memory.max",
             "io.max", "io.weight")
_V1_FILES = {
    "cpu": ("cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us"),
    "cpuset": ("cpuset.cpus", "cpuset.mems"),
    "memory": ("memory.limit_in_bytes",),
    "blkio": ("blkio.weight",),
}


def _cgroup_dir(mount: Mount, cgpath: str) -> str:
    # The path in /proc/self/cgroup is relative to the hierarchy root; the mount may show
    # only a subtree (mount.root), e.g. inside a container.
    rel = cgpath
    if mount.root not in ("/", "") and (cgpath == mount.root or cgpath.startswith(mount.root + "/")):
        rel = cgpath[len(mount.root):]
    return os.path.join(mount.mountpoint, rel.lstrip("/"))


def cgroup_facts(facts: Facts, proc_cgroup: Optional[str], mounts: List[Mount]) -> Optional[dict]:
    """The cgroup the collector (and so fio, its child) runs in, and the limits that shape
    an I/O benchmark. v1 (one hierarchy per controller) vs v2 (unified) is told apart by
    the mounted hierarchies; a "hybrid" host has both and is reported as v1."""
    if proc_cgroup is None:
        facts.note("cgroup: /proc/self/cgroup not readable")
        return None
    v2_path = None
    v1_paths: Dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hid, controllers, path = parts
        if hid == "0" and controllers == "":
            v2_path = path
        else:
            for c in controllers.split(","):
                if c:
                    v1_paths[c] = path
    v1_mounts = [m for m in mounts if m.fstype == "cgroup"]
    v2_mounts = [m for m in mounts if m.fstype == "cgroup2"]
    controllers: Dict[str, str] = {}
    real_v1 = {c: p for c, p in v1_paths.items() if not c.startswith("name=")}
    if real_v1 and v1_mounts:
        version = 1
        path = real_v1.get("cpu") or next(iter(real_v1.values()))
        for ctrl, files in _V1_FILES.items():
            if ctrl not in real_v1:
                continue
            mount = next((m for m in v1_mounts if ctrl in m.super_options.split(",")), None)
            if mount is None:
                continue
            base = _cgroup_dir(mount, real_v1[ctrl])
            for fname in files:
                v = facts.read(os.path.join(base, fname))
                if v is not None:
                    controllers[fname] = v.strip()
        out = {"version": 1, "path": path, "controllers": controllers,
               "paths": dict(sorted(real_v1.items()))}
        if v2_mounts:
            out["mode"] = "hybrid"
    elif v2_path is not None:
        version = 2
        out = {"version": 2, "path": v2_path, "controllers": controllers}
        if v2_mounts:
            base = _cgroup_dir(v2_mounts[-1], v2_path)
            for fname in _V2_FILES:
                v = facts.read(os.path.join(base, fname))
                if v is not None:
                    controllers[fname] = v.strip()
        else:
            facts.note("cgroup: v2 path known but no cgroup2 file system is mounted")
    else:
        facts.note("cgroup: cannot tell the cgroup version from /proc/self/cgroup")
        return None
    if not controllers:
        facts.note(
            f"cgroup v{version} {out['path']}: no cpu/cpuset/memory/io limit files readable "
            "(the root cgroup has none)"
        )
    return out


# ---------------------------------------------------------------------------------------
# CPU, virtualization, tools

_VM_VENDORS = (  # (substring of DMI sys_vendor/product_name, virtualization id)
    ("kvm", "kvm"), ("qemu", "qemu"), ("vmware", "vmware"), ("virtualbox", "oracle"),
    ("innotek", "oracle"), ("microsoft corporation", "microsoft"), ("xen", "xen"),
    ("amazon ec2", "amazon"), ("google compute engine", "google"), ("bochs", "bochs"),
    ("parallels", "parallels"), ("openstack", "kvm"), ("cloud hypervisor", "kvm"),
)


def virtualization(facts: Facts, cpu_flags: Optional[List[str]], machine: str) -> Tuple[Optional[str], Optional[str]]:
    """(cpu.hypervisor as a name, virtualization id) from /sys/hypervisor/type, DMI, the
    paravirtual clock sources and the cpuinfo "hypervisor" flag (x86 only)."""
    hv_type = facts.read("/sys/hypervisor/type")
    vendor = facts.read("/sys/class/dmi/id/sys_vendor")
    product = facts.read("/sys/class/dmi/id/product_name")
    clocks = (facts.read("/sys/devices/system/clocksource/clocksource0/available_clocksource") or "").split()
    flagged = cpu_flags is not None and "hypervisor" in cpu_flags
    dmi = " ".join(x.strip() for x in (vendor, product) if x and x.strip())
    dmi_id = None
    for needle, ident in _VM_VENDORS:
        if needle in dmi.lower():
            dmi_id = ident
            break
    if hv_type:
        return hv_type.strip().capitalize(), hv_type.strip().lower()
    if "kvm-clock" in clocks:
        return (dmi if dmi_id else "KVM"), "kvm"
    if any(c.startswith("hyperv") for c in clocks):
        return (dmi if dmi_id else "Hyper-V"), "microsoft"
    if "xen" in clocks:
        return "Xen", "xen"
    if dmi_id:
        return dmi, dmi_id
    if flagged:
        facts.note("virtualization: the CPU reports a hypervisor but none of sysfs/DMI names it")
        return "unknown", "unknown"
    if machine in ("x86_64", "i686", "i386") and cpu_flags is not None:
        return None, "none"
    facts.note("virtualization: cannot tell on this architecture without DMI")
    return None, None


def container() -> Optional[str]:
    if os.path.exists("/.dockerenv"):
        return "docker"
    if os.path.exists("/run/.containerenv"):
        return "podman"
    try:
        with open("/proc/1/environ", "rb") as f:
            for item in f.read().split(b"\0"):
                if item.startswith(b"container="):
                    return item[len(b"container="):].decode("utf-8", "replace") or None
    except OSError:
        pass
    return None


def tool_version(facts: Facts, name: str, argv: List[str]) -> Optional[str]:
    """First line of ``tool --version``; None with a note when missing or failing."""
    try:
        cp = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, timeout=20)
    except FileNotFoundError:
        facts.note(f"{name}: not found on PATH; {name} version not recorded")
        return None
    except (OSError, subprocess.TimeoutExpired) as exc:
        facts.note(f"{name}: '{' '.join(argv)}' failed ({exc}); version not recorded")
        return None
    out = cp.stdout.decode("utf-8", "replace").strip()
    if cp.returncode != 0 or not out:
        # e.g. Debian's perf wrapper: "WARNING: perf not found for kernel 6.x"
        first = out.splitlines()[0] if out else ""
        facts.note(f"{name}: '{' '.join(argv)}' exited {cp.returncode} ({first[:160]}); version not recorded")
        return None
    return out.splitlines()[0].strip()


def _cpu(facts: Facts) -> Tuple[dict, Optional[List[str]]]:
    cpuinfo = facts.read("/proc/cpuinfo")
    model = None
    flags = None
    for line in (cpuinfo or "").splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if model is None and key in ("model name", "Model", "cpu model", "Processor"):
            model = value.strip() or None
        elif flags is None and key in ("flags", "Features"):
            flags = value.split()
    if cpuinfo is None:
        facts.note("cpu: /proc/cpuinfo not readable")
    elif model is None:
        facts.note("cpu.model: /proc/cpuinfo has no 'model name' line")
    governor = facts.read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    if governor is None:
        facts.note("cpu.governor: no cpufreq for cpu0 in sysfs (usual in a VM)")
    try:
        affinity = _ranges(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = None
    return {
        "model": model,
        "count": os.cpu_count(),
        "online": facts.read("/sys/devices/system/cpu/online"),
        "governor": governor.strip() if governor else None,
        "hypervisor": None,  # filled by collect()
        "affinity": affinity,
    }, flags


def _memory(facts: Facts) -> dict:
    text = facts.read("/proc/meminfo") or ""
    m = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.M)
    if not m:
        facts.note("memory.total_bytes: no MemTotal in /proc/meminfo")
    return {"total_bytes": int(m.group(1)) * 1024 if m else None}


MAX_TARGETS = 100


def clock_facts(now: Optional[float] = None) -> dict:
    """The host's local time against UTC, when the capture starts: tools that print the local time
    (perf stat's "# started on", which is ctime(3)) are placed on UTC by it. utc_offset_s: local time
    minus UTC in seconds (3600 for CET, -18000 for EST); timezone: its abbreviation ('CET', 'UTC')."""
    lt = time.localtime(now)
    return {"utc_offset_s": int(lt.tm_gmtoff), "timezone": lt.tm_zone or None}



def collect(targets: List[str], fio_bin: Optional[str] = "fio", root: str = "/") -> Tuple[dict, List[str]]:
    """All host facts, and notes on what could not be read."""
    facts = Facts(root)
    uname = os.uname()
    osrel = parse_os_release(facts.read("/etc/os-release") or facts.read("/usr/lib/os-release"))
    os_name = osrel.get("PRETTY_NAME")
    if os_name is None:
        facts.note("os: no PRETTY_NAME in /etc/os-release")
    cmdline = facts.read("/proc/cmdline")
    if cmdline is None:
        facts.note("kernel.cmdline: /proc/cmdline not readable")
    cpu, flags = _cpu(facts)
    cpu["hypervisor"], virt = virtualization(facts, flags, uname.machine)
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = uname.nodename
    tools = {
        "fio": tool_version(facts, "fio", [fio_bin or "fio", "--version"]),
        "perf": tool_version(facts, "perf", ["perf", "--version"]),
        "python": platform.python_version(),
    }
    mountinfo = facts.read("/proc/self/mountinfo")
    if mountinfo is None:
        facts.note("filesystem: /proc/self/mountinfo not readable; file systems unknown")
    mounts = parse_mountinfo(mountinfo or "")
    described = []
    for path in targets[:MAX_TARGETS]:
        described.append(describe_target(facts, path, mounts))
    if len(targets) > MAX_TARGETS:
        facts.note(f"host.targets: described the first {MAX_TARGETS} of {len(targets)} targets")
    host = {
        "hostname": hostname,
        "os": os_name,
        "kernel": {"release": uname.release, "version": uname.version, "cmdline": cmdline,
                   "machine": uname.machine},
        "cpu": cpu,
        "memory": _memory(facts),
        "virtualization": virt,
        "container": container(),
        "clock": clock_facts(),
        "tools": tools,
        "cgroup": cgroup_facts(facts, facts.read("/proc/self/cgroup"), mounts),
        "targets": described,
    }
    return host, facts.notes
