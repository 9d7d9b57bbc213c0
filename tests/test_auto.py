"""Tests of AutoCalibrator: stacking or selection by cross-validated log loss."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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


def _folds(X, y, cv=5, w=None):
    """Stratified folds, written out: per class, the distinct score rows in
    ``RandomState(0)``'s order, dealt round-robin, continuing from one class
    to the next; from 200 samples (total weight) row by row, each score
    row's rows after one another (heaviest first, stable, with weights),
    below it each score row whole (heaviest first by its summed weight)."""
    X = np.asarray(X, dtype=float).reshape(len(y), -1)
    weighted = w is not None
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    whole = w.sum() < 200
    keys = {}
    for i in np.flatnonzero(w > 0):
        keys.setdefault((y[i], tuple(X[i])), []).append(i)
    classes = np.unique(y[w > 0])
    per_class = {c: sorted(k for k in keys if k[0] == c) for c in classes}
    sizes = [
        len(per_class[c]) if whole else int((y[w > 0] == c).sum()) for c in classes
    ]
    n_splits = min(cv, min(sizes))
    rng = np.random.RandomState(0)
    fold = np.full(len(y), -1)
    offset = 0
    for c in classes:
        pairs = [per_class[c][j] for j in rng.permutation(len(per_class[c]))]
        if whole:
            weights = [w[keys[p]].sum() for p in pairs]
            order = np.argsort(-np.array(weights), kind="stable")
            for rank, j in enumerate(order):
                fold[keys[pairs[j]]] = (rank + offset) % n_splits
            offset += len(pairs)
            continue
        rows = [i for p in pairs for i in keys[p]]
        if weighted:
            rows = [rows[j] for j in np.argsort(-w[rows], kind="stable")]
        for rank, i in enumerate(rows):
            fold[i] = (rank + offset) % n_splits
        offset += len(rows)
    return [
        (np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_splits)
    ]


def _binary_oof(cal, s, y, w=None):
    """Per-sample out-of-fold log loss, written out."""
    out = np.empty(len(y))
    for train, test in _folds(s, y, w=w):
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
        candidates=candidates, combine="select", uninformative_weight=0, n_folds=5
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


def test_multiclass_selection_is_the_cv_argmin(monkeypatch):
    from skcalib import _auto

    # exact refits in every fold (no one-step cross-validation)
    monkeypatch.setattr(_auto, "one_step_refits", lambda *args, **kwargs: None)
    X, y = _multiclass(300, K=3, seed=1)
    K = 3
    cal = AutoCalibrator(n_folds=5, combine="select", uninformative_weight=0).fit(X, y)
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
        ("sms", MulticlassAffineCalibrator(kind="sms")),
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
    """Overconfident 10-class scores on few samples: a temperature map
    (temperature scaling, or SMS, which starts from one), not a one-vs-rest
    candidate, and the stacked default within 1 % of the true posteriors'
    log loss on fresh samples (SMS's extra parameters cost about 0.6 % here:
    the truth is a temperature); a staircase distortion on many binary
    samples: PAV; a Beta-shaped distortion: beta calibration when it is a
    candidate."""
    X, y = _multiclass(300, K=10, seed=2, scale=6.0)
    assert AutoCalibrator(combine="select").fit(X, y).selected_[0] in (
        "temperature",
        "sms",
    )
    X_new, y_new = _multiclass(20000, K=10, seed=12, scale=6.0)
    rows = np.arange(y_new.shape[0])
    truth = -log_softmax(X_new / 6.0, axis=1)[rows, y_new].mean()
    stacked = AutoCalibrator().fit(X, y).predict_proba(X_new)
    assert -np.log(stacked[rows, y_new]).mean() <= 1.01 * truth
    rng = np.random.default_rng(0)
    stairs = rng.uniform(-3, 3, 5000)  # P(target) 0.1, 0.5, 0.9 by thirds
    y_stairs = rng.random(5000) < np.select([stairs < -1, stairs < 1], [0.1, 0.5], 0.9)
    by_cv = AutoCalibrator(combine="select").fit(stairs, y_stairs)
    assert by_cv.selected_ == ["venn-abers"]
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


def test_folds_spread_tied_scores_and_drop_zero_weights():
    """The rows of a tied score are spread over the folds (a k-nearest-
    neighbours classifier's few probabilities): each fold holds its share of
    every (class, score) pair, to one row, so every training fold has the
    test fold's scores of each class. Zero weights are as absent rows."""
    rng = np.random.default_rng(3)
    s = rng.integers(0, 8, 600) / 7.0  # eight distinct scores
    y = (rng.random(600) < 0.2 + 0.6 * s).astype(int)
    folds = AutoCalibrator()._folds(s[:, None], y, 2, None)
    assert [_folds(s, y, 2)[k][1].tolist() for k in range(2)] == [
        test.tolist() for _, test in folds
    ]
    tests = np.sort(np.concatenate([test for _, test in folds]))
    assert_allclose(tests, np.arange(y.shape[0]))  # a partition
    for _, test in folds:
        for c in (0, 1):
            for v in np.unique(s):
                tied = (y == c) & (s == v)
                assert abs((tied[test]).sum() - tied.sum() / 2) <= 1
    w = rng.integers(0, 2, y.shape[0])
    weighted = AutoCalibrator().fit(s, y, sample_weight=w)
    kept = AutoCalibrator().fit(s[w > 0], y[w > 0], sample_weight=w[w > 0])
    assert weighted.selected_ == kept.selected_
    assert_allclose(weighted.cv_log_loss_, kept.cv_log_loss_, rtol=1e-9)
    assert_allclose(weighted.transform(s), kept.transform(s), rtol=1e-7)


def test_tied_scores_do_not_bias_the_folds():
    """Tied scores dealt whole put all of a (class, score) pair in one test
    fold, so its training folds lacked that class at that score: on eight
    distinct scores every candidate looked 0.1 nats or more worse than
    temperature scaling out of fold. Spread, the out-of-fold losses of
    candidates that fit these data equally well agree to 0.01 nats."""
    rng = np.random.default_rng(5)
    s = rng.integers(-4, 4, 4000) / 2.0
    y = (rng.random(4000) < expit(s)).astype(int)
    cal = AutoCalibrator(uninformative_weight=0).fit(s, y)
    names = cal.candidate_names_
    cv = dict(zip(names, cal.cv_log_loss_[0], strict=True))
    assert abs(cv["sigmoid"] - cv["temperature"]) < 0.01
    assert abs(cv["venn-abers"] - cv["sigmoid"]) < 0.01


def test_too_few_samples_use_the_fallback():
    """One sample of a class: nothing to cross-validate. The defaults fall
    back on Platt's sigmoid, given candidates on the first one."""
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.9])
    y = np.array([0, 0, 0, 1, 0])
    cal = AutoCalibrator(uninformative_weight=0).fit(s, y)
    assert cal.selected_ == ["sigmoid"]
    assert np.isinf(cal.cv_log_loss_).all()
    assert_allclose(cal.weights_, [[0, 1, 0, 0, 0]])
    ref = PlattCalibrator().fit(s, y)
    assert_allclose(cal.decision_function(s), ref.decision_function(s))
    mine = [("beta", BetaCalibrator()), ("sigmoid", PlattCalibrator())]
    assert AutoCalibrator(candidates=mine).fit(s, y).selected_ == ["beta"]
    X, y3 = _multiclass(60, K=3, seed=1)
    y3[y3 == 2] = 0
    y3[0] = 2  # one sample of class 2
    assert AutoCalibrator().fit(X, y3).selected_ == ["ovr-sigmoid"]


def test_rare_class_in_few_rows_is_cross_validated():
    """Issue 33 item 2: three targets among 30 sorted scores all fell in one
    fold of the label-blind folds, so every candidate scored inf. The folds
    are stratified: each holds one target, every training set has two."""
    s = np.arange(30.0)
    y = np.zeros(30, int)
    y[[0, 3, 6]] = 1
    cal = AutoCalibrator().fit(s, y)
    assert np.isfinite(cal.cv_log_loss_).all()
    folds = cal._folds(s[:, None], y, 2, None)
    assert len(folds) == 3
    for train, test in folds:
        assert y[test].sum() == 1 and y[train].sum() == 2
    assert_allclose(np.sort(np.concatenate([t for _, t in folds])), np.arange(30))


@pytest.mark.parametrize("weighted", [False, True])
def test_folds_are_stratified(weighted):
    """Each fold holds 1 / n_folds of each class's weight, to within the
    largest weight of a row (to one row without weights), and the folds are
    a partition of the rows of positive weight."""
    X, y = _multiclass(500, K=4, seed=3)
    y[y == 3] = np.r_[3, 3, 3, 3, 3, 3, 3, np.zeros((y == 3).sum() - 7, int)]
    w = np.random.default_rng(2).uniform(0, 3, 500) if weighted else np.ones(500)
    w[:5] = 0 if weighted else 1
    folds = AutoCalibrator(n_folds=5)._folds(X, y, 4, w if weighted else None)
    assert len(folds) == 5
    tested = np.sort(np.concatenate([test for _, test in folds]))
    assert_allclose(tested, np.flatnonzero(w > 0))
    for train, test in folds:
        assert_allclose(np.sort(np.r_[train, test]), np.arange(500))
        for c in range(4):
            share = w[test][y[test] == c].sum()
            assert abs(share - w[y == c].sum() / 5) <= w.max() + 1e-9


def test_uninformative_scores_give_the_calibration_prior():
    """Issue 33 item 3: scores that carry no information give the class
    proportions, not 0.5 (temperature scaling has no intercept): constant
    scores (nothing to cross-validate: Platt's sigmoid, whose smoothed
    targets are within 1e-3 of the proportion) and noise."""
    y = np.r_[np.ones(30), np.zeros(70)]
    with pytest.warns(UserWarning, match="carry no information"):
        cal = AutoCalibrator().fit(np.zeros(100), y)
    assert_allclose(cal.predict_proba([0.0, 5.0])[:, 1], 0.3, atol=1e-3)
    noise = np.random.default_rng(1).normal(size=100)
    cal = AutoCalibrator().fit(noise, y)
    # within the slope that SMS (alone here) fits to 100 samples of noise
    assert_allclose(cal.predict_proba([-1.0, 0.0, 1.0])[:, 1], 0.3, atol=0.04)
    assert cal.weights_[0, 0] < 0.05  # temperature: 1/2 at 0
    X = np.zeros((90, 3))
    y3 = np.repeat([0, 1, 2], [45, 30, 15])
    with pytest.warns(UserWarning, match="carry no information"):
        proba = AutoCalibrator().fit(X, y3).predict_proba(X[:1])
    assert_allclose(proba, [[0.5, 1 / 3, 1 / 6]], atol=2e-3)


def test_extreme_scores_raise_no_warning():
    """Issue 33 item 5: scores of +/-1.7e308 (their range overflows)."""
    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(20, int), np.ones(20, int)]
    s = np.where(y == 1, 1.7e308, -1.7e308) * (rng.random(40) < 0.8)
    s[:3] = 1.7e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = AutoCalibrator().fit(s, y)
        p = cal.predict_proba([-1.7e308, 0.0, 1.7e308])[:, 1]
    assert np.isfinite(p).all() and p[0] < p[1] < p[2]


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
    from skcalib._auto import (
        MATRIX_MIN_SAMPLES,
        TEMPERATURE_PRIOR,
        _SeparationTemperature,
    )

    if multiclass:
        X, y = _multiclass(300, K=3, seed=1)
        names = ["temperature", "ovr-sigmoid", "sms", "ovr-pav"]
        small = AutoCalibrator().fit(X[:150], y[:150]).candidate_names_
        assert small == ["temperature", "ovr-sigmoid", "ovr-sigmoid-p", "ovr-pav"]
    else:
        X, y = _binary(300, seed=3)
        names = [
            "temperature",
            "sigmoid",
            "sigmoid-p",
            "venn-abers",
            "quadratic",
            "sms",
        ]
        assert AutoCalibrator().fit(X[:100], y[:100]).candidate_names_ == names
        small = AutoCalibrator().fit(X[:99], y[:99]).candidate_names_
        assert small == names[:-1]  # the binary SMS from 100 samples
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
    # K classes: matrix scaling (with its default l2) from 1,000 samples
    below = cal._candidates(multiclass, MATRIX_MIN_SAMPLES - 1)
    assert [name for name, _ in below] == names
    large = cal._candidates(multiclass, MATRIX_MIN_SAMPLES)
    if multiclass:
        assert [name for name, _ in large] == [*names, "matrix"]
        assert large[-1][1].get_params() == (
            MulticlassAffineCalibrator(kind="matrix").get_params()
        )
    else:
        assert [name for name, _ in large] == names


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e5])
@pytest.mark.parametrize("weighted", [False, True])
def test_two_class_temperature_is_the_penalized_minimizer(scale, weighted):
    """The binary temperature candidate's ``a = 1 / T`` minimizes the
    weighted mean log loss of ``sigmoid(a s)`` plus ``l2 m a^2``, ``m`` the
    weighted mean of ``s^2 / 4`` (the penalty per standard deviation),
    checked against a bounded scalar search of that objective written
    out."""
    from scipy.optimize import brentq

    from skcalib._auto import _TwoClassTemperature

    s, y = _binary(200, seed=2)
    s = s * scale
    w = np.random.default_rng(4).uniform(0.2, 3, 200) if weighted else np.ones(200)
    l2 = 0.04 / 200
    fitted = _TwoClassTemperature(l2=l2).fit(s, y, w if weighted else None)
    u = np.where(y == 1, s, -s) / scale

    m = (w @ u**2) / w.sum() / 4  # in the units of s / scale

    def slope(b):  # of the objective in b = a * scale: increasing
        return -(w * u) @ expit(-b * u) / w.sum() + 2 * l2 * m * b

    root = brentq(slope, -50, 50, xtol=1e-300, rtol=4 * np.finfo(float).eps)
    assert_allclose(fitted.coef_[0] * scale, root, rtol=1e-12)
    prior = fitted.calibration_prior_
    assert_allclose(fitted.decision_function(s), fitted.coef_[0] * s - logit(prior))


@pytest.mark.parametrize("scale", [1e-310, 1e-300, 1e-10, 1.0, 1e10, 1e300])
def test_two_class_temperature_is_the_k_class_one_at_any_unit(scale):
    """The binary temperature candidate equals MulticlassAffineCalibrator's
    ``kind='temperature'`` (same ``l2``) on the columns ``(-s/2, s/2)``, at
    any unit of the scores (denormal ones included: ``coef_`` may overflow,
    the posteriors do not), weighted, without warnings."""
    from skcalib._auto import _TwoClassTemperature

    s, y = _binary(300, seed=7)
    w = np.random.default_rng(8).uniform(0.2, 3, 300)
    two = _TwoClassTemperature(l2=0.05).fit(s * scale, y, w)
    columns = np.column_stack([-s / 2, s / 2])
    k = MulticlassAffineCalibrator(kind="temperature", l2=0.05)
    k.fit(columns * scale, y, w)
    reference = MulticlassAffineCalibrator(kind="temperature", l2=0.05)
    reference.fit(columns, y, w)
    if scale >= 1e-300:  # below, 1 / T overflows
        assert_allclose(two.coef_[0] * scale, reference.coef_[0, 0], rtol=1e-9)
    for fitted, X in [(two, s * scale), (k, columns * scale)]:
        assert_allclose(
            fitted.predict_proba(X), reference.predict_proba(columns), atol=1e-9
        )


def test_many_classes_trade_the_full_matrix_candidates_for_svs():
    """A full K x K matrix costs O(n K^4) per Newton step: matrix scaling
    joins up to 16 classes, SMS up to 32; beyond, SVS takes SMS's place
    (2 K parameters), and a fit of 40 classes stays a fraction of a
    second's work, without warnings."""
    from skcalib._auto import (
        MATRIX_CANDIDATE_CLASSES,
        MAX_MATRIX_CLASSES,
        _default_multiclass_candidates,
    )

    def names(n, K):
        return [name for name, _ in _default_multiclass_candidates(n, K)]

    base = ["temperature", "ovr-sigmoid", "sms", "ovr-pav"]
    assert names(1000, MATRIX_CANDIDATE_CLASSES) == [*base, "matrix"]
    assert names(1000, MATRIX_CANDIDATE_CLASSES + 1) == base
    assert names(1000, MAX_MATRIX_CLASSES) == base
    svs = ["temperature", "ovr-sigmoid", "svs", "ovr-pav"]
    assert names(1000, MAX_MATRIX_CLASSES + 1) == svs
    assert names(199, 100)[2] == "ovr-sigmoid-p"
    kinds = _default_multiclass_candidates(1000, 40)[2][1].get_params()
    assert kinds == MulticlassAffineCalibrator(kind="svs").get_params()

    X, y = _multiclass(1200, K=40, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = AutoCalibrator().fit(X, y)
    assert cal.candidate_names_ == svs
    proba = cal.predict_proba(X)
    assert proba.shape == (1200, 40)
    assert_allclose(proba.sum(axis=1), 1.0)
    # SVS is cross-validated by one Newton step, as SMS is
    assert np.isfinite(cal.cv_log_loss_).all()


def _units_free_candidates(n, K):
    """The default candidates whose posteriors do not depend on the units
    of the scores: all but the probability sigmoid (of ``sigmoid(s)``), the
    binary SMS (of ``log sigmoid(+/-s)``) and, with K > 2 classes, the
    one-vs-rest ones (of log-odds of a softmax)."""
    from skcalib._auto import (
        _default_binary_candidates,
        _default_multiclass_candidates,
    )

    if K == 2:
        skip = ("sigmoid-p", "sms")
        return [c for c in _default_binary_candidates(n) if c[0] not in skip]
    return [c for c in _default_multiclass_candidates(n, K) if "ovr" not in c[0]]


@settings(max_examples=25, deadline=None)
@given(
    e=st.integers(-300, 300),
    K=st.sampled_from([2, 3]),
    seed=st.integers(0, 2**16),
    weighted=st.booleans(),
)
def test_auto_posteriors_do_not_depend_on_units(e, K, seed, weighted):
    """AutoCalibrator's posteriors on scores times ``10**e`` are those on the
    scores, to 1e-9, binary and multiclass, with no warning (the default
    candidates whose inputs are units-free)."""
    rng = np.random.default_rng(seed)
    n = 120
    y = rng.integers(0, K, n)
    if K == 2:
        X = rng.normal(1.5 * y, 1.3)
    else:
        X = 2.0 * np.eye(K)[y] + rng.normal(size=(n, K))
    w = rng.uniform(0.2, 3, n) if weighted else None
    cal = AutoCalibrator(candidates=_units_free_candidates(n, K))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reference = clone(cal).fit(X, y, sample_weight=w)
        scaled = clone(cal).fit(X * 10.0**e, y, sample_weight=w)
        expected = reference.predict_proba(X)
        got = scaled.predict_proba(X * 10.0**e)
    assert_allclose(got, expected, atol=1e-9)


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


@pytest.mark.parametrize("separable", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_separation_temperature_fit_validated_is_fit(separable, weighted):
    """The fit on validated arrays (AutoCalibrator's candidates) is ``fit``,
    on both of the candidate's objectives; a class absent: ``fit``'s error."""
    from skcalib._auto import _SeparationTemperature

    rng = np.random.default_rng(7)
    y = np.repeat([0, 1, 2, 3], 10)
    X = np.log(np.full((40, 4), 0.1))
    X[np.arange(40), y] = np.log(0.7)
    X += 0.3 * rng.normal(size=X.shape)
    if not separable:
        X[0, 1] = X[0, 0] + 0.5
    w = rng.uniform(0.5, 2.0, 40) if weighted else None
    ref = _SeparationTemperature().fit(X, y, w)
    fitted = _SeparationTemperature()._fit_validated(X, y, w, 4)
    assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=0)
    assert_allclose(fitted.intercept_, ref.intercept_, rtol=0, atol=0)
    assert fitted.n_features_in_ == 4
    rows = y != 3
    with pytest.raises(ValueError):
        _SeparationTemperature()._fit_validated(X[rows], y[rows], None, 4)


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
def _simplex_reference(P, s):
    """The mixture weights by SLSQP, tight tolerances, several starts."""
    from scipy.optimize import minimize

    K = P.shape[0]

    def loss(w):
        return -(s @ np.log(np.maximum(w @ P, 1e-300)))

    def grad(w):
        return -(P @ (s / np.maximum(w @ P, 1e-300)))

    best = None
    for start in [np.full(K, 1.0 / K), *(0.9 * np.eye(K) + 0.1 / K)]:
        res = minimize(
            loss,
            start,
            jac=grad,
            method="SLSQP",
            bounds=[(0, 1)] * K,
            constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1}],
            options={"ftol": 1e-16, "maxiter": 2000},
        )
        if best is None or res.fun < best.fun:
            best = res
    w = np.clip(best.x, 0, None) / np.clip(best.x, 0, None).sum()
    # SLSQP stops with a gradient off by ~1e-8: polish on its support by
    # Newton's method on the equality-constrained face (the KKT system)
    S = np.flatnonzero(w > 1e-10)
    for _ in range(8):
        m = w[S] @ P[S]
        g = -(P[S] @ (s / m))
        H = (P[S] * (s / m**2)) @ P[S].T
        kkt = np.block([[H, np.ones((S.size, 1))], [np.ones((1, S.size)), 0]])
        step = np.linalg.lstsq(kkt, np.r_[-g, 0.0], rcond=None)[0][: S.size]
        if (w[S] + step < 0).any():
            break
        w[S] += step
    return w / w.sum()


def _two_weights_by_bisection(P, s):
    """K = 2: the derivative of the concave objective in ``w_0`` is
    decreasing; its root (or the end where it keeps its sign), by bisection."""

    def slope(a):
        return s @ ((P[0] - P[1]) / (a * P[0] + (1 - a) * P[1]))

    if slope(0.0) <= 0:
        return np.array([0.0, 1.0])
    if slope(1.0) >= 0:
        return np.array([1.0, 0.0])
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if slope(mid) > 0 else (lo, mid)
    return np.array([lo, 1 - lo])


def _kkt_holds(w, P, s, tol=1e-9):
    """Optimality on the simplex: gradient 1 on the support, <= 1 off it."""
    grad = P @ (s / (w @ P))
    support = w > 0
    return (
        np.allclose(grad[support], 1.0, atol=tol) and (grad[~support] <= 1 + tol).all()
    )


def test_stacking_weights_are_the_minimizer_of_the_issue():
    """Issue 33 item 4: EM stopped at 1,000 passes gave [0.356, 0.144, 0.5]
    on these out-of-fold probabilities (the folds of the time, label-blind:
    sorted distinct scores dealt round-robin); the minimizer is [0.465, 0,
    0.535], as SLSQP finds; and the weights of the estimator equal SLSQP's on
    its own out-of-fold probabilities."""
    from skcalib._auto import stacking_weights

    r = np.random.default_rng(5)
    y = (r.random(240) < 0.35).astype(int)
    s = r.normal(size=240) * 1.4 + 1.8 * y
    candidates = [
        ("sig", PlattCalibrator()),
        ("beta", BetaCalibrator()),
        ("pav", PAVLLRCalibrator()),
    ]
    fold = np.empty(240, dtype=int)
    fold[np.argsort(s, kind="stable")] = np.arange(240) % 5
    P = np.empty((3, 240))
    for c, (_, cal) in enumerate(candidates):
        for k in range(5):
            fitted = clone(cal).fit(s[fold != k], y[fold != k])
            p1 = fitted.predict_proba(s[fold == k])[:, 1]
            P[c, fold == k] = np.where(y[fold == k] == 1, p1, 1 - p1)
    u = np.full(240, 1 / 240)
    w = stacking_weights(P)
    assert_allclose(w, _simplex_reference(P, u), atol=1e-8)
    assert_allclose(w, [0.465, 0, 0.535], atol=1e-3)
    assert w[1] == 0 and _kkt_holds(w, P, u)
    cal = AutoCalibrator(n_folds=5, candidates=candidates, uninformative_weight=0).fit(
        s, y
    )
    oof = np.array([_binary_oof(c, s, y) for _, c in candidates])
    assert_allclose(cal.weights_[0], _simplex_reference(np.exp(-oof), u), atol=1e-8)


def test_stacking_weights_maximize_the_mixture_likelihood():
    """Exact optimality (KKT) and SLSQP's weights to 1e-8, with a dominated
    candidate (weight 0), a tie (the earlier one takes the weight), sample
    weights, failures and small weights dropped with the rest re-maximized."""
    from skcalib._auto import stacking_weights

    rng = np.random.default_rng(0)
    P = rng.uniform(0.05, 1, (4, 60))
    P[2] = 0.5 * P[0]  # dominated: weight 0
    s = rng.uniform(0.5, 2, 60)
    w = stacking_weights(P, s, min_weight=0)
    assert w.sum() == pytest.approx(1.0) and w[2] == 0
    assert _kkt_holds(w, P, s / s.sum())
    assert_allclose(w, _simplex_reference(P, s / s.sum()), atol=1e-8)
    tied = np.vstack([P[:2], P[1:2], P[3:]])  # candidate 2 repeats candidate 1
    w_tied = stacking_weights(tied, s, min_weight=0)
    assert w_tied[2] == 0
    assert_allclose(w_tied[[0, 1, 3]], np.r_[w[:2], w[3]], atol=1e-12)
    # a weight below min_weight is dropped, the others re-maximized without it
    Q = np.vstack([P[[0, 1, 3]], P[1] * 0.98 + 0.02 * P[0] * 1.01])
    full = stacking_weights(Q, s, min_weight=0)
    small = (full > 0) & (full < 0.1)
    if small.any():
        kept = stacking_weights(Q, s, min_weight=0.1)
        assert (kept[small] == 0).all()
        ref = _simplex_reference(Q[~small], s / s.sum())
        assert_allclose(kept[~small], ref, atol=1e-8)
    # a candidate that failed (NaN) gets 0; none left: the first one
    P[1, 3] = np.nan
    assert stacking_weights(P)[1] == 0
    assert_allclose(stacking_weights(np.full((3, 5), np.nan)), [1, 0, 0])


@settings(max_examples=60, deadline=None)
@given(
    K=st.integers(2, 6),
    n=st.integers(3, 80),
    seed=st.integers(0, 2**32 - 1),
    zeros=st.integers(0, 2),
    tie=st.booleans(),
    weighted=st.booleans(),
)
def test_stacking_weights_equal_an_independent_minimization(
    K, n, seed, zeros, tie, weighted
):
    """Random problems, some candidates dominated (optimal weight 0), some
    tied (equal probabilities on some or all samples): the weights satisfy
    the optimality conditions and equal SLSQP's (K = 2: bisection's) to
    1e-8 wherever the maximizer is unique."""
    from skcalib._auto import simplex_mixture_weights

    rng = np.random.default_rng(seed)
    P = rng.uniform(0.01, 1, (K, n)) ** rng.uniform(0.3, 3)
    for c in range(min(zeros, K - 1)):  # dominated by candidate K - 1
        P[c] = P[K - 1] * rng.uniform(0.3, 1.0, n)
    if tie:  # tied on a part of the samples (ties in the values)
        P[0, : n // 2] = P[-1, : n // 2]
    s = rng.uniform(0.1, 3, n) if weighted else np.ones(n)
    s = s / s.sum()
    w = simplex_mixture_weights(P, s)
    assert (w >= 0).all() and w.sum() == pytest.approx(1, abs=1e-14)
    assert _kkt_holds(w, P, s)
    ref = _two_weights_by_bisection(P, s) if K == 2 else _simplex_reference(P, s)
    value = s @ np.log(w @ P)
    assert value >= s @ np.log(ref @ P) - 1e-13
    # the maximizer is unique where the Hessian on the support's face is
    # nonsingular: compare the weights there
    support = np.flatnonzero(w > 1e-6)
    A = P[support] / (w @ P) * np.sqrt(s)
    basis = np.linalg.svd(np.ones((1, support.shape[0])))[2][1:].T
    face = basis.T @ (A @ A.T) @ basis
    if support.shape[0] == 1 or np.linalg.eigvalsh(face).min() > 1e-3:
        assert_allclose(w, ref, atol=1e-8)


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_stacking_mixes_the_refitted_candidates(weighted):
    s, y = _binary(300, seed=6)
    w = np.random.default_rng(1).uniform(0.2, 3.0, y.shape[0]) if weighted else None
    candidates = [
        ("pav", PAVLLRCalibrator()),
        ("sigmoid", PlattCalibrator()),
        ("affine", ProperScoringAffineCalibrator(l2=1e-3)),
    ]
    cal = AutoCalibrator(n_folds=5, candidates=candidates, uninformative_weight=0).fit(
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
    s, y = _binary(300, seed=4)
    candidates = [
        ("a", ProperScoringAffineCalibrator(l2=1e-3)),
        ("b", PlattCalibrator()),
    ]
    cal = AutoCalibrator(n_folds=5, candidates=candidates, uninformative_weight=0).fit(
        s, y
    )
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
    given = AutoCalibrator()._candidates(True, 300)  # given: no anchor
    cal = AutoCalibrator(candidates=given).fit(X, y)
    sel = AutoCalibrator(candidates=given, combine="select").fit(X, y)
    assert_allclose(cal.cv_log_loss_, sel.cv_log_loss_)
    used = np.flatnonzero(cal.weights_[0])
    assert used.shape[0] >= 2
    parts = [
        AutoCalibrator(candidates=[given[c]]).fit(X, y).predict_proba(X[:20])
        for c in used
    ]
    expected = sum(w * p for w, p in zip(cal.weights_[0, used], parts, strict=True))
    assert_allclose(cal.predict_proba(X[:20]), expected, rtol=1e-9)
    assert_allclose(cal.predict_proba(X).sum(axis=1), 1.0)
    again = pickle.loads(pickle.dumps(cal))
    assert_allclose(again.predict_proba(X), cal.predict_proba(X))


def test_multiclass_affine_candidates_cross_validated_by_one_step(monkeypatch):
    """From ONE_STEP_MIN_SAMPLES on, the affine candidates' out-of-fold
    losses are those of one Newton step per fold from their fit on all the
    rows: close to the exact refits', the same weights to rounding, and the
    kept fit is the one on all the rows."""
    from skcalib import _auto
    from skcalib._multiclass_affine import one_step_refits

    X, y = _multiclass(1500, K=4, seed=2)
    assert outscored_somewhere(X, y)
    approx = AutoCalibrator().fit(X, y)
    monkeypatch.setattr(_auto, "ONE_STEP_MIN_SAMPLES", np.inf)
    exact = AutoCalibrator().fit(X, y)
    names = approx.candidate_names_
    assert (
        names
        == exact.candidate_names_
        == [
            "temperature",
            "ovr-sigmoid",
            "sms",
            "ovr-pav",
            "matrix",
        ]
    )
    # the candidates not cross-fitted: the same losses; the affine ones: close
    for c, name in enumerate(names):
        rtol = 1e-3 if name in ("temperature", "sms", "matrix") else 1e-12
        assert_allclose(approx.cv_log_loss_[0, c], exact.cv_log_loss_[0, c], rtol=rtol)
    assert_allclose(approx.weights_, exact.weights_, atol=0.02)
    assert_allclose(approx.predict_proba(X), exact.predict_proba(X), atol=2e-3)
    # the affine candidates kept are the fits on all the rows
    mixture = approx.calibrators_[0]
    kept = [c for c in mixture.calibrators if isinstance(c, MulticlassAffineCalibrator)]
    assert kept
    for cal in kept:
        fresh = clone(cal).fit(X, y)
        assert_allclose(cal.coef_, fresh.coef_, rtol=1e-9, atol=1e-12)
        assert one_step_refits(fresh, X, y, _folds(X, y)) is not None


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("start", [None, "identity"])
def test_platt_columns_are_platt_fits(weighted, start):
    """The one-vs-rest Platt fits of all the classes at once are
    PlattCalibrator's fits of each column (its optimum, to its tolerance)."""
    from skcalib._auto import _platt_columns

    X, y = _multiclass(600, K=5, seed=3)
    ovr = one_vs_rest_log_odds(X)
    w = np.random.default_rng(1).uniform(0.0, 3.0, y.shape[0]) if weighted else None
    K = X.shape[1]
    if start is not None:
        start = (np.ones(K), np.zeros(K))
    a, b = _platt_columns(ovr, y[:, None] == np.arange(K), w, start)
    for k in range(K):
        ref = PlattCalibrator().fit(ovr[:, k], (y == k).astype(int), w)
        assert_allclose(a[k], ref.coef_[0], rtol=1e-7)
        assert_allclose(b[k], ref.intercept_[0], rtol=1e-7, atol=1e-9)
        proba = ref.predict_proba(ovr[:, k])[:, 1]
        assert_allclose(expit(ovr[:, k] * a[k] + b[k]), proba, rtol=1e-8)


def test_platt_columns_leave_odd_columns_to_the_solver():
    """A class absent or a column of equal scores: None (fitted one by one)."""
    from skcalib._auto import _platt_columns

    X, y = _multiclass(200, K=3, seed=4)
    targets = y[:, None] == np.arange(3)
    assert _platt_columns(X, targets, None) is not None
    assert _platt_columns(X, targets[:, [0, 1, 1]] & (y[:, None] != 1), None) is None
    flat = X.copy()
    flat[:, 2] = -1.0
    assert _platt_columns(flat, targets, None) is None


@pytest.mark.parametrize(
    "n, decimals, n_folds",
    [(600, None, 5), (600, 1, 5), (4500, None, 2), (4500, 2, 2)],
)
def test_pav_fold_losses_are_those_of_pav_fits(n, decimals, n_folds):
    """The one-vs-rest PAV folds from one sort per class: the out-of-fold
    losses of PAVLLRCalibrator() fitted on each fold and class (ties, and
    training folds above the kernel's small-input size, included)."""
    from skcalib._auto import _pav_fold_losses

    X, y = _multiclass(n, K=4, seed=5)
    ovr = one_vs_rest_log_odds(X)
    if decimals is not None:
        ovr = ovr.round(decimals)
    folds = _folds(X, y, n_folds)
    losses = _pav_fold_losses(PAVLLRCalibrator(), ovr, y, 4, folds)
    for loss, (train, test) in zip(losses, folds, strict=True):
        proba = np.column_stack(
            [
                PAVLLRCalibrator()
                .fit(ovr[train, k], (y[train] == k).astype(int))
                .predict_proba(ovr[test, k])[:, 1]
                for k in range(4)
            ]
        )
        proba = normalize_one_vs_rest(proba)[np.arange(test.shape[0]), y[test]]
        assert_allclose(loss, -np.log(proba), rtol=1e-12, atol=1e-14)


def test_pav_fold_losses_refuse_a_fold_of_one_class():
    from skcalib._auto import _pav_fold_losses

    X, y = _multiclass(60, K=3, seed=6)
    train = np.flatnonzero(y != 2)
    folds = [(train, np.flatnonzero(y == 2))]
    with pytest.raises(ValueError, match="one class only"):
        _pav_fold_losses(PAVLLRCalibrator(), X, y, 3, folds)


@pytest.mark.parametrize(
    "K, n, weight, expected",
    [
        (2, 199, None, 5),
        (2, 200, None, 2),
        (2, 150, 2.0, 2),
        (2, 300, 0.5, 5),
        (3, 999, None, 5),
        (3, 1000, None, 2),
        (3, 600, 2.0, 2),
    ],
)
def test_auto_folds_by_calibration_weight(K, n, weight, expected):
    """``n_folds='auto'``: 5 folds below 200 samples (total weight; 1,000
    with K > 2 classes), 2 from there on; an integer ``n_folds`` is kept."""
    X, y = _multiclass(n, K=K, seed=5)
    X = X[:, 1:] - X[:, :1] if K == 2 else X  # binary: one score column
    w = None if weight is None else np.full(n, weight)
    assert len(AutoCalibrator()._folds(X, y, K, w)) == expected
    assert len(AutoCalibrator(n_folds=3)._folds(X, y, K, w)) == 3


@pytest.mark.parametrize("weighted", [False, True])
def test_platt_one_vs_rest_is_the_fits_of_each_class(weighted):
    """The default Platt candidate's fit on all the rows, the K classes at
    once from the last fold's fit: each class's calibrator as
    PlattCalibrator().fit leaves it (its parameters to its tolerance, its
    classes and priors exactly), and the same probabilities."""
    from skcalib._auto import _platt_one_vs_rest

    X, y = _multiclass(600, K=4, seed=6)
    ovr = one_vs_rest_log_odds(X)
    w = np.random.default_rng(2).uniform(0.0, 3.0, y.shape[0]) if weighted else None
    start = (np.full(4, 0.8), np.full(4, 0.1))
    fitted = _platt_one_vs_rest(PlattCalibrator(), ovr, y, 4, w, start)
    for k, cal in enumerate(fitted.calibrators):
        ref = PlattCalibrator().fit(ovr[:, k], (y == k).astype(int), w)
        assert_allclose(cal.coef_, ref.coef_, rtol=1e-9)
        assert_allclose(cal.intercept_, ref.intercept_, rtol=1e-9, atol=1e-12)
        assert cal.calibration_prior_ == ref.calibration_prior_
        assert cal.prior_ == ref.prior_
        assert_allclose(
            cal.predict_proba(ovr[:, k]), ref.predict_proba(ovr[:, k]), atol=1e-12
        )
    flat = ovr.copy()
    flat[:, 1] = 0.5
    assert _platt_one_vs_rest(PlattCalibrator(), flat, y, 4, w, start) is None


@pytest.mark.parametrize("decimals", [None, 1])
def test_pav_one_vs_rest_is_the_fits_of_each_class(decimals):
    """The default PAV candidate's fit on all the rows from the sort orders of
    its folds: each class's calibrator as PAVLLRCalibrator().fit leaves it
    (ties included), and the same LLRs and probabilities."""
    from skcalib._auto import _pav_fold_losses, _pav_one_vs_rest

    X, y = _multiclass(600, K=4, seed=7)
    ovr = one_vs_rest_log_odds(X)
    if decimals is not None:
        ovr = ovr.round(decimals)
    orders = []
    _pav_fold_losses(PAVLLRCalibrator(), ovr, y, 4, _folds(X, y), orders)
    fitted = _pav_one_vs_rest(PAVLLRCalibrator(), ovr, y, 4, orders)
    grid = np.linspace(ovr.min() - 1.0, ovr.max() + 1.0, 301)
    for k, cal in enumerate(fitted.calibrators):
        ref = PAVLLRCalibrator().fit(ovr[:, k], (y == k).astype(int))
        for name in ("X_thresholds_", "y_thresholds_", "X_min_", "X_max_"):
            ours, theirs = getattr(cal, name), getattr(ref, name)
            assert_allclose(np.hstack(ours), np.hstack(theirs))
        assert cal.calibration_prior_ == ref.calibration_prior_
        assert_allclose(cal.decision_function(grid), ref.decision_function(grid))
        assert_allclose(cal.predict_proba(grid), ref.predict_proba(grid))


def _step_posteriors(n, multiclass, seed):
    """Scores whose posteriors are a step in them: no affine map of the
    log-probabilities fits, PAV does."""
    rng = np.random.default_rng(seed)
    if multiclass:
        X = rng.normal(size=(n, 3)) * 3
        top = X.argmax(axis=1)
        y = np.where(rng.random(n) < 0.6, top, rng.integers(0, 3, n))
        return X, y
    s = rng.normal(size=n) * 4
    return s, (rng.random(n) < np.where(s > 0, 0.8, 0.2)).astype(int)


@pytest.mark.parametrize("multiclass", [False, True])
def test_the_binary_stack_must_beat_sms_by_two_standard_errors(monkeypatch, multiclass):
    """With two classes the default candidates' stack is kept only where its
    out-of-fold log loss is below SMS's by ANCHOR_Z = 2 standard errors of
    the paired per-sample differences, written out here from the
    candidates' out-of-fold probabilities of the true class; else SMS
    alone. With K > 2 classes, and for given candidates, the stack is as
    its weights say."""
    import skcalib._auto as auto

    seen = []
    original = auto.stacking_weights

    def spy(proba_true, sample_weight=None, **kwargs):
        out = original(proba_true, sample_weight, **kwargs)
        seen.append((proba_true.copy(), out))
        return out

    monkeypatch.setattr(auto, "stacking_weights", spy)
    outcomes = set()
    for X, y in (
        _multiclass(600, K=3, seed=4) if multiclass else _binary(600, seed=4),
        _step_posteriors(3000, multiclass, seed=1),
    ):
        default = AutoCalibrator(uninformative_weight=0).fit(X, y)
        P, stack = seen[-1]
        names = default.candidate_names_
        sms = names.index("sms")
        gain = np.log(stack @ np.nan_to_num(P)) - np.log(P[sms])
        large = gain.mean() > 2 * gain.std() / np.sqrt(gain.shape[0])
        expected = stack if large or multiclass else np.eye(len(names))[sms]
        assert_allclose(default.weights_[0], expected)
        outcomes.add(bool(large and stack[sms] < 1))
        n_classes = np.unique(y).shape[0]
        given = AutoCalibrator()._candidates(multiclass, y.shape[0], n_classes)
        alone = AutoCalibrator(candidates=given, uninformative_weight=0).fit(X, y)
        assert_allclose(alone.weights_[0], stack)
    assert outcomes == {False, True}  # SMS better alone on one, not the other


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_sms_is_sms_of_the_two_log_probabilities(weighted):
    """The binary SMS candidate is MulticlassAffineCalibrator(kind='sms') on
    ``(log sigmoid(-s), log sigmoid(s))``: the same posteriors, and LLRs
    that give them at the calibration prior; log-odds of +/-1000 are the
    log-probabilities 0 and -1000, without a warning."""
    from skcalib._auto import _BinarySMS

    s, y = _binary(400, seed=6)
    s[:3] = [1000.0, -1000.0, 0.0]
    w = np.random.default_rng(6).uniform(0.2, 3, y.shape[0]) if weighted else None
    inner = s.copy()
    inner[:2] = 0.0
    columns = np.column_stack([np.log(expit(-inner)), np.log(expit(inner))])
    columns[0] = [-1000.0, 0.0]
    columns[1] = [0.0, -1000.0]
    ref = MulticlassAffineCalibrator(kind="sms").fit(columns, y, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = _BinarySMS().fit(s, y, sample_weight=w)
        proba = cal.predict_proba(s)
    assert_allclose(proba, ref.predict_proba(columns), rtol=1e-12, atol=1e-300)
    prior = cal.calibration_prior_
    assert_allclose(expit(cal.decision_function(s) + logit(prior)), proba[:, 1])


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_sms_cross_validated_by_one_step(monkeypatch, weighted):
    """From ONE_STEP_MIN_SAMPLES on, the binary SMS candidate's out-of-fold
    losses are those of one Newton step per fold from its fit on all the
    rows: within 1e-3 of the exact refits', the other candidates' unchanged,
    and the SMS kept is the fit on all the rows."""
    from skcalib import _auto

    s, y = _binary(3000, seed=15)  # SMS is kept, weighted or not
    w = np.random.default_rng(15).uniform(0.2, 3, y.shape[0]) if weighted else None
    approx = AutoCalibrator().fit(s, y, sample_weight=w)
    monkeypatch.setattr(_auto, "ONE_STEP_MIN_SAMPLES", np.inf)
    exact = AutoCalibrator().fit(s, y, sample_weight=w)
    names = approx.candidate_names_
    for c, name in enumerate(names):
        rtol = 1e-3 if name == "sms" else 1e-12
        assert_allclose(approx.cv_log_loss_[0, c], exact.cv_log_loss_[0, c], rtol=rtol)
    assert approx.selected_ == exact.selected_
    kept = approx.calibrators_[0]
    parts = getattr(kept, "calibrators", [kept])
    sms = [p for p in parts if isinstance(p, _auto._BinarySMS)]
    assert sms
    fresh = _auto._BinarySMS().fit(s, y, sample_weight=w)
    assert_allclose(sms[0].decision_function(s), fresh.decision_function(s), rtol=1e-12)
