"""The kernel's .config in a bundle (``--kernel-config FILE``) and the lab's facts (``--lab-facts``).

``--kernel-config`` takes a .config (``/proc/config.gz``, ``/boot/config-RELEASE``, a build tree's
``.config``; gzip is read too): the bundle keeps it whole as ``kernel/config`` (kind
``kernel-config``) and the host facts get the options that decide whether two captures compare,
under ``host.kernel.config``:

    {"path": "kernel/config", "sha256": "...", "preempt": "voluntary", "hz": 1000,
     "lock_stat": true, "blk_dev_io_trace": true, "debug": ["CONFIG_LOCKDEP", ...],
     "debug_no_cost": ["CONFIG_BLK_DEBUG_FS"],
     "options": {"CONFIG_LOCK_STAT": "y", "CONFIG_PREEMPT_VOLUNTARY": "y", "CONFIG_HZ": "1000", ...}}

``options`` holds every option of ``COMPARED`` (``n`` when the .config says "is not set" or lacks
it), so two bundles list the same keys and a difference shows as a differing fact.

``--lab-facts FILE`` takes the JSON the lab (``iolens-lab``) writes for a guest: how the kernel
was made (package, or source, fragment and patches), the qemu command line, the accelerator, the
guest's CPUs and memory, the emulated disk. It lands as ``host.lab`` unchanged, except that the
guest's own view (CPU model, CPU count, kernel command line) is checked against it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["KconfigError", "COMPARED", "DEBUG", "DEBUG_NO_COST", "read_config", "summarize", "read_lab_facts", "CONFIG_REL"]

CONFIG_REL = "kernel/config"
_PREEMPT = (("CONFIG_PREEMPT_RT", "rt"), ("CONFIG_PREEMPT_LAZY", "lazy"), ("CONFIG_PREEMPT", "full"),
            ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"), ("CONFIG_PREEMPT_NONE", "none"))
#: Debug options that cost time on the I/O and locking paths: two kernels that differ in one of
#: them do not compare on speed. NO_COST: debug options that only add debugfs files. The backend
#: keeps the same lists (backend/iolens/store/rules/kernel_debug.py); both are tested on
#: testdata/vectors/kconfig-debug.json.
DEBUG = ("CONFIG_LOCK_STAT", "CONFIG_LOCKDEP", "CONFIG_PROVE_LOCKING", "CONFIG_DEBUG_LOCK_ALLOC",
         "CONFIG_DEBUG_SPINLOCK", "CONFIG_DEBUG_MUTEXES", "CONFIG_DEBUG_RT_MUTEXES",
         "CONFIG_DEBUG_WW_MUTEX_SLOWPATH", "CONFIG_DEBUG_RWSEMS", "CONFIG_DEBUG_LOCKDEP", "CONFIG_PROVE_RCU",
         "CONFIG_DEBUG_ATOMIC_SLEEP", "CONFIG_DEBUG_PREEMPT", "CONFIG_DEBUG_IRQFLAGS", "CONFIG_DEBUG_OBJECTS",
         "CONFIG_DEBUG_PAGEALLOC", "CONFIG_DEBUG_VM", "CONFIG_DEBUG_LIST", "CONFIG_DEBUG_SG",
         "CONFIG_DEBUG_NOTIFIERS", "CONFIG_SLUB_DEBUG_ON", "CONFIG_KASAN", "CONFIG_KCSAN", "CONFIG_KMSAN",
         "CONFIG_UBSAN", "CONFIG_KMEMLEAK", "CONFIG_DEBUG_KMEMLEAK", "CONFIG_PAGE_POISONING",
         "CONFIG_FTRACE_RECORD_RECURSION", "CONFIG_XFS_DEBUG", "CONFIG_EXT4_DEBUG")
DEBUG_NO_COST = ("CONFIG_BLK_DEBUG_FS", "CONFIG_BLK_DEBUG_FS_ZONED")
#: The options pulled out of the .config into the host facts.
COMPARED = ("CONFIG_LOCALVERSION", "CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT",
            "CONFIG_PREEMPT_LAZY", "CONFIG_PREEMPT_RT", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_HZ",
            "CONFIG_NO_HZ_IDLE", "CONFIG_NO_HZ_FULL", "CONFIG_HZ_PERIODIC", "CONFIG_BLK_DEV_IO_TRACE",
            "CONFIG_BLK_CGROUP", "CONFIG_BLK_WBT", "CONFIG_BLK_WBT_MQ", "CONFIG_MQ_IOSCHED_DEADLINE",
            "CONFIG_MQ_IOSCHED_KYBER", "CONFIG_IOSCHED_BFQ", "CONFIG_SCHEDSTATS", "CONFIG_SCHED_AUTOGROUP",
            "CONFIG_NR_CPUS", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_CC_VERSION_TEXT") + DEBUG + DEBUG_NO_COST

_OPT = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_NOT = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


class KconfigError(ValueError):
    """The file is not a kernel .config (or the lab's facts are not JSON); names the file and line."""


def read_config(path: str) -> Tuple[bytes, Dict[str, str]]:
    """The file's bytes (as read, gunzipped when gzip) and its options {CONFIG_X: value}."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise KconfigError(f"--kernel-config {path}: {exc.strerror or exc}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise KconfigError(f"--kernel-config {path}: a broken gzip file ({exc})") from None
    text = data.decode("utf-8", errors="replace")
    options: Dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        m = _OPT.match(s)
        if m:
            v = m.group(2)
            options[m.group(1)] = v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v
            continue
        m = _NOT.match(s)
        if m:
            options[m.group(1)] = "n"
            continue
        if s.startswith("#"):
            continue
        raise KconfigError(f"--kernel-config {path}, line {n}: not a .config line: {s[:80]!r}")
    if not options:
        raise KconfigError(f"--kernel-config {path}: no CONFIG_ option in it: not a kernel .config")
    return data, options


def summarize(data: bytes, options: Dict[str, str]) -> Dict[str, Any]:
    """host.kernel.config: the compared options, the preemption model, HZ, the debug options."""
    preempt = next((name for opt, name in _PREEMPT if options.get(opt) == "y"), None)
    hz: Optional[int] = None
    try:
        hz = int(options.get("CONFIG_HZ", ""))
    except ValueError:
        pass
    debug: List[str] = [k for k in DEBUG if options.get(k, "n") not in ("n", "")]
    debug_no_cost: List[str] = [k for k in DEBUG_NO_COST if options.get(k, "n") not in ("n", "")]
    return {
        "path": CONFIG_REL,
        "sha256": hashlib.sha256(data).hexdigest(),
        "preempt": preempt,
        "preempt_dynamic": options.get("CONFIG_PREEMPT_DYNAMIC") == "y",
        "hz": hz,
        "lock_stat": options.get("CONFIG_LOCK_STAT") == "y",
        "blk_dev_io_trace": options.get("CONFIG_BLK_DEV_IO_TRACE") == "y",
        "debug": debug,
        "debug_no_cost": debug_no_cost,
        "options": {k: options.get(k, "n") for k in COMPARED},
    }


def read_lab_facts(path: str) -> Dict[str, Any]:
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise KconfigError(f"--lab-facts {path}: {exc.strerror or exc}") from None
    try:
        facts = json.loads(text)
    except ValueError as exc:
        raise KconfigError(f"--lab-facts {path}: not JSON ({exc})") from None
    if not isinstance(facts, dict):
        raise KconfigError(f"--lab-facts {path}: expected a JSON object")
    return facts
