"""numpy's log with the exact rounding error of 1 + e as log1p: within a few
ulps of the C library's log1p and of mpmath, and log1pexp on long arrays
within a few ulps of np.logaddexp."""

import math

import numpy as np
import pytest

from skcalib._kernel._special import _log1p_unit, log1pexp


def _log1p_values():
    rng = np.random.default_rng(0)
    return np.concatenate(
        [
            [0.0, 1.0, 2.0**-53, 2.0**-52, 3 * 2.0**-54, 5e-324, 1e-300],
            rng.random(4000),
            np.exp(-rng.uniform(0.0, 745.0, 4000)),  # e^-|x| of log1pexp
            np.nextafter(1.0, 0.0) - rng.random(100) * 1e-12,
        ]
    )


def test_log1p_unit_within_few_ulps_of_libm():
    """numpy's log plus the exact rounding error of 1 + e: within 3 ulps of
    the C library's log1p (itself within 1 ulp)."""
    e = _log1p_values()
    got = _log1p_unit(e.copy())
    ref = np.array([math.log1p(v) for v in e.tolist()])
    ulp = np.spacing(np.maximum(ref, np.finfo(float).tiny))
    assert np.max(np.abs(got - ref) / ulp) <= 3.0


def test_log1p_unit_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    e = _log1p_values()[::8]
    got = _log1p_unit(e.copy())
    with mpmath.workdps(40):
        ref = [mpmath.log1p(mpmath.mpf(v)) for v in e.tolist()]
        rel = [
            float(abs((mpmath.mpf(g) - r) / r)) if r != 0 else float(g)
            for g, r in zip(got.tolist(), ref, strict=True)
        ]
    assert max(rel) <= 3 * 2.0**-53


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
