"""Tests of BetaCalibrator (Kull, Silva Filho and Flach's beta calibration)."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skcalib import BetaCalibrator
from skcalib._beta import MAX_LOG_ODDS

EPS = np.finfo(np.float64).eps


def paper_shapes(kind, n, seed):
    """Probability scores of the shapes of [1]'s experiments.

    A data set of its own, not the suite's factory (``tests/_scores.py``):
    ``BETACAL_ABM`` and ``BETACAL_LOSS`` were recorded with betacal on these
    exact draws.
    """
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    if kind == "beta":  # Beta-distributed classes: the model is exact
        p = np.where(y, rng.beta(4, 2, n), rng.beta(2, 4, n))
    elif kind == "nb":  # overconfident (naive Bayes like)
        p = expit(6 * rng.normal(np.where(y, 1.0, -0.5), 1.0))
    elif kind == "rf":  # multiples of 1/100 with exact 0 and 1 (a forest)
        p = np.round(np.clip(rng.normal(np.where(y, 0.8, 0.2), 0.3), 0, 1), 2)
    elif kind == "inv":  # underconfident
        p = expit(0.3 * rng.normal(np.where(y, 1.0, -1.0), 1.0))
    return p, y


def _mixed(n, seed):
    """Targets at both ends: the free optimum has ``a < 0`` (a face is used)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return np.where(y, rng.beta(0.7, 0.5, n), rng.beta(2, 3, n)), y


def _features(p):
    p = np.clip(p, EPS, 1 - EPS)
    return np.column_stack([np.log(p), -np.log1p(-p)])


def _log_loss(a, b, c, p, y, w=None):
    """Mean log loss of the posterior log-odds ``a ln p - b ln(1-p) + c``."""
    z = _features(p) @ np.array([a, b]) + c
    loss = np.where(y, np.logaddexp(0, -z), np.logaddexp(0, z))
    return float(np.average(loss, weights=w))


def _objective(theta, p, y, *, p_target, l2, rule="log"):
    """Prior-weighted objective written out independently (``theta`` = a, b, c).

    ``rule='log'``: logarithmic; ``'brier'``: the Beta(2, 2) rule, whose
    costs are ``3 (1 - q)^2`` and ``3 q^2``.
    """
    a, b, c = theta
    x = _features(p) @ np.array([a, b]) + c + logit(p_target)
    if rule == "log":
        c_tar, c_non = np.logaddexp(0, -x), np.logaddexp(0, x)
    else:
        c_tar, c_non = 3 * expit(-x) ** 2, 3 * expit(x) ** 2
    value = p_target * c_tar[y].mean() + (1 - p_target) * c_non[~y].mean()
    return value + l2 * (a * a + b * b)


def _bounded_minimum(p, y, **kwargs):
    """The constrained optimum by scipy's L-BFGS-B with bounds a, b >= 0."""
    best = None
    for start in ([1.0, 1.0, 0.0], [0.1, 3.0, -1.0], [3.0, 0.1, 1.0]):
        res = minimize(
            lambda theta: _objective(theta, p, y, **kwargs),
            start,
            method="L-BFGS-B",
            bounds=[(0, None), (0, None), (None, None)],
            options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 10000},
        )
        if best is None or res.fun < best.fun:
            best = res
    return best


def _fitted_theta(cal):
    return (*cal.coef_[0], cal.intercept_[0])


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.0},
        {"beta": -1.0},
        {"p_target": 1.0},
        {"l2": -1e-3},
        {"prior": 1.5},
        {"input_scale": "logit"},
        {"max_iter": 0},
    ],
)
def test_invalid_params(params):
    with pytest.raises(InvalidParameterError):
        BetaCalibrator(**params).fit([0.1, 0.9], [0, 1])


def test_probability_out_of_range():
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\].*1\.5"):
        BetaCalibrator(input_scale="probability").fit([0.1, 1.5, 0.3], [0, 1, 1])
    cal = BetaCalibrator(input_scale="probability").fit([0.1, 0.9, 0.3], [0, 1, 1])
    with pytest.raises(ValueError, match=r"got values in \[-0\.2"):
        cal.transform([-0.2, 0.5])


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([0.1, np.nan], [0, 1], "Input X contains NaN"),
        ([0.1, 0.2], [1, 1], "one class|1 class|only one"),
        ([0.1, 0.2, 0.3], [0, 1], "inconsistent numbers of samples"),
    ],
)
def test_bad_data(X, y, match):
    with pytest.raises(ValueError, match=match):
        BetaCalibrator().fit(X, y)


def test_negative_weights():
    with pytest.raises(ValueError, match="[Nn]egative"):
        BetaCalibrator().fit([0.1, 0.2, 0.3], [0, 1, 1], sample_weight=[1, -1, 1])


# ---------------------------------------------------- against the references
# betacal 1.1.0, ``BetaCalibration("abm").fit(p, y)`` on ``paper_shapes(kind, 400, 7)``
# and ``_mixed(400, seed)``: its (a, b, c) and mean log loss (recorded in a
# separate environment: the tests do not need betacal).
BETACAL_ABM = {
    ("beta", 7): (1.155200404432651, 3.4494380816108516, -2.6293369563899236),
    ("nb", 7): (0.3117131269063316, 0.2760739178681291, -1.1177142169943366),
    ("rf", 7): (1.6152191921140269, 1.423957480212593, -0.5894948807613337),
    ("inv", 7): (7.916358038154117, 7.523018079966875, -0.49605571986298164),
    ("mixed", 0): (0.0, 1.1875886391903743, -1.6732083585682225),
    ("mixed", 1): (0.0, 1.144579844628885, -1.4037773304351515),
}
BETACAL_LOSS = {
    ("beta", 7): 0.31081011359647676,
    ("nb", 7): 0.3945116729006547,
    ("rf", 7): 0.2865614269581687,
    ("inv", 7): 0.2864529908568855,
    ("mixed", 0): 0.5448230651098163,
    ("mixed", 1): 0.5578643656572138,
}


def _case(key):
    kind, seed = key
    return _mixed(400, seed) if kind == "mixed" else paper_shapes(kind, 400, seed)


def _abm(p, y, **params):
    """skcalib's fit of betacal's 'abm' objective (the plain mean log loss)."""
    params = {"input_scale": "probability", "l2": 0.0, "p_target": y.mean(), **params}
    cal = BetaCalibrator(**params).fit(p, y)
    a, b, c = _fitted_theta(cal)
    return cal, (a, b, c + logit(y.mean()))


@pytest.mark.parametrize("key", sorted(BETACAL_ABM))
def test_betacal_recorded_objective_no_worse(key):
    p, y = _case(key)
    # the recorded parameters reproduce the recorded loss (same data)
    assert _log_loss(*BETACAL_ABM[key], p, y) == pytest.approx(BETACAL_LOSS[key])
    cal, theta = _abm(p, y)
    assert _log_loss(*theta, p, y) <= BETACAL_LOSS[key] + 1e-6
    assert (cal.coef_ >= 0).all()
    if key[0] == "mixed":  # betacal dropped ln p; so do we
        assert cal.coef_[0, 0] == 0.0


def test_betacal_live():
    betacal = pytest.importorskip("betacal")
    for key in sorted(BETACAL_ABM):
        p, y = _case(key)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = betacal.BetaCalibration("abm").fit(p, y).calibrator_
        a, b, _ = ref.map_
        ref_loss = _log_loss(a, b, ref.lr_.intercept_[0], p, y)
        _, theta = _abm(p, y)
        assert _log_loss(*theta, p, y) <= ref_loss + 1e-6


@pytest.mark.parametrize("key", sorted(BETACAL_ABM))
@pytest.mark.parametrize(
    "params",
    [
        {"p_target": 0.5, "l2": 0.0},
        {"p_target": 0.2, "l2": 1e-2},
        {"p_target": 0.5, "l2": 1e-3, "rule": "brier"},
    ],
)
def test_bounded_optimum(key, params):
    """Equal (or better) objective than L-BFGS-B with bounds on the same one."""
    p, y = _case(key)
    rule = params.get("rule", "log")
    ab = (2.0, 2.0) if rule == "brier" else (1.0, 1.0)
    cal = BetaCalibrator(
        alpha=ab[0],
        beta=ab[1],
        p_target=params["p_target"],
        l2=params["l2"],
        input_scale="probability",
    ).fit(p, y)
    kwargs = {"p_target": params["p_target"], "l2": params["l2"], "rule": rule}
    ref = _bounded_minimum(p, y, **kwargs)
    ours = _objective(_fitted_theta(cal), p, y, **kwargs)
    assert ours <= ref.fun + 1e-9
    if rule == "log":  # strictly convex with a unique optimum
        np.testing.assert_allclose(_fitted_theta(cal), ref.x, atol=2e-3)


def test_logistic_regression_when_unconstrained():
    """Both weights positive: plain logistic regression on the two features."""
    p, y = paper_shapes("beta", 3000, 0)
    X = _features(p)
    for l2 in (0.0, 0.01):
        cal, (a, b, c) = _abm(p, y, l2=l2)
        assert (cal.coef_ > 0).all()
        # mean loss + l2 |w|^2  <=>  C sum loss + |w|^2 / 2 with C = 1/(2 n l2)
        lr = LogisticRegression(
            C=1.0 / (2 * len(y) * l2) if l2 else np.inf,
            tol=1e-12,
            max_iter=10000,
        ).fit(X, y)
        np.testing.assert_allclose([a, b], lr.coef_[0], rtol=1e-6)
        np.testing.assert_allclose(c, lr.intercept_[0], rtol=1e-6)


def test_beta_classes_recovered():
    """Beta(4, 2) against Beta(2, 4): the true LLR is 2 ln p - 2 ln(1 - p)."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(20000), np.zeros(20000)]
    p = np.where(y == 1, rng.beta(4, 2, 40000), rng.beta(2, 4, 40000))
    cal = BetaCalibrator(input_scale="probability", l2=0).fit(p, y)
    np.testing.assert_allclose(cal.coef_[0], [2, 2], atol=0.05)
    assert abs(cal.intercept_[0]) < 0.05


# ------------------------------------------------------------------ behaviour
def test_views():
    p, y = paper_shapes("nb", 500, 3)
    cal = BetaCalibrator(prior=0.1).fit(logit(p), y)
    s = logit(np.linspace(0.01, 0.99, 11))
    llr = cal.decision_function(s)
    np.testing.assert_array_equal(cal.transform(s), llr)
    expected = (
        cal.coef_[0, 0] * np.log(expit(s))
        - cal.coef_[0, 1] * np.log(expit(-s))
        + cal.intercept_[0]
    )
    np.testing.assert_allclose(llr, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(s)[:, 1], expit(llr + logit(0.1)))
    np.testing.assert_array_equal(cal.predict(s), (llr >= -logit(0.1)).astype(int))


def test_input_scales_agree():
    p, y = paper_shapes("rf", 500, 2)
    p = np.clip(p, 1e-3, 1 - 1e-3)
    on_p = BetaCalibrator(input_scale="probability").fit(p, y)
    on_s = BetaCalibrator().fit(logit(p), y)
    np.testing.assert_allclose(on_p.coef_, on_s.coef_, rtol=1e-7)
    np.testing.assert_allclose(on_p.intercept_, on_s.intercept_, rtol=1e-7)
    np.testing.assert_allclose(
        on_p.decision_function(p), on_s.decision_function(logit(p)), rtol=1e-7
    )


def test_saturated_scores_without_warnings():
    """Probabilities of exactly 0 and 1 (and log-odds of +/-708) are clipped to
    the resolution of a float64 probability, without numpy warnings."""
    p, y = paper_shapes("rf", 500, 5)
    assert ((p == 0) | (p == 1)).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        on_p = BetaCalibrator(input_scale="probability").fit(p, y)
        s = np.log(np.maximum(p, 1e-308)) - np.log(np.maximum(1 - p, 1e-308))
        on_s = BetaCalibrator().fit(s, y)  # what a predict_proba floor gives
        llr = on_s.decision_function([-1e300, -708.4, 708.4, 1e300])
    np.testing.assert_allclose(on_p.coef_, on_s.coef_, rtol=1e-7)
    assert np.isfinite(llr).all()
    edge = on_s.decision_function([-MAX_LOG_ODDS, MAX_LOG_ODDS])
    np.testing.assert_array_equal(llr, np.repeat(edge, 2))
    np.testing.assert_allclose(
        on_p.decision_function([0.0, 1.0]), on_p.decision_function([EPS, 1 - EPS])
    )
    assert MAX_LOG_ODDS == pytest.approx(logit(1 - EPS))


def test_sample_weight_is_repetition():
    p, y = paper_shapes("nb", 300, 4)
    w = np.random.default_rng(1).integers(0, 4, p.shape[0])
    weighted = BetaCalibrator().fit(logit(p), y, sample_weight=w)
    repeated = BetaCalibrator().fit(np.repeat(logit(p), w), np.repeat(y, w))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-7)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-7)


def test_columns_are_independent():
    (p1, y), (p2, _) = paper_shapes("nb", 400, 1), paper_shapes("inv", 400, 1)
    both = BetaCalibrator().fit(logit(np.c_[p1, p2]), y)
    for j, p in enumerate((p1, p2)):
        one = BetaCalibrator().fit(logit(p), y)
        np.testing.assert_allclose(both.coef_[j], one.coef_[0], rtol=1e-10)
        np.testing.assert_allclose(
            both.transform(logit(np.c_[p1, p2]))[:, j], one.transform(logit(p))
        )


def test_pickle_clone_set_output():
    pd = pytest.importorskip("pandas")
    p, y = paper_shapes("nb", 300, 6)
    cal = BetaCalibrator(l2=0.01).fit(logit(p), y)
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.transform(logit(p)), cal.transform(logit(p)))
    assert clone(cal).get_params() == cal.get_params()
    assert not hasattr(clone(cal), "coef_")
    frame = pd.DataFrame({"score": logit(p)})
    out = BetaCalibrator().set_output(transform="pandas").fit(frame, y).transform(frame)
    assert list(out.columns) == ["score"]


def test_separable_default_is_finite():
    """The default penalty keeps a perfectly separated fit finite and quiet."""
    s = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = BetaCalibrator().fit(s, y)
    proba = cal.predict_proba(s)[:, 1]
    assert 0 < proba.min() and proba.max() < 1


# ----------------------------------------------------------------- properties
@settings(derandomize=True, database=None, deadline=None, max_examples=40)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(4, 60),
    p_target=st.floats(0.05, 0.95),
    scale=st.floats(0.1, 10.0),
)
def test_monotone_and_mirror_symmetric(seed, n, p_target, scale):
    """Non-decreasing output (a, b >= 0), and the mirror image: swapping the
    classes, ``s -> -s`` and ``p_target -> 1 - p_target`` swaps ``a`` and
    ``b`` and negates ``c``."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2 == 0
    rng.shuffle(y)
    s = rng.normal(scale * (y - 0.5), scale)
    cal = BetaCalibrator(p_target=p_target, l2=1e-2).fit(s, y)
    assert (cal.coef_ >= 0).all()
    grid = np.sort(np.r_[s, np.linspace(-50, 50, 101)])
    assert (np.diff(cal.decision_function(grid)) >= 0).all()
    mirror = BetaCalibrator(p_target=1 - p_target, l2=1e-2).fit(-s, ~y)
    np.testing.assert_allclose(mirror.coef_[0], cal.coef_[0, ::-1], atol=1e-6)
    np.testing.assert_allclose(mirror.intercept_, -cal.intercept_, atol=1e-6)


# ------------------------------------ probabilities read as log-odds (issue 33)
def test_probabilities_read_as_log_odds_are_warned_of():
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.4).astype(int)
    p = np.where(y == 1, rng.beta(4, 2, 200), rng.beta(2, 4, 200))
    with pytest.warns(UserWarning, match="input_scale='probability'") as w:
        BetaCalibrator().fit(p, y)
    assert w[0].filename == __file__
    with pytest.warns(UserWarning, match="`X` lies in"):  # any column
        BetaCalibrator().fit(np.c_[np.log(p / (1 - p)), p], y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BetaCalibrator(input_scale="probability").fit(p, y)
        BetaCalibrator().fit(np.log(p / (1 - p)), y)
        BetaCalibrator().fit(np.zeros(200), y)  # uninformative log-odds
