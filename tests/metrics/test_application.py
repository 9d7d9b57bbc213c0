"""Tests of the Application type (skcalib.metrics._application)."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from skcalib.metrics import Application, actual_dcf, min_dcf

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=60)


# ------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"p_target": 1.5}, r"'p_target' parameter of Application .* Got 1.5"),
        ({"p_target": 0.0}, "'p_target' parameter"),
        ({"p_target": np.nan}, "'p_target' parameter"),
        ({"p_target": True}, "'p_target' parameter"),
        ({"p_target": "0.1"}, r"'p_target' parameter .* Got '0.1' instead"),
        ({"p_target": 0.1, "c_miss": -1}, "'c_miss' parameter of Application"),
        ({"p_target": 0.1, "c_fa": 0}, "'c_fa' parameter"),
        ({"p_target": 0.1, "c_miss": np.inf}, "'c_miss' parameter"),
    ],
)
def test_invalid_values_name_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Application(**kwargs)


def test_from_params_names_the_caller_as_the_metrics_do():
    with pytest.raises(ValueError, match="'c_fa' parameter of DETDisplay"):
        Application._from_params(0.1, 1.0, -2.0, caller="DETDisplay.from_predictions")
    for bad in ({"p_target": 1.5}, {"p_target": 0.1, "c_miss": 0}):
        with pytest.raises(ValueError, match="parameter of min_dcf"):
            min_dcf([0, 1], [0.0, 1.0], **bad)


def test_immutable_hashable_picklable():
    app = Application(0.1, c_miss=2)
    with pytest.raises(AttributeError, match="immutable"):
        app.p_target = 0.2
    assert app == Application(0.1, 2.0, 1.0) and app != Application(0.1)
    assert len({app, Application(0.1, c_miss=2.0)}) == 1
    assert pickle.loads(pickle.dumps(app)) == app
    assert repr(app) == "Application(p_target=0.1, c_miss=2.0, c_fa=1.0)"
    assert app.as_dict() == {"p_target": 0.1, "c_miss": 2.0, "c_fa": 1.0}
    assert type(app.p_target) is float and type(app.c_miss) is float


# -------------------------------------------------------------- correctness
def test_worked_example():
    app = Application(0.01, c_miss=10.0, c_fa=1.0)
    assert app.effective_prior == pytest.approx(0.1 / 1.09, rel=1e-15)
    assert app.threshold == pytest.approx(np.log(0.99 / 0.1), rel=1e-15)
    assert app.prior_log_odds == -app.threshold
    assert app.miss_weight == 0.01 * 10.0 and app.fa_weight == 0.99
    assert app.dcf(0.1, 0.05) == pytest.approx((0.01 + 0.99 * 0.05) / 0.1)
    assert app.dcf(0.1, 0.05, normalize=False) == pytest.approx(0.01 + 0.0495)
    np.testing.assert_allclose(
        app.dcf([0.0, 1.0], [1.0, 0.0]), [0.99 / 0.1, 1.0], rtol=1e-15
    )


def test_equal_costs_threshold_is_exactly_minus_logit():
    for p in (1e-300, 0.01, 0.5, 0.9):
        assert Application(p, c_miss=3.0, c_fa=3.0).threshold == -logit(p)


def test_extreme_applications_stay_finite():
    # the cost weights underflow or overflow; the effective prior comes from
    # the log-odds then
    app = Application(1e-320)
    assert 0 < app.effective_prior < 1e-300
    app = Application(0.5, c_miss=1e308, c_fa=1e-308)
    assert app.effective_prior == 1.0 and np.isfinite(app.threshold)
    app = Application(1e-300, c_miss=1e-300)
    assert app.miss_weight == 0.0
    assert app.effective_prior == pytest.approx(expit(app.prior_log_odds))
    assert app.dcf(0.5, 0.0) == 0.5  # the smaller weight is 1


def test_the_metrics_use_its_threshold_and_costs():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.3
    llr = rng.normal(size=300) + 2.0 * y
    app = Application(0.2, c_miss=2.0, c_fa=5.0)
    acc = llr >= app.threshold
    p_miss, p_fa = np.mean(~acc[y]), np.mean(acc[~y])
    assert actual_dcf(y, llr, **app.as_dict()) == pytest.approx(
        app.dcf(p_miss, p_fa), rel=1e-14
    )


# --------------------------------------------------------------- properties
@HYP
@given(st.floats(1e-6, 1 - 1e-6), st.floats(1e-3, 1e3), st.floats(1e-3, 1e3))
def test_effective_prior_and_threshold_agree(p, cm, cf):
    app = Application(p, cm, cf)
    assert app.effective_prior == pytest.approx(expit(-app.threshold), rel=1e-12)
    # -logit is ill-conditioned near 0 and 1: a few ulps of rounding in the
    # effective prior q move -logit(q) by up to eps / min(q, 1 - q) (1e-9 at
    # p_target = 1 - 1e-6, c_fa = 0.06, where the threshold itself is exact)
    q = app.effective_prior
    tol = 1e-9 + 2 * np.finfo(float).eps / min(q, 1 - q)
    assert app.threshold == pytest.approx(-logit(q), abs=tol)
