"""Repeat statistics for sweep cells: mean, standard deviation, coefficient of variation, the 95%
confidence interval of the mean, and Welch's t-test of a capture against the baseline. Pure
Python (no SciPy): the Student t distribution through the regularized incomplete beta function.

Formulas (n repeats x_1..x_n of one metric at one point of one capture):

    mean   m  = sum(x) / n
    sd     s  = sqrt(sum((x - m)^2) / (n - 1))            sample standard deviation (n >= 2)
    CV        = s / m
    95% CI    = m -+ t(0.975, n - 1) x s / sqrt(n)        t: Student's t quantile (n >= 2)

Welch's t-test of capture A against the baseline B at the same point (n_A, n_B >= 2):

    se^2 = s_A^2 / n_A + s_B^2 / n_B
    t    = (m_A - m_B) / se
    df   = se^4 / ((s_A^2 / n_A)^2 / (n_A - 1) + (s_B^2 / n_B)^2 / (n_B - 1))   (Welch-Satterthwaite)
    p    = P(|T_df| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2)                 two-sided

and the 95% confidence interval of the difference, m_A - m_B -+ t(0.975, df) x se, shown relative
to the baseline mean. A difference is *significant* when p < 0.05 and both sides have at least
MIN_REPEATS repeats; with fewer, a cell says "too few repeats" (two repeats give a t quantile of
12.7: the interval means nothing).

I_x(a, b) is evaluated with the continued fraction of Numerical Recipes (betacf, modified Lentz),
using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly. The tests
check it against closed forms (I_x(a, 1) = x^a, I_x(1/2, 1/2) = 2/pi asin(sqrt x), the t CDF
with 1 and 2 degrees of freedom), published t tables, and published Welch examples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MIN_REPEATS", "too_few_repeats", "ALPHA", "betainc", "t_cdf", "t_sf2", "t_ppf", "Summary", "summarize", "Welch",
           "welch"]

MIN_REPEATS = 3


def too_few_repeats(n: int, n_base: int) -> bool:
    """A change between captures of n and n_base repeats is too uncertain to colour: fewer than
    MIN_REPEATS on a side (the sweep matrix's "too few repeats", the compared-metric tables' grey
    '?', the difference flame graph's grey frames; src/logic/ratio.ts tooFewRepeats, vectors
    testdata/vectors/ratio-tone.json)."""
    return n < MIN_REPEATS or n_base < MIN_REPEATS


ALPHA = 0.05
_EPS = 1e-15
_TINY = 1e-300


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of I_x(a, b) (Numerical Recipes 6.4, modified Lentz's method)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0):
        raise ValueError("betainc needs a > 0 and b > 0")
    if not 0.0 <= x <= 1.0:
        raise ValueError("betainc needs 0 <= x <= 1")
    if x == 0.0 or x == 1.0:
        return x
    ln_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_sf2(t: float, df: float) -> float:
    """Two-sided tail P(|T| >= |t|) of Student's t with df degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be > 0")
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_cdf(t: float, df: float) -> float:
    """P(T <= t)."""
    tail = t_sf2(t, df) / 2.0
    return 1.0 - tail if t > 0 else tail


def t_ppf(q: float, df: float) -> float:
    """The quantile: the t with P(T <= t) = q (bisection on t_cdf, to 1e-12 relative)."""
    if not 0.0 < q < 1.0:
        raise ValueError("quantile needs 0 < q < 1")
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < q:
        lo, hi = hi, hi * 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    mean: float | None
    stddev: float | None  # sample (n - 1); None for n < 2
    cv: float | None  # stddev / mean; None when either is missing or the mean is 0
    ci_low: float | None  # 95% confidence interval of the mean; None for n < 2
    ci_high: float | None
    min: float | None
    max: float | None


def summarize(values: Sequence[float], level: float = 0.95) -> Summary:
    xs = [float(v) for v in values if v is not None and math.isfinite(v)]
    n = len(xs)
    if n == 0:
        return Summary(0, None, None, None, None, None, None, None)
    mean = math.fsum(xs) / n
    if n < 2:
        return Summary(1, mean, None, None, None, None, xs[0], xs[0])
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    sd = math.sqrt(var)
    half = t_ppf(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
    return Summary(n, mean, sd, sd / mean if mean else None, mean - half, mean + half, min(xs), max(xs))


@dataclass(frozen=True, slots=True)
class Welch:
    t: float | None
    df: float | None
    p: float | None  # two-sided
    diff: float | None  # mean(a) - mean(b)
    diff_low: float | None  # 95% confidence interval of the difference
    diff_high: float | None
    significant: bool  # p < ALPHA and both sides have MIN_REPEATS repeats
    too_few: bool  # fewer than MIN_REPEATS repeats on one side
    note: str | None  # why there is no test, when there is none


def welch(a: Sequence[float], b: Sequence[float], alpha: float = ALPHA, min_repeats: int = MIN_REPEATS) -> Welch:
    """Welch's unequal-variances t-test of `a` against `b` (see the module's doc)."""
    sa, sb = summarize(a), summarize(b)
    too_few = sa.n < min_repeats or sb.n < min_repeats
    diff = sa.mean - sb.mean if sa.mean is not None and sb.mean is not None else None
    if sa.n < 2 or sb.n < 2:
        return Welch(None, None, None, diff, None, None, False, too_few,
                     f"too few repeats for a test (n = {sa.n} and {sb.n}; a test needs 2 on each side, "
                     f"{min_repeats} to be trusted)")
    assert sa.stddev is not None and sb.stddev is not None and diff is not None
    va, vb = sa.stddev ** 2 / sa.n, sb.stddev ** 2 / sb.n
    se2 = va + vb
    if se2 == 0:
        return Welch(None, None, None, diff, diff, diff, False, too_few,
                     "no spread in the repeats of either capture: a t-test cannot tell")
    se = math.sqrt(se2)
    t = diff / se
    df = se2 * se2 / ((va * va / (sa.n - 1) if va else 0.0) + (vb * vb / (sb.n - 1) if vb else 0.0))
    p = t_sf2(t, df)
    half = t_ppf(1.0 - alpha / 2.0, df) * se
    return Welch(t, df, p, diff, diff - half, diff + half, (p < alpha) and not too_few, too_few,
                 f"too few repeats (n = {sa.n} and {sb.n}; {min_repeats} needed)" if too_few else None)
