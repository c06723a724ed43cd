"""fio comparison: per job name and direction, each metric's statistics over a capture's repeats,
and the ratio of each capture's mean to the baseline's.

Rows come from `fio_results` (one row per run x job name x direction, derived at ingest). The
statistics are DuckDB aggregates over the runs of each capture; nothing is averaged twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from .. import models
from ..store.db import Store
from .comparison import comparison_facts, differing_facts


@dataclass(frozen=True)
class Metric:
    key: str
    expr: str  # SQL over fio_results f, per run
    label: str
    unit: str
    better: Literal["higher", "lower", "neutral"]
    description: str


METRICS: tuple[Metric, ...] = (
    Metric("iops", "f.iops", "IOPS", "IO/s", "higher", "fio's iops for the direction, summed over the job's entries"),
    Metric("bw", "f.bw_bytes", "Bandwidth", "B/s", "higher", "fio's bw_bytes (bw x 1024 before fio 3)"),
    Metric("clat_mean", "f.clat_mean_ns", "clat mean", "ns", "lower", "completion latency, mean"),
    Metric("clat_p50", "f.clat_p50_ns", "clat p50", "ns", "lower", "completion latency, 50th percentile"),
    Metric("clat_p99", "f.clat_p99_ns", "clat p99", "ns", "lower", "completion latency, 99th percentile"),
    Metric("clat_p99_9", "f.clat_p99_9_ns", "clat p99.9", "ns", "lower", "completion latency, 99.9th percentile"),
    # CPU time spent per I/O: the cost of an I/O, comparable between runs of different speed.
    # fio's usr/sys CPU belong to the job, not to a direction: divide by the job's I/Os in every
    # direction of the run, so a randrw job is not counted twice.
    Metric("cpu_per_io", "(f.usr_cpu + f.sys_cpu) / 100 * 1e9 / nullif(sum(f.iops) OVER job, 0)",
           "CPU per I/O", "ns", "lower",
           "(usr + sys CPU %) / 100 x 1 s / IOPS of the job in all directions: CPU time per I/O"),
    Metric("usr_cpu", "f.usr_cpu", "usr CPU", "%", "neutral",
           "fio's usr_cpu: % of one CPU over the run; neither better nor worse alone"),
    Metric("sys_cpu", "f.sys_cpu", "sys CPU", "%", "neutral",
           "fio's sys_cpu: % of one CPU over the run; neither better nor worse alone"),
)
_BY_KEY = {m.key: m for m in METRICS}

# One row per capture x job x direction x metric. UNPIVOT drops NULL values, so `n` counts the
# repeats that reported the metric (old fio without percentiles gives n = 0 and no cell).
_STATS_SQL = f"""
WITH per_run AS (
    SELECT f.capture_id, f.run_id, r.run_index, f.jobname, f.ddir,
           {", ".join(f"{m.expr} AS {m.key}" for m in METRICS)}
    FROM fio_results f JOIN runs r USING (capture_id, run_id)
    WHERE list_contains($captures, f.capture_id)
    WINDOW job AS (PARTITION BY f.capture_id, f.run_id, f.jobname)
),
long AS (
    UNPIVOT per_run ON {", ".join(m.key for m in METRICS)} INTO NAME metric VALUE value
)
SELECT capture_id, jobname, ddir, metric,
       count(value) AS n, avg(value) AS mean, stddev_samp(value) AS stddev,
       min(value) AS min, max(value) AS max,
       list(value ORDER BY run_index) AS vals,
       list(run_id ORDER BY run_index) AS run_ids,
       min(run_index) AS first_run
FROM long
GROUP BY capture_id, jobname, ddir, metric
"""

_DDIR_ORDER = {"read": 0, "write": 1, "trim": 2}

# Facts listed first when they differ: what a kernel engineer looks for before anything else.
# Anything else (paths, device numbers...) follows in key order.
_FACT_ORDER = (
    "kernel.release", "kernel.cmdline", "filesystem.type", "filesystem.options", "device.model",
    "device.firmware", "device.scheduler", "device.nr_requests", "device.rotational",
    "device.write_cache", "cgroup.", "cpu.", "memory.", "virtualization", "tools.",
)


def _fact_rank(key: str) -> tuple[int, str]:
    if key.startswith("kernel.config."):  # shown first by the comparison's kernel facts (views/comparison.py)
        return len(_FACT_ORDER) + 1, key
    for rank, pattern in enumerate(_FACT_ORDER):
        if key.startswith(pattern) or f".{pattern}" in key:
            return rank, key
    return len(_FACT_ORDER), key


class UnknownCaptures(LookupError):
    def __init__(self, missing: list[str]):
        super().__init__(f"unknown capture id(s): {', '.join(missing)}")
        self.missing = missing


def compare_fio(store: Store, capture_ids: list[str], baseline: str | None = None) -> models.FioComparison:
    ids = list(dict.fromkeys(capture_ids))
    baseline = baseline or ids[0]
    if baseline not in ids:
        ids.insert(0, baseline)
    meta = store.query(
        """SELECT capture_id, label, kernel, n_runs, n_repeats, tags
           FROM captures WHERE list_contains($ids, capture_id)""",
        {"ids": ids},
    ).dicts()
    found = {r["capture_id"]: r for r in meta}
    missing = [i for i in ids if i not in found]
    if missing:
        raise UnknownCaptures(missing)

    stats = store.query(_STATS_SQL, {"captures": ids}).dicts()
    base_means = {
        (s["jobname"], s["ddir"], s["metric"]): s["mean"] for s in stats if s["capture_id"] == baseline
    }
    groups: dict[tuple[str, str], dict[str, dict[str, models.StatCell]]] = {}
    for s in stats:
        key = (s["jobname"], s["ddir"])
        base = base_means.get((s["jobname"], s["ddir"], s["metric"]))
        ratio = None
        if s["capture_id"] != baseline and base not in (None, 0) and s["mean"] is not None:
            ratio = s["mean"] / base
        mean = s["mean"]
        cell = models.StatCell(
            n=s["n"],
            mean=mean,
            stddev=s["stddev"],
            min=s["min"],
            max=s["max"],
            cv=(s["stddev"] / mean) if s["stddev"] is not None and mean else None,
            values=list(s["vals"]),
            runs=list(s["run_ids"]),
            ratio=ratio,
        )
        groups.setdefault(key, {}).setdefault(s["metric"], {})[s["capture_id"]] = cell

    out_groups = []
    for (job, ddir) in sorted(groups, key=lambda k: (k[0], _DDIR_ORDER.get(k[1], 9), k[1])):
        by_metric = groups[(job, ddir)]
        rows = [
            models.MetricRow(metric=m.key, label=m.label, unit=m.unit, better=m.better,
                             description=m.description, cells=by_metric[m.key])
            for m in METRICS
            if m.key in by_metric
        ]
        out_groups.append(models.FioGroup(job=job, ddir=ddir, metrics=rows))

    return models.FioComparison(
        captures=[
            models.ComparedCapture(
                id=i,
                label=found[i]["label"],
                kernel=found[i]["kernel"],
                runs=found[i]["n_runs"],
                repeats=found[i]["n_repeats"],
                tags=json.loads(found[i]["tags"]),
            )
            for i in ids
        ],
        baseline=baseline,
        host_diff=host_diff(store, ids),
        groups=out_groups,
        fio_commands=_first_commands(store, ids),
        facts=comparison_facts(store, ids, {i: found[i]["label"] for i in ids}),
    )


def host_diff(store: Store, ids: list[str]) -> list[models.HostDiff]:
    """Host facts whose value is not the same in every capture (a fact missing in one counts)."""
    diffs = [models.HostDiff(key=key, values=vals) for key, vals in differing_facts(store, "host_facts", ids)]
    return sorted(diffs, key=lambda d: _fact_rank(d.key))


def _first_commands(store: Store, ids: list[str]) -> dict[str, list[str]]:
    rows = store.query(
        """SELECT capture_id, arg_min(cmdline, run_index) AS cmdline
           FROM runs WHERE list_contains($ids, capture_id) GROUP BY capture_id""",
        {"ids": ids},
    ).rows
    return {cid: json.loads(cmd) for cid, cmd in rows}


def metric(key: str) -> Metric:
    return _BY_KEY[key]
