"""The ELUB and invariance bounds from buckets of the trials equal those
from one sort of all of them (the exact kernels on the distinct values)."""

import numpy as np
import pytest

from skcalib._kernel._forensic import (
    elub_bounds_unsorted,
    elub_from_values,
    invariance_bounds_unsorted,
    invariance_from_values,
    sorted_values,
)

PAIRS = [
    (elub_bounds_unsorted, elub_from_values),
    (invariance_bounds_unsorted, invariance_from_values),
]


def _trials(rng, n):
    s = rng.choice([0.5, 2.0, 5.0, 15.0])
    y = rng.random(n) < rng.uniform(0.02, 0.98)
    y[:2] = [True, False]
    x = rng.normal(size=n) * s + np.where(y, s * s / 2, -s * s / 2)
    if rng.random() < 0.3:  # ties
        x = np.round(x, int(rng.integers(0, 2)))
    if rng.random() < 0.3:  # infinite, zero and clipped LLRs
        extreme = [np.inf, -np.inf, 0.0, 25.0, -30.0, 1e200]
        x[rng.integers(0, n, 3)] = rng.choice(extreme, 3)
    w = None if rng.random() < 0.5 else rng.uniform(0.1, 3.0, n)
    return y, x, w


@pytest.mark.parametrize("fast, exact", PAIRS)
def test_buckets_equal_one_sort(fast, exact):
    rng = np.random.default_rng(0)
    for _ in range(400):
        y, x, w = _trials(rng, int(rng.integers(2, 200)))
        n_buckets = int(rng.choice([1, 2, 3, 7, 50]))
        expected = exact(*sorted_values(y, x, w))
        got = fast(y, x, w, n_buckets=n_buckets)
        # weighted sums in another order: rounding of the weights' sums
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fast, exact", PAIRS)
def test_buckets_equal_one_sort_default_buckets(fast, exact):
    rng = np.random.default_rng(1)
    for _ in range(6):
        y, x, w = _trials(rng, int(rng.integers(5000, 30000)))
        expected = exact(*sorted_values(y, x, w))
        np.testing.assert_allclose(fast(y, x, w), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fast, exact", PAIRS)
def test_buckets_unweighted_identical(fast, exact):
    """Integer counts are exact: the same floats."""
    rng = np.random.default_rng(2)
    for _ in range(100):
        y, x, _ = _trials(rng, int(rng.integers(2, 300)))
        expected = exact(*sorted_values(y, x, None))
        assert fast(y, x, None, n_buckets=int(rng.integers(1, 40))) == expected


def test_inputs_not_modified():
    rng = np.random.default_rng(3)
    y, x, w = _trials(rng, 6000)
    w = rng.uniform(0.1, 3.0, x.shape[0])
    copies = y.copy(), x.copy(), w.copy()
    for fast, _ in PAIRS:
        fast(y, x, w)
        fast(y, x, None)
    for a, b in zip((y, x, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)
