"""Sweeps: captures as rows, parameter points as columns, one metric per view, with repeat
statistics and Welch's t-test against the baseline capture (store/stats.py); and fio's time-series logs
over time.

Numbers come from `run_metrics` (one row per run and metric, derived at ingest by
ingest/sweep.py); a run's point is its `params`. Points of different captures are the same
column when their parameters have the same names and values (compared as text, so iodepth 8 and
"8" match).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from .. import models
from ..bundle import stored_manifest
from ..store import stats
from ..store.db import Store
from .fio_compare import UnknownCaptures, host_diff

Better = Literal["higher", "lower", "neutral"]

_FIO: dict[str, tuple[str, Better, str]] = {
    "iops": ("IOPS", "higher", "fio's IOPS, added up over directions and jobs"),
    "bw": ("Bandwidth", "higher", "fio's bandwidth, added up over directions and jobs"),
    "clat_mean": ("clat mean", "lower", "completion latency, mean (weighted by I/O count over jobs)"),
    "clat_p50": ("clat p50", "lower", "completion latency, 50th percentile (when the run has one job and direction)"),
    "clat_p99": ("clat p99", "lower", "completion latency, 99th percentile (when the run has one job and direction)"),
    "clat_p99_9": ("clat p99.9", "lower", "completion latency, 99.9th percentile (one job and direction)"),
    "cpu_per_io": ("CPU per I/O", "lower", "(usr + sys CPU %) / 100 x 1 s / IOPS: CPU time per I/O"),
    "usr_cpu": ("usr CPU", "neutral", "fio's usr_cpu, % of one CPU, added up over jobs"),
    "sys_cpu": ("sys CPU", "neutral", "fio's sys_cpu, % of one CPU, added up over jobs"),
}
_OTHER: dict[str, tuple[str, Better, str]] = {
    "wall_s": ("Wall time", "lower", "the command's elapsed time"),
    "user_s": ("user CPU time", "lower", "user CPU of the command and everything it waited for (wait4 rusage)"),
    "sys_s": ("sys CPU time", "lower", "system CPU of the command and everything it waited for (wait4 rusage)"),
    "cpu_s": ("CPU time", "lower", "user + system CPU time (wait4 rusage)"),
    "maxrss_kib": ("max RSS", "neutral", "largest resident set of the command or a descendant"),
    "ctx_voluntary": ("voluntary switches", "neutral", "voluntary context switches (wait4 rusage)"),
    "ctx_involuntary": ("involuntary switches", "neutral", "involuntary context switches (wait4 rusage)"),
    "majflt": ("major faults", "neutral", "page faults that needed I/O (wait4 rusage)"),
    "disk.read_iops": ("device read IOPS", "neutral", "reads completed by the device(s) / run time (/proc/diskstats)"),
    "disk.write_iops": ("device write IOPS", "neutral", "writes completed by the device(s) / run time (/proc/diskstats)"),
    "disk.iops": ("device IOPS", "neutral", "reads and writes completed / run time (/proc/diskstats)"),
    "disk.read_bw": ("device read bandwidth", "neutral", "bytes read by the device(s) / run time (/proc/diskstats)"),
    "disk.write_bw": ("device write bandwidth", "neutral", "bytes written / run time (/proc/diskstats)"),
    "disk.read_bytes": ("device bytes read", "neutral", "bytes read during the run (/proc/diskstats)"),
    "disk.write_bytes": ("device bytes written", "neutral", "bytes written during the run (/proc/diskstats)"),
    "disk.util": ("device busy", "neutral", "time with I/O in flight / run time (/proc/diskstats io_ms)"),
}
_DDIRS = ("read", "write", "trim", "mixed")
_DEFAULTS = ("iops", "wall_s", "bw")


def metric_info(key: str, unit: str, source: str) -> models.SweepMetric:
    """Label, better direction and description of a run_metrics key."""
    if key in _FIO:
        label, better, desc = _FIO[key]
    elif "." in key and key.split(".", 1)[0] in _DDIRS and key.split(".", 1)[1] in _FIO:
        ddir, base = key.split(".", 1)
        label, better, desc = _FIO[base]
        label, desc = f"{ddir} {label}", f"{desc.split(',')[0]}, {ddir} only"
    elif key in _OTHER:
        label, better, desc = _OTHER[key]
    elif key.startswith("m."):
        label = key[2:]
        u = unit.strip().lower()
        better = "higher" if u.endswith("/s") or u.endswith("/sec") else "lower" if u in ("s", "ms", "us", "ns", "sec") else "neutral"
        desc = (f"printed by the command (iolens-metric {key[2:]} VALUE {unit}); "
                + {"higher": "a rate: higher is better", "lower": "a time: lower is better",
                   "neutral": "no better direction known"}[better])
    else:
        label, better, desc = key, "neutral", key
    return models.SweepMetric(key=key, label=label, unit=unit, better=better, description=desc, source=source)


def _metric_rank(key: str) -> tuple[int, str]:
    order = list(_FIO) + list(_OTHER)
    if key in order:
        return order.index(key), key
    if "." in key and key.split(".", 1)[0] in _DDIRS:
        ddir, base = key.split(".", 1)
        return 100 + _DDIRS.index(ddir) * 20 + (list(_FIO).index(base) if base in _FIO else 19), key
    return 1000, key


def param_text(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def point_key(params: dict[str, Any], order: list[str]) -> str:
    names = [n for n in order if n in params] + sorted(n for n in params if n not in order)
    return " ".join(f"{n}={param_text(params[n])}" for n in names) or "all"


def _captures(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    rows = store.query(
        """SELECT capture_id, label, kernel, tags, n_repeats, workload_kind, manifest
           FROM captures WHERE list_contains($ids, capture_id)""", {"ids": ids}).dicts()
    for r in rows:
        sweep = stored_manifest(r.pop("manifest")).manifest.workload.sweep
        r["sweep"] = sweep.parameters if sweep is not None else []
    found = {r["capture_id"]: r for r in rows}
    missing = [i for i in ids if i not in found]
    if missing:
        raise UnknownCaptures(missing)
    return found


def _params(found: dict[str, dict[str, Any]], order_ids: list[str], runs: list[dict[str, Any]]) -> list[models.SweepParam]:
    """Parameter names and values: the plans' order first (baseline's plan first), then the runs'."""
    names: list[str] = []
    values: dict[str, list[str]] = {}
    for cid in order_ids:
        for p in found[cid]["sweep"]:
            n = p.name
            if n not in names:
                names.append(n)
            for v in p.values:
                if param_text(v) not in values.setdefault(n, []):
                    values[n].append(param_text(v))
    for r in runs:
        for n, v in r["params"].items():
            if n not in names:
                names.append(n)
            if param_text(v) not in values.setdefault(n, []):
                values[n].append(param_text(v))
    return [models.SweepParam(name=n, values=values.get(n, [])) for n in names]


def _runs(store: Store, ids: list[str]) -> list[dict[str, Any]]:
    rows = store.query("""SELECT capture_id, run_id, run_index, params FROM runs
                          WHERE list_contains($ids, capture_id) ORDER BY capture_id, run_index""", {"ids": ids}).dicts()
    for r in rows:
        r["params"] = json.loads(r["params"])
    return rows


def _ordered_ids(ids: list[str], baseline: str | None) -> tuple[list[str], str]:
    ids = list(dict.fromkeys(ids))
    baseline = baseline or ids[0]
    if baseline not in ids:
        ids.insert(0, baseline)
    return [baseline] + [i for i in ids if i != baseline], baseline


def available_metrics(store: Store, ids: list[str]) -> list[models.SweepMetric]:
    rows = store.query("""SELECT metric, any_value(unit) AS unit, any_value(source) AS source FROM run_metrics
                          WHERE list_contains($ids, capture_id) GROUP BY metric""", {"ids": ids}).rows
    return sorted((metric_info(k, u, s) for k, u, s in rows), key=lambda m: _metric_rank(m.key))


def sweep_matrix(store: Store, capture_ids: list[str], baseline: str | None = None,
                 metric: str | None = None) -> models.SweepMatrix:
    ids, baseline = _ordered_ids(capture_ids, baseline)
    found = _captures(store, ids)
    metrics = available_metrics(store, ids)
    by_key = {m.key: m for m in metrics}
    if metric is None:
        metric = next((k for k in _DEFAULTS if k in by_key), metrics[0].key if metrics else "iops")
    info = by_key.get(metric) or metric_info(metric, "", "")
    runs = _runs(store, ids)
    params = _params(found, ids, runs)
    order = [p.name for p in params]
    values = store.query("""SELECT capture_id, run_id, value FROM run_metrics
                            WHERE list_contains($ids, capture_id) AND metric = $m""", {"ids": ids, "m": metric}).rows
    value_of = {(c, r): v for c, r, v in values}

    point_params: dict[str, dict[str, str]] = {}
    cells_raw: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for r in runs:
        key = point_key(r["params"], order)
        point_params.setdefault(key, {n: param_text(v) for n, v in r["params"].items()})
        v = value_of.get((r["capture_id"], r["run_id"]))
        lst = cells_raw.setdefault((r["capture_id"], key), [])
        if v is not None:
            lst.append((r["run_id"], v))

    def sort_key(key: str) -> tuple:
        p = point_params[key]
        return tuple((params[i].values.index(p[n.name]) if n.name in p and p[n.name] in params[i].values else -1)
                     for i, n in enumerate(params))

    point_keys = sorted(point_params, key=sort_key)
    rows = []
    for cid in ids:
        c = found[cid]
        cells: dict[str, models.SweepCell] = {}
        for key in point_keys:
            if (cid, key) not in cells_raw:
                continue
            vals = cells_raw[(cid, key)]
            base_vals = [v for _, v in cells_raw.get((baseline, key), [])]
            cells[key] = _cell([v for _, v in vals], [r for r, _ in vals], base_vals if cid != baseline else None)
        rows.append(models.SweepRow(capture=cid, label=c["label"], kernel=c["kernel"], tags=json.loads(c["tags"]),
                                    repeats=c["n_repeats"], workload_kind=c["workload_kind"], cells=cells))
    commands = {cid: json.loads(cmd) for cid, cmd in store.query(
        "SELECT capture_id, arg_min(cmdline, run_index) FROM runs WHERE list_contains($ids, capture_id) GROUP BY 1",
        {"ids": ids}).rows}
    return models.SweepMatrix(
        baseline=baseline, metric=info, metrics=metrics, params=params,
        points=[models.SweepPoint(key=k, params=point_params[k]) for k in point_keys], rows=rows,
        alpha=stats.ALPHA, min_repeats=stats.MIN_REPEATS,
        host_diff=host_diff(store, ids) if len(ids) > 1 else [], commands=commands,
    )


def _cell(values: list[float], runs: list[str], base: list[float] | None) -> models.SweepCell:
    s = stats.summarize(values)
    ratio = delta_low = delta_high = t = df = p = None
    significant = too_few = False
    note = None
    if base is not None:
        b = stats.summarize(base)
        if not base:
            note = "the baseline has no value at this point"
        elif b.mean and s.mean is not None:
            ratio = s.mean / b.mean
            w = stats.welch(values, base)
            t, df, p, significant, too_few, note = w.t, w.df, w.p, w.significant, w.too_few, w.note
            if w.diff_low is not None and w.diff_high is not None:
                delta_low, delta_high = w.diff_low / abs(b.mean), w.diff_high / abs(b.mean)
        elif s.mean is not None:
            note = "the baseline's mean is 0: no ratio"
    else:
        too_few = s.n < stats.MIN_REPEATS
    return models.SweepCell(n=s.n, mean=s.mean, stddev=s.stddev, cv=s.cv, ci_low=s.ci_low, ci_high=s.ci_high,
                            min=s.min, max=s.max, values=values, runs=runs, ratio=ratio, delta_low=delta_low,
                            delta_high=delta_high, t=t, df=df, p=p, significant=significant, too_few=too_few,
                            note=note)


# --- fio logs over time -----------------------------------------------------------------------------

_ADDITIVE = {"bw", "iops"}


def fio_log_series(store: Store, capture_ids: list[str], log: str = "iops", ddir: str = "all",
                   point: str | None = None) -> models.FioLogSeries:
    """Per capture, the log over time: at each averaging window, bw and iops added up over the
    job's clones and jobs (and directions with ddir=all), latencies averaged; then the mean, min and
    max over the capture's runs of one sweep point (`point`, default: the first with logs)."""
    ids = list(dict.fromkeys(capture_ids))
    found = _captures(store, ids)
    avail = store.query("""SELECT DISTINCT log, ddir FROM fio_log_samples WHERE list_contains($ids, capture_id)""",
                        {"ids": ids}).rows
    logs = sorted({lg for lg, _ in avail}, key=lambda x: ["iops", "bw", "clat", "lat", "slat"].index(x)
                  if x in ("iops", "bw", "clat", "lat", "slat") else 9)
    ddirs = sorted({d for _, d in avail}, key=lambda x: _DDIRS.index(x) if x in _DDIRS else 9)
    runs = _runs(store, ids)
    params = _params(found, ids, runs)
    order = [p.name for p in params]
    with_logs = {(c, r) for c, r in store.query(
        "SELECT DISTINCT capture_id, run_id FROM fio_log_samples WHERE list_contains($ids, capture_id) AND log = $log",
        {"ids": ids, "log": log}).rows}
    points: dict[str, list[str]] = {}
    runs_of: dict[tuple[str, str], list[str]] = {}
    for r in runs:
        if (r["capture_id"], r["run_id"]) not in with_logs:
            continue
        key = point_key(r["params"], order)
        if key not in points.setdefault(r["capture_id"], []):
            points[r["capture_id"]].append(key)
        runs_of.setdefault((r["capture_id"], key), []).append(r["run_id"])
    series = []
    additive = log in _ADDITIVE
    for cid in ids:
        keys = points.get(cid, [])
        if not keys:
            continue
        key = point if point in keys else keys[0]
        rids = runs_of[(cid, key)]
        step = store.query(
            """SELECT coalesce(max(avg_msec), 0) FROM fio_log_samples
               WHERE capture_id = $c AND list_contains($r, run_id) AND log = $log""",
            {"c": cid, "r": rids, "log": log}).scalar() or 0
        if not step:  # not recorded: the median interval between entries of one file
            step = store.query(
                """SELECT median(d) FROM (SELECT t_ms - lag(t_ms) OVER (PARTITION BY run_id, path ORDER BY t_ms) AS d
                   FROM fio_log_samples WHERE capture_id = $c AND list_contains($r, run_id) AND log = $log)
                   WHERE d > 0""", {"c": cid, "r": rids, "log": log}).scalar() or 1000
        agg = "sum" if additive else "avg"
        rows = store.query(
            f"""WITH s AS (
                    SELECT run_id, round(t_ms / $step)::BIGINT AS b, value FROM fio_log_samples
                    WHERE capture_id = $c AND list_contains($r, run_id) AND log = $log
                      AND ($ddir = 'all' OR ddir = $ddir)),
                per_run AS (SELECT run_id, b, {agg}(value) AS v FROM s GROUP BY run_id, b)
                SELECT b, avg(v), min(v), max(v), count(*) FROM per_run GROUP BY b ORDER BY b""",
            {"c": cid, "r": rids, "log": log, "ddir": ddir, "step": float(step)}).rows
        series.append(models.LogSeries(
            capture=cid, label=found[cid]["label"], point=key, runs=rids, step_ms=int(step),
            points=[models.LogSeriesPoint(t_s=b * step / 1000.0, mean=m, min=lo, max=hi, n=n)
                    for b, m, lo, hi, n in rows]))
    unit = {"bw": "B/s", "iops": "IO/s"}.get(log, "ns")
    return models.FioLogSeries(log=log, unit=unit, ddir=ddir, logs=logs, ddirs=ddirs, points=points, series=series)
