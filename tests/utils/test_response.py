"""utils/_response.py: one-vs-rest log-odds of log-probability columns."""

import numpy as np
import pytest
import scipy
from scipy.special import logsumexp
from sklearn.utils.fixes import parse_version

from skcalib.utils._response import one_vs_rest_log_odds


def _by_scipy(log_proba):
    """Column ``k``: ``log p_k - logsumexp`` of the other columns, by scipy."""
    out = np.empty_like(log_proba)
    for k in range(log_proba.shape[1]):
        rest = logsumexp(np.delete(log_proba, k, axis=1), axis=1)
        out[:, k] = log_proba[:, k] - rest
    return out


#: scipy 1.15 rewrote logsumexp (the largest entries apart, log1p of the
#: rest): from there on the finite path is bitwise scipy's; before, equal to
#: a few units in the last place.
SCIPY_115 = parse_version(scipy.__version__) >= parse_version("1.15")


def _assert_scipys(a, b):
    if SCIPY_115:
        np.testing.assert_array_equal(a, b)
    else:
        scale = np.max(np.abs(b[np.isfinite(b)]), initial=1.0)
        np.testing.assert_allclose(a, b, rtol=0, atol=8 * np.finfo(float).eps * scale)


@pytest.mark.parametrize("K", [3, 4, 9, 16])
def test_one_vs_rest_log_odds_is_scipys_logsumexp(K):
    """Bitwise scipy's result (PAV ties near-equal scores: a last-digit
    change moves its fits), ties of the largest entries included; with
    infinite entries too (scipy's own path, bitwise with every version)."""
    rng = np.random.default_rng(K)
    X = np.log(rng.dirichlet(np.full(K, 0.3), 500))
    X[rng.random(500) < 0.1] = np.log(1.0 / K)  # rows of equal entries
    X[:50] = np.round(X[:50], 1)
    _assert_scipys(one_vs_rest_log_odds(X), _by_scipy(X))
    _assert_scipys(one_vs_rest_log_odds(1e3 * X), _by_scipy(1e3 * X))
    with np.errstate(divide="ignore"):
        P = np.exp(X)
        P[:5, 0] = 0.0
        Y = np.log(P)
    np.testing.assert_array_equal(one_vs_rest_log_odds(Y), _by_scipy(Y))


def test_one_vs_rest_log_odds_of_two_classes_is_the_log_odds():
    p = np.array([0.2, 0.5, 0.9])
    X = np.log(np.column_stack([1 - p, p]))
    np.testing.assert_allclose(
        one_vs_rest_log_odds(X)[:, 1], np.log(p / (1 - p)), rtol=1e-12, atol=1e-15
    )
