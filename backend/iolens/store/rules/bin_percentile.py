"""Latency bins and the percentile read from a histogram of them.

Block I/O latencies are stored as bins of 8 per doubling (block_ios.lat_bin): bin b holds
[2^(b/8), 2^((b+1)/8)) ns. A percentile of a histogram is fio's rule (stat.c,
calc_clat_percentiles): the first bin whose running count reaches p% of all. The SQL copies of that
rule: `percentile_of_bins` (Python, the block export), `percentiles_sql` (the block views),
`nearest_rank_sql` (the scheduler views), and ingest/fio.py DERIVE_FIO_RESULTS; the TypeScript copy
is in frontend/src/logic. All are tested on testdata/vectors/bin-percentile.json.
"""

from __future__ import annotations

import math

LAT_BINS_PER_OCTAVE = 8


def lat_bin(latency_ns: int) -> int:
    """floor(8 x log2(latency)): 8 buckets per doubling (each ~9% wide); 0 for latencies <= 1 ns."""
    return int(math.log2(latency_ns) * LAT_BINS_PER_OCTAVE) if latency_ns > 1 else 0


def bin_low_ns(b: int) -> float:
    """Lower bound of latency bin b, ns (its upper bound is bin_low_ns(b + 1))."""
    return 2 ** (b / LAT_BINS_PER_OCTAVE)


def bin_centre_ns(b: int) -> float:
    """Geometric centre of latency bin b, ns."""
    return 2 ** ((b + 0.5) / LAT_BINS_PER_OCTAVE)


def percentile_of_bins(bins: list[list], p: float) -> float | None:
    """fio's rule on log bins [low, high, count]: the first bin whose running count reaches p %,
    as the bin's geometric centre."""
    total = sum(b[2] for b in bins)
    run = 0
    for low, high, c in bins:
        run += c
        if total and run * 100 >= total * p:
            return (low * high) ** 0.5
    return None


def percentiles_sql(hist_sql: str, percentiles: tuple[float, ...]) -> str:
    """Per bucket b of `hist_sql(b, lat_bin, n)`, the latency bin of each percentile (columns p50,
    p90, p99, p99_9...): the first bin whose running count reaches p % of the bucket's."""
    return f"""
WITH h AS ({hist_sql}),
c AS (SELECT b, lat_bin, sum(n) OVER (PARTITION BY b ORDER BY lat_bin) AS run,
             sum(n) OVER (PARTITION BY b) AS total FROM h)
SELECT b, {", ".join(f"min(lat_bin) FILTER (WHERE run * 100 >= total * {p!r}) AS p{str(p).replace('.0', '').replace('.', '_')}"
                     for p in percentiles)}
FROM c GROUP BY b
"""


def nearest_rank_sql(keys: str, source: str, qs: dict[str, float]) -> str:
    """CTE text: for each `keys` of `source(keys..., v, n)` (value v seen n times), the smallest v
    whose running count reaches q x total (nearest-rank percentile, as fio computes them), per
    name -> q of qs, and the total and largest v."""
    picks = ", ".join(f"min(v) FILTER (WHERE cum >= {q} * tot) AS {name}" for name, q in qs.items())
    return f"""
    cum AS (SELECT {keys}, v, n, sum(n) OVER (PARTITION BY {keys} ORDER BY v ROWS UNBOUNDED PRECEDING) AS cum,
                   sum(n) OVER (PARTITION BY {keys}) AS tot FROM {source}),
    pct AS (SELECT {keys}, max(tot) AS total, {picks}, max(v) AS vmax FROM cum GROUP BY {keys})"""
