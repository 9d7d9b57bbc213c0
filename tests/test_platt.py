"""Tests of PlattCalibrator."""

import pickle

import numpy as np
import pytest
from _scores import make_scores
from _sklearn_checks import parametrize_with_checks
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit, logit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import ConvergenceWarning
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skcalib._platt import PlattCalibrator

#: unequal-variance Gaussian scores
SCORES = {
    "prior": 0.3,
    "loc": (-1.0, 1.0),
    "scale": (1.0, 1.5),
    "weight_range": (0.1, 3.0),
}


class _Scorer(ClassifierMixin, BaseEstimator):
    """A "classifier" whose decision_function is the raw score (column 0)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params",
    [
        {"smooth_targets": "yes"},
        {"prior": 1.0},
        {"prior": -0.1},
        {"tol": -1.0},
        {"max_iter": 0},
    ],
)
def test_bad_parameters(params):
    s, y, _ = make_scores(50, **SCORES)
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(params))}'"):
        PlattCalibrator(**params).fit(s, y)


def test_bad_input():
    with pytest.raises(ValueError, match="Input X contains infinity"):
        PlattCalibrator().fit([0.0, np.inf, 1.0], [0, 1, 1])
    with pytest.raises(ValueError, match="Negative values"):
        PlattCalibrator().fit([0.0, 1.0, 2.0], [0, 1, 1], sample_weight=[1, -1, 1])


# ---------------------------------------------------------- references
# the frozen scorer is never refitted, so the weights only reach the sigmoid
@pytest.mark.filterwarnings("ignore:Since FrozenEstimator does not appear")
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weights", [False, True])
def test_equals_sklearn_sigmoid_calibration(seed, weights):
    """CalibratedClassifierCV(method='sigmoid') on the same (frozen) scores."""
    s, y, w = make_scores(2000, seed=seed, weights=weights, **SCORES)
    cal = PlattCalibrator().fit(s, y, sample_weight=w)
    scorer = FrozenEstimator(_Scorer().fit(s[:, None], y))
    ref = CalibratedClassifierCV(scorer, method="sigmoid").fit(
        s[:, None], y, sample_weight=w
    )
    sig = ref.calibrated_classifiers_[0].calibrators[0]
    # scikit-learn: p = 1 / (1 + exp(A f + B)), i.e. a = -A, b = -B
    assert cal.coef_[0] == pytest.approx(-sig.a_, rel=1e-5, abs=1e-6)
    assert cal.intercept_[0] == pytest.approx(-sig.b_, rel=1e-5, abs=1e-6)
    t = np.linspace(-4, 4, 9)
    np.testing.assert_allclose(
        cal.transform(t), ref.predict_proba(t[:, None])[:, 1], atol=1e-6
    )


def test_smoothed_targets_against_direct_minimization():
    """An independent optimizer on Platt's objective, written out in full."""
    s, y, w = make_scores(500, seed=3, weights=True, **SCORES)
    n_pos, n_neg = w[y == 1].sum(), w[y == 0].sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def nll(theta):
        z = theta[0] * s + theta[1]
        return np.sum(w * (np.logaddexp(0, z) - t * z))

    ref = minimize(nll, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x
    cal = PlattCalibrator().fit(s, y, sample_weight=w)
    np.testing.assert_allclose([cal.coef_[0], cal.intercept_[0]], ref, atol=1e-6)


def test_hard_targets_equal_logistic_regression():
    s, y, _ = make_scores(1500, seed=4, **SCORES)
    cal = PlattCalibrator(smooth_targets=False).fit(s, y)
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(s[:, None], y)
    assert cal.coef_[0] == pytest.approx(lr.coef_[0, 0], abs=1e-6)
    assert cal.intercept_[0] == pytest.approx(lr.intercept_[0], abs=1e-6)


def test_smoothing_shrinks_towards_half():
    s, y, _ = make_scores(40, seed=5, **SCORES)
    soft = PlattCalibrator().fit(s, y)
    hard = PlattCalibrator(smooth_targets=False).fit(s, y)
    assert 0 < soft.coef_[0] < hard.coef_[0]


def test_large_n_warm_start_same_optimum(monkeypatch):
    from skcalib._kernel import _solver

    s, y, w = make_scores(300_000, seed=6, weights=True, **SCORES)
    warm = PlattCalibrator().fit(s, y, sample_weight=w)
    monkeypatch.setattr(_solver, "WARM_START_SIZE", 10**9)
    cold = PlattCalibrator().fit(s, y, sample_weight=w)
    assert warm._n_evals[0] < cold._n_evals[0]
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-9)
    np.testing.assert_allclose(warm.intercept_, cold.intercept_, rtol=1e-9)


# --------------------------------------------------------------- behaviour
def test_views_and_prior():
    s, y, _ = make_scores(600, seed=7, **SCORES)
    cal = PlattCalibrator().fit(s, y)
    z = cal.coef_[0] * s + cal.intercept_[0]
    np.testing.assert_allclose(cal.transform(s), expit(z))
    llr = cal.decision_function(s)
    np.testing.assert_allclose(llr, z - logit(cal.calibration_prior_))
    # prior=None: predict_proba equals transform
    np.testing.assert_allclose(cal.predict_proba(s)[:, 1], cal.transform(s))
    at = PlattCalibrator(prior=0.01).fit(s, y)
    np.testing.assert_allclose(at.predict_proba(s)[:, 1], expit(llr + logit(0.01)))
    np.testing.assert_array_equal(at.predict(s), (llr >= -logit(0.01)).astype(int))


def test_decision_function_does_not_saturate():
    s, y, _ = make_scores(600, seed=8, **SCORES)
    cal = PlattCalibrator().fit(s, y)
    far = np.array([1e3])
    assert cal.transform(far)[0] == 1.0
    llr = cal.decision_function(far)[0]
    assert np.isfinite(llr) and llr > 100


def test_columns_are_independent():
    s, y, _ = make_scores(500, seed=9, **SCORES)
    X = np.column_stack([s, -0.5 * s])
    cal = PlattCalibrator().fit(X, y)
    one = PlattCalibrator().fit(s, y)
    np.testing.assert_allclose(cal.coef_, [one.coef_[0], -2 * one.coef_[0]], rtol=1e-7)
    np.testing.assert_allclose(cal.transform(X)[:, 1], one.transform(s), atol=1e-9)


def test_weights_equal_repeated_rows():
    s, y, _ = make_scores(300, seed=10, **SCORES)
    w = np.random.default_rng(1).integers(0, 3, s.shape[0]).astype(float)
    a = PlattCalibrator().fit(s, y, sample_weight=w)
    rep = np.repeat(np.arange(s.shape[0]), w.astype(int))
    b = PlattCalibrator().fit(s[rep], y[rep])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-8, atol=1e-10)


def test_separable_hard_targets_warn_smoothed_do_not():
    s = np.r_[np.linspace(-2, -1, 10), np.linspace(1, 2, 10)]
    y = np.r_[np.zeros(10), np.ones(10)]
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        hard = PlattCalibrator(smooth_targets=False).fit(s, y)
    assert hard.transform([-1.0])[0] < 1e-100 and hard.transform([1.0])[0] > 1 - 1e-12
    assert hard.transform([0.0])[0] == pytest.approx(0.5)
    soft = PlattCalibrator().fit(s, y)  # Platt's targets keep it finite
    assert 0 < soft.coef_[0] < 50


@pytest.mark.parametrize("smooth_targets", [True, False])
def test_constant_scores_give_a_flat_map_at_the_prior(smooth_targets):
    s = np.full(20, 2.5)
    y = np.r_[np.zeros(15), np.ones(5)]
    with pytest.warns(UserWarning, match="carry no information"):
        cal = PlattCalibrator(smooth_targets=smooth_targets).fit(s, y)
    assert cal.coef_[0] == 0.0
    # the (smoothed) target proportion of the data, everywhere
    prior = (5 * 6 / 7 + 15 / 17) / 20 if smooth_targets else 0.25
    np.testing.assert_allclose(cal.transform([-1e3, 2.4, 2.5, 2.6, 1e3]), prior)


@pytest.mark.parametrize("units", [1e-300, 1e300])
def test_fit_does_not_depend_on_the_units_of_the_scores(units):
    """Scores times 1e+-300 once gave 0.408 everywhere (overflow in the fit)."""
    s, y, _ = make_scores(500, seed=14, **SCORES)
    base = PlattCalibrator().fit(s, y)
    cal = PlattCalibrator().fit(s * units, y)
    np.testing.assert_allclose(cal.transform(s * units), base.transform(s), rtol=1e-9)


def test_no_overflow_warning_near_the_float_maximum():
    s, y, _ = make_scores(300, seed=13, **SCORES)
    cal = PlattCalibrator().fit(s, y)
    x = np.array([-1.7e308, -1e308, 0.0, 1e308, 1.7e308])
    np.testing.assert_array_equal(
        cal.transform(x), [0.0, 0.0, cal.transform([0.0])[0], 1.0, 1.0]
    )
    llr = cal.decision_function(x)
    assert llr[0] == -np.inf and llr[-1] == np.inf


def test_pickle_and_clone():
    s, y, _ = make_scores(300, seed=11, **SCORES)
    cal = PlattCalibrator(prior=0.2).fit(s, y)
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.predict_proba(s), cal.predict_proba(s))
    fresh = clone(cal)
    assert fresh.get_params() == cal.get_params() and not hasattr(fresh, "coef_")


ONE_COLUMN = "predict needs one column of scores; the check's X has two"


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [PlattCalibrator(), PlattCalibrator(smooth_targets=False, prior=0.3)],
    expected_failed_checks=lambda est: {
        "check_fit1d": "1-D X is accepted: a vector of scores is the natural input",
        # a classifier of one column of scores: the classifier checks' X has two
        "check_classifier_data_not_an_array": ONE_COLUMN,
        "check_classifiers_classes": ONE_COLUMN,
        "check_classifiers_train": ONE_COLUMN,
        "check_supervised_y_2d": ONE_COLUMN,
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------- properties
@settings(derandomize=True, database=None, deadline=None, max_examples=15)
@given(scale=st.floats(0.01, 100.0), shift=st.floats(-50.0, 50.0))
def test_equivariant_under_affine_score_changes(scale, shift):
    s, y, _ = make_scores(400, seed=12, **SCORES)
    base = PlattCalibrator().fit(s, y).transform(s)
    moved = PlattCalibrator().fit(s * scale + shift, y)
    np.testing.assert_allclose(moved.transform(s * scale + shift), base, atol=1e-7)


@settings(derandomize=True, database=None, deadline=None, max_examples=30)
@given(k=st.integers(-300, 300), j=st.integers(-100, 100))
def test_invariant_under_score_units_and_weight_scale(k, j):
    """Scores times 10^k: the same probabilities. Weights times 10^j: the same
    fit with hard targets (Platt's smoothed targets count samples, so they
    depend on the total weight by design)."""
    s, y, w = make_scores(400, seed=15, weights=True, **SCORES)
    units = 10.0**k
    base = PlattCalibrator().fit(s, y, sample_weight=w)
    cal = PlattCalibrator().fit(s * units, y, sample_weight=w)
    np.testing.assert_allclose(
        cal.transform(s * units), base.transform(s), rtol=1e-9, atol=1e-12
    )
    hard = PlattCalibrator(smooth_targets=False).fit(s, y, sample_weight=w)
    scaled = PlattCalibrator(smooth_targets=False).fit(
        s * units, y, sample_weight=w * 10.0**j
    )
    np.testing.assert_allclose(
        scaled.transform(s * units), hard.transform(s), rtol=1e-9, atol=1e-12
    )
