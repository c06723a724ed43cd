"""The difference flame graph as views/flame.py made it in Python until 2026-11-28 (build_tree over
the union of both selections' stacks, each run's totals walked per node, the function table from
each side's rows), kept here as the reference that the DuckDB version (flame.diff) is held to:
test_flame_diff.py compares their answers field by field, order and floats included."""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from iolens import models
from iolens.store.db import Store
from iolens.views import flame as fv


@dataclass
class _Side:
    cap: fv.CaptureStacks
    filters: fv.Filters
    rows: list[tuple[str, str, int, int]]
    runs: list[str]                       # runs with samples in the selection, in run order
    run_weight: dict[str, int]
    stackless: int


def _side(store: Store, cid: str, f: fv.Filters) -> _Side:
    cap = fv._capture(store, cid)
    f = fv._resolve(cap, f)
    rows = fv._stack_rows(store, cid, f)
    weight: dict[str, int] = {}
    for run, _s, w, _n in rows:
        weight[run] = weight.get(run, 0) + w
    order = [r.id for r in cap.runs if weight.get(r.id)]
    return _Side(cap, f, rows, order, weight, fv._stackless(store, cid, f))


def _noise_reason(side: _Side, name: str) -> str | None:
    """Why this side's runs cannot measure the spread between repeats, or None when they can."""
    if len(side.runs) < 3:   # store/stats.py MIN_REPEATS, the compared-metric tables' rule
        n = len(side.runs)
        runs = {0: "no run", 1: "one run", 2: "two runs"}.get(n, f"{n} runs")
        return f"{name} has {runs} with samples in this selection; noise needs " \
               "3 or more repeats on each side (fewer are too few to judge a change)"
    points = {side.cap.run_params.get(r, "{}") for r in side.runs}
    if len(points) > 1:
        return f"the runs of {name} are {len(points)} different parameter points, not repeats of one; " \
               "choose the runs of one point to see which changes are noise"
    return None


def _overlap(lo_a: float, hi_a: float, lo_b: float, hi_b: float) -> bool:
    return lo_a <= hi_b and lo_b <= hi_a


def _ranges(per_run: Sequence[int], totals: Sequence[int]) -> tuple[float, float]:
    shares = [100.0 * v / t for v, t in zip(per_run, totals)]
    return min(shares), max(shares)


def _is_noise(a: Sequence[int], tot_a: Sequence[int], b: Sequence[int], tot_b: Sequence[int]) -> bool:
    """The per-run share ranges of the two sides overlap, and the share changed (a frame with the
    same share on both sides, absent from both for one, is unchanged, not noise)."""
    if abs(sum(a) / sum(tot_a) - sum(b) / sum(tot_b)) < 1e-12:
        return False
    return _overlap(*_ranges(a, tot_a), *_ranges(b, tot_b))


def old_diff(store: Store, a: str, b: str, f: fv.Filters = fv.Filters(), runs_a: tuple[str, ...] | None = None,
             runs_b: tuple[str, ...] | None = None, limit: int = fv.DEFAULT_FUNCTIONS,
             range_b: tuple[int | None, int | None] | None = None) -> models.FlameDiff:
    """The differential tree of captures a (before) and b (after): the union of both trees with
    each side's self weight per node, and the functions whose share changed most. With `range_b`
    (from_ns, to_ns), side b takes that time range instead of f's: two ranges of one capture
    (a == b), e.g. the first seconds of a run against its steady state."""
    started = time.perf_counter()
    missing = [c for c in (a, b) if not store.query("SELECT 1 FROM captures WHERE capture_id = ?", [c]).rows]
    if missing:
        raise fv.UnknownCapture(missing)
    if f.tid is not None or f.runs is not None:
        raise fv.BadQuery("a difference takes runs_a / runs_b, not runs or tid (thread ids differ between captures)")
    if f.event is None:
        # the first side's default event, on both sides
        f = replace(f, event=fv._capture(store, a).default_event)
    sa = _side(store, a, replace(f, runs=runs_a))
    fb = replace(f, runs=runs_b) if range_b is None else replace(f, runs=runs_b, from_ns=range_b[0], to_ns=range_b[1])
    sb = _side(store, b, fb)
    ra, rb = sa.runs, sb.runs
    reason = _noise_reason(sa, "the first capture") or _noise_reason(sb, "the second capture")
    noisy = reason is None

    # Per stack: [weight A, weight B, samples A, samples B, then weight per run of A, of B]
    col_a = {r: 4 + i for i, r in enumerate(ra)}
    col_b = {r: 4 + len(ra) + i for i, r in enumerate(rb)}
    ncols = 4 + (len(ra) + len(rb) if noisy else 0)
    stacks: dict[str, list[int]] = {}
    for side, cols, rows in ((0, col_a, sa.rows), (1, col_b, sb.rows)):
        for run, stack, w, n in rows:
            v = stacks.get(stack)
            if v is None:
                v = stacks[stack] = [0] * ncols
            v[side] += w
            v[2 + side] += n
            if noisy:
                v[cols[run]] += w
    tree = fv.build_tree(stacks, ncols)
    ta, tb = sum(sa.run_weight.values()), sum(sb.run_weight.values())

    noise_self = noise_total = None
    if noisy:
        tot_a = [sa.run_weight[r] for r in ra]
        tot_b = [sb.run_weight[r] for r in rb]
        totals = {c: tree.totals(c) for c in range(4, ncols)}

        def flags(column: Any) -> list[bool]:
            ca, cb = [column(col_a[r]) for r in ra], [column(col_b[r]) for r in rb]
            return [_is_noise([c[i] for c in ca], tot_a, [c[i] for c in cb], tot_b) for i in range(len(tree))]

        noise_self = flags(lambda c: tree.values[c])
        noise_total = flags(lambda c: totals[c])

    # Functions: share of each side's total, and noise from the per-run shares
    fa_rows, fb_rows = fv._function_rows(store, a, sa.filters), fv._function_rows(store, b, sb.filters)
    fa, fb = fv._functions(fa_rows), fv._functions(fb_rows)
    # Each function as a plain tuple (name, self_a, self_b, total_a, total_b, delta_self,
    # delta_total, samples_a, samples_b); models only for the rows kept (96k functions at 200k nodes)
    zero = [0, 0, 0, 0]
    fn_rows: list[tuple[Any, ...]] = []
    for name in set(fa) | set(fb):
        va, vb = fa.get(name, zero), fb.get(name, zero)
        s_a, s_b, t_a, t_b = fv._pct(va[1], ta), fv._pct(vb[1], tb), fv._pct(va[0], ta), fv._pct(vb[0], tb)
        fn_rows.append((name, s_a, s_b, t_a, t_b, s_b - s_a, t_b - t_a, va[2], vb[2]))
    # the largest changes of self and of total, each ranked (the union of both top lists); names
    # are unique, so nsmallest keeps what sorted()[:limit] keeps
    keep: dict[str, tuple[Any, ...]] = {}
    for col in (5, 6):
        for r in heapq.nsmallest(limit, fn_rows, key=lambda r: (-abs(r[col]), r[0])):
            keep[r[0]] = r
    kept = sorted(keep.values(), key=lambda r: (-max(abs(r[5]), abs(r[6])), r[0]))
    # the per-run weights behind the noise flags, of the kept functions only
    per_run: dict[tuple[str, int], dict[str, list[int]]] = {}
    if noisy:
        for side, rows in ((0, fa_rows), (1, fb_rows)):
            for fn, run, tw, sw, _tn, _sn in rows:
                if fn in keep:
                    per_run.setdefault((fn, side), {})[run] = [tw, sw]
    out_functions = []
    for name, s_a, s_b, t_a, t_b, d_s, d_t, n_a, n_b in kept:
        row = models.FlameDiffFunction(name=name, self_a=s_a, self_b=s_b, total_a=t_a, total_b=t_b, delta_self=d_s,
                                       delta_total=d_t, samples_a=n_a, samples_b=n_b)
        if noisy:
            pa, pb = per_run.get((name, 0), {}), per_run.get((name, 1), {})
            for k, attr in ((1, "noise_self"), (0, "noise_total")):
                setattr(row, attr, _is_noise([pa.get(r, [0, 0])[k] for r in ra], [sa.run_weight[r] for r in ra],
                                             [pb.get(r, [0, 0])[k] for r in rb], [sb.run_weight[r] for r in rb]))
        out_functions.append(row)

    notes = []
    if f.event not in {e.event for e in sb.cap.events} or not sb.rows:
        notes.append(f"the second capture has no {f.event} samples with stacks in this selection")
    if not sa.rows:
        notes.append(f"the first capture has no {f.event} samples with stacks in this selection")

    def side(s: _Side) -> models.FlameDiffSide:
        return models.FlameDiffSide(capture=s.cap.ref, runs=s.runs, run_weights=s.run_weight,
                                    total_weight=sum(s.run_weight.values()),
                                    total_samples=sum(n for *_x, n in s.rows), stackless_samples=s.stackless,
                                    events=s.cap.events, all_runs=s.cap.runs)

    return models.FlameDiff(
        a=side(sa), b=side(sb), filters=replace(f, runs=None).public(), weight_unit=fv._weight_unit(f.event),
        noise_available=noisy, noise_reason=reason,
        tree=models.FlameDiffTree(names=tree.names, name=tree.name, depth=tree.depth, self_a=tree.values[0],
                                  self_b=tree.values[1], samples_a=tree.values[2], samples_b=tree.values[3],
                                  noise_self=noise_self, noise_total=noise_total),
        functions=out_functions, functions_count=len(fn_rows), notes=notes,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 1))


