"""Flame graphs from perf call stacks (issue 3): one capture's merged call tree, for all its runs or
a selection (runs, CPUs, a thread, a command, a time range), the differential tree of two
captures with the changes that lie within the spread between repeats marked as noise, the
functions by self and total weight, and the folded text of any selection.

Rows come from perf_stacks (distinct folded stacks per run) and perf_samples (one row per sample:
time, CPU, pid, tid, comm, stack id, weight, event), filled at ingest from `perf-script`
artifacts (iolens/ingest/perf_script.py). The grouped query is the one of store/schema/flame.sql:

    SELECT folded_stack, sum(weight) ... GROUP BY folded_stack

so the tree of one event over a whole run is exactly what inferno-collapse-perf folds from the
same text (test_ingest_perf_script.py holds the store to that).

Conventions of every answer:
- weight: perf's sample period summed, as folded stacks count it (ns for cpu-clock and
  task-clock, where `weight_unit` is 'ns'; events otherwise); samples: the number of samples.
- One event at a time. Default: the event of the capture's first sample, the one
  inferno-collapse-perf keeps by default (`events` lists the others).
- Times of a range (from_ns, to_ns) are ns since the first sample of each run (any event), so one
  range selects the same phase of every repeat.
- A sample without a usable frame (stack_id NULL) is not in the tree; `stackless_samples` counts
  the ones the filters select.
- Trees are columns in pre-order (a node's children follow it, sorted by name, as inferno sorts
  folded lines): the node's name (index into `names`), its depth (the root, named 'all', is 0;
  depth 1 is the command name perf printed, as in folded stacks) and its self weight (samples whose
  stack ends there). A node's total is the sum of the self weights of its subtree.
- Shares are of the selection's total weight (the tree's root), in percent; changes between two
  captures are in percentage points (pp), each side normalised by its own total.

Noise: where both sides of a difference have MIN_REPEATS (3) or more runs of one parameter point
(repeats), each node's and each function's share is computed per run; a change is marked as noise
when the range [min, max] of one side's per-run shares overlaps the other's, the rule the fio
comparison uses for '~' (fio_compare.py). With fewer repeats on a side nothing is marked and
noise_reason says why: the compared-metric tables' rule (store/stats.py MIN_REPEATS, their '?'),
two repeats being too few to tell a change from noise (testdata/vectors/ratio-tone.json).
"""

from __future__ import annotations

import json
import sys
import time
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import iolens_native

from .. import models
from ..formats.perf_script import format_folded
from ..store.db import Store
from ..store.derived import OFFCPU_EVENT, OFFCPU_EVENTS
from ..store.stats import MIN_REPEATS, too_few_repeats

ROOT_NAME = "all"
# A tree of more nodes than this is refused (ask for a narrower selection) rather than sent.
MAX_NODES = 2_000_000
# cpu-clock and task-clock periods are nanoseconds of CPU time; 'offcpu' weights are ns off the
# CPU (ingest/offcpu.py, docs/offcpu.md).
NS_EVENTS = frozenset({"cpu-clock", "task-clock", OFFCPU_EVENT})
FACET_LIMIT = 200
DEFAULT_FUNCTIONS = 200

TopKey = Literal["self", "total"]


class UnknownCapture(LookupError):
    def __init__(self, missing: list[str]) -> None:
        super().__init__(f"no capture with id {', '.join(missing)}")
        self.missing = missing


class NoStacks(LookupError):
    """The capture exists but holds no perf samples (no perf-script artifact): HTTP 404."""


class BadQuery(ValueError):
    """A parameter that cannot be used (an unknown event or run, an empty range...): HTTP 422."""


@dataclass(frozen=True)
class Filters:
    """What a flame graph covers. None: everything."""

    event: str | None = None          # None: the capture's first event
    runs: tuple[str, ...] | None = None
    cpus: tuple[int, ...] | None = None
    tid: int | None = None
    comm: str | None = None           # the task's command name as perf printed it (spaces kept)
    from_ns: int | None = None        # ns since each run's first sample, inclusive
    to_ns: int | None = None          # exclusive

    def public(self) -> models.FlameFilters:
        return models.FlameFilters(event=self.event, runs=list(self.runs) if self.runs is not None else None,
                                   cpus=list(self.cpus) if self.cpus is not None else None, tid=self.tid,
                                   comm=self.comm, from_ns=self.from_ns, to_ns=self.to_ns)


# --------------------------------------------------------------------------------------------
# SQL: every query is one filtered scan of perf_samples and a group-by (no window functions).


def _task_conditions(f: Filters, cond: list[str], params: dict[str, Any], p: str = "") -> None:
    """The CPU, thread and command filters over perf_samples aliased `s` (added to cond and params;
    each parameter's name prefixed with `p`)."""
    if f.cpus is not None:
        cond.append(f"list_contains(${p}cpus, s.cpu)")
        params[p + "cpus"] = list(f.cpus)
    if f.tid is not None:
        cond.append(f"s.tid = ${p}tid")
        params[p + "tid"] = f.tid
    if f.comm is not None:
        cond.append(f"s.comm = ${p}comm")
        params[p + "comm"] = f.comm


def _where(cid: str, f: Filters, *, event: bool = True, p: str = "") -> tuple[str, str, dict[str, Any]]:
    """(extra FROM clause, WHERE clause, parameters) over perf_samples aliased `s`; the parameters'
    names prefixed with `p` (two selections in one query: diff)."""
    params: dict[str, Any] = {p + "cid": cid}
    cond = [f"s.capture_id = ${p}cid"]
    join = ""
    if event:
        cond.append(f"s.event IS NOT DISTINCT FROM ${p}event")
        params[p + "event"] = f.event
    if f.runs is not None:
        cond.append(f"list_contains(${p}runs, s.run_id)")
        params[p + "runs"] = list(f.runs)
    _task_conditions(f, cond, params, p)
    if f.from_ns is not None or f.to_ns is not None:
        # the origin of each run: its first sample of any event
        join = (f"JOIN (SELECT run_id, min(ts_ns) AS t0 FROM perf_samples WHERE capture_id = ${p}cid GROUP BY run_id) "
                "o ON o.run_id = s.run_id")
        if f.from_ns is not None:
            cond.append(f"s.ts_ns - o.t0 >= ${p}from_ns")
            params[p + "from_ns"] = f.from_ns
        if f.to_ns is not None:
            cond.append(f"s.ts_ns - o.t0 < ${p}to_ns")
            params[p + "to_ns"] = f.to_ns
    return join, " AND ".join(cond), params


def _stack_rows_sql(cid: str, f: Filters, p: str = "") -> tuple[str, dict[str, Any]]:
    join, where, params = _where(cid, f, p=p)
    # run_id: the run; folded_stack: "comm;root frame;...;leaf"; weight: summed periods; samples: rows
    sql = f"""
        SELECT s.run_id, st.folded_stack, sum(s.weight)::BIGINT AS weight, count(*)::BIGINT AS samples
        FROM perf_samples s {join}
        JOIN perf_stacks st ON st.capture_id = s.capture_id AND st.run_id = s.run_id AND st.stack_id = s.stack_id
        WHERE {where}
        GROUP BY 1, 2"""
    return sql, params


def _stack_rows(store: Store, cid: str, f: Filters) -> list[tuple[str, str, int, int]]:
    """(run_id, folded_stack, weight, samples) per run and distinct stack of the selection."""
    return store.query(*_stack_rows_sql(cid, f)).rows


def _tree_sql(store: Store, cid: str, f: Filters) -> Tree:
    """build_tree(_sum_by_stack(_stack_rows(...)), 2), the same columns, made by DuckDB (~2x
    faster at 450k nodes, tested equal): the stacks of the selection summed over the runs, sorted
    frame-wise (';' as chr(0), as build_tree sorts), and each one's new nodes are its frames after
    the ones it shares with the stack before it; Python only numbers the names in order."""
    rows_sql, params = _stack_rows_sql(cid, f)
    sql = f"""
        WITH r AS ({rows_sql}),
        st AS (SELECT replace(folded_stack, ';', chr(0)) AS key, sum(weight)::BIGINT AS w,
                      sum(samples)::BIGINT AS n FROM r GROUP BY 1),
        ord AS (SELECT w, n, row_number() OVER (ORDER BY key) AS k, string_split(key, chr(0)) AS f,
                       string_split(lag(key) OVER (ORDER BY key), chr(0)) AS p FROM st),
        lcp AS (SELECT k, w, n, f, CASE WHEN p IS NULL THEN 0 ELSE coalesce(
                  list_position(list_transform(range(1, least(len(f), len(p)) + 1), lambda i: f[i] = p[i]), false) - 1,
                  least(len(f), len(p))) END AS c FROM ord),
        nodes AS (SELECT k, c, len(f) - c AS cnt, w, n, unnest(f[c + 1:]) AS frame,
                         generate_subscripts(f[c + 1:], 1) AS j FROM lcp)
        -- frame; depth (root 0); self weight and samples at the stack's leaf
        SELECT frame, (c + j)::INTEGER AS depth, CASE WHEN j = cnt THEN w ELSE 0 END AS w,
               CASE WHEN j = cnt THEN n ELSE 0 END AS n
        FROM nodes ORDER BY k, j"""
    rows = store.query(sql, params).rows
    if len(rows) + 1 > MAX_NODES:
        raise BadQuery(f"this selection makes a call tree of more than {MAX_NODES:,} nodes; "
                       "narrow it (a run, a CPU, a task or a time range)")
    names: dict[str, int] = {ROOT_NAME: 0}
    number = names.setdefault
    name, depth, w, n = [0], [0], [0], [0]
    for fr, d, a, b in rows:
        name.append(number(fr, len(names)))
        depth.append(d)
        w.append(a)
        n.append(b)
    return Tree(names=list(names), name=name, depth=depth, values=[w, n])


def _function_rows(store: Store, cid: str, f: Filters) -> list[tuple[str, str, int, int, int, int]]:
    """(function, run_id, total weight, self weight, total samples, self samples) per function
    and run: total counts each sample once even where the function recurses; self is the samples
    whose stack ends in it. The command name (the first frame of a folded stack) is not a function."""
    join, where, params = _where(cid, f)
    sql = f"""
        WITH w AS (
            SELECT s.run_id, s.stack_id, sum(s.weight)::BIGINT AS w, count(*)::BIGINT AS n
            FROM perf_samples s {join}
            WHERE {where} AND s.stack_id IS NOT NULL
            GROUP BY 1, 2),
        fr AS (
            SELECT st.run_id, st.stack_id, string_split(st.folded_stack, ';') AS frames
            FROM perf_stacks st
            WHERE st.capture_id = $cid AND st.run_id IN (SELECT DISTINCT run_id FROM w)),
        fn AS (
            SELECT run_id, stack_id, unnest(list_distinct(frames[2:])) AS fn, frames[-1] AS leaf
            FROM fr WHERE len(frames) > 1)
        SELECT fn.fn, w.run_id,
               sum(w.w)::BIGINT AS total_w,
               coalesce(sum(w.w) FILTER (WHERE fn.fn = fn.leaf), 0)::BIGINT AS self_w,
               sum(w.n)::BIGINT AS total_n,
               coalesce(sum(w.n) FILTER (WHERE fn.fn = fn.leaf), 0)::BIGINT AS self_n
        FROM w JOIN fn USING (run_id, stack_id)
        GROUP BY 1, 2"""
    return store.query(sql, params).rows


def _stackless(store: Store, cid: str, f: Filters) -> int:
    join, where, params = _where(cid, f)
    return int(store.query(f"SELECT count(*) FROM perf_samples s {join} WHERE {where} AND s.stack_id IS NULL",
                           params).scalar() or 0)


# --------------------------------------------------------------------------------------------
# What a capture holds: its events, runs, CPUs and tasks (the choices a flame graph offers)


@dataclass
class CaptureStacks:
    ref: models.FlameCaptureRef
    events: list[models.FlameEvent]
    default_event: str | None
    runs: list[models.FlameRun]
    run_params: dict[str, str] = field(default_factory=dict)  # run id -> canonical JSON of its params


def _capture(store: Store, cid: str) -> CaptureStacks:
    """The capture's label, events and runs with stacks, kept until the store's next write
    (Store.kept; the object is shared: not to be changed): three queries over the capture's samples
    (~35-60 ms at 450k samples) that every flame view, and each side of a difference, would make
    again. UnknownCapture, NoStacks as _capture_facts (an error is not kept)."""
    return store.kept(("flame.capture", cid), lambda: _capture_facts(store, cid))


def _capture_facts(store: Store, cid: str) -> CaptureStacks:
    meta = store.query("SELECT label, kernel FROM captures WHERE capture_id = ?", [cid]).rows
    if not meta:
        raise UnknownCapture([cid])
    ref = models.FlameCaptureRef(id=cid, label=meta[0][0], kernel=meta[0][1])
    # event; samples; summed weight; first: the time of its first sample (the first event is the default)
    ev = store.query(
        """SELECT event, count(*)::BIGINT AS samples, sum(weight)::BIGINT AS weight, min(ts_ns) AS first,
                  count(stack_id)::BIGINT AS with_stack
           FROM perf_samples WHERE capture_id = ? GROUP BY event
           ORDER BY list_contains(?, event), event <> ?, first NULLS LAST, samples DESC""",
        # the off-CPU events are the default only when alone, and then the time off the CPU (offcpu),
        # not the wakeups (docs/offcpu.md)
        [cid, list(OFFCPU_EVENTS), OFFCPU_EVENT]).rows
    if not ev:
        raise NoStacks(f"capture {cid} has no perf call stacks (record them with `iolens-collect run --stacks`)")
    events = [models.FlameEvent(event=e, samples=n, weight=w, with_stack=k) for e, n, w, _, k in ev]
    runs = store.query(
        """SELECT r.run_id, r.run_index, r.repeat, r.params, count(*)::BIGINT AS samples,
                  (max(s.ts_ns) - min(s.ts_ns))::BIGINT AS duration
           FROM perf_samples s JOIN runs r ON r.capture_id = s.capture_id AND r.run_id = s.run_id
           WHERE s.capture_id = ? GROUP BY ALL ORDER BY r.run_index""", [cid]).rows
    params = {r[0]: json.dumps(json.loads(r[3]), sort_keys=True) for r in runs}
    return CaptureStacks(
        ref=ref, events=events, default_event=ev[0][0],
        runs=[models.FlameRun(id=r[0], index=r[1], repeat=r[2], params=json.loads(r[3]), samples=r[4],
                              duration_ns=r[5]) for r in runs],
        run_params=params)


def _resolve(cap: CaptureStacks, f: Filters) -> Filters:
    """Fill the default event; refuse an unknown event or run and an empty time range."""
    if f.event is None:
        f = replace(f, event=cap.default_event)
    elif f.event not in {e.event for e in cap.events}:
        raise BadQuery(f"capture {cap.ref.id} has no samples of event {f.event!r} "
                       f"(it has: {', '.join(str(e.event) for e in cap.events)})")
    if f.runs is not None:
        known = {r.id for r in cap.runs}
        bad = [r for r in f.runs if r not in known]
        if bad:
            raise BadQuery(f"capture {cap.ref.id} has no run with stacks named {', '.join(bad)} "
                           f"(runs with stacks: {', '.join(sorted(known))})")
    if f.from_ns is not None and f.to_ns is not None and f.to_ns <= f.from_ns:
        raise BadQuery(f"empty time range: to_ns ({f.to_ns}) must be after from_ns ({f.from_ns})")
    return f


def _weight_unit(event: str | None) -> Literal["ns", "count"]:
    return "ns" if event in NS_EVENTS else "count"


def _tasks_sql(join: str, where: str) -> str:
    """The threads of a selection, the most sampled first (then by tid), FACET_LIMIT of them: tid,
    pid, the command it was sampled under most and its samples. A thread that exec()s has two
    commands (bash, then rm): a tie goes to the first by name, not to whichever row a parallel scan
    met first (mode() would), so that two answers of one selection agree."""
    return f"""WITH t AS (SELECT s.tid, s.comm, min(s.pid) AS pid, count(*) AS n
                          FROM perf_samples s {join} WHERE {where} AND s.tid IS NOT NULL GROUP BY 1, 2)
               SELECT tid, min(pid) AS pid, first(comm ORDER BY n DESC, comm) AS comm, sum(n)::BIGINT AS n
               FROM t GROUP BY 1 ORDER BY n DESC, 1 LIMIT {FACET_LIMIT}"""


def _facets(store: Store, cid: str, f: Filters) -> tuple[list[models.FlameCpu], list[models.FlameTask],
                                                         list[models.FlameComm]]:
    """CPUs, threads and commands of the event in the selected runs (other filters not applied,
    so that each list offers every choice)."""
    base = Filters(event=f.event, runs=f.runs)
    join, where, params = _where(cid, base)
    cpus = store.query(f"SELECT s.cpu, count(*)::BIGINT FROM perf_samples s {join} WHERE {where} "
                       "GROUP BY 1 ORDER BY 1 NULLS LAST", params).rows
    tasks = store.query(_tasks_sql(join, where), params).rows
    comms = store.query(f"SELECT s.comm, count(*)::BIGINT AS n FROM perf_samples s {join} WHERE {where} "
                        f"GROUP BY 1 ORDER BY n DESC, 1 LIMIT {FACET_LIMIT}", params).rows
    return ([models.FlameCpu(cpu=c, samples=n) for c, n in cpus],
            [models.FlameTask(tid=t, pid=p, comm=c, samples=n) for t, p, c, n in tasks],
            [models.FlameComm(comm=c, samples=n) for c, n in comms])


# --------------------------------------------------------------------------------------------
# The call tree: folded stacks -> pre-order columns


@dataclass
class Tree:
    names: list[str]               # distinct frame names; names[0] is the root's
    name: list[int]                # per node: index into names
    depth: list[int]               # per node: 0 for the root
    values: list[list[int]]        # per value column: per node, the self value

    def __len__(self) -> int:
        return len(self.name)

    def totals(self, col: int) -> list[int]:
        """Per node: the sum of the column over its subtree."""
        tot = list(self.values[col])
        parent = self.parents()
        for i in range(len(tot) - 1, 0, -1):
            tot[parent[i]] += tot[i]
        return tot

    def parents(self) -> list[int]:
        parent = [-1] * len(self.depth)
        stack: list[int] = []
        for i, d in enumerate(self.depth):
            del stack[d:]
            if stack:
                parent[i] = stack[-1]
            stack.append(i)
        return parent


def build_tree(stacks: dict[str, Sequence[int]], ncols: int) -> Tree:
    """Merge folded stacks (stack -> one value per column, added at its leaf) into a tree.

    Stacks are visited in frame-wise order (';' sorted as the lowest character), so every
    stack that shares a prefix with the previous one reuses that prefix's nodes, and nodes come
    out in pre-order with children sorted by name."""
    names: dict[str, int] = {ROOT_NAME: 0}
    t = Tree(names=[], name=[0], depth=[0], values=[[0] for _ in range(ncols)])
    path: list[str] = []         # frames of the current node's path
    nodes: list[int] = [0]       # node index per depth, root first
    for stack, vals in sorted(stacks.items(), key=lambda kv: kv[0].replace(";", "\0")):
        frames = stack.split(";")
        n, m = 0, min(len(frames), len(path))
        while n < m and frames[n] == path[n]:
            n += 1
        del path[n:]
        del nodes[n + 1:]
        for fr in frames[n:]:
            i = len(t.name)
            t.name.append(names.setdefault(fr, len(names)))
            t.depth.append(len(nodes))
            for col in t.values:
                col.append(0)
            path.append(fr)
            nodes.append(i)
        if len(t.name) > MAX_NODES:
            raise BadQuery(f"this selection makes a call tree of more than {MAX_NODES:,} nodes; "
                           "narrow it (a run, a CPU, a task or a time range)")
        leaf = nodes[-1]
        for col, v in zip(t.values, vals):
            col[leaf] += v
    t.names = list(names)
    return t


def _sum_by_stack(rows: Iterable[tuple[str, str, int, int]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for _run, stack, w, n in rows:
        v = out.get(stack)
        if v is None:
            out[stack] = [w, n]
        else:
            v[0] += w
            v[1] += n
    return out


def _tree_model(t: Tree) -> models.FlameTree:
    return models.FlameTree(names=t.names, name=t.name, depth=t.depth, self_weight=t.values[0],
                            self_samples=t.values[1])


# --------------------------------------------------------------------------------------------
# Views


def flame(store: Store, cid: str, f: Filters = Filters()) -> models.FlameGraph:
    """One capture's flame graph: the selection's merged call tree, with the choices it offers."""
    head, tree = flame_parts(store, cid, f)
    return models.FlameGraph(**dict(head), tree=_tree_model(tree))


def flame_parts(store: Store, cid: str, f: Filters = Filters()) -> tuple[models.FlameGraphHead, Tree]:
    """flame() as its head and its tree's columns (the columns answer encodes them without the
    FlameTree model: views/flame_wire.py)."""
    started = time.perf_counter()
    cap = _capture(store, cid)
    f = _resolve(cap, f)
    tree = _tree_sql(store, cid, f)
    cpus, tasks, comms = _facets(store, cid, f)
    total_w, total_n = sum(tree.values[0]), sum(tree.values[1])
    stackless = _stackless(store, cid, f)
    notes = []
    if stackless:
        notes.append(f"{stackless:,} selected samples had no usable frame and are not drawn")
    if len(tree) == 1:
        notes.append("no sample with a call stack matches this selection")
    head = models.FlameGraphHead(
        capture=cap.ref, filters=f.public(), weight_unit=_weight_unit(f.event), total_weight=total_w,
        total_samples=total_n, stackless_samples=stackless, events=cap.events, runs=cap.runs, cpus=cpus,
        tasks=tasks, comms=comms, notes=notes, elapsed_ms=round((time.perf_counter() - started) * 1000, 1))
    return head, tree


def tree_of(store: Store, cid: str, f: Filters = Filters()) -> tuple[CaptureStacks, Filters, Tree]:
    """The merged tree alone (SVG export)."""
    cap = _capture(store, cid)
    f = _resolve(cap, f)
    return cap, f, build_tree(_sum_by_stack(_stack_rows(store, cid, f)), 2)


@dataclass
class Shown:
    """A selection's stacks as the flame cell shows them: in its order, after its transforms
    (store/rules/flame_stacks.py, the rule the browser applies too)."""

    cap: CaptureStacks
    filters: Filters
    tree: Tree
    focused: bool                    # a focus made a function the root's child (no command names)
    missing: list[str]               # transforms skipped: their function is in no stack
    stacks: dict[tuple[str, ...], list[int]]
    order: str
    transforms: list[Any]            # the transforms applied (store/rules/flame_stacks.Transform)


def shown(store: Store, cid: str, f: Filters = Filters(), order: str = "name",
          transforms: Sequence[Any] = ()) -> Shown:
    from ..store.rules import flame_stacks as fx

    cap = _capture(store, cid)
    f = _resolve(cap, f)
    raw = _sum_by_stack(_stack_rows(store, cid, f))
    applied = fx.apply_transforms({tuple(k.split(";")): v for k, v in raw.items()}, transforms)
    keep = {";".join(k): v for k, v in applied.stacks.items() if k}
    tree = build_tree(keep, 2)
    for k, v in applied.stacks.items():   # stacks a transform emptied: the root's own samples
        if not k:
            tree.values[0][0] += v[0]
            tree.values[1][0] += v[1]
    if order != "name":
        tree.name, tree.depth, tree.values = fx.reorder(tree.name, tree.depth, tree.names, tree.values, order)  # type: ignore[arg-type]
    return Shown(cap, f, tree, not applied.comm, [t.text() for t in applied.missing], applied.stacks, order,
                 [t for t in transforms if t not in applied.missing])


def folded(store: Store, cid: str, f: Filters = Filters(), order: str = "name",
           transforms: Sequence[Any] = ()) -> str:
    """The selection as folded text ("stack weight" lines sorted by stack), as
    inferno-collapse-perf prints it; input for flamegraph.pl, inferno-flamegraph, speedscope.
    After transforms, the stacks they changed; in left-heavy order, the lines in the order of the
    left-heavy tree's leaves (the heaviest first). Samples a transform left without a frame (a
    focus on a function then a merge of it) have no line."""
    if not transforms and order == "name":
        cap = _capture(store, cid)
        f = _resolve(cap, f)
        return format_folded({k: v[0] for k, v in _sum_by_stack(_stack_rows(store, cid, f)).items()})
    from ..store.rules import flame_stacks as fx

    sh = shown(store, cid, f, order, transforms)
    return "".join(f"{';'.join(k)} {sh.stacks[k][0]}\n" for k in fx.ordered(sh.stacks, order) if k)


def _functions(rows: Iterable[tuple[str, str, int, int, int, int]]) -> dict[str, list[int]]:
    """function -> [total weight, self weight, total samples, self samples] over the runs."""
    out: dict[str, list[int]] = {}
    for fn, _run, tw, sw, tn, sn in rows:
        v = out.setdefault(fn, [0, 0, 0, 0])
        v[0] += tw
        v[1] += sw
        v[2] += tn
        v[3] += sn
    return out


def _pct(x: float, total: float) -> float:
    return 100.0 * x / total if total else 0.0


def top_functions(store: Store, cid: str, f: Filters = Filters(), by: TopKey = "self",
                  limit: int = 50) -> models.FlameTop:
    """Functions by self weight (where the samples were) or total weight (what ran under them)."""
    cap = _capture(store, cid)
    f = _resolve(cap, f)
    funcs = _functions(_function_rows(store, cid, f))
    stacks = _sum_by_stack(_stack_rows(store, cid, f))
    total_w, total_n = sum(v[0] for v in stacks.values()), sum(v[1] for v in stacks.values())
    key = 1 if by == "self" else 0
    order = sorted(funcs.items(), key=lambda kv: (-kv[1][key], -kv[1][1 - key], kv[0]))[:limit]
    return models.FlameTop(
        capture=cap.ref, filters=f.public(), weight_unit=_weight_unit(f.event), total_weight=total_w,
        total_samples=total_n, by=by, functions_count=len(funcs),
        functions=[models.FlameFunction(name=name, self_weight=v[1], total_weight=v[0], self_samples=v[3],
                                        total_samples=v[2], self_pct=_pct(v[1], total_w),
                                        total_pct=_pct(v[0], total_w)) for name, v in order])


# --------------------------------------------------------------------------------------------
# Differential flame graph


@dataclass
class _Side:
    cap: CaptureStacks
    filters: Filters
    runs: list[str]                       # runs with samples in the selection, in run order
    run_weight: dict[str, int]            # their weights (only runs with stacks), in run order
    samples: int                          # samples with stacks
    stackless: int


def _side(cap: CaptureStacks, f: Filters, runs: list[tuple[str, int, int, int]]) -> _Side:
    """One side's runs and totals from its selected samples summed per run (FlameDiffInput.runs:
    run, weight and samples of those with a stack, samples without one)."""
    with_stacks = {r: (w, n) for r, w, n, _x in runs if n}
    order = [r.id for r in cap.runs if r.id in with_stacks]
    return _Side(cap, f, [r for r in order if with_stacks[r][0]], {r: with_stacks[r][0] for r in order},
                 sum(n for _w, n in with_stacks.values()), sum(x for *_r, x in runs))


def _runs_text(n: int) -> str:
    return {0: "no run", 1: "one run", 2: "two runs"}.get(n, f"{n} runs")


def _noise_reason(side: _Side, name: str) -> str | None:
    """Why this side's runs cannot measure the spread between repeats, or None when they can: fewer
    than MIN_REPEATS runs (the compared-metric tables' 'too few repeats'), or runs of several points."""
    if len(side.runs) < MIN_REPEATS:
        return f"{name} has {_runs_text(len(side.runs))} with samples in this selection; noise needs " \
               f"{MIN_REPEATS} or more repeats on each side (fewer are too few to judge a change)"
    points = {side.cap.run_params.get(r, "{}") for r in side.runs}
    if len(points) > 1:
        return f"the runs of {name} are {len(points)} different parameter points, not repeats of one; " \
               "choose the runs of one point to see which changes are noise"
    return None


# The difference is made by native code (iolens_native.FlameDiffInput, backend/native/iolens_native/
# src/flame_diff.rs), no Python per node or per function: DuckDB selects each side's samples (run,
# stack id, weight) and its runs' stacks and hands them over as Arrow batches; the native code sums
# the samples per run and stack id (an array per run: no hash, no join), keeps the stacks they use,
# gives each run's totals (Python decides on noise: _noise_reason), interns the frames to integers once, sorts
# the union's stacks frame-wise (build_tree's order), cuts them into nodes as the one-capture tree
# is (names numbered by first use; 'all', the root's name, is 0 wherever it appears), sums each
# node's subtree per run for the noise flags, and sums, ranks and keeps the function table (each
# stack's distinct frames but the command's; self where it ends). The shares and the noise rule
# are the same IEEE double operations as in Python (100.0 * v / t, the ratio of sums): exact for
# weights under 2^53, where Python's int / int is the same division.


def _diff_input_sql(cid: str, f: Filters, p: str) -> list[tuple[str, dict[str, Any]]]:
    """FlameDiffInput's two queries of one side: its selected samples (run, stack id, weight; the
    stack id NULL where no frame was usable) and the stacks of its runs (run, stack id, folded
    stack), parameters prefixed with `p`."""
    join, where, params = _where(cid, f, p=p)
    cond, stack_params = [f"capture_id = ${p}cid"], {p + "cid": cid}
    if f.runs is not None:
        cond.append(f"list_contains(${p}runs, run_id)")
        stack_params[p + "runs"] = list(f.runs)
    return [(f"SELECT s.run_id, s.stack_id, s.weight FROM perf_samples s {join} WHERE {where}", params),
            (f"SELECT run_id, stack_id, folded_stack FROM perf_stacks WHERE {' AND '.join(cond)}", stack_params)]


def _little(code: str, b: bytes) -> array:
    """An array of type `code` from native code's little-endian bytes."""
    a = array(code)
    a.frombytes(b)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def _flags(b: bytes | None) -> array | None:
    return None if b is None else array("B", b)


@dataclass
class DiffColumns:
    """The difference's tree as columns (pre-order, as models.FlameDiffTree): typed arrays that
    the columns answer encodes as they are (flame_wire.encode_diff); `model()` the JSON's."""

    names: list[str]
    name: array
    depth: array
    self_a: array
    self_b: array
    samples_a: array
    samples_b: array
    noise_self: array | None        # 0 or 1 per node; None without repeats
    noise_total: array | None

    def model(self) -> models.FlameDiffTree:
        def flags(a: array | None) -> list[bool] | None:
            return None if a is None else list(map(bool, a))

        return models.FlameDiffTree(
            names=self.names, name=self.name.tolist(), depth=self.depth.tolist(), self_a=self.self_a.tolist(),
            self_b=self.self_b.tolist(), samples_a=self.samples_a.tolist(), samples_b=self.samples_b.tolist(),
            noise_self=flags(self.noise_self), noise_total=flags(self.noise_total))


# The head of a difference whose tree goes as columns: its model's tree is this empty one, left out
# of the head's JSON (model_dump_json(exclude={"tree"})).
_NO_TREE = models.FlameDiffTree(names=[], name=[], depth=[], self_a=[], self_b=[], samples_a=[], samples_b=[],
                                noise_self=None, noise_total=None)


def diff(store: Store, a: str, b: str, f: Filters = Filters(), runs_a: tuple[str, ...] | None = None,
         runs_b: tuple[str, ...] | None = None, limit: int = DEFAULT_FUNCTIONS,
         range_b: tuple[int | None, int | None] | None = None) -> models.FlameDiff:
    """The differential tree of captures a (before) and b (after): the union of both trees with
    each side's self weight per node, and the functions whose share changed most. With `range_b`
    (from_ns, to_ns), side b takes that time range instead of f's: two ranges of one capture
    (a == b), e.g. the first seconds of a run against its steady state."""
    started = time.perf_counter()
    head, tree = diff_parts(store, a, b, f, runs_a, runs_b, limit, range_b)
    return head.model_copy(update={"tree": tree.model(),
                                   "elapsed_ms": round((time.perf_counter() - started) * 1000, 1)})


def diff_parts(store: Store, a: str, b: str, f: Filters = Filters(), runs_a: tuple[str, ...] | None = None,
               runs_b: tuple[str, ...] | None = None, limit: int = DEFAULT_FUNCTIONS,
               range_b: tuple[int | None, int | None] | None = None) -> tuple[models.FlameDiff, DiffColumns]:
    """diff() as its model without the tree (an empty one in its place) and the tree's columns (the
    columns answer encodes them without the FlameDiffTree model: views/flame_answer.py)."""
    started = time.perf_counter()
    missing = [c for c in (a, b) if not store.query("SELECT 1 FROM captures WHERE capture_id = ?", [c]).rows]
    if missing:
        raise UnknownCapture(missing)
    if f.tid is not None or f.runs is not None:
        raise BadQuery("a difference takes runs_a / runs_b, not runs or tid (thread ids differ between captures)")
    cap_a = _capture(store, a)
    if f.event is None:
        f = replace(f, event=cap_a.default_event)  # the first side's default event, on both sides
    cap_b = cap_a if b == a else _capture(store, b)
    fa = _resolve(cap_a, replace(f, runs=runs_a))
    fb = replace(f, runs=runs_b) if range_b is None else replace(f, runs=runs_b, from_ns=range_b[0], to_ns=range_b[1])
    fb = _resolve(cap_b, fb)
    stacks = store.read_arrow(_diff_input_sql(a, fa, "a_") + _diff_input_sql(b, fb, "b_"),
                              lambda *rel: iolens_native.FlameDiffInput(*rel))
    sa, sb = _side(cap_a, fa, stacks.runs(0)), _side(cap_b, fb, stacks.runs(1))
    reason = _noise_reason(sa, "the first capture") or _noise_reason(sb, "the second capture")
    noisy = reason is None
    got = stacks.diff(sa.runs if noisy else [], sb.runs if noisy else [], sum(sa.run_weight.values()),
                      sum(sb.run_weight.values()), limit, MAX_NODES)
    if got is None:
        raise BadQuery(f"this selection makes a call tree of more than {MAX_NODES:,} nodes; "
                       "narrow it (a run, a CPU, a task or a time range)")
    names, name, depth, self_a, self_b, samples_a, samples_b, noise_self, noise_total, functions, count = got
    tree = DiffColumns(names, _little("I", name), _little("I", depth), _little("q", self_a), _little("q", self_b),
                       _little("q", samples_a), _little("q", samples_b),
                       _flags(noise_self), _flags(noise_total))

    notes = []
    if f.event not in {e.event for e in sb.cap.events} or not sb.samples:
        notes.append(f"the second capture has no {f.event} samples with stacks in this selection")
    if not sa.samples:
        notes.append(f"the first capture has no {f.event} samples with stacks in this selection")

    def side(s: _Side) -> models.FlameDiffSide:
        return models.FlameDiffSide(capture=s.cap.ref, runs=s.runs, run_weights=s.run_weight,
                                    total_weight=sum(s.run_weight.values()), total_samples=s.samples,
                                    stackless_samples=s.stackless, events=s.cap.events, all_runs=s.cap.runs)

    fields = ("name", "self_a", "self_b", "total_a", "total_b", "delta_self", "delta_total", "samples_a", "samples_b",
              "noise_self", "noise_total")
    head = models.FlameDiff(
        a=side(sa), b=side(sb), filters=replace(f, runs=None).public(), weight_unit=_weight_unit(f.event),
        noise_available=noisy, noise_reason=reason, tree=_NO_TREE,
        functions=[models.FlameDiffFunction(**dict(zip(fields, r))) for r in functions], functions_count=count,
        notes=notes, elapsed_ms=round((time.perf_counter() - started) * 1000, 1))
    return head, tree


def diff_tree(store: Store, a: str, b: str, f: Filters = Filters(), runs_a: tuple[str, ...] | None = None,
              runs_b: tuple[str, ...] | None = None,
              range_b: tuple[int | None, int | None] | None = None) -> models.FlameDiff:
    """The difference without its function table (SVG export)."""
    return diff(store, a, b, f, runs_a, runs_b, limit=0, range_b=range_b)


def diff_folded(store: Store, a: str, b: str, f: Filters = Filters(), runs_a: tuple[str, ...] | None = None,
                runs_b: tuple[str, ...] | None = None) -> str:
    """Both selections as FlameGraph's difffolded.pl prints them ("stack weight_a weight_b", sorted
    by stack; 0 where a side lacks the stack): `flamegraph.pl` draws it as a differential graph."""
    if f.event is None:
        f = replace(f, event=_capture(store, a).default_event)
    fa = _resolve(_capture(store, a), replace(f, runs=runs_a))
    fb = _resolve(_capture(store, b), replace(f, runs=runs_b))
    wa = {k: v[0] for k, v in _sum_by_stack(_stack_rows(store, a, fa)).items()}
    wb = {k: v[0] for k, v in _sum_by_stack(_stack_rows(store, b, fb)).items()}
    return "".join(f"{k} {wa.get(k, 0)} {wb.get(k, 0)}\n" for k in sorted(set(wa) | set(wb)))


# --------------------------------------------------------------------------------------------
# SVG exports (views/flame_svg.py draws them)

Mode = Literal["flame", "icicle"]
DiffColour = Literal["self", "total"]


def _fmt_weight(w: float, unit: str) -> str:
    if unit != "ns":
        return f"{w:,.0f}"
    for div, u in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if w >= div:
            return f"{w / div:.3g} {u}"
    return f"{w:.0f} ns"


def _describe(f: Filters, cap: CaptureStacks | None = None) -> str:
    parts = [f"event {f.event}"]
    if f.runs is not None:
        parts.append("runs " + ",".join(f.runs))
    if f.cpus is not None:
        parts.append("CPU " + ",".join(map(str, f.cpus)))
    if f.tid is not None:
        parts.append(f"thread {f.tid}")
    if f.comm is not None:
        parts.append(f"command {f.comm}")
    if f.from_ns is not None or f.to_ns is not None:
        lo = f"{(f.from_ns or 0) / 1e9:.3f}"
        hi = f"{f.to_ns / 1e9:.3f}" if f.to_ns is not None else "end"
        parts.append(f"time {lo}-{hi} s")
    return ", ".join(parts)


def svg(store: Store, cid: str, f: Filters = Filters(), *, zoom: Sequence[str] = (), search: str | None = None,
        mode: Mode = "flame", width: int = 1200, order: str = "name", transforms: Sequence[Any] = (),
        max_rows: int | None = None) -> str:
    from ..store.rules import flame as rules
    from . import flame_svg as fs

    sh = shown(store, cid, f, order, transforms)
    cap, f, tree = sh.cap, sh.filters, sh.tree
    grey_depth = 0 if sh.focused else 1
    lay = rules.Layout.of(tree.name, tree.depth, tree.values[0])
    samples = tree.totals(1)
    unit = _weight_unit(f.event)
    total = lay.total[0]
    names = tree.names

    def colour(i: int) -> str:
        return rules.GREY if tree.depth[i] <= grey_depth else rules.hex_rgb(rules.frame_rgb(names[tree.name[i]]))

    def tooltip(i: int) -> str:
        w = lay.total[i]
        return (f"{names[tree.name[i]]}\n{samples[i]:,} samples, {_fmt_weight(w, unit)} "
                f"({_pct(w, total):.2f}%)")

    _check_regex(search)
    spec = fs.SvgSpec(
        names=names, lay=lay, title=f"Flame graph: {cap.ref.label}",
        subtitle=f"{_describe(f)}{_describe_shown(sh)} · {samples[0]:,} samples · {_fmt_weight(total, unit)}"
                 + (f" · kernel {cap.ref.kernel}" if cap.ref.kernel else "") + f" · capture {cid}",
        colour=colour, tooltip=tooltip, zoom=list(zoom), search=search, icicle=mode == "icicle", width=width,
        footer="iolens", max_rows=max_rows)
    return fs.render(spec)


def diff_svg(store: Store, a: str, b: str, f: Filters = Filters(), *, runs_a: tuple[str, ...] | None = None,
             runs_b: tuple[str, ...] | None = None, zoom: Sequence[str] = (), search: str | None = None,
             mode: Mode = "flame", colour_by: DiffColour = "self", width: int = 1200,
             max_rows: int | None = None, range_b: tuple[int | None, int | None] | None = None) -> str:
    from ..store.rules import flame as rules
    from . import flame_svg as fs

    d = diff_tree(store, a, b, f, runs_a, runs_b, range_b)
    t = d.tree
    lay = rules.Layout.of(t.name, t.depth, t.self_b)
    la = rules.Layout.of(t.name, t.depth, t.self_a)
    ta, tb = d.a.total_weight, d.b.total_weight
    if colour_by == "self":
        delta = [_pct(sb, tb) - _pct(sa, ta) for sa, sb in zip(t.self_a, t.self_b)]
        noise = t.noise_self
    else:
        delta = [_pct(xb, tb) - _pct(xa, ta) for xa, xb in zip(la.total, lay.total)]
        noise = t.noise_total
    max_abs = max((abs(x) for i, x in enumerate(delta) if lay.total[i] > 0 and not (noise and noise[i])),
                  default=0.0)
    names = t.names
    # fewer than MIN_REPEATS runs on a side: grey, as the compared-metric tables' '?' (stats.too_few_repeats)
    few = too_few_repeats(len(d.a.runs), len(d.b.runs))
    rgb = rules.few_rgb if few else rules.diff_rgb
    q = " ?" if few else ""

    def colour(i: int) -> str:
        return rules.GREY if t.depth[i] == 0 else rules.hex_rgb(rgb(delta[i], max_abs))

    def tooltip(i: int) -> str:
        sa, sb = _pct(t.self_a[i], ta), _pct(t.self_b[i], tb)
        xa, xb = _pct(la.total[i], ta), _pct(lay.total[i], tb)
        mark = " (within the spread between repeats)" if noise and noise[i] else ""
        return (f"{names[t.name[i]]}\nself {sa:.2f}% -> {sb:.2f}% ({sb - sa:+.2f} pp{q})\n"
                f"total {xa:.2f}% -> {xb:.2f}% ({xb - xa:+.2f} pp{q}){mark}")

    _check_regex(search)
    if few:
        legend = [(rules.hex_rgb(rules.few_rgb(max_abs, max_abs)),
                   f"changed ({colour_by} share, up to {max_abs:.2f} pp either way), grey ?: {len(d.a.runs)} and "
                   f"{len(d.b.runs)} runs, fewer than {MIN_REPEATS} repeats on a side are too few to tell a change "
                   "from noise (the compared-metric tables' rule)"),
                  (rules.hex_rgb(rules.NEUTRAL), "unchanged")]
    else:
        legend = [(rules.hex_rgb(rules.diff_rgb(max_abs, max_abs)), f"grew ({colour_by} share, up to +{max_abs:.2f} pp)"),
                  (rules.hex_rgb(rules.diff_rgb(-max_abs, max_abs)), "shrank"),
                  (rules.hex_rgb(rules.NEUTRAL), "unchanged")]
    if noise is not None:
        legend.append(("url(#noise)", "within the spread between repeats"))
    spec = fs.SvgSpec(
        names=names, lay=lay, title=f"Differential flame graph: {d.a.capture.label} -> {d.b.capture.label}",
        subtitle=(f"{_describe(replace(f, event=d.filters.event))} · widths: {d.b.capture.label} "
                  f"({d.b.total_samples:,} samples) · colour: change of {colour_by} share vs "
                  f"{d.a.capture.label} ({d.a.total_samples:,} samples)"),
        colour=colour, tooltip=tooltip, zoom=list(zoom), search=search, icicle=mode == "icicle", width=width,
        legend=legend, hatch=lambda i: bool(noise and noise[i] and t.depth[i] > 0),
        footer=d.noise_reason or "", max_rows=max_rows)
    return fs.render(spec)


def _describe_shown(sh: Shown) -> str:
    """The order and the transforms of an export, as its subtitle says them."""
    from ..store.rules.flame_stacks import TRANSFORM_LABEL

    parts = [" · left heavy"] if sh.order == "heavy" else []
    for t in sh.transforms:
        parts.append(f" · {TRANSFORM_LABEL[t.op].lower()} {t.name}")
    if sh.missing:
        parts.append(f" · skipped (not in these stacks): {', '.join(sh.missing)}")
    return "".join(parts)


def _check_regex(pattern: str | None) -> None:
    if pattern:
        import re

        try:
            re.compile(pattern)
        except re.error as exc:
            raise BadQuery(f"search: not a regular expression: {exc}") from exc
