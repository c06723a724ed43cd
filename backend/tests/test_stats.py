"""iolens.stats: the t distribution through the regularized incomplete beta function, checked
against closed forms, published t tables and published Welch examples."""

from __future__ import annotations

import math

import pytest

from iolens.store import stats


@pytest.mark.parametrize("x", [0.0, 0.01, 0.2, 0.5, 0.77, 0.99, 1.0])
def test_betainc_closed_forms(x):
    for a in (0.5, 1.0, 2.5, 7.0):
        assert stats.betainc(a, 1.0, x) == pytest.approx(x ** a, abs=1e-13)  # I_x(a, 1) = x^a
        assert stats.betainc(1.0, a, x) == pytest.approx(1 - (1 - x) ** a, abs=1e-13)  # I_x(1, b) = 1 - (1-x)^b
    assert stats.betainc(0.5, 0.5, x) == pytest.approx(2 / math.pi * math.asin(math.sqrt(x)), abs=1e-12)
    # symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
    assert stats.betainc(3.0, 8.5, x) == pytest.approx(1 - stats.betainc(8.5, 3.0, 1 - x), abs=1e-13)
    assert stats.betainc(4.0, 4.0, 0.5) == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("t", [-30.0, -2.5, -0.3, 0.0, 0.7, 1.96, 12.0])
def test_t_cdf_closed_forms(t):
    assert stats.t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-13)  # Cauchy
    assert stats.t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-13)


def test_t_cdf_against_numerical_integration():
    """An independent computation: Simpson's rule over the t density."""
    def pdf(x, v):
        return math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2)) / math.sqrt(v * math.pi) * (1 + x * x / v) ** (
            -(v + 1) / 2)

    for v in (3, 7.5, 30):
        for t in (0.5, 1.5, 3.0):
            n = 4000
            h = t / n
            s = pdf(0, v) + pdf(t, v) + sum((4 if i % 2 else 2) * pdf(i * h, v) for i in range(1, n))
            assert stats.t_cdf(t, v) == pytest.approx(0.5 + s * h / 3, abs=1e-10)


# Two-sided 97.5% quantiles of Student's t, as printed in every t table.
@pytest.mark.parametrize("df,q", [(1, 12.706204736), (2, 4.302652730), (3, 3.182446305), (4, 2.776445105),
                                  (5, 2.570581836), (9, 2.262157163), (10, 2.228138852), (29, 2.045229642),
                                  (120, 1.979930405)])
def test_t_quantiles_match_tables(df, q):
    assert stats.t_ppf(0.975, df) == pytest.approx(q, abs=2e-9)
    assert stats.t_cdf(q, df) == pytest.approx(0.975, abs=1e-10)
    assert stats.t_ppf(0.025, df) == pytest.approx(-q, abs=2e-9)


# The three examples of Wikipedia's "Welch's t-test" article (t, df and p as printed there).
WELCH = [
    ([27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4],
     [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4],
     -2.46, 25.0, 0.021),
    ([17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8],
     [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5,
      21.5, 21.8],
     -1.57, 9.9, 0.149),
    ([19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0],
     [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4,
      23.9, 13.3],
     -2.22, 24.5, 0.036),
]


@pytest.mark.parametrize("a,b,t,df,p", WELCH)
def test_welch_published_examples(a, b, t, df, p):
    w = stats.welch(a, b)
    # to the precision printed there (two decimals of t, one of df, three of p, give or take the last digit)
    assert abs(w.t - t) <= 0.01 and abs(w.df - df) <= 0.1 and abs(w.p - p) <= 0.001
    assert w.significant == (p < 0.05) and not w.too_few
    # the interval of the difference excludes 0 exactly when p < 0.05
    assert (w.diff_low < 0 < w.diff_high) == (p >= 0.05)


def test_summary():
    s = stats.summarize([10.0, 12.0, 14.0])
    assert (s.n, s.mean, s.stddev) == (3, 12.0, 2.0)
    assert s.cv == pytest.approx(2 / 12)
    half = 4.302652729749464 * 2 / math.sqrt(3)
    assert (s.ci_low, s.ci_high) == (pytest.approx(12 - half), pytest.approx(12 + half))
    assert stats.summarize([5.0]) == stats.Summary(1, 5.0, None, None, None, None, 5.0, 5.0)
    assert stats.summarize([]).mean is None
    assert stats.summarize([1.0, float("nan"), 3.0]).n == 2


def test_welch_edge_cases():
    few = stats.welch([1.0, 2.0], [3.0, 4.0])
    assert few.p is not None and few.too_few and not few.significant and "too few repeats" in few.note
    one = stats.welch([1.0], [3.0, 4.0, 5.0])
    assert one.p is None and one.too_few and "a test needs 2" in one.note
    flat = stats.welch([2.0, 2.0, 2.0], [2.0, 2.0, 2.0])
    assert flat.p is None and "no spread" in flat.note and flat.diff == 0
    clear = stats.welch([100.0, 101.0, 99.0], [50.0, 51.0, 49.0])
    assert clear.significant and clear.p < 1e-4
    one_sided_spread = stats.welch([10.0, 10.0, 10.0], [8.0, 9.0, 10.0])  # df from one side only
    assert one_sided_spread.df == pytest.approx(2.0)
