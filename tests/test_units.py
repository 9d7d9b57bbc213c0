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
from _calibrators import calibrators
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st

from skcalib import (
    ProperScoringFusion,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=40)

#: scores of both signs (targets shifted by 1.2), weights in [0.5, 2]
SCORES = {
    "prior": 0.35,
    "loc": (0.0, 1.2),
    "scale": 1.4,
    "weights": True,
    "weight_range": (0.5, 2.0),
}


def _off_zero(X):
    """No score so close to 0 that 1e-300 of it is denormal."""
    return np.where(np.abs(X) < 1e-3, 1e-3, X)


@pytest.mark.parametrize("calibrator", calibrators("unit_free"), ids=repr)
@HYP
@given(st.floats(-300, 300), st.booleans())
def test_binary_calibrators_are_unit_free(calibrator, log_scale, weighted):
    X, y, w = make_scores(240, n_columns=1, **SCORES)
    X = _off_zero(X)
    test = np.r_[np.linspace(-4, 5, 37), X[:20, 0]]
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
    X, y, w = make_scores(240, seed=1, n_columns=3, **SCORES)
    X = _off_zero(X)
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
