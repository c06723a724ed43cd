"""Kernel builds for the lab: a source (Debian's ``linux-source-6.x`` package, a tarball or a git
tree), virtme-ng's small guest config plus the lab's fragment plus the plan's fragment, and an
optional list of patches, built into a bzImage with everything the lab needs built in (no modules).

Builds are cached under ``CACHE/builds/KEY`` where KEY hashes (source, config fragments, patches,
local version, compiler): the same plan entry never builds twice. A finished build holds
``bzImage``, ``config`` (the whole .config), ``build.json`` (what it was built from, how long it
took) and the built tree (so a patched variant of the same source and config starts from it:
``make`` then only rebuilds what the patches touch). ccache (when installed) makes a rebuild of the
same source with another config or patch cheaper still. ``build.json`` is written last: a directory
without it is an unfinished build and is started again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

__all__ = ["BuildError", "BuildSpec", "LAB_FRAGMENT", "build_kernel", "cache_dir", "source_identity"]

# Built in (=y), so the guest needs no modules: the emulated NVMe disk, both file systems, the
# tracers and probes the collector uses (blktrace, perf, sched and block tracepoints), cgroup v2
# with the CPU and I/O controllers, the I/O schedulers, and the running config in /proc/config.gz.
LAB_FRAGMENT = """\
##: iolens lab: built in so that the guest needs no modules
CONFIG_LOCALVERSION_AUTO=n
CONFIG_IKCONFIG=y
CONFIG_IKCONFIG_PROC=y
CONFIG_BLK_DEV_NVME=y
CONFIG_NVME_CORE=y
CONFIG_PCI=y
CONFIG_BLK_DEV_LOOP=y
CONFIG_XFS_FS=y
CONFIG_XFS_POSIX_ACL=y
CONFIG_EXT4_FS=y
CONFIG_EXT4_USE_FOR_EXT2=y
CONFIG_CRYPTO=y
CONFIG_CRYPTO_CRC32C=y
CONFIG_LIBCRC32C=y
CONFIG_AIO=y
CONFIG_IO_URING=y
CONFIG_MQ_IOSCHED_DEADLINE=y
CONFIG_MQ_IOSCHED_KYBER=y
CONFIG_IOSCHED_BFQ=y
CONFIG_FTRACE=y
CONFIG_BLK_DEV_IO_TRACE=y
CONFIG_PERF_EVENTS=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_SCHEDSTATS=y
CONFIG_SCHED_INFO=y
CONFIG_TASK_DELAY_ACCT=y
CONFIG_CGROUPS=y
CONFIG_CGROUP_SCHED=y
CONFIG_FAIR_GROUP_SCHED=y
CONFIG_CPUSETS=y
CONFIG_MEMCG=y
CONFIG_BLK_CGROUP=y
CONFIG_BLK_CGROUP_IOCOST=y
CONFIG_CGROUP_PIDS=y
CONFIG_UNWINDER_ORC=y
CONFIG_DEBUG_INFO_NONE=y
"""


class BuildError(RuntimeError):
    """A build could not be made; the message says which and why (with the log's tail)."""


@dataclass
class BuildSpec:
    name: str  # the plan's kernel name (used in messages and the local version)
    source: str  # "debian:linux-source-6.12", a .tar.* file, or a git tree's directory
    fragment: str = ""  # config lines the plan adds (text)
    patches: List[str] = field(default_factory=list)  # patch files (paths)
    localversion: str = ""  # appended to the release ("-lockstat"); default "-lab"
    jobs: int = 0  # make -jN; 0: the host's CPU count
    ref: str = ""  # for a git tree: the commit, tag or branch (default HEAD)


def cache_dir() -> str:
    base = os.environ.get("IOLENS_LAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "iolens-lab")
    os.makedirs(base, exist_ok=True)
    return base


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _debian_source_tarball(package: str, log: Callable[[str], None]) -> str:
    """Path of Debian's linux-source-X tarball: the installed one, else fetched into the cache."""
    name = package.split(":", 1)[1]
    installed = f"/usr/src/{name}.tar.xz"
    if os.path.exists(installed):
        return installed
    cached = os.path.join(cache_dir(), "debs", name, "usr", "src", f"{name}.tar.xz")
    if os.path.exists(cached):
        return cached
    from .debian import fetch_deb  # the package download lives with the Debian kernels
    log(f"fetching Debian package {name} (the kernel source, about 150 MB) ...")
    root = fetch_deb(name, log)
    if not os.path.exists(os.path.join(root, "usr", "src", f"{name}.tar.xz")):
        raise BuildError(f"package {name} holds no usr/src/{name}.tar.xz")
    return os.path.join(root, "usr", "src", f"{name}.tar.xz")


def source_identity(spec: BuildSpec, log: Callable[[str], None] = lambda s: None) -> Dict[str, str]:
    """What the source is, exactly: for the cache key and the bundle. Raises BuildError."""
    src = spec.source
    if src.startswith("debian:"):
        tarball = _debian_source_tarball(src, log)
        version = ""
        pkg = src.split(":", 1)[1]
        try:
            version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True,
                                     text=True, check=False).stdout.strip()
        except OSError:
            pass
        st = os.stat(tarball)
        return {"kind": "debian", "package": pkg, "package_version": version, "path": tarball,
                "size": str(st.st_size), "mtime": str(int(st.st_mtime))}
    if os.path.isdir(src):
        if not os.path.isdir(os.path.join(src, ".git")) and not os.path.exists(os.path.join(src, ".git")):
            raise BuildError(f"source {src}: a directory must be a git tree (or give a .tar.* file)")
        ref = spec.ref or "HEAD"
        r = subprocess.run(["git", "-C", src, "rev-parse", "--verify", ref + "^{commit}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BuildError(f"source {src}: git cannot resolve {ref!r}: {r.stderr.strip()}")
        commit = r.stdout.strip()
        desc = subprocess.run(["git", "-C", src, "describe", "--tags", "--always", commit],
                              capture_output=True, text=True).stdout.strip()
        return {"kind": "git", "path": os.path.abspath(src), "ref": ref, "commit": commit, "describe": desc}
    if os.path.isfile(src) and re.search(r"\.tar(\.(xz|gz|bz2|zst))?$", src):
        return {"kind": "tarball", "path": os.path.abspath(src), "sha256": _sha256_file(src)}
    raise BuildError(f"source {src!r}: not 'debian:linux-source-X.Y', a git tree or a kernel tarball")


def _compiler() -> str:
    try:
        return subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        raise BuildError("gcc is not installed (the kernel build needs gcc, make, flex, bison, bc, "
                         "libelf-dev, libssl-dev: `make lab-deps` installs them)") from None


def build_key(spec: BuildSpec, ident: Dict[str, str], with_patches: bool = True) -> str:
    """The cache key; with_patches=False gives the key of the tree a patched build can start from
    (same source and config, any local version, no patches)."""
    h = hashlib.sha256()
    ident_key = {k: v for k, v in ident.items() if k not in ("path",)} if ident["kind"] != "git" else ident
    h.update(json.dumps({"source": ident_key, "lab_fragment": LAB_FRAGMENT, "fragment": spec.fragment,
                         "compiler": _compiler()}, sort_keys=True).encode())
    if with_patches:
        h.update(b"\0localversion\0" + (spec.localversion or "-lab").encode())
        for p in spec.patches:
            h.update(b"\0patch\0")
            h.update(open(p, "rb").read())
    return h.hexdigest()[:16]


def _unpack(ident: Dict[str, str], spec: BuildSpec, dest: str, log: Callable[[str], None]) -> None:
    """Put the source tree at dest (a new directory)."""
    tmp = dest + ".unpack"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    if ident["kind"] == "git":
        log(f"exporting {ident['describe']} from {ident['path']} ...")
        p1 = subprocess.Popen(["git", "-C", ident["path"], "archive", "--format=tar", ident["commit"]],
                              stdout=subprocess.PIPE)
        r = subprocess.run(["tar", "-x", "-C", tmp], stdin=p1.stdout)
        p1.wait()
        if r.returncode or p1.returncode:
            raise BuildError(f"git archive of {ident['path']} failed")
        os.rename(tmp, dest)
        return
    log(f"unpacking {ident['path']} ...")
    r = subprocess.run(["tar", "-x", "-C", tmp, "-f", ident["path"]])
    if r.returncode:
        raise BuildError(f"cannot unpack {ident['path']}")
    tops = os.listdir(tmp)
    if len(tops) == 1 and os.path.isdir(os.path.join(tmp, tops[0])):
        os.rename(os.path.join(tmp, tops[0]), dest)
        os.rmdir(tmp)
    else:
        os.rename(tmp, dest)


def _apply_patches(tree: str, patches: List[str], log: Callable[[str], None]) -> None:
    for p in patches:
        log(f"applying {os.path.basename(p)} ...")
        r = subprocess.run(["patch", "-p1", "--forward", "--batch", "-d", tree, "-i", os.path.abspath(p)],
                           capture_output=True, text=True)
        if r.returncode:
            raise BuildError(f"patch {p} does not apply to this source:\n{(r.stdout + r.stderr)[-2000:]}")


def vng_path() -> str:
    """virtme-ng's vng: on PATH, or beside this Python (a uv or pip virtual environment)."""
    beside = os.path.join(os.path.dirname(sys.executable), "vng")
    found = shutil.which("vng") or (beside if os.path.exists(beside) else "")
    if not found:
        raise BuildError("virtme-ng's vng is not installed (`make lab-deps`, or run through `uv run`)")
    return found


def tool_env() -> Dict[str, str]:
    """The environment for vng: its helpers (virtme-run, virtme-configkernel) beside it on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(vng_path()) + os.pathsep + env.get("PATH", "")
    return env


def _make_env(tree: str, cache: str) -> Dict[str, str]:
    env = tool_env()
    env.update({"KBUILD_BUILD_TIMESTAMP": "2026-01-01", "KBUILD_BUILD_USER": "iolens",
                "KBUILD_BUILD_HOST": "lab", "LC_ALL": "C"})
    if shutil.which("ccache"):
        env.update({"CCACHE_DIR": os.path.join(cache, "ccache"), "CCACHE_BASEDIR": tree,
                    "CCACHE_NOHASHDIR": "true", "CCACHE_MAXSIZE": env.get("CCACHE_MAXSIZE", "10G"),
                    "CCACHE_SLOPPINESS": "time_macros,include_file_mtime,include_file_ctime"})
    return env


def _tail(path: str, n: int = 30) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 16000))
            return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-n:])
    except OSError:
        return ""


def _run_logged(argv: List[str], cwd: str, env: Dict[str, str], logf: str, label: str,
                log: Callable[[str], None], expect: int = 0) -> int:
    """Run a command, its output into logf; a progress line every 20 s. Returns files compiled."""
    t0 = time.monotonic()
    compiled = 0
    last = t0
    with open(logf, "a") as lf:
        lf.write(f"$ {' '.join(argv)}\n")
        lf.flush()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        assert proc.stdout is not None
        for line in proc.stdout:
            lf.write(line)
            if line.startswith("  CC ") or line.startswith("  AS "):
                compiled += 1
            now = time.monotonic()
            if now - last >= 20:
                last = now
                of = f" of about {expect}" if expect else ""
                log(f"{label}: {compiled}{of} files compiled, {int(now - t0) // 60}m{int(now - t0) % 60:02d}s")
        rc = proc.wait()
    if rc:
        raise BuildError(f"{label}: `{' '.join(argv)}` failed (exit {rc}); the log is {logf}; its tail:\n"
                         + _tail(logf))
    return compiled


def build_kernel(spec: BuildSpec, log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True)
                 ) -> Dict[str, object]:
    """Build (or find in the cache) the kernel of spec; returns build.json's content plus 'dir'."""
    for p in spec.patches:
        if not os.path.isfile(p):
            raise BuildError(f"patch {p}: no such file")
    ident = source_identity(spec, log)
    cache = cache_dir()
    key = build_key(spec, ident)
    bdir = os.path.join(cache, "builds", key)
    done = os.path.join(bdir, "build.json")
    if os.path.exists(done):
        info = json.load(open(done))
        info["dir"] = bdir
        log(f"kernel {spec.name}: cached build {key} ({info['release']})")
        return info
    os.makedirs(bdir, exist_ok=True)
    lock = open(os.path.join(bdir, ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        log(f"kernel {spec.name}: another process is building {key}; waiting for it ...")
        fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        if os.path.exists(done):
            info = json.load(open(done))
            info["dir"] = bdir
            log(f"kernel {spec.name}: built meanwhile by the other process ({info['release']})")
            return info
        return _build_locked(spec, ident, cache, key, bdir, done, log)
    finally:
        lock.close()


def _build_locked(spec: BuildSpec, ident: Dict[str, str], cache: str, key: str, bdir: str, done: str,
                  log: Callable[[str], None]) -> Dict[str, object]:
    tree = os.path.join(bdir, "tree")
    logf = os.path.join(bdir, "build.log")
    t0 = time.time()
    tree_key = build_key(spec, ident, with_patches=False)
    base_key = _find_base(cache, tree_key) if spec.patches else None
    expect = 0
    if not os.path.isdir(tree):
        if base_key:
            base_tree = os.path.join(cache, "builds", base_key, "tree")
            # The same source and config without the patches is built: start from its tree, so make
            # only rebuilds what the patches change.
            log(f"kernel {spec.name}: copying the unpatched build {base_key}'s tree ...")
            tmp = tree + ".copy"
            shutil.rmtree(tmp, ignore_errors=True)
            subprocess.run(["cp", "-a", "--reflink=auto", base_tree, tmp], check=True)
            _apply_patches(tmp, spec.patches, log)
            os.rename(tmp, tree)
        else:
            _unpack(ident, spec, tree + ".src", log)
            _apply_patches(tree + ".src", spec.patches, log)
            os.rename(tree + ".src", tree)
    frag_path = os.path.join(bdir, "fragment.config")
    localversion = spec.localversion or "-lab"
    with open(frag_path, "w") as f:
        f.write(LAB_FRAGMENT)
        f.write(f'CONFIG_LOCALVERSION="{localversion}"\n')
        if spec.fragment:
            f.write("##: the plan's fragment\n" + spec.fragment.rstrip("\n") + "\n")
    env = _make_env(tree, cache)
    jobs = spec.jobs or os.cpu_count() or 2
    if not os.path.exists(os.path.join(tree, ".config")) or not os.path.exists(os.path.join(bdir, ".configured")):
        log(f"kernel {spec.name}: configuring (virtme-ng's small guest config + the lab's fragment"
            f"{' + the plan' + chr(39) + 's' if spec.fragment else ''}) ...")
        vng = vng_path()
        try:
            os.unlink(os.path.join(tree, ".config"))
        except FileNotFoundError:
            pass
        _run_logged([vng, "--kconfig", "--config", frag_path], tree, env, logf, f"kernel {spec.name} config", log)
        # virtme-ng appends its own generic lines after the fragment (debug info on, for one): the
        # fragment is appended once more so that it has the last word, then olddefconfig again.
        with open(os.path.join(tree, ".config"), "a") as f:
            f.write("\n" + open(frag_path).read())
        _run_logged(["make", "olddefconfig"], tree, env, logf, f"kernel {spec.name} config", log)
        open(os.path.join(bdir, ".configured"), "w").close()
    # Options the fragment asks for that olddefconfig dropped (a missing dependency) are an error:
    # a build that silently lacks CONFIG_LOCK_STAT would be a wrong dataset.
    config_text = open(os.path.join(tree, ".config")).read()
    missing = _missing_options(open(frag_path).read(), config_text)
    if missing:
        raise BuildError(f"kernel {spec.name}: the config lacks what the fragment asks for (a dependency "
                         f"is missing): {', '.join(missing)}")
    prev = [json.load(open(os.path.join(cache, "builds", d, "build.json")))
            for d in os.listdir(os.path.join(cache, "builds"))
            if os.path.exists(os.path.join(cache, "builds", d, "build.json"))]
    expect = expected_steps(prev) if not spec.patches else 0
    cc = "ccache gcc" if "CCACHE_DIR" in env else "gcc"
    log(f"kernel {spec.name}: make -j{jobs} bzImage (CC={cc}; log: {logf}) ...")
    compiled = _run_logged(["make", f"-j{jobs}", f"CC={cc}", "bzImage"], tree, env, logf,
                           f"kernel {spec.name} build", log, expect)
    release = subprocess.run(["make", "-s", "kernelrelease"], cwd=tree, env=env, capture_output=True,
                             text=True).stdout.strip()
    shutil.copy2(os.path.join(tree, "arch", "x86", "boot", "bzImage"), os.path.join(bdir, "bzImage.tmp"))
    os.rename(os.path.join(bdir, "bzImage.tmp"), os.path.join(bdir, "bzImage"))
    shutil.copy2(os.path.join(tree, ".config"), os.path.join(bdir, "config"))
    info: Dict[str, object] = {
        "key": key, "name": spec.name, "release": release, "source": ident,
        "patches": [{"file": os.path.basename(p), "sha256": _sha256_file(p)} for p in spec.patches],
        "fragment": open(frag_path).read(), "compiler": _compiler(), "jobs": jobs,
        "ccache": "CCACHE_DIR" in env, "compiled": compiled,
        "compiled_total": compiled if base_key else compile_steps(logf),
        "seconds": round(time.time() - t0, 1),
        "host_cpus": os.cpu_count(), "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tree_key": tree_key, "incremental_from": base_key,
    }
    with open(done + ".tmp", "w") as f:
        json.dump(info, f, indent=1)
    os.rename(done + ".tmp", done)
    log(f"kernel {spec.name}: built {release} in {info['seconds']:.0f} s ({compiled} files compiled)")
    info["dir"] = bdir
    return info


def compile_steps(logf: str) -> int:
    """The CC and AS lines of a build's whole log: every run of a build that was continued."""
    n = 0
    try:
        with open(logf, errors="replace") as f:
            for line in f:
                if line.startswith("  CC ") or line.startswith("  AS "):
                    n += 1
    except OSError:
        pass
    return n


def expected_steps(builds: List[Dict[str, object]]) -> int:
    """The progress line's "of about N": the largest whole build in the cache. A continued build's
    `compiled` is only its last run's share, and an incremental one's a few files: neither counts."""
    counts = [int(b.get("compiled_total") or 0) for b in builds if not b.get("incremental_from")]  # type: ignore[call-overload]
    return max(counts, default=0)


def _find_base(cache: str, tree_key: str) -> Optional[str]:
    """A finished build of the same source and config without patches (any local version)."""
    root = os.path.join(cache, "builds")
    for d in sorted(os.listdir(root)):
        try:
            info = json.load(open(os.path.join(root, d, "build.json")))
        except (OSError, ValueError):
            continue
        if info.get("tree_key") == tree_key and not info.get("patches"):
            return d
    return None


_OPT = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_NOT = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def parse_config(text: str) -> Dict[str, str]:
    """A .config as {option: value}; 'n' for '# X is not set'."""
    out: Dict[str, str] = {}
    for line in text.splitlines():
        m = _OPT.match(line.strip())
        if m:
            out[m.group(1)] = m.group(2)
            continue
        m = _NOT.match(line.strip())
        if m:
            out[m.group(1)] = "n"
    return out


def _missing_options(fragment: str, config: str) -> List[str]:
    want = parse_config(fragment)
    have = parse_config(config)
    missing = []
    for k, v in want.items():
        if k in ("CONFIG_LOCALVERSION_AUTO", "CONFIG_DEBUG_INFO_NONE", "CONFIG_LIBCRC32C"):
            continue
        got = have.get(k, "n")
        if v == "y" and got != "y":
            missing.append(f"{k}=y (got {got})")
    return missing
