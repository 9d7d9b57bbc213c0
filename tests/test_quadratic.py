"""Tests of QuadraticCalibrator: the exact optimum of its objective."""

import warnings

import numpy as np
import pytest
from _scores import make_scores
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcalib import QuadraticCalibrator

#: scores with unequal class variances: a quadratic LLR
SCORES = {
    "prior": 0.35,
    "loc": (0.0, 0.8),
    "scale": (1.0, 1.8),
    "weight_range": (0.2, 3.0),
}


def _objective(params, s, y, w, l2):
    """Weighted mean log loss of sigmoid(a s + c s^2 + b + logit(pi)) plus
    l2 * Cbar_0 * ((a sd(s))^2 + (c sd(s^2))^2), written out."""
    a, c, b = params
    w = np.ones_like(s) if w is None else w
    v = w / w.sum()
    pi = float(v @ y)
    z = a * s + c * s * s + b + logit(pi)
    loss = -float(v @ np.where(y == 1, log_expit(z), log_expit(-z)))
    c0 = -(pi * np.log(pi) + (1 - pi) * np.log(1 - pi))
    var = [float(v @ (f - v @ f) ** 2) for f in (s, s * s)]
    return loss + l2 * c0 * (a * a * var[0] + c * c * var[1])


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("l2", [0.0, 1e-5, 0.05])
def test_fit_is_the_optimum_of_the_written_out_objective(weights, l2):
    s, y, w = make_scores(400, weights=weights, **SCORES)
    cal = QuadraticCalibrator(l2=l2).fit(s, y, sample_weight=w)
    ours = np.r_[cal.coef_[0], cal.intercept_]
    ref = minimize(
        _objective,
        np.zeros(3),
        args=(s, y, w, l2),
        method="BFGS",
        options={"gtol": 1e-12},
    )
    f_ours = _objective(ours, s, y, w, l2)
    assert f_ours <= ref.fun + 1e-12
    np.testing.assert_allclose(ours, ref.x, atol=1e-6)


def test_unpenalized_equals_logistic_regression_on_the_features():
    s, y, _ = make_scores(600, seed=3, **SCORES)
    cal = QuadraticCalibrator(l2=0).fit(s, y)
    F = np.column_stack([s, s * s])
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(F, y)
    np.testing.assert_allclose(cal.predict_proba(s), lr.predict_proba(F), atol=1e-7)
    # the intercept is the LLR's: the log-odds minus the calibration prior's
    b = lr.intercept_[0] - logit(cal.calibration_prior_)
    np.testing.assert_allclose(cal.intercept_[0], b, atol=1e-6)
    np.testing.assert_allclose(cal.coef_[0], lr.coef_[0], rtol=1e-5)


def test_decision_function_is_the_llr():
    s, y, _ = make_scores(400, **SCORES)
    cal = QuadraticCalibrator(prior=0.2).fit(s, y)
    llr = cal.decision_function(s)
    a, c = cal.coef_[0]
    np.testing.assert_allclose(llr, a * s + c * s * s + cal.intercept_[0], rtol=1e-12)
    np.testing.assert_allclose(cal.transform(s), llr, rtol=1e-15)
    np.testing.assert_allclose(cal.predict_proba(s)[:, 1], expit(llr + logit(0.2)))


def test_p_target_weights_the_classes():
    s, y, _ = make_scores(400, **SCORES)
    pi = y.mean()
    plain = QuadraticCalibrator().fit(s, y)
    same = QuadraticCalibrator(p_target=pi).fit(s, y)
    np.testing.assert_allclose(same.coef_, plain.coef_, rtol=1e-9)
    balanced = QuadraticCalibrator(p_target=0.5).fit(s, y)
    assert not np.allclose(balanced.coef_, plain.coef_, rtol=1e-3)


def test_weights_equal_repeated_rows():
    s, y, _ = make_scores(200, seed=1, **SCORES)
    w = np.random.default_rng(1).integers(0, 4, 200)
    a = QuadraticCalibrator().fit(s, y, sample_weight=w)
    b = QuadraticCalibrator().fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-9)


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e-10, 1e10, 1e150, 1e300])
def test_any_units(scale):
    s, y, w = make_scores(400, weights=True, **SCORES)
    ref = QuadraticCalibrator().fit(s, y, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = QuadraticCalibrator().fit(s * scale, y, sample_weight=w)
        got = cal.predict_proba(s * scale)
    np.testing.assert_allclose(got, ref.predict_proba(s), rtol=1e-9, atol=1e-12)


def test_columns_are_calibrated_independently():
    s, y, _ = make_scores(400, **SCORES)
    X = np.column_stack([s, 3.0 * s - 1.0])
    both = QuadraticCalibrator().fit(X, y)
    for j in range(2):
        one = QuadraticCalibrator().fit(X[:, j], y)
        np.testing.assert_allclose(both.transform(X)[:, j], one.transform(X[:, j]))


def test_separable_data():
    s = np.r_[np.linspace(-3, -1, 20), np.linspace(1, 3, 20)]
    y = np.r_[np.zeros(20), np.ones(20)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = QuadraticCalibrator().fit(s, y)  # the default penalty: finite
    p = cal.predict_proba(s)
    assert 0 < p.min() and p.max() < 1
    with pytest.warns(ConvergenceWarning):
        QuadraticCalibrator(l2=0).fit(s, y)


def test_extreme_test_scores_give_the_limits():
    s, y, _ = make_scores(400, **SCORES)
    cal = QuadraticCalibrator().fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llr = cal.decision_function([-1.7e308, 1.7e308, 0.0])
    sign = np.sign(cal.coef_[0, 1])
    assert llr[0] == llr[1] == sign * np.inf
    assert np.isfinite(llr[2])
