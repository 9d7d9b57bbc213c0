"""Tests of AutoCalibrator: selection by cross-validated log loss."""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit, log_softmax, logit
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._param_validation import InvalidParameterError

from skcalib import (
    AutoCalibrator,
    BetaCalibrator,
    MulticlassAffineCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ProperScoringAffineCalibrator,
)
from skcalib._auto import normalize_one_vs_rest
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


def _folds(y, cv=5):
    k = min(cv, np.bincount(y).min())
    return list(StratifiedKFold(k, shuffle=True, random_state=0).split(y, y))


def _binary_cv_loss(cal, s, y, w=None):
    """Mean over the folds of the weighted mean log loss, written out."""
    losses = []
    for train, test in _folds(y):
        wt = None if w is None else w[train]
        fitted = clone(cal).fit(s[train], y[train], sample_weight=wt)
        p1 = fitted.predict_proba(s[test])[:, 1]
        loss = -np.log(np.where(y[test] == 1, p1, 1 - p1))
        losses.append(np.average(loss, weights=None if w is None else w[test]))
    return float(np.mean(losses))


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
        AutoCalibrator(cv=1).fit(s, y)
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
    cal = AutoCalibrator(candidates=candidates).fit(s, y, sample_weight=w)
    expected = [_binary_cv_loss(c, s, y, w) for _, c in candidates]
    assert_allclose(cal.cv_log_loss_[0], expected, rtol=1e-10)
    best = int(np.argmin(expected))
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
    cal = AutoCalibrator().fit(X, y)
    ovr = one_vs_rest_log_odds(X)  # the columns are log-probabilities

    def proba(name, c, train, rows):
        if name.startswith("ovr"):
            fits = [
                clone(c).fit(ovr[train, k], (y[train] == k).astype(int))
                for k in range(K)
            ]
            cols = [f.predict_proba(ovr[rows, k])[:, 1] for k, f in enumerate(fits)]
            return normalize_one_vs_rest(np.column_stack(cols))
        return clone(c).fit(X[train], y[train]).predict_proba(X[rows])

    candidates = [
        ("temperature", MulticlassAffineCalibrator(kind="temperature", l2=1e-3)),
        ("vector", MulticlassAffineCalibrator(kind="vector", l2=1e-3)),
        ("ovr-beta", BetaCalibrator()),
        ("ovr-pav", PAVLLRCalibrator()),
    ]
    assert cal.candidate_names_ == [name for name, _ in candidates]
    expected = []
    for name, c in candidates:
        losses = []
        for train, test in _folds(y):
            p = proba(name, c, train, test)
            losses.append(-np.log(p[np.arange(test.shape[0]), y[test]]).mean())
        expected.append(np.mean(losses))
    assert_allclose(cal.cv_log_loss_[0], expected, rtol=1e-8)
    best = int(np.argmin(expected))
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
    distortion: beta calibration."""
    X, y = _multiclass(300, K=10, seed=2, scale=6.0)
    assert AutoCalibrator().fit(X, y).selected_ == ["temperature"]
    rng = np.random.default_rng(0)
    y2 = rng.random(5000) < 0.5
    s = np.where(y2, rng.normal(1.0, 1.0, 5000), rng.normal(-1.0, 1.0, 5000))
    stairs = np.floor(s) + 0.1 * np.floor(10 * s) ** 3  # not a sigmoid of s
    assert AutoCalibrator().fit(stairs, y2).selected_ == ["pav"]
    p = np.where(y2, rng.beta(4, 1, 5000), rng.beta(1, 2, 5000))
    assert AutoCalibrator().fit(logit(p), y2).selected_ == ["beta"]


def test_decision_function_scores_are_used_as_they_are():
    """Columns that are not log-probabilities (a decision function) reach
    the one-vs-rest candidates unchanged."""
    X, y = _multiclass(300, seed=4)
    D = 3.0 * X + 1.0  # logsumexp of a row is not 0
    cal = AutoCalibrator(candidates=[("ovr-sigmoid", PlattCalibrator())]).fit(D, y)
    fits = [PlattCalibrator().fit(D[:, k], (y == k).astype(int)) for k in range(3)]
    cols = [f.predict_proba(D[:, k])[:, 1] for k, f in enumerate(fits)]
    assert_allclose(cal.predict_proba(D), normalize_one_vs_rest(np.column_stack(cols)))


def test_too_few_samples_uses_the_first_candidate():
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.9])
    y = np.array([0, 0, 0, 1, 0])
    cal = AutoCalibrator().fit(s, y)
    assert cal.selected_ == ["pav"]
    assert np.isinf(cal.cv_log_loss_).all()


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
    assert repr(a) == f"AutoCalibrator()  # selected: {a.selected_[0]}"
    assert a.selected_[0] in a._repr_html_()
    again = pickle.loads(pickle.dumps(a))
    assert_allclose(again.predict_proba(X), a.predict_proba(X))
    assert not hasattr(clone(a), "selected_")


def test_refit_binary_after_multiclass():
    X, y = _multiclass(200, seed=8)
    s, y2 = _binary(200)
    cal = AutoCalibrator().fit(X, y).fit(s, y2)
    assert cal.decision_function(s).shape == (200,)
    assert cal.predict_proba(s).shape == (200, 2)
