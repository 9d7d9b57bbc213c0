"""Tests of the labelled sort shared by PAV and Venn-Abers (skcalib._kernel._sort)."""

import numpy as np
import pytest
from _scores import VALUE_KINDS, make_values
from hypothesis import given, settings
from hypothesis import strategies as st

from skcalib._kernel._sort import (
    SMALL_SORT,
    labelled_sort,
    order_statistics,
    quantiles,
    run_edges,
    sorted_labelled,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=80)


def _by_unique(s, y, w):
    """The groups by definition: np.unique and weighted counts."""
    w = np.ones(s.shape[0]) if w is None else w
    keep = w > 0
    u, inv = np.unique(s[keep], return_inverse=True)
    tar = np.bincount(inv, weights=np.where(y[keep], w[keep], 0.0), minlength=u.size)
    non = np.bincount(inv, weights=np.where(y[keep], 0.0, w[keep]), minlength=u.size)
    return u, tar, non


@pytest.mark.parametrize("n", [1, 7, SMALL_SORT, SMALL_SORT + 1, 50_000])
@pytest.mark.parametrize("weighted", [False, True])
def test_labelled_sort_gives_the_distinct_scores_and_class_weights(n, weighted):
    rng = np.random.default_rng(n)
    s = np.round(rng.normal(size=n), 2)  # ties
    s[: n // 10] = rng.choice([-np.inf, np.inf, 0.0, -0.0, 1e300], n // 10)
    y = rng.random(n) < 0.3
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    if weighted:
        w[0] = 1.0
    g = labelled_sort(s, y, w)
    u, tar, non = _by_unique(s, y, w)
    np.testing.assert_array_equal(g.lo, u)
    np.testing.assert_array_equal(g.hi, u)
    np.testing.assert_array_equal(g.tar, tar)
    np.testing.assert_array_equal(g.non, non)


@HYP
@given(
    st.lists(
        st.tuples(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 3.0, 1e308]), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
def test_labelled_sort_of_few_scores_matches_the_definition(pairs):
    s = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    for w in (None, np.linspace(0.5, 2.0, s.size)):
        g = labelled_sort(s, y, w)
        u, tar, non = _by_unique(s, y, w)
        np.testing.assert_array_equal(g.lo, u)
        np.testing.assert_allclose(g.tar, tar, rtol=1e-15)
        np.testing.assert_allclose(g.non, non, rtol=1e-15)


@pytest.mark.parametrize("n", [5, SMALL_SORT, SMALL_SORT + 1, 40_000])
def test_sorted_labelled_keeps_each_label_with_its_score(n):
    # few scores take one argsort, more the packed value sort: the same
    # sorted scores, and each value keeps its labels
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(size=n), 1)
    y = rng.random(n) < 0.4
    got, labels = sorted_labelled(s, y)
    np.testing.assert_array_equal(got, np.sort(s))
    u, inv = np.unique(s, return_inverse=True)
    _, sorted_inv = np.unique(got, return_inverse=True)
    np.testing.assert_array_equal(
        np.bincount(inv, weights=y, minlength=u.size),
        np.bincount(sorted_inv, weights=labels, minlength=u.size),
    )


def test_run_edges_cut_runs_of_equal_values():
    x = np.array([1, 1, 2, 3, 3, 3])
    assert run_edges(x[1:] != x[:-1]).tolist() == [0, 2, 3, 6]


KINDS = list(VALUE_KINDS)
SIZES = [1, 2, 17, 4096, 4097, 30_000, 200_000]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", SIZES)
def test_order_statistics_equal_the_sorted_values(kind, n):
    rng = np.random.default_rng(n)
    x = make_values(kind, n, rng)
    before = x.copy()
    ranks = np.r_[0, n - 1, rng.integers(0, n, 9)]
    np.testing.assert_array_equal(order_statistics(x, ranks), np.sort(x)[ranks])
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(np.signbit(x), np.signbit(before))


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "extreme"])
@pytest.mark.parametrize("n", SIZES)
def test_unweighted_quantiles_equal_numpys(kind, n):
    rng = np.random.default_rng(n + 1)
    x = make_values(kind, n, rng)
    q = np.r_[np.linspace(0.0, 1.0, 11), rng.random(6)]
    np.testing.assert_array_equal(quantiles(x, q), np.quantile(x, q))


def _inverted_cdf(x, w, q):
    """The definition: the stable sort and the running sum of the weights."""
    order = np.argsort(x, kind="stable")
    cum = np.cumsum(w[order])
    k = np.searchsorted(cum, q * cum[-1], side="left")
    return x[order][np.minimum(k, x.shape[0] - 1)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", SIZES)
def test_weighted_quantiles_equal_the_sorted_running_sum(kind, n):
    rng = np.random.default_rng(n + 2)
    x = make_values(kind, n, rng)
    q = np.r_[np.linspace(0.0, 1.0, 11), rng.random(6)]
    # integer weights (exact sums, zeros among them), and unit weights,
    # whose inverted-CDF quantiles are numpy's
    w = rng.integers(0, 3, n).astype(float)
    w[-1] = 1.0
    before = (x.copy(), w.copy())
    np.testing.assert_array_equal(quantiles(x, q, w), _inverted_cdf(x, w, q))
    ones = np.ones(n)
    expected = np.quantile(x, q, method="inverted_cdf")
    np.testing.assert_array_equal(quantiles(x, q, ones), expected)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(w, before[1])


def test_weighted_quantiles_of_real_weights_are_within_rounding():
    # summed per bucket, the running sums differ from the sorted ones by
    # rounding only: the quantiles are equal away from exact hits
    rng = np.random.default_rng(5)
    x = rng.random(100_000)
    w = rng.uniform(0.1, 2.0, x.shape[0])
    q = np.linspace(0.0, 1.0, 21)
    np.testing.assert_array_equal(quantiles(x, q, w), _inverted_cdf(x, w, q))
