"""No posterior depends on the units of the scores (issue 33).

Scores multiplied by any factor from 1e-300 to 1e300 (a different one per
column for a fusion) give the same posteriors to 1e-9, for every binary
calibrator that promises it. ``BetaCalibrator`` does not: it reads its input
as log-odds (or probabilities), a scale with a meaning of its own (the
identity map is ``a = b = 1``, scores are clipped at +/-36.04 log-odds and
the penalty is on ``a`` and ``b``), so multiplying the scores changes the
model, by definition. The multiclass calibrators are tested in their own
files.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skcalib import (
    PAVCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ProperScoringAffineCalibrator,
    ProperScoringFusion,
    VennAbersCalibrator,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=40)

CALIBRATORS = [
    PlattCalibrator(),
    ProperScoringAffineCalibrator(),
    ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.1, l2=1e-2),
    PAVCalibrator(),
    PAVLLRCalibrator(),
    VennAbersCalibrator(),
]


def _data(seed=0, n=240, columns=1):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    X = rng.normal(size=(n, columns)) * 1.4 + 1.2 * y[:, None]
    # scores of both signs, none so close to 0 that 1e-300 of it is denormal
    X = np.where(np.abs(X) < 1e-3, 1e-3, X)
    w = rng.uniform(0.5, 2.0, n)
    test = np.r_[np.linspace(-4, 5, 37), X[:20, 0]]
    return X, y, w, test


@pytest.mark.parametrize("calibrator", CALIBRATORS, ids=repr)
@HYP
@given(st.floats(-300, 300), st.booleans())
def test_binary_calibrators_are_unit_free(calibrator, log_scale, weighted):
    X, y, w, test = _data()
    w = w if weighted else None
    scale = 10.0**log_scale
    ref = calibrator.__sklearn_clone__().fit(X, y, sample_weight=w)
    got = calibrator.__sklearn_clone__().fit(X * scale, y, sample_weight=w)
    np.testing.assert_allclose(
        got.predict_proba(test * scale), ref.predict_proba(test), rtol=1e-9, atol=1e-12
    )


@HYP
@given(st.lists(st.floats(-300, 300), min_size=3, max_size=3), st.booleans())
def test_fusion_is_unit_free_per_column(log_scales, weighted):
    X, y, w, _ = _data(seed=1, columns=3)
    X[:, 2] = X[:, 2] * 0.3 + X[:, 0]  # correlated systems
    w = w if weighted else None
    scales = 10.0 ** np.array(log_scales)
    ref = ProperScoringFusion().fit(X, y, sample_weight=w)
    got = ProperScoringFusion().fit(X * scales, y, sample_weight=w)
    test = X[:50]
    np.testing.assert_allclose(
        got.predict_proba(test * scales), ref.predict_proba(test), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        got.decision_function(test * scales),
        ref.decision_function(test),
        rtol=1e-9,
        atol=1e-9,
    )
