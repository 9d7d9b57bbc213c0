"""log1pexp on long arrays (its in-place steps) within a few ulps of
np.logaddexp, and exact at the infinities and 0."""

import math

import numpy as np

from skcalib._kernel._special import log1pexp


def test_log1pexp_long_within_few_ulps_of_logaddexp():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(size=5000) * 5, rng.uniform(-800, 800, 5000)])
    x = np.concatenate([x, [-np.inf, np.inf, 0.0, -0.0]])
    got = log1pexp(x)
    ref = np.logaddexp(0.0, x)
    assert got[-4:].tolist() == [0.0, np.inf, math.log(2.0), math.log(2.0)]
    finite = np.isfinite(ref)
    ulp = np.spacing(np.maximum(ref[finite], np.finfo(float).tiny))
    assert np.max(np.abs(got[finite] - ref[finite]) / ulp) <= 4.0
