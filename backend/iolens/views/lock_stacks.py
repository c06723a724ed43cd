"""A lock class from /proc/lock_stat linked to perf call stacks (issue 6): which of the class's call
sites appear in the captures' sampled stacks, how much CPU time runs under them, how much of that
is in a lock slow path, and the heaviest stacks.

Symbols of a class (capture, class, occurrence): the function names of its contention points
(call sites that waited) and contending points (call sites that held the lock meanwhile), in the
given capture's lock_stat and in the other given captures whose lock_stat has the same class; and
every identifier of the class name that is a frame name in the stacks (a class named after a
function, as `rcu_read_lock`). Call sites printed without a symbol (a bare address) cannot be
matched and are counted in the notes.

Matching is by frame name, on folded stacks (perf_stacks.folded_stack, "comm;root;...;leaf", the
comm not being a frame): a frame matches a symbol when they are equal once both lose the suffixes
that say nothing about the function: inferno's annotations (`_[k]` kernel, `_[i]` inlined, `_[j]`
JIT; ingest folds without them, but folded text from elsewhere has them) and the compiler's clone
suffixes (`.isra.0`, `.constprop.0`, `.part.0`, `.cold`, `.llvm.NNN`), which differ between a
CONFIG_LOCK_STAT debug kernel and the production kernel the stacks often come from. The frame names
that matched are returned (`frames`), so the flame graph can be searched for exactly those.

Per symbol and capture with stacks, over the capture's first sampled event (the flame graph's
default; cpu-clock in every `iolens-collect run --stacks` capture) and all its runs: the samples
whose stack has the frame (each sample once, also where the frame recurses), their weight (sample
periods: ns of CPU for cpu-clock), their share of the capture's total weight (the flame graph's
"matched" share for a search of those frames), the part of them with a lock slow-path frame
(SLOWPATH_FRAMES) below the symbol's outermost frame, and the 5 heaviest whole stacks.

The work is one DuckDB query over the distinct stacks (string_split + list functions: the frame
names are normalised once per distinct stack, not per sample) joined to the per-stack sample sums;
bench/lock_stacks.py measures it.
"""

from __future__ import annotations

import re
import time
from typing import Any

from .. import models
from ..store.db import Store
from . import flame as flame_view
from .lock_stat import CHOSEN_DUMPS, capture_meta

TOP_STACKS = 5

# Lock slow paths: frames that run only when an acquisition could not take the lock at once
# (names after the clone suffixes are removed; '*' is any text). A sample with one of these below
# the call site is time spent contending, on the CPU: spinning, or on the way to sleep. Fast paths
# are inlined into the lock functions, so _raw_spin_lock*, mutex_lock, down_read/down_write and
# rwsem's __down_read*/__down_write* (inline fast path plus a call to the slow path) are NOT here:
# their own samples mix uncontended acquisitions with spinning that cannot be told apart. Note that
# on a lockdep kernel (CONFIG_LOCK_STAT selects it) mutex_lock_nested() calls __mutex_lock() for
# every acquisition, so there __mutex_lock* also counts uncontended ones.
SLOWPATH_FRAMES: tuple[str, ...] = (
    # qspinlock (spin_lock, also under _raw_spin_lock*): the queued slow path, native or paravirt
    "native_queued_spin_lock_slowpath", "queued_spin_lock_slowpath", "__pv_queued_spin_lock_slowpath",
    # qrwlock (read_lock/write_lock)
    "queued_read_lock_slowpath", "queued_write_lock_slowpath",
    # mutex: __mutex_lock, __mutex_lock_slowpath, __mutex_lock_{killable,interruptible}_slowpath;
    # optimistic spinning on the owner and the MCS queue it spins in
    "__mutex_lock*", "mutex_spin_on_owner", "osq_lock",
    # rw_semaphore: the read and write slow paths and their optimistic spinning
    "rwsem_down_*_slowpath", "rwsem_optimistic_spin", "rwsem_spin_on_owner",
    # counting semaphores (kernel/locking/semaphore.c): __down* are the noinline slow paths
    "__down", "__down_common", "__down_interruptible", "__down_killable", "__down_timeout",
    # rt_mutex and PREEMPT_RT sleeping spinlocks
    "rt_mutex_slowlock*", "__rt_mutex_slowlock*", "rtlock_slowlock*", "rt_spin_lock_slowlock*",
    # percpu rw_semaphore writers and blocked readers
    "percpu_rwsem_wait", "__percpu_down_read",
)

# Suffixes that do not change which function a frame is (see the module documentation).
CLONE_SUFFIX = r"((\.(isra|constprop|part|cold|llvm|lto_priv)(\.[0-9]+)*)*)(_\[[kij]\])?$"
_CLONE = re.compile(CLONE_SUFFIX)
_SLOW_RE = "|".join(".*".join(re.escape(part) for part in p.split("*")) for p in SLOWPATH_FRAMES)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

KIND_ORDER = {"contention": 0, "contending": 1, "class": 2}


class UnknownLockClass(LookupError):
    """The capture's lock_stat has no such class (or no lock_stat at all): HTTP 404."""


def function_of(frame: str) -> str:
    """A frame or lock_stat function name without annotations and clone suffixes."""
    return _CLONE.sub("", frame, count=1)


def class_identifiers(lock_class: str) -> list[str]:
    """'&(&iomap_dio_complete_work)->lock#3' -> ['iomap_dio_complete_work', 'lock']."""
    return list(dict.fromkeys(_IDENT.findall(lock_class)))


# --------------------------------------------------------------------------------------------
# SQL


def _class_points(store: Store, ids: list[str], lock_class: str, occurrence: int) -> tuple[set[str], list[dict]]:
    """(captures whose lock_stat has the class, their points of it)."""
    has = store.query(
        f"""WITH {CHOSEN_DUMPS}
            SELECT DISTINCT c.capture_id FROM lock_stat_classes c JOIN chosen USING (capture_id, path)
            WHERE c.class = $class AND c.occurrence = $occ""",
        {"ids": ids, "class": lock_class, "occ": occurrence}).rows
    points = store.query(
        f"""WITH {CHOSEN_DUMPS}
            SELECT p.capture_id, p.kind, p.function_name AS function, arg_max(p.symbol, p.count) AS symbol,
                   sum(p.count)::BIGINT AS count
            FROM lock_stat_points p JOIN chosen USING (capture_id, path)
            WHERE p.class = $class AND p.occurrence = $occ
            GROUP BY ALL
            ORDER BY p.capture_id, p.kind, count DESC, symbol""",
        {"ids": ids, "class": lock_class, "occ": occurrence}).dicts()
    return {r[0] for r in has}, points


# Per capture and symbol, over the distinct stacks of the capture's event: the stacks with the
# symbol's frame (normalised frame names), whether a slow-path frame is below its outermost
# occurrence, the raw frame names that matched; joined to the per-stack sums of the samples.
_MATCH_SQL = """
WITH ev AS (SELECT unnest($cids) AS capture_id, unnest($events) AS event),
w AS (
    SELECT s.capture_id, s.run_id, s.stack_id, sum(s.weight)::BIGINT AS w, count(*)::BIGINT AS n
    FROM perf_samples s JOIN ev ON s.capture_id = ev.capture_id AND s.event IS NOT DISTINCT FROM ev.event
    WHERE s.stack_id IS NOT NULL
    GROUP BY ALL),
pre AS MATERIALIZED (
    SELECT capture_id, run_id, stack_id, folded_stack
    FROM perf_stacks
    WHERE list_contains($cids, capture_id)
      AND list_bool_or(list_transform($syms, lambda x: contains(folded_stack, x)))),
fr AS (
    SELECT *, string_split(folded_stack, ';')[2:] AS raw FROM pre),
nm AS (
    SELECT *, list_transform(raw, lambda f: CASE WHEN contains(f, '.') OR contains(f, '_[')
                                                THEN regexp_replace(f, $clone, '') ELSE f END) AS fn
    FROM fr),
hit AS (
    SELECT capture_id, run_id, stack_id, folded_stack, raw, fn,
           unnest(list_distinct(list_intersect(fn, $syms))) AS sym
    FROM nm WHERE list_has_any(fn, $syms)),
m AS (
    SELECT capture_id, run_id, stack_id, folded_stack, sym,
           len(list_filter(fn[list_position(fn, sym) + 1:], lambda f: regexp_full_match(f, $slow))) > 0 AS slow,
           list_distinct(list_filter(raw, lambda f, i: fn[i] = sym)) AS frames
    FROM hit),
agg AS MATERIALIZED (
    SELECT m.capture_id, m.sym, m.folded_stack, sum(w.w)::BIGINT AS w, sum(w.n)::BIGINT AS n,
           bool_or(m.slow) AS slow, list_distinct(flatten(list(m.frames))) AS frames
    FROM m JOIN w USING (capture_id, run_id, stack_id)
    GROUP BY ALL),
top AS (
    SELECT capture_id, sym,
           list(struct_pack(folded := folded_stack, w := w, n := n, slow := slow) ORDER BY w DESC, folded_stack) AS top
    FROM (SELECT * FROM agg QUALIFY row_number() OVER (PARTITION BY capture_id, sym ORDER BY w DESC, folded_stack) <= $k)
    GROUP BY ALL)
SELECT a.capture_id, a.sym, sum(a.w)::BIGINT AS w, sum(a.n)::BIGINT AS n,
       coalesce(sum(a.w) FILTER (WHERE a.slow), 0)::BIGINT AS slow_w,
       coalesce(sum(a.n) FILTER (WHERE a.slow), 0)::BIGINT AS slow_n,
       list_sort(list_distinct(flatten(list(a.frames)))) AS frames, any_value(t.top) AS top
FROM agg a JOIN top t USING (capture_id, sym)
GROUP BY a.capture_id, a.sym
"""

_TOTALS_SQL = """
WITH ev AS (SELECT unnest($cids) AS capture_id, unnest($events) AS event)
SELECT s.capture_id, sum(s.weight)::BIGINT AS w, count(*)::BIGINT AS n
FROM perf_samples s JOIN ev ON s.capture_id = ev.capture_id AND s.event IS NOT DISTINCT FROM ev.event
WHERE s.stack_id IS NOT NULL
GROUP BY 1
"""


# --------------------------------------------------------------------------------------------
# The view


def _pct(x: float, total: float) -> float:
    return 100.0 * x / total if total else 0.0


def lock_stacks(store: Store, capture_id: str, lock_class: str, occurrence: int = 0,
                others: list[str] | None = None) -> models.LockStacks:
    started = time.perf_counter()
    ids = list(dict.fromkeys([capture_id, *(others or [])]))
    found = capture_meta(store, ids)  # UnknownCaptures for ids not in the store
    with_class, points = _class_points(store, ids, lock_class, occurrence)
    if capture_id not in with_class:
        raise UnknownLockClass(f"capture {capture_id} has no lock class {lock_class!r}"
                               + (f" (occurrence {occurrence})" if occurrence else "")
                               + " in its lock_stat")

    # The captures' stacks: the event each is counted over, its runs; why not when none.
    caps: list[models.LockStacksCapture] = []
    events: dict[str, str | None] = {}
    for cid in ids:
        meta = found[cid]
        try:
            st = flame_view._capture(store, cid)
        except flame_view.NoStacks:
            caps.append(models.LockStacksCapture(
                id=cid, label=meta["label"], kernel=meta["kernel"], lock_stat=cid in with_class, stacks=False,
                event=None, weight_unit="count", total_weight=0, total_samples=0, runs=[],
                reason="no perf call stacks: recorded without `iolens-collect run --stacks`"))
            continue
        events[cid] = st.default_event
        caps.append(models.LockStacksCapture(
            id=cid, label=meta["label"], kernel=meta["kernel"], lock_stat=cid in with_class, stacks=True,
            event=st.default_event, weight_unit=flame_view._weight_unit(st.default_event), total_weight=0,
            total_samples=0, runs=[r.id for r in st.runs], reason=None))

    # Symbols: call sites of every capture whose lock_stat has the class, then class-name identifiers.
    sources: dict[str, list[models.LockSymbolSource]] = {}
    unnamed = 0
    for p in points:
        if not p["function"]:
            unnamed += 1
            continue
        name = function_of(p["function"])
        sources.setdefault(name, []).append(models.LockSymbolSource(
            capture=p["capture_id"], kind=p["kind"], symbol=p["symbol"], count=p["count"]))
    idents = [i for i in class_identifiers(lock_class) if i not in sources]
    stack_ids = [c.id for c in caps if c.stacks]
    candidates = [*sources, *idents]

    matched: dict[tuple[str, str], dict[str, Any]] = {}
    totals: dict[str, tuple[int, int]] = {}
    if stack_ids:
        params = {"cids": stack_ids, "events": [events[c] for c in stack_ids]}
        totals = {r[0]: (int(r[1]), int(r[2])) for r in store.query(_TOTALS_SQL, params).rows}
        if candidates:
            rows = store.query(_MATCH_SQL, {**params, "syms": candidates, "clone": CLONE_SUFFIX,
                                            "slow": _SLOW_RE, "k": TOP_STACKS}).dicts()
            matched = {(r["capture_id"], r["sym"]): r for r in rows}
    for c in caps:
        if c.stacks:
            c.total_weight, c.total_samples = totals.get(c.id, (0, 0))

    hit_names = {s for _, s in matched}
    for ident in idents:
        if ident in hit_names:
            sources[ident] = [models.LockSymbolSource(capture=capture_id, kind="class", symbol=lock_class, count=None)]

    def order(item: tuple[str, list[models.LockSymbolSource]]) -> tuple:
        name, srcs = item
        return (min(KIND_ORDER[s.kind] for s in srcs), -max(s.count or 0 for s in srcs), name)

    symbols: list[models.LockSymbol] = []
    for name, srcs in sorted(sources.items(), key=order):
        srcs.sort(key=lambda s: (ids.index(s.capture), KIND_ORDER[s.kind]))
        per_cap = []
        for c in caps:
            if not c.stacks:
                continue
            r = matched.get((c.id, name))
            w = int(r["w"]) if r else 0
            per_cap.append(models.LockSymbolCapture(
                capture=c.id, samples=int(r["n"]) if r else 0, weight=w, share_pct=_pct(w, c.total_weight),
                slow_samples=int(r["slow_n"]) if r else 0, slow_weight=int(r["slow_w"]) if r else 0,
                slow_pct=_pct(int(r["slow_w"]), w) if r and w else None,
                frames=list(r["frames"]) if r else [],
                top=[models.LockStackLine(folded=t["folded"], weight=t["w"], samples=t["n"], slowpath=t["slow"])
                     for t in (r["top"] if r else [])]))
        symbols.append(models.LockSymbol(name=name, sources=srcs, found=any(p.samples for p in per_cap),
                                         stacks=per_cap))

    absent = [s.name for s in symbols if not s.found]
    notes: list[str] = []
    if not stack_ids:
        notes.append("None of these captures has perf call stacks. Record the same workload with "
                     "`iolens-collect run --stacks ...` (perf record -g; any kernel, it needs no CONFIG_LOCK_STAT) "
                     "and add that capture to the notebook.")
    elif not symbols:
        notes.append("This class has no call site with a symbol and no identifier of its name is a frame "
                     "in the stacks: nothing to look for.")
    elif absent:
        notes.append(f"Not in any capture's stacks: {', '.join(absent)}. A call site appears only when a sample "
                     "hit it or a function it called (inlined functions have no frame of their own).")
    if unnamed:
        notes.append(f"{unnamed} call site{'s' if unnamed > 1 else ''} printed without a symbol (an address only) "
                     "cannot be matched.")
    if any(c.event in flame_view.NS_EVENTS for c in caps if c.stacks):
        notes.append("cpu-clock samples are CPU time: spinning and the path into a sleep show, the time asleep "
                     "waiting for a mutex or rw_semaphore does not (lock_stat's wait time does).")
    lock_kernels = {c.kernel for c in caps if c.lock_stat}
    stack_kernels = {c.kernel for c in caps if c.stacks}
    if stack_ids and lock_kernels and stack_kernels and lock_kernels != stack_kernels:
        notes.append(f"Names matched across kernels: lock_stat from {', '.join(sorted(k or '?' for k in lock_kernels))}, "
                     f"stacks from {', '.join(sorted(k or '?' for k in stack_kernels))}.")
    return models.LockStacks(
        capture=capture_id, lock_class=lock_class, occurrence=occurrence, captures=caps, symbols=symbols,
        absent=absent, slowpath=list(SLOWPATH_FRAMES), notes=notes,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1))
