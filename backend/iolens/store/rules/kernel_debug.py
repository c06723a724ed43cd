"""Which .config options are debug options, for comparisons of two kernels (views/comparison.py).

Two kinds, both listed among "the options that matter" when two captures' .config files differ in
them:

- COSTLY: checks or bookkeeping on the paths an I/O benchmark runs (locking, allocation, lists,
  sanitizers, the file systems' own debug checks). Two kernels that differ in one of them do not
  compare on speed: the comparison warns.
- NO_COST: debug options that only add files under debugfs (the block layer's
  /sys/kernel/debug/block and its zoned-device files): a difference is shown, it is not a reason
  the numbers differ. Debian's 6.1 has CONFIG_BLK_DEBUG_FS_ZONED=y, its 6.12 no longer has the
  option (it was folded into BLK_DEBUG_FS).

The collector keeps the same lists (collectors/iolens_collect/kconfig.py, stdlib only, it cannot
import this); both are tested on testdata/vectors/kconfig-debug.json, made from the real .config
differences of Debian's 6.1 and 6.12 and of the lab's 6.12 builds with and without LOCK_STAT.
"""

from __future__ import annotations

COSTLY = ("CONFIG_LOCK_STAT", "CONFIG_LOCKDEP", "CONFIG_PROVE_LOCKING", "CONFIG_DEBUG_LOCK_ALLOC",
          "CONFIG_DEBUG_SPINLOCK", "CONFIG_DEBUG_MUTEXES", "CONFIG_DEBUG_RT_MUTEXES",
          "CONFIG_DEBUG_WW_MUTEX_SLOWPATH", "CONFIG_DEBUG_RWSEMS", "CONFIG_DEBUG_LOCKDEP", "CONFIG_PROVE_RCU",
          "CONFIG_DEBUG_ATOMIC_SLEEP", "CONFIG_DEBUG_PREEMPT", "CONFIG_DEBUG_IRQFLAGS", "CONFIG_DEBUG_OBJECTS",
          "CONFIG_DEBUG_PAGEALLOC", "CONFIG_DEBUG_VM", "CONFIG_DEBUG_LIST", "CONFIG_DEBUG_SG",
          "CONFIG_DEBUG_NOTIFIERS", "CONFIG_SLUB_DEBUG_ON", "CONFIG_KASAN", "CONFIG_KCSAN", "CONFIG_KMSAN",
          "CONFIG_UBSAN", "CONFIG_KMEMLEAK", "CONFIG_DEBUG_KMEMLEAK", "CONFIG_PAGE_POISONING",
          "CONFIG_FTRACE_RECORD_RECURSION", "CONFIG_XFS_DEBUG", "CONFIG_EXT4_DEBUG")
NO_COST = ("CONFIG_BLK_DEBUG_FS", "CONFIG_BLK_DEBUG_FS_ZONED")

COSTLY_WHY = "a debug option: costs time on the I/O and locking paths"
NO_COST_WHY = "a debug option that only adds debugfs files (/sys/kernel/debug/block): no cost on the I/O path"


def is_on(value: str | None) -> bool:
    """An option is on when the .config sets it to anything but n (y, m, a number)."""
    return value not in (None, "", "n")


def debug_on(options: dict[str, str]) -> dict[str, list[str]]:
    """The debug options a .config turns on, by kind, in the lists' order."""
    return {"costly": [o for o in COSTLY if is_on(options.get(o))],
            "no_cost": [o for o in NO_COST if is_on(options.get(o))]}
