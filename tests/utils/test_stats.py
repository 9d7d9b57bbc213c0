"""utils/_stats.py: the significance rule shared by the input choice and the
default's anchor."""

import numpy as np
import pytest
from scipy import stats

from skcalib.utils._stats import significantly_positive


@pytest.mark.parametrize("seed", range(5))
def test_significantly_positive_is_a_one_sided_z_test(seed):
    # unit weights: the mean against z population standard errors, as
    # scipy's one-sample statistic with ddof=0
    rng = np.random.default_rng(seed)
    x = rng.normal(0.1, 1.0, size=200)
    t_pop = stats.ttest_1samp(x, 0.0).statistic * np.sqrt(200 / 199)
    for z in (0.0, 1.0, 2.0, 3.0):
        assert significantly_positive(x, None, z) == (t_pop > z)


def test_significantly_positive_with_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(0.2, 1.0, size=300)
    w = rng.uniform(0.5, 2.0, size=300)
    # a common factor of the weights changes nothing
    for z in (1.0, 2.0):
        assert significantly_positive(x, w, z) == significantly_positive(x, 7 * w, z)
    # Kish's effective number of samples
    share = w / w.sum()
    mean = x @ share
    se = np.sqrt(((x - mean) ** 2) @ share / (w.sum() ** 2 / (w @ w)))
    assert significantly_positive(x, w, mean / se - 1e-9)
    assert not significantly_positive(x, w, mean / se + 1e-9)
    # rows of weight 0 do not count
    w0 = np.concatenate([w, np.zeros(50)])
    x0 = np.concatenate([x, np.full(50, 100.0)])
    assert significantly_positive(x0, w0, 2.0) == significantly_positive(x, w, 2.0)


def test_significantly_positive_without_spread():
    assert significantly_positive(np.full(5, 0.1), None, 2.0)
    assert not significantly_positive(np.zeros(5), None, 0.0)
