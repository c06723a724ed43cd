"""KVM or TCG: whether this host can run the plan's kernels with hardware virtualization.

/dev/kvm existing is not enough: a nested or paravirtual KVM (KVM-PVM, for one) opens fine and then
refuses a stock kernel (qemu aborts setting an MSR). So the check is a test boot: qemu with KVM, the
kernel, no root file system; a kernel that boots prints its banner and then panics because it finds
no root (panic=-1 and -no-reboot make qemu exit at once). That takes a second or two under KVM.
The answer is cached per (host kernel, qemu, kernel image).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from typing import Tuple

from .build import cache_dir

__all__ = ["kvm_usable", "QEMU"]

QEMU = "qemu-system-x86_64"
_BOOTED = ("VFS: Unable to mount root fs", "Kernel panic - not syncing", "No working init found")


def _qemu_version() -> str:
    try:
        return subprocess.run([QEMU, "--version"], capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return ""


def kvm_usable(kernel_image: str, timeout: float = 60.0) -> Tuple[bool, str]:
    """(usable, why): why says what was tried and what happened, for the bundle and the terminal."""
    if not os.path.exists("/dev/kvm"):
        return False, "no /dev/kvm"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "/dev/kvm is not readable and writable by this user"
    if not shutil.which(QEMU):
        return False, f"{QEMU} is not installed"
    st = os.stat(kernel_image)
    key = hashlib.sha256(json.dumps([os.uname().release, _qemu_version(), os.path.abspath(kernel_image),
                                     st.st_size, int(st.st_mtime)]).encode()).hexdigest()[:16]
    cached = os.path.join(cache_dir(), "kvm-check", key + ".json")
    try:
        with open(cached) as f:
            got = json.load(f)
        return bool(got["usable"]), got["why"] + " (cached test boot)"
    except (OSError, ValueError, KeyError):
        pass
    argv = [QEMU, "-accel", "kvm", "-cpu", "host", "-m", "256", "-smp", "1", "-nographic", "-no-reboot",
            "-kernel", kernel_image, "-append", "console=ttyS0 panic=-1 root=/dev/iolens-lab-none"]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        booted = "Linux version" in out and any(m in out for m in _BOOTED)
        if booted:
            usable, why = True, "a KVM test boot of the kernel reached its root mount"
        else:
            last = [ln for ln in out.splitlines() if ln.strip()][-1:] or [f"exit {r.returncode}"]
            usable, why = False, f"a KVM test boot failed: {last[0].strip()[:200]}"
    except subprocess.TimeoutExpired:
        usable, why = False, f"a KVM test boot did not reach its root mount in {timeout:.0f} s"
    os.makedirs(os.path.dirname(cached), exist_ok=True)
    with open(cached + ".tmp", "w") as f:
        json.dump({"usable": usable, "why": why}, f)
    os.replace(cached + ".tmp", cached)
    return usable, why
