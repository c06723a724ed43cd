"""Run a lab plan: for each kernel, get it (Debian package, image, or build), boot it in a VM with
the host's userland (virtme-ng + qemu, KVM when it works, else TCG), run the collector inside on an
emulated NVMe disk, and bring one bundle per (kernel, file system) back into the output directory.

- Nothing half-written in DIR: the guest writes into a work directory in the lab's cache; a
  finished bundle is copied into DIR under a temporary name and renamed.
- A rerun resumes: a bundle already in DIR that was made from the same plan entry (its
  ``host.lab.key``) is kept; the collector's own sweep journal resumes a sweep a dead guest left.
- A guest that panics or hangs is stopped (at the plan's timeout, or a few seconds after a panic
  message), its console is kept as DIR/NAME.console.log and its tail is shown; the plan goes on.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from iolens_collect.bundle import BundleError, replace_manifest  # noqa: E402 - labplan puts it on sys.path

from . import accel as accel_mod
from .build import BuildError, BuildSpec, build_kernel, cache_dir, tool_env, vng_path
from .debian import PackageError, debian_kernel, package_exists
from .labplan import Kernel, LabPlan, LabPlanError, kernel_line

__all__ = ["LabError", "Result", "run_plan", "check_plan", "GUEST_MNT", "GUEST_DEV", "kernel_release_of"]

GUEST_MNT = "/run/iolens-lab/mnt"
GUEST_DEV = "/dev/nvme0n1"
MARK = "iolens-lab:"
_PANIC = re.compile(r"Kernel panic - not syncing|BUG: kernel NULL pointer|Oops: |general protection fault")
COLLECTORS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Host folders the guest does not see: virtme-ng's init (1.42, virtme-init's mount_sys_filesystems and
# virtme-ng-init alike) mounts an empty tmpfs over each of them before it mounts the --rwdir and
# --rodir folders. A checkout under one (a clone in /var/tmp), or the Python that runs the collector,
# is therefore shared with the guest explicitly, read-only, at the same path (guest_shares).
GUEST_TMPFS = ("/var/tmp", "/var/log", "/var/cache", "/var/spool/rsyslog", "/var/lib/portables",
               "/var/lib/machines", "/var/lib/private", "/var/lib/apt", "/var/lib/snapd/cookie",
               "/var/lib/sudo", "/run", "/dev/shm")


class LabError(RuntimeError):
    """The lab cannot go on (a bad plan, a missing tool); the message says what to do."""


@dataclass
class Result:
    kernel: str
    fs: str
    status: str  # made | kept | failed
    bundle: Optional[str] = None
    why: str = ""
    console: Optional[str] = None


@dataclass
class Prepared:
    kernel: Kernel
    image: str
    release: str
    config: Optional[str]  # a .config on the host ('' : the guest's /proc/config.gz)
    facts: Dict[str, object] = field(default_factory=dict)


def kernel_release_of(image: str) -> str:
    """The release string in a bzImage's header (the part before the first space)."""
    with open(image, "rb") as f:
        head = f.read(0x4000)
        if head[0x202:0x206] != b"HdrS":
            raise LabError(f"{image} is not a bzImage (no HdrS header)")
        off = struct.unpack_from("<H", head, 0x20E)[0] + 0x200
        f.seek(off)
        text = f.read(256).split(b"\0", 1)[0].decode("ascii", "replace")
    return text.split(" ", 1)[0]


def static_elf(path: str) -> bool:
    """True for a statically linked ELF executable: a dynamic one names its interpreter (PT_INTERP,
    /lib64/ld-linux-x86-64.so.2) near its start."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return False
    return head.startswith(b"\x7fELF") and b"/ld-linux" not in head


def _static_busybox() -> bool:
    """virtme-ng's initramfs needs a static busybox; it looks where Debian's busybox-static puts it."""
    return any(p and static_elf(p) for p in (shutil.which("busybox"), "/bin/busybox", "/usr/bin/busybox"))


def check_plan(plan: LabPlan) -> None:
    """What can be checked without downloading or building: packages apt knows, kernel tools."""
    for k in plan.kernels:
        if k.kind == "package" and package_exists(k.spec["package"]) is None:
            raise LabPlanError(f"plan {plan.path}, line {kernel_line(plan, k, 'package')}: unknown package "
                               f"{k.spec['package']!r}: apt knows no such package (apt-cache policy; "
                               "`apt-get update` first?)")
        if k.kind == "build" and k.spec["build"].startswith("debian:"):
            src = k.spec["build"].split(":", 1)[1]
            if not os.path.exists(f"/usr/src/{src}.tar.xz") and package_exists(src) is None:
                raise LabPlanError(f"plan {plan.path}, line {kernel_line(plan, k, 'build')}: unknown package "
                                   f"{src!r}: apt knows no such package")
    if not shutil.which(accel_mod.QEMU):
        raise LabError(f"{accel_mod.QEMU} is not installed (Debian: qemu-system-x86; `make lab-deps`)")
    if not _static_busybox():
        raise LabError("a statically linked busybox is not installed: virtme-ng builds the guests' initramfs "
                       "from it (Debian: busybox-static; `make deps-system`)")
    try:
        vng_path()
    except BuildError as exc:
        raise LabError(str(exc)) from None


def _prepare(plan: LabPlan, k: Kernel, log: Callable[[str], None]) -> Prepared:
    try:
        if k.kind == "package":
            d = debian_kernel(k.spec["package"], log)
            return Prepared(k, d["vmlinuz"], d["release"], d["config"] or None,
                            {"kind": "debian-package", "package": d["package"], "package_version": d["version"]})
        if k.kind == "image":
            release = kernel_release_of(k.spec["image"])
            if k.spec.get("modules"):
                dst = os.path.join("/lib/modules", release)
                if not os.path.exists(dst):
                    log(f"kernel {k.name}: linking its modules at {dst} (the guest's root is the host's)")
                    os.symlink(k.spec["modules"], dst)
            return Prepared(k, k.spec["image"], release, k.spec.get("config"),
                            {"kind": "image", "image": k.spec["image"], "modules": k.spec.get("modules")})
        fragment = "".join(line + "\n" for line in k.spec["fragment"])
        info = build_kernel(BuildSpec(name=k.name, source=k.spec["build"], fragment=fragment,
                                      patches=k.spec["patches"], localversion=k.spec["localversion"],
                                      jobs=k.spec["jobs"], ref=k.spec.get("ref", "")), log)
        bdir = str(info["dir"])
        patches = []
        for p, meta in zip(k.spec["patches"], info["patches"]):  # type: ignore[arg-type]
            patches.append({"file": os.path.basename(p), "sha256": meta["sha256"],
                            "subject": _patch_subject(p)})
        return Prepared(k, os.path.join(bdir, "bzImage"), str(info["release"]), os.path.join(bdir, "config"),
                        {"kind": "build", "source": info["source"], "fragment": k.spec["fragment"],
                         "patches": patches, "build_key": info["key"], "build_seconds": info["seconds"],
                         "build_jobs": info["jobs"], "compiler": info["compiler"],
                         "incremental_from": info.get("incremental_from"),
                         "base_config": "virtme-ng small guest config + iolens lab fragment"})
    except PackageError as exc:
        raise LabPlanError(f"plan {plan.path}, line {kernel_line(plan, k, 'package')}: {exc}") from None


def _patch_subject(path: str) -> str:
    try:
        for line in open(path, encoding="utf-8", errors="replace"):
            if line.startswith("Subject:"):
                return line[len("Subject:"):].strip()
    except OSError:
        pass
    return ""


def _manifest(path: str) -> Optional[dict]:
    """A bundle's manifest (None when unreadable or not a bundle)."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            first = tar.next()
            if first is None or first.name != "manifest.json":
                return None
            f = tar.extractfile(first)
            m = json.load(f) if f else None
        return m if isinstance(m, dict) else None
    except (OSError, tarfile.TarError, ValueError, EOFError):
        return None


def _bundle_key(path: str) -> Optional[str]:
    """host.lab.key of a bundle (None when unreadable or not a lab bundle)."""
    m = _manifest(path) or {}
    return ((m.get("host") or {}).get("lab") or {}).get("key")


def bundle_label(plan: LabPlan, k: Kernel, fs: str) -> str:
    return f"{plan.label}-{k.label}" + (f"-{fs}" if len(plan.filesystems) > 1 else "")


def bundle_tags(plan: LabPlan) -> Dict[str, str]:
    """The tags the collector gives the bundle: --tag K=V in the plan's args, then the plan's tags."""
    tags: Dict[str, str] = {}
    args = list(plan.args)
    for i, a in enumerate(args):
        tv = args[i + 1] if a == "--tag" and i + 1 < len(args) else a[len("--tag="):] if a.startswith("--tag=") else None
        if tv and "=" in tv:
            key, _, value = tv.partition("=")
            tags[key.strip()] = value.strip()
    tags.update(plan.tags)
    return tags


def refresh_names(path: str, plan: LabPlan, k: Kernel, fs: str, key: Optional[str] = None) -> str:
    """A kept bundle (same key: the same measurements) whose label or tags the plan has changed since,
    or that has the first version's key: its manifest gets the plan's label, tags and key (and a note
    saying what they were). Returns what changed ('' when nothing)."""
    m = _manifest(path)
    if m is None:
        raise LabError(f"{path}: cannot read its manifest")
    label, tags = bundle_label(plan, k, fs), bundle_tags(plan)
    lab = (m.get("host") or {}).get("lab") or {}
    changed = []
    if m.get("label") != label:
        changed.append(f"label {m.get('label')!r} -> {label!r}")
    if (m.get("tags") or {}) != tags:
        show = lambda t: ",".join(f"{a}={b}" for a, b in sorted(t.items())) or "none"  # noqa: E731
        changed.append(f"tags {show(m.get('tags') or {})} -> {show(tags)}")
    if key and lab.get("key") != key:
        changed.append(f"key {lab.get('key')} -> {key} (the lab's first key also hashed labels, tags and paths)")
        lab["key"] = key
    if not changed:
        return ""
    m["label"], m["tags"] = label, tags
    lab["plan"], lab["plan_label"] = os.path.basename(plan.path), plan.label
    if isinstance(lab.get("kernel"), dict):
        lab["kernel"]["label"] = k.label
    m.setdefault("notes", []).append(f"iolens-lab: a rerun of the plan kept this bundle (same measurements) and "
                                     f"renamed it: {'; '.join(changed)}")
    try:
        replace_manifest(path, m)
    except BundleError as exc:
        raise LabError(str(exc)) from None
    return "; ".join(changed)


def _subst(s: str) -> str:
    return s.replace("{dir}", GUEST_MNT).replace("{dev}", GUEST_DEV)


def _guest_script(plan: LabPlan, prep: Prepared, work: str, todo: List[str], names: Dict[str, str]) -> str:
    q = shlex.quote
    py = sys.executable
    lines = [
        "#!/bin/sh",
        "# written by iolens-lab: runs in the guest (the host's userland, read-only; this directory is writable)",
        f"W={q(work)}",
        f"say() {{ echo \"{MARK} $*\"; }}",
        "say \"guest up: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB\"",
        "mkdir -p /run/iolens-lab/mnt /run/iolens-lab/tmp /run/iolens-lab/scratch",
        "export TMPDIR=/run/iolens-lab/tmp IOLENS_SCRATCH=/run/iolens-lab/scratch IOLENS_PERF_START_TIMEOUT=600",
        "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null",
        "for c in cpu cpuset io memory pids; do echo +$c > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; done",
        "grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug 2>/dev/null",
        "grep -q ' /sys/kernel/tracing ' /proc/mounts || mount -t tracefs none /sys/kernel/tracing 2>/dev/null",
        f"[ -b {GUEST_DEV} ] || modprobe nvme 2>/dev/null",
        "i=0",
        f"while [ ! -b {GUEST_DEV} ] && [ $i -lt 60 ]; do sleep 0.5; i=$((i+1)); done",
        f"[ -b {GUEST_DEV} ] || {{ say \"no {GUEST_DEV}: the emulated NVMe disk did not appear\"; "
        "echo 'IOLENS-LAB-EXIT 90'; exit 90; }",
        f"say \"disk {GUEST_DEV}: $(cat /sys/block/nvme0n1/device/model 2>/dev/null | tr -s ' '), "
        "$(($(cat /sys/block/nvme0n1/size) / 2048)) MiB, scheduler $(cat /sys/block/nvme0n1/queue/scheduler)\"",
        "if [ -r /proc/config.gz ]; then zcat /proc/config.gz > $W/config.running; fi",
    ]
    for cmd in plan.setup:
        lines.append(f"say {q('setup: ' + cmd)}; sh -c {q(_subst(cmd))} || say \"setup failed (exit $?)\"")
    lines.append("BG=''")
    for cmd in plan.background:
        lines.append(f"say {q('background: ' + cmd)}; sh -c {q(_subst(cmd))} & BG=\"$BG $!\"")
    config_arg = "$W/config.host" if prep.config else "$W/config.running"
    for fs in todo:
        out = f"$W/out/{names[fs]}"
        argv = [py, "-m", "iolens_collect", plan.command]
        if plan.command == "sweep":
            argv.append("$W/sweep.toml")
        argv += [_subst(a) for a in plan.args]
        if plan.lock_stat:
            argv.append("--lock-stat")
        label = bundle_label(plan, prep.kernel, fs)
        argv += ["--label", label, "--lab-facts", f"$W/lab-{fs}.json", "--kernel-config", config_arg, "-o", out]
        for k, v in plan.tags.items():
            argv += ["--tag", f"{k}={v}"]
        collect = "(cd " + q(COLLECTORS) + " && " + " ".join(a if a.startswith("$W/") else q(a) for a in argv) + ")"
        lines.append(f"say \"--- {fs}: {names[fs]}\"")
        lines.append(f"if [ ! -e $W/status-{fs} ]; then")
        if fs == "raw":
            lines.append(f"  wipefs -a -q {GUEST_DEV} 2>/dev/null")
            lines.append(f"  {collect}; echo $? > $W/status-{fs}")
        else:
            mkfs = {"xfs": "mkfs.xfs -f -q", "ext4": "mkfs.ext4 -F -q"}[fs]
            mopt = plan.mount.get(fs, "")
            lines.append(f"  if {mkfs} {plan.mkfs.get(fs, '')} {GUEST_DEV} >$W/mkfs-{fs}.log 2>&1 && "
                         f"mount -t {fs} {('-o ' + q(mopt)) if mopt else ''} {GUEST_DEV} {GUEST_MNT} "
                         f">>$W/mkfs-{fs}.log 2>&1; then")
            lines.append(f"    say \"{fs}: $(grep ' {GUEST_MNT} ' /proc/mounts | cut -d' ' -f3,4)\"")
            lines.append(f"    {collect}; echo $? > $W/status-{fs}")
            lines.append(f"    umount {GUEST_MNT}")
            lines.append("  else")
            lines.append(f"    say \"mkfs or mount of {fs} failed: $(tail -3 $W/mkfs-{fs}.log)\"; echo 97 > $W/status-{fs}")
            lines.append("  fi")
        lines.append("fi")
        lines.append(f"say \"{fs}: collector exit $(cat $W/status-{fs})\"")
    lines.append("[ -n \"$BG\" ] && kill $BG 2>/dev/null")
    lines.append("sync")
    lines.append("say done")
    lines.append("echo 'IOLENS-LAB-EXIT 0'")
    return "\n".join(lines) + "\n"


# virtio-fs needs the Rust virtiofsd (gitlab.com/virtio-fs/virtiofsd). virtme-ng 1.42 takes the first
# virtiofsd of this list (after one in its own guest tools) that answers --version; run as root,
# QEMU's old C daemon answers too (Debian 12's qemu-system-common: /usr/lib/qemu/virtiofsd, QEMU 7.2),
# then refuses the Rust daemon's options ("fuse: invalid argument `/tmp/virtme...'"): vng waits 3.1 s
# for a pid file that never comes, prints "failed to start virtiofsd, fallback to 9p", and does so for
# the root and for every shared folder. Where the daemon vng would take is not the Rust one, the lab
# asks for 9p at once (--force-9p): the same file systems the guest got, without the waits.
VIRTIOFSD_PATHS = ("/usr/libexec/virtiofsd", "/usr/lib/virtiofsd/virtiofsd", "/usr/lib/virtiofsd",
                   "/usr/lib/qemu/virtiofsd")
_virtiofsd: Dict[str, tuple] = {}


def virtiofsd_usable() -> tuple:
    """(usable, why): whether the virtiofsd virtme-ng would start is the Rust daemon it needs."""
    key = os.environ.get("PATH", "") + repr(VIRTIOFSD_PATHS)
    if key in _virtiofsd:
        return _virtiofsd[key]
    found = (False, "no virtiofsd: 9p")
    for path in (shutil.which("virtiofsd"), *VIRTIOFSD_PATHS):
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        try:
            v = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
            if v.returncode != 0:
                continue
            h = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        version = (v.stdout.strip().splitlines() or ["?"])[0]
        if "--shared-dir" in h.stdout + h.stderr:
            found = (True, f"{path} ({version})")
        else:
            found = (False, f"{path} is QEMU's C virtiofsd ({version}), not the Rust daemon virtme-ng "
                            "starts: 9p (--force-9p)")
        break
    _virtiofsd[key] = found
    return found


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def guest_shares(needed: Optional[List[str]] = None) -> List[str]:
    """The host folders the guest needs (this checkout's collectors/, the Python running the lab:
    its venv, its base installation, its executable's folder) that lie under a folder the guest's
    init hides (GUEST_TMPFS): each to share with --rodir, the outermost of nested ones only."""
    if needed is None:
        needed = [COLLECTORS, sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    hidden = sorted({os.path.realpath(p) for p in needed
                     if any(_under(os.path.realpath(p), t) for t in GUEST_TMPFS)})
    return [p for p in hidden if not any(q != p and _under(p, q) for q in hidden)]


def _vng_argv(plan: LabPlan, prep: Prepared, work: str, image: str, use_kvm: bool, dry: bool) -> List[str]:
    drive = (f"-drive file={image},if=none,id=nv0,format=raw,cache=none,aio=native "
             f"-device nvme,serial={plan.serial},drive=nv0")
    extra = " ".join(shlex.quote(x) for x in plan.qemu)
    argv = [vng_path(), "--run", prep.image, "--cpus", str(plan.cpus), "--memory", plan.memory,
            "--rwdir", work]
    for d in guest_shares():
        argv += ["--rodir", d]
    argv += [f"--qemu-opts={drive}{(' ' + extra) if extra else ''}", "--verbose"]
    if not virtiofsd_usable()[0]:
        argv.append("--force-9p")
    if dry:
        argv.insert(1, "--dry-run")
    if not use_kvm:
        argv.append("--disable-kvm")
    cmdline = plan.cmdline + prep.kernel.cmdline
    if cmdline:
        argv += ["--append", " ".join(cmdline)]
    argv += ["--exec", f"sh {work}/guest.sh"]
    return argv


def _copy_in(src: str, dest: str) -> None:
    """Copy a finished file into the output directory: a temporary name, then a rename."""
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.{os.getpid()}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def _write_in(text: str, dest: str) -> None:
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, dest)


def _boot(argv: List[str], console_path: str, timeout: float, name: str, say: Callable[[str], None],
          echo: bool) -> Dict[str, object]:
    """Run the guest; returns {exit_marker, panic, timed_out, seconds, first_mark_s}."""
    t0 = time.monotonic()
    state: Dict[str, object] = {"exit_marker": None, "panic": None, "timed_out": False, "first_mark_s": None}
    panic_at: List[float] = []
    with open(console_path, "w", encoding="utf-8", errors="replace") as con:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=tool_env(), start_new_session=True)

        def reader() -> None:
            assert proc.stdout is not None
            for raw in iter(proc.stdout.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                con.write(line + "\n")
                con.flush()
                s = line.strip()
                if MARK in s:
                    if state["first_mark_s"] is None:
                        state["first_mark_s"] = round(time.monotonic() - t0, 1)
                    say(f"[{name}] {s[s.index(MARK) + len(MARK):].strip()}")
                elif s.startswith("IOLENS-LAB-EXIT"):
                    state["exit_marker"] = int(s.split()[1]) if len(s.split()) > 1 and s.split()[1].isdigit() else -1
                elif _PANIC.search(s):
                    if state["panic"] is None:
                        state["panic"] = s
                        panic_at.append(time.monotonic())
                elif echo and state["first_mark_s"] is not None and s and state["exit_marker"] is None:
                    say(f"[{name}]   {s}")
                elif state["first_mark_s"] is not None and s:
                    shown = _collector_line(s)
                    if shown:
                        say(f"[{name}]   {shown}")

        th = threading.Thread(target=reader, daemon=True)
        th.start()
        try:
            _watch(proc, t0, timeout, panic_at, state)
        except BaseException:  # Ctrl-C or SIGTERM of the lab: the guest goes too
            _stop(proc)
            raise
        th.join(timeout=10)
        state["vng_exit"] = proc.returncode
    state["seconds"] = round(time.monotonic() - t0, 1)
    return state


def _stop(proc: subprocess.Popen) -> None:
    """Stop vng and qemu (their own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def _watch(proc: subprocess.Popen, t0: float, timeout: float, panic_at: List[float], state: Dict[str, object]) -> None:
    while True:
        try:
            proc.wait(timeout=1)
            return
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now - t0 > timeout or (panic_at and now - panic_at[0] > 10):
            state["timed_out"] = now - t0 > timeout
            _stop(proc)
            return


_PROGRESS = re.compile(r"\[(?:run|repeat) \d+/\d+\]")


def _collector_line(s: str) -> str:
    """The collector's lines worth showing without --echo: its messages, each run's result (its
    progress bar redraws with carriage returns: only the last state, when it says 'done')."""
    if s.startswith("iolens-collect:") or re.match(r"^r\d{3}\s+exit", s) or s.startswith("bundle:"):
        return s
    parts = [p for p in _PROGRESS.split(s) if p.strip()]
    marks = _PROGRESS.findall(s)
    if marks and parts and " done in " in parts[-1]:
        return f"{marks[-1]}{parts[-1]}"
    return ""


def _tail(path: str, n: int = 15) -> str:
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return ""
    return "\n".join([ln for ln in text.splitlines() if ln.strip()][-n:])


def _qemu_cmdline(argv_dry: List[str]) -> List[str]:
    r = subprocess.run(argv_dry, capture_output=True, text=True, env=tool_env(), timeout=120)
    for line in (r.stdout + r.stderr).splitlines():
        if "qemu-system" in line.split(" ", 1)[0]:
            return shlex.split(line)
    return []


def _cpu_model_host() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def run_plan(plan: LabPlan, out_dir: str, say: Callable[[str], None], only: Optional[List[str]] = None,
             echo: bool = False, force_accel: Optional[str] = None) -> List[Result]:
    check_plan(plan)
    os.makedirs(out_dir, exist_ok=True)
    out_dir = os.path.abspath(out_dir)
    import hashlib
    workroot = os.path.join(cache_dir(), "work", hashlib.sha256(out_dir.encode()).hexdigest()[:12])
    results: List[Result] = []
    kernels = [k for k in plan.kernels if not only or k.name in only]
    if only:
        unknown = [n for n in only if n not in {k.name for k in plan.kernels}]
        if unknown:
            raise LabError(f"--kernel {unknown[0]}: the plan has no such kernel "
                           f"({', '.join(k.name for k in plan.kernels)})")
    accel_choice = force_accel or plan.accel
    for n, k in enumerate(kernels, 1):
        names = {fs: f"{plan.label}-{k.name}" + (f"-{fs}" if len(plan.filesystems) > 1 else "") + ".iolens.tar.gz"
                 for fs in plan.filesystems}
        keys = {fs: plan.key(k, fs) for fs in plan.filesystems}
        todo = []
        for fs in plan.filesystems:
            dest = os.path.join(out_dir, names[fs])
            if os.path.exists(dest):
                if _bundle_key(dest) in (keys[fs], plan.key_v1(k, fs)):
                    renamed = refresh_names(dest, plan, k, fs, keys[fs])
                    say(f"kernel {n}/{len(kernels)} {k.name} ({fs}): {names[fs]} is there from an earlier run "
                        "of this plan: kept" + (f" ({renamed})" if renamed else ""))
                    results.append(Result(k.name, fs, "kept", dest))
                    continue
                raise LabError(f"{dest} exists and was not made by this plan entry (kernel {k.name}, {fs}); "
                               "move it away or choose another -o")
            todo.append(fs)
        if not todo:
            continue
        say(f"kernel {n}/{len(kernels)} {k.name}: {k.describe()}")
        try:
            prep = _prepare(plan, k, say)
        except BuildError as exc:
            say(f"kernel {k.name}: FAILED to get the kernel: {exc}")
            results.extend(Result(k.name, fs, "failed", why=str(exc)) for fs in todo)
            continue
        if accel_choice == "auto":
            usable, why = accel_mod.kvm_usable(prep.image)
            use_kvm = usable
        else:
            use_kvm, why = accel_choice == "kvm", f"the plan asks for {accel_choice}"
        accel_name = "kvm" if use_kvm else "tcg"
        say(f"kernel {k.name}: {prep.release}, accelerator {accel_name} ({why})")
        work = os.path.join(workroot, k.name)
        os.makedirs(os.path.join(work, "out"), exist_ok=True)
        for fs in todo:  # a status left by a guest that died before this capture finished: run it again
            st = os.path.join(work, f"status-{fs}")
            if os.path.exists(st) and not os.path.exists(os.path.join(work, "out", names[fs])):
                os.unlink(st)
        if prep.config:
            shutil.copyfile(prep.config, os.path.join(work, "config.host"))
        if plan.sweep_text is not None:
            with open(os.path.join(work, "sweep.toml"), "w") as f:
                f.write(_subst(plan.sweep_text))
        image_dir = plan.image_dir or os.path.join(cache_dir(), "disks")
        os.makedirs(image_dir, exist_ok=True)
        image = os.path.join(image_dir, f"lab-{os.getpid()}-{k.name}.img")
        with open(image, "wb") as f:  # a fresh, empty, sparse disk for every guest
            f.truncate(plan.disk_size)
        vng_args = _vng_argv(plan, prep, work, image, use_kvm, dry=False)
        qemu = _qemu_cmdline(_vng_argv(plan, prep, work, image, use_kvm, dry=True))
        host_cpu = _cpu_model_host()
        for fs in todo:
            facts = {
                "tool": "iolens-lab", "key": keys[fs], "plan": os.path.basename(plan.path), "plan_label": plan.label,
                "kernel": {"name": k.name, "label": k.label, "release": prep.release, **prep.facts},
                "accelerator": accel_name, "accelerator_why": why, "emulated": True,
                "guest": {"cpus": plan.cpus, "memory": plan.memory, "cpu_model": "qemu -cpu max" if not use_kvm
                          else "host", "cmdline_added": plan.cmdline + k.cmdline,
                          "setup": plan.setup, "background": plan.background},
                "disk": {"kind": "emulated NVMe (qemu -device nvme)", "size_bytes": plan.disk_size,
                         "serial": plan.serial, "fs": fs, "mkfs": plan.mkfs.get(fs, ""),
                         "mount": plan.mount.get(fs, ""), "image": "sparse raw file, cache=none, aio=native"},
                "vm_host": {"kernel": os.uname().release, "cpu_model": host_cpu, "cpus": os.cpu_count(),
                            "qemu": accel_mod._qemu_version(), "virtme_ng": _vng_version()},
                "qemu_cmdline": qemu, "vng_argv": ["vng"] + vng_args[1:],
            }
            with open(os.path.join(work, f"lab-{fs}.json"), "w") as f:
                json.dump(facts, f, indent=1)
        with open(os.path.join(work, "guest.sh"), "w") as f:
            f.write(_guest_script(plan, prep, work, todo, names))
        console = os.path.join(work, "console.log")
        say(f"kernel {k.name}: booting ({accel_name}, {plan.cpus} CPUs, {plan.memory}; stopped after "
            f"{plan.timeout:.0f} s) ...")
        try:
            state = _boot(vng_args, console, plan.timeout, k.name, say, echo)
        finally:
            try:
                os.unlink(image)
            except OSError:
                pass
        console_dest = os.path.join(out_dir, f"{plan.label}-{k.name}.console.log")
        _copy_in(console, console_dest)
        for fs in todo:
            made = os.path.join(work, "out", names[fs])
            status = None
            try:
                status = int(open(os.path.join(work, f"status-{fs}")).read().strip())
            except (OSError, ValueError):
                pass
            if os.path.exists(made) and status == 0:
                _copy_in(made, os.path.join(out_dir, names[fs]))
                os.unlink(made)
                results.append(Result(k.name, fs, "made", os.path.join(out_dir, names[fs]), console=console_dest))
                say(f"kernel {k.name} ({fs}): {names[fs]} written ({state['seconds']} s in the guest)")
                continue
            if state["panic"]:
                why = f"the guest crashed: {state['panic']}"
            elif state["timed_out"]:
                why = f"the guest did not finish in {plan.timeout:.0f} s (stopped)"
            elif status is not None:
                why = f"the collector exited {status}" + (" (a partial bundle exists: it was kept, a rerun "
                                                          "resumes)" if os.path.exists(made) else "")
            elif state["first_mark_s"] is None:
                why = f"the guest never reached the lab's script (vng exit {state['vng_exit']})"
            else:
                why = f"the guest stopped before this capture (vng exit {state['vng_exit']})"
            say(f"kernel {k.name} ({fs}): FAILED: {why}; console kept in {console_dest}; its tail:\n"
                + "\n".join("    " + ln for ln in _tail(console).splitlines()))
            results.append(Result(k.name, fs, "failed", why=why, console=console_dest))
    return results


_VNG_VERSION: Optional[str] = None


def _vng_version() -> str:
    global _VNG_VERSION
    if _VNG_VERSION is None:
        try:
            _VNG_VERSION = subprocess.run([vng_path(), "--version"], capture_output=True, text=True,
                                          timeout=60).stdout.strip()
        except (OSError, subprocess.TimeoutExpired, BuildError):
            _VNG_VERSION = ""
    return _VNG_VERSION
