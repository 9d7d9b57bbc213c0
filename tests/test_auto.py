"""Tests of AutoCalibrator: stacking or selection by cross-validated log loss."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit, log_softmax, logit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from skcalib import (
    AutoCalibrator,
    BetaCalibrator,
    MulticlassAffineCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ProperScoringAffineCalibrator,
)
from skcalib._auto import (
    _ProbabilitySigmoid,
    normalize_one_vs_rest,
    outscored_somewhere,
)
from skcalib.utils._response import one_vs_rest_log_odds


def _binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    return rng.normal(1.5 * y, 1.0), y.astype(int)


def _multiclass(n=450, K=3, seed=0, scale=4.0):
    """Log-probabilities of an overconfident classifier."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    logits = scale * (np.eye(K)[y] + rng.normal(size=(n, K)))
    return log_softmax(logits, axis=1), y


def _folds(X, y, cv=5):
    """Round-robin folds of the distinct sorted score rows, by hand."""
    X = np.asarray(X, dtype=float).reshape(len(y), -1)
    n_splits = min(cv, min(len(np.unique(X[y == c], axis=0)) for c in np.unique(y)))
    fold = np.empty(len(y), dtype=int)
    for i, v in enumerate(np.unique(X, axis=0)):  # sorted lexicographically
        fold[(X == v).all(axis=1)] = i % n_splits
    return [
        (np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_splits)
    ]


def _binary_oof(cal, s, y, w=None):
    """Per-sample out-of-fold log loss, written out."""
    out = np.empty(len(y))
    for train, test in _folds(s, y):
        wt = None if w is None else w[train]
        fitted = clone(cal).fit(s[train], y[train], sample_weight=wt)
        p1 = fitted.predict_proba(s[test])[:, 1]
        out[test] = -np.log(np.where(y[test] == 1, p1, 1 - p1))
    return out


def _one_se_choice(oof, w=None):
    """Weighted mean losses and their argmin."""
    w = np.ones(oof.shape[1]) if w is None else w
    means = oof @ w / w.sum()
    return means, int(np.argmin(means))


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "candidates, match",
    [
        ([PlattCalibrator()], "list of \\(name, calibrator\\) tuples"),
        ([("a", "not a calibrator")], "list of \\(name, calibrator\\) tuples"),
        ([("a", PlattCalibrator()), ("a", BetaCalibrator())], "unique"),
        ([("t", MulticlassAffineCalibrator(kind="temperature"))], "binary problem"),
    ],
)
def test_bad_candidates(candidates, match):
    s, y = _binary()
    with pytest.raises(ValueError, match=match):
        AutoCalibrator(candidates=candidates).fit(s, y)


def test_bad_params():
    s, y = _binary()
    with pytest.raises(InvalidParameterError):
        AutoCalibrator(n_folds=1).fit(s, y)
    with pytest.raises(InvalidParameterError):
        AutoCalibrator(candidates="beta").fit(s, y)


def test_multiclass_needs_one_column_per_class():
    X, y = _multiclass()
    with pytest.raises(ValueError, match="one score column per class"):
        AutoCalibrator().fit(X[:, :2], y)


def test_multiclass_has_no_llr():
    X, y = _multiclass()
    cal = AutoCalibrator().fit(X, y)
    with pytest.raises(AttributeError, match="fitted on 3 classes"):
        cal.decision_function(X)


@pytest.mark.parametrize("y", [[0, 0, 0, 0], [0, np.nan, 1, 1]])
def test_bad_labels(y):
    with pytest.raises(ValueError):
        AutoCalibrator().fit([0.1, 0.2, 0.3, 0.4], y)


# ---------------------------------------------------------------- correctness
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_selection_is_the_cv_argmin(weighted):
    s, y = _binary(300, seed=3)
    w = np.random.default_rng(1).uniform(0.2, 3.0, y.shape[0]) if weighted else None
    candidates = [
        ("pav", PAVLLRCalibrator()),
        ("beta", BetaCalibrator()),
        ("sigmoid", PlattCalibrator()),
        ("affine", ProperScoringAffineCalibrator(l2=1e-3)),
    ]
    cal = AutoCalibrator(
        candidates=candidates, combine="select", uninformative_weight=0
    ).fit(s, y, sample_weight=w)
    oof = np.array([_binary_oof(c, s, y, w) for _, c in candidates])
    expected, best = _one_se_choice(oof, w)
    assert_allclose(cal.cv_log_loss_[0], expected, rtol=1e-10)
    assert cal.selected_ == [candidates[best][0]]
    assert cal.candidate_names_ == [name for name, _ in candidates]
    ref = clone(candidates[best][1]).fit(s, y, sample_weight=w)
    grid = np.linspace(-4, 6, 21)
    assert_allclose(cal.decision_function(grid), ref.decision_function(grid))
    assert_allclose(cal.transform(grid), ref.decision_function(grid))
    assert_allclose(cal.predict_proba(grid), ref.predict_proba(grid))


def test_multiclass_selection_is_the_cv_argmin():
    X, y = _multiclass(300, K=3, seed=1)
    K = 3
    cal = AutoCalibrator(combine="select", uninformative_weight=0).fit(X, y)
    ovr = one_vs_rest_log_odds(X)  # the columns are log-probabilities

    def proba(name, c, train, rows):
        if name.startswith("ovr"):  # one-vs-rest on the log-odds
            fits = [
                clone(c).fit(ovr[train, k], (y[train] == k).astype(int))
                for k in range(K)
            ]
            cols = [f.predict_proba(ovr[rows, k])[:, 1] for k, f in enumerate(fits)]
            return normalize_one_vs_rest(np.column_stack(cols))
        return clone(c).fit(X[train], y[train]).predict_proba(X[rows])

    # some sample is outscored on its own class: the temperature candidate is
    # then the unpenalized fit (scikit-learn's)
    assert outscored_somewhere(X, y)
    temperature = MulticlassAffineCalibrator(kind="temperature", l2=0.0)
    candidates = [
        ("temperature", temperature),
        ("ovr-sigmoid", PlattCalibrator()),
        ("ovr-sigmoid-p", _ProbabilitySigmoid()),
        ("ovr-pav", PAVLLRCalibrator()),
    ]
    assert cal.candidate_names_ == [name for name, _ in candidates]
    oof = np.empty((len(candidates), len(y)))
    for c, (name, cal_c) in enumerate(candidates):
        for train, test in _folds(X, y):
            p = proba(name, cal_c, train, test)
            oof[c, test] = -np.log(p[np.arange(test.shape[0]), y[test]])
    expected, best = _one_se_choice(oof)
    assert_allclose(cal.cv_log_loss_[0], expected, rtol=1e-8)
    assert cal.selected_ == [candidates[best][0]]
    name, c = candidates[best]
    assert_allclose(
        cal.predict_proba(X[:20]), proba(name, c, np.arange(y.shape[0]), slice(20))
    )
    assert_allclose(cal.transform(X[:20]), np.log(cal.predict_proba(X[:20])))
    assert (cal.predict(X) == np.argmax(cal.predict_proba(X), axis=1)).all()


def test_picks_the_right_family():
    """Overconfident 10-class scores on few samples: temperature scaling;
    a staircase distortion on many binary samples: PAV; a Beta-shaped
    distortion: beta calibration when it is a candidate."""
    X, y = _multiclass(300, K=10, seed=2, scale=6.0)
    assert AutoCalibrator(combine="select").fit(X, y).selected_ == ["temperature"]
    rng = np.random.default_rng(0)
    stairs = rng.uniform(-3, 3, 5000)  # P(target) 0.1, 0.5, 0.9 by thirds
    y_stairs = rng.random(5000) < np.select([stairs < -1, stairs < 1], [0.1, 0.5], 0.9)
    by_cv = AutoCalibrator(combine="select").fit(stairs, y_stairs)
    assert by_cv.selected_ == ["pav"]
    y2 = rng.random(5000) < 0.5
    p = np.where(y2, rng.beta(4, 1, 5000), rng.beta(1, 2, 5000))
    mine = [("sigmoid", PlattCalibrator()), ("beta", BetaCalibrator())]
    chosen = AutoCalibrator(candidates=mine, combine="select").fit(logit(p), y2)
    assert chosen.selected_ == ["beta"]


def test_decision_function_scores_are_used_as_they_are():
    """Columns that are not log-probabilities (a decision function) reach
    the one-vs-rest candidates unchanged."""
    X, y = _multiclass(300, seed=4)
    D = 3.0 * X + 1.0  # logsumexp of a row is not 0
    cal = AutoCalibrator(
        candidates=[("ovr-sigmoid", PlattCalibrator())], uninformative_weight=0
    ).fit(D, y)
    fits = [PlattCalibrator().fit(D[:, k], (y == k).astype(int)) for k in range(3)]
    cols = [f.predict_proba(D[:, k])[:, 1] for k, f in enumerate(fits)]
    assert_allclose(cal.predict_proba(D), normalize_one_vs_rest(np.column_stack(cols)))


def test_folds_weights_equal_repetition():
    """Integer weights and repeated rows give the same folds, selection and
    calibration; zero weights are as absent rows."""
    s, y = _binary(200, seed=9)
    w = np.random.default_rng(3).integers(0, 4, y.shape[0])
    weighted = AutoCalibrator().fit(s, y, sample_weight=w)
    repeated = AutoCalibrator().fit(np.repeat(s, w), np.repeat(y, w))
    assert weighted.selected_ == repeated.selected_
    assert_allclose(weighted.cv_log_loss_, repeated.cv_log_loss_, rtol=1e-9)
    assert_allclose(weighted.transform(s), repeated.transform(s), rtol=1e-7)
    folds = AutoCalibrator()._folds(s[:, None], y, 2, None)
    tests = np.sort(np.concatenate([test for _, test in folds]))
    assert_allclose(tests, np.arange(y.shape[0]))  # a partition
    for train, test in folds:  # spread over the scores: both classes in each
        assert set(y[test]) == set(y[train]) == {0, 1}
        assert abs(len(test) - len(y) / len(folds)) <= 1


def test_too_few_samples_uses_the_first_candidate():
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.9])
    y = np.array([0, 0, 0, 1, 0])
    cal = AutoCalibrator().fit(s, y)
    assert cal.selected_ == ["temperature"]
    assert np.isinf(cal.cv_log_loss_).all()
    assert_allclose(cal.weights_, [[1, 0, 0, 0]])


def test_columns_are_selected_independently():
    s1, y = _binary(400, seed=5)
    rng = np.random.default_rng(6)
    s2 = np.where(y == 1, rng.beta(4, 1, 400), rng.beta(1, 2, 400))
    both = AutoCalibrator().fit(np.c_[s1, logit(s2)], y)
    for j, s in enumerate((s1, logit(s2))):
        one = AutoCalibrator().fit(s, y)
        assert both.selected_[j] == one.selected_[0]
        assert_allclose(both.cv_log_loss_[j], one.cv_log_loss_[0])
        assert_allclose(both.transform(np.c_[s1, logit(s2)])[:, j], one.transform(s))


def test_prior_changes_the_posteriors_only():
    s, y = _binary()
    cal = AutoCalibrator(prior=0.1).fit(s, y)
    ref = AutoCalibrator().fit(s, y)
    assert cal.selected_ == ref.selected_
    assert_allclose(cal.decision_function(s), ref.decision_function(s))
    assert_allclose(
        cal.predict_proba(s)[:, 1], expit(ref.decision_function(s) + logit(0.1))
    )


def test_deterministic_repr_pickle_clone():
    X, y = _multiclass(200, seed=7)
    a = AutoCalibrator().fit(X, y)
    b = AutoCalibrator().fit(X, y)
    assert a.selected_ == b.selected_
    assert_allclose(a.predict_proba(X), b.predict_proba(X))
    assert repr(AutoCalibrator()) == "AutoCalibrator()"
    assert repr(a).startswith("AutoCalibrator()  # ")
    for name, w in zip(a.candidate_names_, a.weights_[0], strict=True):
        assert (name in repr(a)) == (w > 0)
        assert (f"{name} {w:.2f}" in a._repr_html_()) == (0 < w < 1)
    single = AutoCalibrator(combine="select").fit(X, y)
    assert repr(single) == f"AutoCalibrator(combine='select')  # {single.selected_[0]}"
    again = pickle.loads(pickle.dumps(a))
    assert_allclose(again.predict_proba(X), a.predict_proba(X))
    assert not hasattr(clone(a), "selected_")


def test_refit_binary_after_multiclass():
    X, y = _multiclass(200, seed=8)
    s, y2 = _binary(200)
    cal = AutoCalibrator().fit(X, y).fit(s, y2)
    assert cal.decision_function(s).shape == (200,)
    assert cal.predict_proba(s).shape == (200, 2)


@pytest.mark.parametrize("multiclass", [False, True])
def test_default_candidates_and_temperature_prior(multiclass):
    """The defaults: few parameters each; the two-class temperature penalty
    is 0.04 / n on the mean loss (n the total weight), so that it weighs as
    a prior of fixed strength: strong on 40 samples, negligible on
    thousands. With K classes the temperature is penalized only where its
    fit would not exist (test_separation_temperature)."""
    from skcalib._auto import TEMPERATURE_PRIOR, _SeparationTemperature

    if multiclass:
        X, y = _multiclass(300, K=3, seed=1)
        names = ["temperature", "ovr-sigmoid", "ovr-sigmoid-p", "ovr-pav"]
    else:
        X, y = _binary(300, seed=3)
        names = ["temperature", "sigmoid", "sigmoid-p", "pav"]
    w = np.full(y.shape[0], 2.0)
    cal = AutoCalibrator(candidates=None)
    for weight, n in ((None, y.shape[0]), (w, 2.0 * y.shape[0])):
        candidates = cal._candidates(multiclass, n)
        assert [name for name, _ in candidates] == names
        if multiclass:
            assert isinstance(candidates[0][1], _SeparationTemperature)
        else:
            assert candidates[0][1].l2 == TEMPERATURE_PRIOR / n
        fitted = clone(cal).fit(X, y, sample_weight=weight)
        assert fitted.candidate_names_ == names
    assert TEMPERATURE_PRIOR / 40 == pytest.approx(1e-3)


def test_separation_temperature():
    """The K-class temperature candidate: scikit-learn's unpenalized fit where
    some sample is outscored on its own class; where none is, the fit to
    targets smoothed by 0.25 / (n + 2), checked against a scalar search of
    that objective; integer weights equal repeated rows."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_softmax

    from skcalib._auto import SEPARABLE_SMOOTHING, _SeparationTemperature

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2, 3], 10)
    X = np.log(np.full((40, 4), 0.1))
    X[np.arange(40), y] = np.log(0.7)
    X += 0.3 * rng.normal(size=X.shape)
    assert not outscored_somewhere(X, y)
    w = rng.integers(1, 4, size=40).astype(float)
    fitted = _SeparationTemperature().fit(X, y, w)
    n = w.sum()
    e = SEPARABLE_SMOOTHING / (n + 2)
    target = np.where(np.eye(4)[y] == 1, 1 - e, e / 3)

    def loss(a):
        return -(w[:, None] * target * log_softmax(a * X, axis=1)).sum() / n

    best = minimize_scalar(
        loss, bounds=(0.01, 100), method="bounded", options={"xatol": 1e-10}
    )
    assert_allclose(fitted.coef_, best.x * np.eye(4), rtol=1e-6)
    repeated = _SeparationTemperature().fit(
        np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int))
    )
    assert_allclose(repeated.coef_, fitted.coef_, rtol=1e-9)
    # one error: the maximum likelihood temperature exists and is used as is
    X[0, 1] = X[0, 0] + 0.5
    assert outscored_somewhere(X, y)
    # ... unless the erring sample has weight 0
    assert not outscored_somewhere(X, y, np.r_[0.0, np.ones(39)])
    free = MulticlassAffineCalibrator(kind="temperature", l2=0).fit(X, y, w)
    assert_allclose(_SeparationTemperature().fit(X, y, w).coef_, free.coef_)


def test_temperature_prior_stops_sharpening_on_a_separable_set():
    """Forty separable samples: unpenalized temperature scaling sharpens
    without limit; the default candidate keeps every posterior of the
    true class below 1 - 1e-6 (it errs at most once in a million)."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 14)[:40]
    X = np.log(np.full((40, 3), 0.15))
    X[np.arange(40), y] = np.log(0.7)
    X += 0.01 * rng.normal(size=X.shape)
    cal = AutoCalibrator(candidates=AutoCalibrator()._candidates(True, 40)[:1]).fit(
        X, y
    )
    proba = cal.predict_proba(X)[np.arange(40), y]
    assert (proba < 1 - 1e-6).all() and (proba > 0.9).all()
    with pytest.warns(ConvergenceWarning):  # separable: no finite minimizer
        free = MulticlassAffineCalibrator(kind="temperature", l2=0).fit(X, y)
    assert (free.predict_proba(X)[np.arange(40), y] > 1 - 1e-6).all()


# ------------------------------------------------------------------- stacking
def _em_weights(P, s):
    """Mixture weights by the EM fixed point, written out, many iterations."""
    w = np.full(P.shape[0], 1.0 / P.shape[0])
    for _ in range(20000):
        w = w * (P @ (s / (w @ P))) / s.sum()
    return w


def test_stacking_weights_maximize_the_mixture_likelihood():
    """The weights satisfy the optimality conditions of the concave problem
    (KKT): the gradient is equal to 1 on the support and at most 1 off it."""
    from skcalib._auto import MIN_STACKING_WEIGHT, stacking_weights

    rng = np.random.default_rng(0)
    P = rng.uniform(0.05, 1, (4, 60))
    P[2] = 0.5 * P[0]  # dominated: weight 0
    s = rng.uniform(0.5, 2, 60)
    w = stacking_weights(P, s, tol=1e-13, max_iter=100000)
    assert w.sum() == pytest.approx(1.0)
    assert w[2] == 0
    grad = P @ (s / (w @ P)) / s.sum()
    support = w > 0
    assert_allclose(grad[support], 1.0, atol=1e-6)
    assert (grad[~support] <= 1 + 1e-6).all()
    ref = _em_weights(P, s)
    ref = np.where(ref >= MIN_STACKING_WEIGHT, ref, 0)
    assert_allclose(w, ref / ref.sum(), atol=1e-6)
    # a candidate that failed (NaN) gets 0; none left: the first one
    P[1, 3] = np.nan
    assert stacking_weights(P)[1] == 0
    assert_allclose(stacking_weights(np.full((3, 5), np.nan)), [1, 0, 0])


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_stacking_mixes_the_refitted_candidates(weighted):
    s, y = _binary(300, seed=3)
    w = np.random.default_rng(1).uniform(0.2, 3.0, y.shape[0]) if weighted else None
    candidates = [
        ("pav", PAVLLRCalibrator()),
        ("sigmoid", PlattCalibrator()),
        ("affine", ProperScoringAffineCalibrator(l2=1e-3)),
    ]
    cal = AutoCalibrator(candidates=candidates, uninformative_weight=0).fit(
        s, y, sample_weight=w
    )
    oof = np.array([_binary_oof(c, s, y, w) for _, c in candidates])
    from skcalib._auto import stacking_weights

    expected = stacking_weights(np.exp(-oof), w)
    assert_allclose(cal.weights_[0], expected, rtol=1e-9, atol=1e-12)
    assert (cal.weights_ > 0).sum() >= 2  # a real mixture on these data
    assert cal.selected_ == [candidates[int(np.argmax(expected))][0]]
    grid = np.linspace(-4, 6, 21)
    fits = [clone(c).fit(s, y, sample_weight=w) for _, c in candidates]
    p1 = sum(
        wc * f.predict_proba(grid)[:, 1] for wc, f in zip(expected, fits, strict=True)
    )
    assert_allclose(cal.predict_proba(grid)[:, 1], p1, rtol=1e-9)
    prior = fits[0].calibration_prior_
    assert_allclose(cal.decision_function(grid), logit(p1) - logit(prior), rtol=1e-9)


def test_binary_stacking_llrs_stay_exact_far_out():
    """Mixing happens in the log domain: LLRs of +/-1000 are not rounded to
    +/-inf, and no numpy warning is raised."""
    s, y = _binary(300, seed=3)
    candidates = [
        ("a", ProperScoringAffineCalibrator(l2=1e-3)),
        ("b", PlattCalibrator()),
    ]
    cal = AutoCalibrator(candidates=candidates, uninformative_weight=0).fit(s, y)
    assert (cal.weights_ > 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        far = cal.decision_function([-1e4, 1e4])
    assert np.isfinite(far).all() and far[0] < -1000 and far[1] > 1000


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_uninformative_share(weighted):
    """``(1 - e)`` times the candidates' posteriors plus ``e`` times the
    calibration prior, ``e = 0.05 / n``; the LLRs are bounded accordingly
    and stay finite, without warnings, for scores of +/-1e4 and +/-1e300."""
    s, y = _binary(300, seed=3)
    w = np.random.default_rng(1).uniform(0.2, 3.0, y.shape[0]) if weighted else None
    n = y.shape[0] if w is None else w.sum()
    cal = AutoCalibrator().fit(s, y, sample_weight=w)
    raw = AutoCalibrator(uninformative_weight=0).fit(s, y, sample_weight=w)
    e = 0.05 / n
    assert cal.uninformative_weight_ == pytest.approx(e, rel=1e-15)
    assert raw.uninformative_weight_ == 0
    assert_allclose(cal.weights_, raw.weights_)
    prior = raw.calibration_prior_
    grid = np.linspace(-8, 8, 33)
    p = (1 - e) * raw.predict_proba(grid)[:, 1] + e * prior
    assert_allclose(cal.predict_proba(grid)[:, 1], p, rtol=1e-12)
    assert_allclose(cal.decision_function(grid), logit(p) - logit(prior), rtol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        extreme = np.array([-1e300, -1e4, 1e4, 1e300])
        far = cal.decision_function(extreme)
        p = (1 - e) * raw.predict_proba(extreme)[:, 1] + e * prior
    assert_allclose(far, logit(p) - logit(prior), rtol=1e-9)
    low = np.log(e * prior / (1 - e * prior)) - logit(prior)
    high = np.log((1 - e * (1 - prior)) / (e * (1 - prior))) - logit(prior)
    assert np.all((far >= low) & (far <= high))
    fixed = AutoCalibrator(uninformative_weight=0.25).fit(s, y, sample_weight=w)
    assert fixed.uninformative_weight_ == 0.25
    p = 0.75 * raw.predict_proba(grid)[:, 1] + 0.25 * prior
    assert_allclose(fixed.predict_proba(grid)[:, 1], p, rtol=1e-12)


def test_multiclass_uninformative_share():
    """K classes: the class proportions of the calibration data, share ``0.05 / n``,
    also when one candidate has all the weight."""
    X, y = _multiclass(300, K=3, seed=1)
    for combine in ("stack", "select"):
        cal = AutoCalibrator(combine=combine).fit(X, y)
        raw = AutoCalibrator(combine=combine, uninformative_weight=0).fit(X, y)
        e = 0.05 / 300
        assert cal.uninformative_weight_ == pytest.approx(e, rel=1e-15)
        proportions = np.bincount(y, minlength=3) / 300
        expected = (1 - e) * raw.predict_proba(X) + e * proportions
        assert_allclose(cal.predict_proba(X), expected, rtol=1e-12)
        assert_allclose(cal.transform(X), np.log(expected), rtol=1e-12)
        assert_allclose(cal.predict_proba(X).sum(axis=1), 1.0)


def test_multiclass_stacking_mixes_the_probabilities():
    X, y = _multiclass(300, K=3, seed=1)
    cal = AutoCalibrator().fit(X, y)
    sel = AutoCalibrator(combine="select").fit(X, y)
    assert_allclose(cal.cv_log_loss_, sel.cv_log_loss_)
    used = np.flatnonzero(cal.weights_[0])
    assert used.shape[0] >= 2
    parts = [
        AutoCalibrator(candidates=[AutoCalibrator()._candidates(True, 300)[c]])
        .fit(X, y)
        .predict_proba(X[:20])
        for c in used
    ]
    expected = sum(w * p for w, p in zip(cal.weights_[0, used], parts, strict=True))
    assert_allclose(cal.predict_proba(X[:20]), expected, rtol=1e-9)
    assert_allclose(cal.predict_proba(X).sum(axis=1), 1.0)
    again = pickle.loads(pickle.dumps(cal))
    assert_allclose(again.predict_proba(X), cal.predict_proba(X))
