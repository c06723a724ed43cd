"""fio's JSON results (kind fio-json) -> fio_jobs, fio_clat_percentiles, fio_clat_bins; fio_results
is derived from them in the write transaction (DERIVE_FIO_RESULTS), and the capture's one-line
workload summary from fio's own record of its options."""

from __future__ import annotations

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats.fio_json import FioResult, parse_fio_json
from ..formats.gz import read_plain
from .parsed import Parsed

TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "fio_jobs": (
        "capture_id", "run_id", "job_index", "jobname", "groupid", "ddir", "error", "io_bytes",
        "bw_bytes", "iops", "runtime_ms", "total_ios", "slat_mean_ns", "clat_min_ns", "clat_max_ns",
        "clat_mean_ns", "clat_stddev_ns", "clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99_9_ns",
        "clat_p99_99_ns", "lat_mean_ns", "usr_cpu", "sys_cpu", "ctx", "majf", "minf",
    ),
    "fio_clat_percentiles": ("capture_id", "run_id", "job_index", "ddir", "percentile", "value_ns"),
    "fio_clat_bins": ("capture_id", "run_id", "job_index", "ddir", "bin_ns", "count"),
}


def fio_json_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    if run_id is None:
        raise BundleError("fio-json artifact must belong to a run", {"file": art.path, "field": "kind"}, 422)
    fio_rows(bundle, run_id, art, out, parse_fio_json(read_plain(bundle.path(art.path), art.path), source=art.path))


def fio_rows(bundle: OpenBundle, run_id: str, art: Artifact, out: Parsed, result: FioResult) -> None:
    """fio's results (JSON here, terse: sweep.py) -> fio_jobs, fio_clat_percentiles, fio_clat_bins."""
    out.fio.append(result)
    cid = bundle.capture_id
    for line in result.preamble:
        out.warnings.append(f"{art.path}: fio printed: {line.strip()}")
    for j in result.jobs:
        if j.error:
            out.warnings.append(f"{art.path}: job {j.jobname} ({j.ddir}) ended with error {j.error}")
        out.add("fio_jobs", [(
            cid, run_id, j.job_index, j.jobname, j.groupid, j.ddir, j.error, j.io_bytes, j.bw_bytes,
            j.iops, j.runtime_ms, j.total_ios, j.slat_mean_ns, j.clat_min_ns, j.clat_max_ns,
            j.clat_mean_ns, j.clat_stddev_ns, j.percentile(50.0), j.percentile(90.0),
            j.percentile(99.0), j.percentile(99.9), j.percentile(99.99), j.lat_mean_ns,
            j.usr_cpu, j.sys_cpu, j.ctx, j.majf, j.minf,
        )])
        out.add("fio_clat_percentiles", [
            (cid, run_id, j.job_index, j.ddir, p, v) for p, v in sorted(j.clat_percentiles_ns.items())
        ])
        if j.clat_bins_ns:
            out.add("fio_clat_bins", [
                (cid, run_id, j.job_index, j.ddir, b, c) for b, c in sorted(j.clat_bins_ns.items())
            ])


def workload_summary(fio: list[FioResult]) -> str | None:
    """'randwrite bs=4k iodepth=32 libaio direct=1', from fio's own record of the options."""
    if not fio or not fio[0].jobs:
        return None
    first = fio[0]
    names = list(dict.fromkeys(j.jobname for j in first.jobs))
    opts = {**first.global_options, **first.jobs[0].job_options}
    parts = [opts["rw"]] if "rw" in opts else (["readwrite"] if "readwrite" in opts else [])
    for key in ("bs", "iodepth", "numjobs", "direct", "fallocate"):
        if key in opts:
            parts.append(f"{key}={opts[key]}")
    if "ioengine" in opts:
        parts.insert(1 if parts else 0, opts["ioengine"])
    if len(names) > 1:
        parts.append(f"(+{len(names) - 1} more job{'s' if len(names) > 2 else ''})")
    return " ".join(parts) or names[0]


DERIVE_FIO_RESULTS = """
INSERT INTO fio_results
WITH j AS (
    SELECT capture_id, run_id, jobname, ddir,
           count(*) AS entries,
           sum(iops) AS iops, sum(bw_bytes) AS bw_bytes, sum(io_bytes) AS io_bytes,
           sum(total_ios) AS total_ios,
           CASE WHEN count(*) = 1 THEN any_value(clat_mean_ns)
                ELSE sum(clat_mean_ns * total_ios) / nullif(sum(total_ios), 0) END AS clat_mean_ns,
           CASE WHEN count(*) = 1 THEN any_value(clat_p50_ns) END AS p50,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_ns) END AS p99,
           CASE WHEN count(*) = 1 THEN any_value(clat_p99_9_ns) END AS p999,
           CASE WHEN count(*) = 1 THEN any_value(lat_mean_ns)
                ELSE sum(lat_mean_ns * total_ios) / nullif(sum(total_ios), 0) END AS lat_mean_ns,
           sum(usr_cpu) AS usr_cpu, sum(sys_cpu) AS sys_cpu, sum(ctx) AS ctx
    FROM fio_jobs WHERE capture_id = $cid
    GROUP BY capture_id, run_id, jobname, ddir
),
merged_bins AS (
    SELECT f.run_id, f.jobname, f.ddir, b.bin_ns, sum(b.count) AS c
    FROM fio_clat_bins b
    JOIN fio_jobs f USING (capture_id, run_id, job_index, ddir)
    WHERE b.capture_id = $cid
    GROUP BY ALL
),
cumulative AS (
    SELECT run_id, jobname, ddir, bin_ns,
           sum(c) OVER (PARTITION BY run_id, jobname, ddir ORDER BY bin_ns) AS cum,
           sum(c) OVER (PARTITION BY run_id, jobname, ddir) AS total
    FROM merged_bins
),
-- fio's rule (stat.c, calc_clat_percentiles): the first bin whose running count reaches p% of all.
from_bins AS (
    SELECT run_id, jobname, ddir,
           min(bin_ns) FILTER (WHERE cum >= total * 0.50) AS p50,
           min(bin_ns) FILTER (WHERE cum >= total * 0.99) AS p99,
           min(bin_ns) FILTER (WHERE cum >= total * 0.999) AS p999
    FROM cumulative GROUP BY ALL
)
SELECT j.capture_id, j.run_id, j.jobname, j.ddir, j.entries, j.iops, j.bw_bytes, j.io_bytes,
       j.total_ios, j.clat_mean_ns,
       coalesce(j.p50, b.p50), coalesce(j.p99, b.p99), coalesce(j.p999, b.p999),
       j.lat_mean_ns, j.usr_cpu, j.sys_cpu, j.ctx
FROM j LEFT JOIN from_bins b USING (run_id, jobname, ddir)
"""
