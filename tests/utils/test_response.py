"""utils/_response.py: one-vs-rest log-odds of log-probability columns."""

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

from skcalib.utils._response import one_vs_rest_log_odds


def _by_scipy(log_proba):
    """Column ``k``: ``log p_k - logsumexp`` of the other columns, by scipy."""
    out = np.empty_like(log_proba)
    for k in range(log_proba.shape[1]):
        rest = logsumexp(np.delete(log_proba, k, axis=1), axis=1)
        out[:, k] = log_proba[:, k] - rest
    return out


def _assert_close(got, ref, K):
    """Within ``K**2`` units in the last place of the larger of 1 and
    the value; infinities where scipy has them."""
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
    np.testing.assert_array_equal(got[np.isinf(ref)], ref[np.isinf(ref)])
    fin = np.isfinite(ref)
    scale = np.maximum(1.0, np.abs(ref[fin]))
    assert (np.abs(got[fin] - ref[fin]) <= K * K * np.finfo(float).eps * scale).all()


@pytest.mark.parametrize("K", [3, 4, 9, 16, 100])
def test_one_vs_rest_log_odds_equal_scipys_logsumexp(K):
    """In O(n K), scipy's logsumexp of the other columns to rounding: ties
    of the largest entries, rows of equal entries, large magnitudes, and
    zero probabilities (-inf), including a row with one positive
    probability only (+inf against an empty rest)."""
    rng = np.random.default_rng(K)
    X = np.log(rng.dirichlet(np.full(K, 0.3), 500))
    X[rng.random(500) < 0.1] = np.log(1.0 / K)  # rows of equal entries
    X[:50] = np.round(X[:50], 1)
    _assert_close(one_vs_rest_log_odds(X), _by_scipy(X), K)
    _assert_close(one_vs_rest_log_odds(1e3 * X), _by_scipy(1e3 * X), K)
    with np.errstate(divide="ignore"):
        P = np.exp(X)
        P[:5, 0] = 0.0
        P[5, :] = 0.0
        P[5, 1] = 1.0
        Y = np.log(P)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = one_vs_rest_log_odds(Y)
    _assert_close(got, _by_scipy(Y), K)
    assert got[5, 1] == np.inf and (got[5, np.arange(K) != 1] == -np.inf).all()


def test_one_vs_rest_log_odds_of_two_classes_is_the_log_odds():
    p = np.array([0.2, 0.5, 0.9])
    X = np.log(np.column_stack([1 - p, p]))
    np.testing.assert_allclose(
        one_vs_rest_log_odds(X)[:, 1], np.log(p / (1 - p)), rtol=1e-12, atol=1e-15
    )


def test_fitting_scores_tie_probabilities_as_scikit_learns_isotonic():
    from sklearn._isotonic import _make_unique

    from skcalib.utils._response import fitting_scores

    p = np.array([0.75 + 4e-16, 2e-20, 1e-193, 0.75, 4.4e-11, 1e-108, 0.9, 6.6e-20])
    tied = fitting_scores(p, "probability")
    # each is the smallest probability of its tie, in the original order
    expected = [0.75, 1e-193, 1e-193, 0.75, 4.4e-11, 1e-193, 0.9, 1e-193]
    np.testing.assert_array_equal(tied, expected)
    order = np.argsort(p)
    knots = _make_unique(p[order], np.zeros(p.shape[0]), np.ones(p.shape[0]))[0]
    np.testing.assert_array_equal(np.unique(tied), knots)
    # per column, and other inputs untouched
    both = fitting_scores(np.column_stack([p, p[::-1]]), "probability")
    np.testing.assert_array_equal(both, np.column_stack([tied, tied[::-1]]))
    assert fitting_scores(p, "log_odds") is p


def test_choose_proba_input_keeps_the_probability_without_a_significant_gain():
    from skcalib.utils._response import choose_proba_input

    rng = np.random.default_rng(0)
    base = rng.exponential(size=400)
    # one sample fitted 30 nats better: more than a nat in total, not significant
    one = base.copy()
    one[0] -= 30.0
    losses = {"probability": base, "log_odds": one}
    assert choose_proba_input(losses) == "probability"
    # 0.1 nat better on every sample, with noise of 0.2: about 10 standard errors
    better = base - 0.1 + 0.2 * rng.standard_normal(400)
    assert choose_proba_input({"probability": base, "log_odds": better}) == "log_odds"
    # a mean gain of one standard error
    gain = np.array([0.5, -0.3, 0.4, -0.2, 0.6, 0.1, -0.4, 0.3])
    few = {"probability": base[:8], "log_odds": base[:8] - gain}
    assert choose_proba_input(few) == "probability"
    # weights: the gain is on samples of weight 0
    w = np.ones(400)
    w[:200] = 0.0
    shifted = base.copy()
    shifted[:200] -= 1.0
    chosen = choose_proba_input({"probability": base, "log_odds": shifted}, w)
    assert chosen == "probability"
    # the probability wins when it is best
    swapped = {"probability": better, "log_odds": base}
    assert choose_proba_input(swapped) == "probability"
