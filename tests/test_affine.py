"""Tests of ProperScoringAffineCalibrator and the shared Newton solver."""

import pickle
import warnings

import numpy as np
import pytest
from _scores import make_scores
from _sklearn_checks import parametrize_with_checks
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skcalib._affine import ProperScoringAffineCalibrator
from skcalib._kernel import _solver
from skcalib._kernel._special import prior_weighted_objective

RULES = [(1.0, 1.0), (2.0, 2.0), (2.0, 1.0), (0.5, 0.5), (0.7, 1.3), (3.0, 0.5)]


#: unequal-variance Gaussian scores: no affine map is right everywhere
SCORES = {
    "prior": 0.25,
    "loc": (0.0, 2.0),
    "scale": (1.0, 1.6),
    "weight_range": (0.1, 3.0),
    "labels": bool,
}


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.0},
        {"alpha": -1.0},
        {"beta": 0.0},
        {"alpha": "two"},
        {"p_target": 0.0},
        {"p_target": 1.0},
        {"p_target": 1.5},
        {"p_target": None},
        {"prior": 0.0},
        {"prior": 1.5},
        {"l2": -1.0},
        {"tol": 0.0},
        {"max_iter": 0},
    ],
)
def test_bad_parameters(params):
    s, y, _ = make_scores(50, **SCORES)
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(params))}'"):
        ProperScoringAffineCalibrator(**params).fit(s, y)
    assert issubclass(InvalidParameterError, ValueError)


def test_bad_input():
    with pytest.raises(ValueError, match="Input X contains NaN"):
        ProperScoringAffineCalibrator().fit([0.0, np.nan, 1.0], [0, 1, 1])
    with pytest.raises(ValueError, match="got 1 class"):
        ProperScoringAffineCalibrator().fit([0.0, 1.0], [1, 1])


# ---------------------------------------------------------- references
@pytest.mark.parametrize("prior", [0.5, 0.1, 0.003])
@pytest.mark.parametrize("weights", [False, True])
def test_logistic_rule_equals_sklearn_logistic_regression(prior, weights):
    """(1,1): prior-weighted LR, class weights prior/N_tar, (1-prior)/N_non."""
    s, y, w = make_scores(3000, seed=1, weights=weights, **SCORES)
    cal = ProperScoringAffineCalibrator(p_target=prior, l2=0).fit(s, y, sample_weight=w)
    ww = np.ones_like(s) if w is None else w
    n_tar, n_non = ww[y].sum(), ww[~y].sum()
    lr = LogisticRegression(
        C=np.inf,
        tol=1e-12,
        max_iter=10_000,
        class_weight={True: prior / n_tar, False: (1 - prior) / n_non},
    ).fit(s[:, None], y, sample_weight=w)
    assert cal.coef_[0] == pytest.approx(lr.coef_[0, 0], abs=1e-6)
    assert cal.intercept_[0] == pytest.approx(lr.intercept_[0] - logit(prior), abs=1e-6)


@pytest.mark.parametrize(
    "rule, prior",
    [(rule, prior) for rule in RULES for prior in (0.5, 0.05)][:-1],  # see below
)
def test_optimum_beats_dense_grid(rule, prior):
    """The fitted (A, B) is no worse than any point of a dense grid around it."""
    s, y, _ = make_scores(1500, seed=2, **SCORES)
    a, b = rule
    cal = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=prior, l2=0)
    cal.fit(s, y)
    A, B = cal.coef_[0], cal.intercept_[0]

    def obj(A_, B_):
        return prior_weighted_objective(A_ * s + B_, y, alpha=a, beta=b, prior=prior)

    best = obj(A, B)
    for dA in np.linspace(-0.3, 0.3, 25):
        for dB in np.linspace(-0.6, 0.6, 25):
            assert best <= obj(A + dA * max(abs(A), 0.1), B + dB) + 1e-13


@pytest.mark.parametrize("rule", RULES)
def test_gradient_vanishes_at_optimum(rule):
    s, y, w = make_scores(1000, seed=3, weights=True, **SCORES)
    a, b = rule
    cal = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.2, l2=0).fit(
        s, y, sample_weight=w
    )
    A, B = cal.coef_[0], cal.intercept_[0]
    h = 1e-6

    def obj(A_, B_):
        return prior_weighted_objective(A_ * s + B_, y, w, alpha=a, beta=b, prior=0.2)

    gA = (obj(A + h, B) - obj(A - h, B)) / (2 * h)
    gB = (obj(A, B + h) - obj(A, B - h)) / (2 * h)
    assert abs(gA) < 1e-7 and abs(gB) < 1e-7


def test_brier_differs_from_logistic_and_favours_high_thresholds():
    """003: alpha = 2 moves the fit towards the high-threshold region."""
    s, y, _ = make_scores(20000, seed=4, **SCORES)
    tau = logit(0.01)
    log = ProperScoringAffineCalibrator(alpha=1, beta=1, p_target=0.01).fit(s, y)
    bri = ProperScoringAffineCalibrator(alpha=2, beta=2, p_target=0.01).fit(s, y)
    assert abs(log.coef_[0] - bri.coef_[0]) > 0.05

    # the true LLR of the simulation at the operating point -tau
    def true_llr(x):
        from scipy.stats import norm

        return norm.logpdf(x, 2.0, 1.6) - norm.logpdf(x, 0.0, 1.0)

    x_op = s[np.argmin(np.abs(bri.transform(s) + tau))]
    err_bri = abs(bri.transform([x_op])[0] - true_llr(x_op))
    err_log = abs(log.transform([x_op])[0] - true_llr(x_op))
    assert err_bri < err_log


def test_large_n_uses_warm_start_and_matches_cold_start(monkeypatch):
    s, y, w = make_scores(300_000, seed=5, weights=True, **SCORES)
    warm = ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.1).fit(
        s, y, sample_weight=w
    )
    assert warm._n_evals[0] <= 6
    assert 0 < warm._n_sub_evals[0] and warm._n_evals[0] + warm._n_sub_evals[0] < 50
    monkeypatch.setattr(_solver, "WARM_START_SIZE", 10**9)
    cold = ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.1).fit(
        s, y, sample_weight=w
    )
    assert cold._n_evals[0] > warm._n_evals[0]
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-9)
    np.testing.assert_allclose(warm.intercept_, cold.intercept_, rtol=1e-9, atol=1e-9)


# --------------------------------------------------------------- behaviour
def test_transform_predict_proba_and_columns():
    s, y, _ = make_scores(800, seed=6, **SCORES)
    X = np.column_stack([s, 2.0 * s + 1.0])
    cal = ProperScoringAffineCalibrator(alpha=2, beta=2, p_target=0.2).fit(X, y)
    assert cal.coef_.shape == (2,) and cal.intercept_.shape == (2,)
    # the second column is an affine image of the first: same calibrated LLR
    out = cal.transform(X)
    np.testing.assert_allclose(out[:, 0], out[:, 1], rtol=1e-7, atol=1e-7)
    single = ProperScoringAffineCalibrator(
        alpha=2, beta=2, p_target=0.2, prior=0.2
    ).fit(s, y)
    np.testing.assert_allclose(single.transform(s), out[:, 0], rtol=1e-10)
    llr = single.decision_function(s)
    np.testing.assert_allclose(llr, single.coef_[0] * s + single.intercept_[0])
    proba = single.predict_proba(s)
    np.testing.assert_allclose(proba[:, 1], expit(llr + logit(0.2)))
    np.testing.assert_array_equal(single.predict(s), llr >= -logit(0.2))
    with pytest.raises(ValueError, match="exactly one column"):
        cal.decision_function(X)


def test_weights_equal_repeated_rows():
    s, y, _ = make_scores(400, seed=7, **SCORES)
    rng = np.random.default_rng(0)
    w = rng.integers(0, 4, s.shape[0]).astype(float)
    a = ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.3).fit(
        s, y, sample_weight=w
    )
    rep = np.repeat(np.arange(s.shape[0]), w.astype(int))
    b = ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.3).fit(s[rep], y[rep])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-8, atol=1e-9)


def test_separable_bounded_rule_warns_and_l2_fixes_it():
    s = np.r_[np.linspace(-3, -1, 50), np.linspace(1, 3, 50)]
    y = np.r_[np.zeros(50), np.ones(50)]
    with pytest.warns(ConvergenceWarning, match="no finite minimizer|did not converge"):
        cal = ProperScoringAffineCalibrator(alpha=2, beta=2, l2=0).fit(s, y)
    assert abs(cal.coef_[0]) * np.ptp(s) > 1000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = ProperScoringAffineCalibrator(alpha=2, beta=2, l2=0.01).fit(s, y)
    assert 0 < reg.coef_[0] < 100


def _separable(n=12, seed=0):
    """A small calibration set whose classes a threshold separates."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3 == 0
    s = np.where(y, rng.uniform(0.5, 2.0, n), rng.uniform(-2.0, 0.2, n))
    return s, y


def test_default_gives_posteriors_strictly_inside_0_1_on_separable_data():
    s, y = _separable()
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        exact = ProperScoringAffineCalibrator(l2=0).fit(s, y)
    p = exact.predict_proba(s)[:, 1]
    assert p.min() == 0.0 and p.max() == 1.0  # what the default avoids
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = ProperScoringAffineCalibrator().fit(s, y)
    assert cal.l2 == _solver.DEFAULT_L2 > 0
    assert np.isfinite(cal.coef_).all() and 0 < cal.coef_[0] < 100
    llr = cal.decision_function(s)
    assert np.isfinite(llr).all() and np.abs(llr).max() < 50
    p = cal.predict_proba(s)[:, 1]
    assert 0.0 < p.min() and p.max() < 1.0
    # it still separates the classes on its own training scores
    assert llr[y].min() > 0 > llr[~y].max()


@pytest.mark.parametrize("rule", [(1.0, 1.0), (2.0, 2.0), (2.0, 1.0)])
def test_penalty_is_on_the_slope_per_standard_deviation(rule):
    """The penalized objective, computed independently (numpy's weighted
    standard deviation under the objective's class weighting), is stationary
    at the fit."""
    s, y, w = make_scores(500, seed=14, weights=True, **SCORES)
    a, b, l2, p_target = *rule, 1e-2, 0.3
    cal = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=p_target, l2=l2)
    cal.fit(s * 1e3, y, sample_weight=w)
    A, B = cal.coef_[0], cal.intercept_[0]
    v = w * np.where(y, p_target / w[y].sum(), (1 - p_target) / w[~y].sum())
    x = s * 1e3
    sigma2 = np.average((x - np.average(x, weights=v)) ** 2, weights=v)
    rule = {"alpha": a, "beta": b, "prior": p_target}
    # on the normalized objective: relative to that of the uninformative l = 0
    c0 = prior_weighted_objective(np.zeros_like(x), y, w, **rule)

    def obj(A_, B_):
        loss = prior_weighted_objective(A_ * x + B_, y, w, **rule)
        return loss + l2 * c0 * A_**2 * sigma2

    hA, hB = 1e-6 * abs(A), 1e-6
    gA = (obj(A + hA, B) - obj(A - hA, B)) / (2 * hA) * abs(A)
    gB = (obj(A, B + hB) - obj(A, B - hB)) / (2 * hB)
    assert abs(gA) < 1e-7 and abs(gB) < 1e-7
    # and it is a penalty: the slope shrinks
    exact = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=p_target, l2=0)
    assert abs(A) < abs(exact.fit(x, y, sample_weight=w).coef_[0])


@pytest.mark.parametrize("rule", [(1.0, 1.0), (2.0, 2.0)])
def test_default_penalty_weighs_the_same_at_an_extreme_p_target(rule):
    """The mean loss at p_target 1e-3 is a hundred times smaller than at 1/2;
    a penalty on it, not on the normalized objective, swamped the fit."""
    s, y, _ = make_scores(20000, seed=16, **SCORES)
    a, b = rule
    params = {"alpha": a, "beta": b, "p_target": 1e-3}
    exact = ProperScoringAffineCalibrator(l2=0, **params).fit(s, y)
    cal = ProperScoringAffineCalibrator(**params).fit(s, y)
    # within 0.3 % of the exact slope, well inside its sampling error at this
    # prior; the same lambda on the mean loss was 2 % (logarithmic) and 26 %
    # (Brier) off
    np.testing.assert_allclose(cal.coef_, exact.coef_, rtol=1e-2)


@pytest.mark.parametrize("units", [1e-300, 1e-3, 7.0, 1e300])
def test_default_penalty_does_not_depend_on_the_units_of_the_scores(units):
    """Where the penalty matters most (separable data), scores times any
    constant, shifted or not, give the same posteriors."""
    s, y = _separable(seed=3)
    base = ProperScoringAffineCalibrator().fit(s, y).predict_proba(s)
    for shift in (0.0, 5.0 * units):
        x = s * units + shift
        got = ProperScoringAffineCalibrator().fit(x, y).predict_proba(x)
        np.testing.assert_allclose(got, base, rtol=1e-8, atol=1e-12)


def test_default_penalty_is_negligible_on_a_large_set():
    s, y, _ = make_scores(20000, seed=15, **SCORES)
    exact = ProperScoringAffineCalibrator(l2=0).fit(s, y)
    cal = ProperScoringAffineCalibrator().fit(s, y)
    # 0.03 % of the slope: far below its sampling error (about 1 % here)
    np.testing.assert_allclose(cal.coef_, exact.coef_, rtol=1e-3)
    np.testing.assert_allclose(
        cal.transform(s), exact.transform(s), rtol=1e-3, atol=1e-3
    )


def test_rule_without_finite_minimizer_on_these_data_warns():
    """(3, 1/2) at prior 0.05: a step above every non-target costs less than any
    finite slope (bounded target cost, unbounded non-target cost)."""
    s, y, _ = make_scores(1500, seed=4, **SCORES)
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        cal = ProperScoringAffineCalibrator(alpha=3, beta=0.5, p_target=0.05, l2=0).fit(
            s, y
        )
    A, B = cal.coef_[0], cal.intercept_[0]
    # the objective really keeps falling along the ray the solver followed
    f = [
        prior_weighted_objective(t * (A * s + B), y, alpha=3, beta=0.5, prior=0.05)
        for t in (0.01, 0.1, 1.0)
    ]
    assert f[0] > f[1] > f[2]


def test_max_iter_warns():
    s, y, _ = make_scores(500, seed=8, **SCORES)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        ProperScoringAffineCalibrator(max_iter=1).fit(s, y)


@pytest.mark.parametrize("value", [0.0, 3.7, -1e300])
def test_constant_scores_give_a_flat_map_with_a_warning(value):
    s = np.full(20, value)
    y = np.r_[np.zeros(15), np.ones(5)]
    with pytest.warns(UserWarning, match="carry no information"):
        cal = ProperScoringAffineCalibrator().fit(s, y)
    # nothing to learn: the LLR is 0 (prior-weighted objective at its minimum)
    assert cal.coef_[0] == 0.0
    np.testing.assert_allclose(cal.transform([-1e3, value, 1e3]), 0.0, atol=1e-8)


def test_pickle_and_clone():
    s, y, _ = make_scores(300, seed=9, **SCORES)
    cal = ProperScoringAffineCalibrator(alpha=0.7, beta=1.3, p_target=0.2, l2=0.1).fit(
        s, y
    )
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.transform(s), cal.transform(s))
    fresh = clone(cal)
    assert fresh.get_params() == cal.get_params() and not hasattr(fresh, "coef_")


# Several common checks fit perfectly separable columns, where the objective
# has no finite minimizer: the ConvergenceWarning is the specified behaviour.
# The non-convex Brier rule runs off to infinity on the checks' tiny random
# data sets (a different ray for reweighted data), so it is checked with a
# small L2 penalty, which makes every problem well-posed.
ONE_COLUMN = "predict needs one column of scores; the check's X has two"


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        ProperScoringAffineCalibrator(),
        ProperScoringAffineCalibrator(l2=0),
        ProperScoringAffineCalibrator(alpha=2, beta=2, p_target=0.1, l2=0.01),
        ProperScoringAffineCalibrator(alpha=0.5, beta=0.5),
    ],
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
@given(
    scale=st.floats(0.01, 100.0),
    shift=st.floats(-50.0, 50.0),
    rule=st.sampled_from(RULES[:4]),
)
def test_equivariant_under_affine_score_changes(scale, shift, rule):
    """Calibrated LLRs do not depend on the units of the raw scores."""
    s, y, _ = make_scores(600, seed=10, **SCORES)
    a, b = rule
    base = (
        ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.3)
        .fit(s, y)
        .transform(s)
    )
    moved = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.3).fit(
        s * scale + shift, y
    )
    np.testing.assert_allclose(moved.transform(s * scale + shift), base, atol=1e-6)


@pytest.mark.parametrize("units", [1e-300, 1e-150, 1e150, 1e300])
@pytest.mark.parametrize("rule", [(1.0, 1.0), (2.0, 2.0)])
def test_fit_does_not_depend_on_the_units_of_the_scores(units, rule):
    """Scores times 1e+-300 once gave a constant output (overflow in the fit)."""
    s, y, _ = make_scores(600, seed=11, **SCORES)
    a, b = rule
    base = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.3).fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.3).fit(
            s * units, y
        )
        out = cal.transform(s * units)
    np.testing.assert_allclose(out, base.transform(s), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(cal.coef_ * units, base.coef_, rtol=1e-9)


def test_no_overflow_warning_near_the_float_maximum():
    s, y, _ = make_scores(300, seed=12, **SCORES)
    cal = ProperScoringAffineCalibrator().fit(s * 1e300, y)
    x = np.array([-1.7e308, 0.0, 1.7e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llr = ProperScoringAffineCalibrator().fit(s, y).transform(x)
        assert llr[0] == -np.inf and llr[2] == np.inf
        big = cal.transform(x)
    assert np.all(np.isfinite(big)) and big[0] < big[1] < big[2]


@settings(derandomize=True, database=None, deadline=None, max_examples=30)
@given(
    k=st.integers(-300, 300),
    j=st.integers(-100, 100),
    rule=st.sampled_from(RULES[:4]),
)
def test_invariant_under_score_units_and_weight_scale(k, j, rule):
    """Scores times 10^k: the map follows the units (same calibrated LLRs);
    all weights times 10^j: the same fit."""
    s, y, w = make_scores(400, seed=13, weights=True, **SCORES)
    a, b = rule
    base = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.3).fit(
        s, y, sample_weight=w
    )
    units = 10.0**k
    cal = ProperScoringAffineCalibrator(alpha=a, beta=b, p_target=0.3).fit(
        s * units, y, sample_weight=w * 10.0**j
    )
    np.testing.assert_allclose(
        cal.transform(s * units), base.transform(s), rtol=1e-9, atol=1e-9
    )


def test_p_target_tunes_the_objective_prior_only_the_posteriors():
    """``p_target`` changes the LLRs; ``prior`` only turns them into posteriors."""
    rng = np.random.default_rng(3)
    y = rng.random(2000) < 0.2
    s = rng.normal(2.0 * y, 1.0 + y)
    tuned = ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.05).fit(s, y)
    default = ProperScoringAffineCalibrator(alpha=2, beta=1).fit(s, y)
    assert not np.allclose(tuned.transform(s), default.transform(s))
    # prior=None: the calibration set's weighted target proportion
    assert default.prior_ == pytest.approx(y.mean())
    at = ProperScoringAffineCalibrator(alpha=2, beta=1, prior=0.3).fit(s, y)
    np.testing.assert_array_equal(at.transform(s), default.transform(s))
    expected = 1.0 / (1.0 + np.exp(-(default.transform(s) + logit(0.3))))
    np.testing.assert_allclose(at.predict_proba(s)[:, 1], expected, rtol=1e-12)


def test_constructor_is_keyword_only():
    with pytest.raises(TypeError):
        ProperScoringAffineCalibrator(2, 2)
