"""Row reductions column by column equal NumPy's and scipy's along the rows."""

import numpy as np
import pytest
from scipy.special import log_softmax

from skcalib._kernel._rows import MAX_COLUMNS, log_softmax_rows, row_max, row_sum


def _rows(rng, n, K):
    a = rng.normal(size=(n, K)) * 10.0 ** rng.uniform(-8, 8, size=(n, K))
    a[rng.integers(0, n, 3), rng.integers(0, K, 3)] = 0.0
    return a


@pytest.mark.parametrize("K", [1, 2, 3, 7, 8, 10, 31, MAX_COLUMNS, 50])
def test_row_max_and_sum_equal_numpy(K):
    rng = np.random.default_rng(K)
    a = _rows(rng, 997, K)
    # the largest entry is exact; so are the sums of fewer than eight entries
    # (left to right, as NumPy adds them), and they round alike from eight
    np.testing.assert_array_equal(row_max(a), a.max(axis=1))
    if K < 8:
        np.testing.assert_array_equal(row_sum(a), a.sum(axis=1))
    else:
        scale = np.abs(a).sum(axis=1)
        assert (np.abs(row_sum(a) - a.sum(axis=1)) <= 1e-14 * scale).all()


def test_row_reductions_of_special_values():
    a = np.array(
        [
            [np.nan, 1.0, 2.0],
            [1.0, np.inf, -np.inf],
            [-np.inf, -np.inf, -np.inf],
            [1e308, 1e308, -1.0],
        ]
    )
    with np.errstate(all="raise"):
        got_max = row_max(a)
    np.testing.assert_array_equal(got_max, a.max(axis=1))
    with np.errstate(invalid="ignore", over="ignore"):
        np.testing.assert_array_equal(row_sum(a), a.sum(axis=1))
    empty = np.empty((0, 3))
    assert row_max(empty).shape == row_sum(empty).shape == (0,)


def test_row_reductions_do_not_write_to_their_input():
    a = np.arange(12.0).reshape(4, 3)
    before = a.copy()
    row_max(a), row_sum(a), log_softmax_rows(a)
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("K", [2, 5, 16, 40])
def test_log_softmax_rows_equals_scipy(K):
    rng = np.random.default_rng(K)
    z = rng.normal(size=(500, K)) * rng.choice([1e-3, 1.0, 50.0, 700.0])
    got = log_softmax_rows(z)
    np.testing.assert_allclose(got, log_softmax(z, axis=1), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.exp(got).sum(axis=1), 1.0, rtol=1e-13)
    # strided input: a column slice of a wider array
    wide = np.hstack([z, z])[:, ::2]
    np.testing.assert_allclose(
        log_softmax_rows(wide), log_softmax(wide, axis=1), rtol=1e-13, atol=1e-13
    )
