"""Debian packages for the lab: a kernel image package (``linux-image-6.12.*-amd64-unsigned``) or
the kernel source (``linux-source-6.12``), fetched with ``apt-get download`` and unpacked with
``dpkg -x`` into the lab's cache. Nothing is installed on the host, except the kernel's modules,
which the guest finds at the host's /lib/modules/RELEASE (the guest's root is the host's, read-only):
they are copied there and ``depmod`` is run, once per release.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
from typing import Callable, Dict, List, Optional

from .build import BuildError, cache_dir

__all__ = ["PackageError", "fetch_deb", "debian_kernel", "package_exists"]


class PackageError(BuildError):
    """An unknown package, or apt-get could not fetch it."""


def package_exists(name: str) -> Optional[str]:
    """The candidate version apt would download, or None when apt knows no such package."""
    try:
        r = subprocess.run(["apt-cache", "policy", name], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Candidate:\s*(\S+)", r.stdout)
    if not m or m.group(1) == "(none)":
        return None
    return m.group(1)


def fetch_deb(name: str, log: Callable[[str], None]) -> str:
    """Download the package and unpack it into CACHE/debs/NAME; returns that directory."""
    root = os.path.join(cache_dir(), "debs", name)
    if os.path.exists(os.path.join(root, ".unpacked")):
        return root
    version = package_exists(name)
    if version is None:
        raise PackageError(f"apt knows no package {name!r} (apt-cache policy {name}; "
                           f"is `apt-get update` done, is the name right?)")
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        log(f"apt-get download {name} ({version}) ...")
        r = subprocess.run(["apt-get", "download", name], cwd=tmp, capture_output=True, text=True)
        debs = glob.glob(os.path.join(tmp, "*.deb"))
        if r.returncode or not debs:
            raise PackageError(f"apt-get download {name} failed: {(r.stderr or r.stdout).strip()[-800:]}")
        part = root + ".part"
        shutil.rmtree(part, ignore_errors=True)
        os.makedirs(part)
        r = subprocess.run(["dpkg", "-x", debs[0], part], capture_output=True, text=True)
        if r.returncode:
            raise PackageError(f"dpkg -x {os.path.basename(debs[0])} failed: {r.stderr.strip()[-800:]}")
        with open(os.path.join(part, ".version"), "w") as f:
            f.write(version + "\n")
        open(os.path.join(part, ".unpacked"), "w").close()
        shutil.rmtree(root, ignore_errors=True)
        os.rename(part, root)
    return root


def debian_kernel(name: str, log: Callable[[str], None]) -> Dict[str, str]:
    """Fetch a Debian kernel image package; make its modules visible to the guest.

    Returns {package, version, release, vmlinuz, config}."""
    root = fetch_deb(name, log)
    kernels = sorted(glob.glob(os.path.join(root, "boot", "vmlinuz-*")))
    if not kernels:
        raise PackageError(f"package {name} holds no boot/vmlinuz-*: not a kernel image package")
    vmlinuz = kernels[-1]
    release = os.path.basename(vmlinuz)[len("vmlinuz-"):]
    config = os.path.join(root, "boot", f"config-{release}")
    mods_src = os.path.join(root, "lib", "modules", release)
    mods_dst = os.path.join("/lib/modules", release)
    if os.path.isdir(mods_src) and not os.path.exists(os.path.join(mods_dst, "modules.dep")):
        if os.geteuid() != 0:
            raise PackageError(f"kernel {release}'s modules must be at {mods_dst} for the guest (its root is "
                               f"the host's): run the lab as root once, or copy {mods_src} there and run "
                               f"`depmod {release}`")
        if shutil.which("depmod") is None:
            raise PackageError(f"kernel {release}'s modules need `depmod` (Debian package kmod) to be installed "
                               f"at {mods_dst} for the guest: run `make deps-system` as root, or "
                               f"`apt-get install kmod`")
        log(f"installing {release}'s modules at {mods_dst} (for the guest) and running depmod ...")
        tmp = mods_dst + ".iolens-tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(mods_src, tmp, symlinks=True)
        if os.path.isdir(mods_dst):
            shutil.rmtree(mods_dst)
        os.rename(tmp, mods_dst)
        r = subprocess.run(["depmod", release], capture_output=True, text=True)
        if r.returncode:
            raise PackageError(f"depmod {release} failed: {r.stderr.strip()}")
    version = open(os.path.join(root, ".version")).read().strip()
    return {"package": name, "version": version, "release": release, "vmlinuz": vmlinuz,
            "config": config if os.path.exists(config) else ""}


def list_packages(pattern: str) -> List[str]:
    """Package names apt knows matching a regular expression (for error hints)."""
    r = subprocess.run(["apt-cache", "pkgnames"], capture_output=True, text=True)
    rx = re.compile(pattern)
    return sorted(n for n in r.stdout.split() if rx.search(n))
