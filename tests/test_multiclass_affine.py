"""Tests of MulticlassAffineCalibrator and its objective."""

import pickle
import warnings

import numpy as np
import pytest
from _sklearn_checks import needs_sklearn_temperature
from scipy.special import log_softmax, softmax
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.utils._param_validation import InvalidParameterError

from skcalib import MulticlassAffineCalibrator
from skcalib._multiclass_affine import MulticlassObjective, unpack

KINDS = ["temperature", "vector", "matrix"]


def _scores(n=1500, K=3, seed=0, weights=False):
    """Over-confident, biased log-scores of ``K`` classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    S = 3.0 * (np.eye(K)[y] + rng.normal(0, 0.8, (n, K))) + np.arange(K) * 0.5
    w = rng.uniform(0.1, 3.0, n) if weights else None
    return S, y, w


def _brute_force_loss(W, b, S, y, w, p_classes, K):
    """Prior-weighted log loss by a plain loop over the samples."""
    w = np.ones(len(y)) if w is None else w
    totals = np.zeros(K)
    sums = np.zeros(K)
    for s, c, wi in zip(S, y, w, strict=True):
        z = W @ s + b
        sums[c] += wi * -(z[c] - np.log(np.exp(z - z.max()).sum()) - z.max())
        totals[c] += wi
    return float((p_classes * sums / totals).sum())


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params, match",
    [
        ({"kind": "diagonal"}, "'kind'"),
        ({"l2": -1.0}, "'l2'"),
        ({"tol": 0.0}, "'tol'"),
        ({"max_iter": 0}, "'max_iter'"),
        ({"p_classes": "uniform"}, "'p_classes'"),
    ],
)
def test_bad_parameters(params, match):
    S, y, _ = _scores(60)
    with pytest.raises(InvalidParameterError, match=match):
        MulticlassAffineCalibrator(**params).fit(S, y)


@pytest.mark.parametrize(
    "p_classes", [[0.5, 0.5], [0.5, 0.6, -0.1], [0.2, 0.2, 0.2], [0.0, 0.5, 0.5]]
)
def test_bad_p_classes(p_classes):
    S, y, _ = _scores(60)
    with pytest.raises(ValueError, match="`p_classes` must hold 3 positive priors"):
        MulticlassAffineCalibrator(p_classes=p_classes).fit(S, y)


def test_bad_input():
    S, y, _ = _scores(60)
    with pytest.raises(ValueError, match="got 1 class"):
        MulticlassAffineCalibrator().fit(S, np.zeros(60))
    for kind in ("temperature", "vector"):
        with pytest.raises(ValueError, match="one score column per class"):
            MulticlassAffineCalibrator(kind=kind).fit(S[:, :2], y)
    w = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="class 1 zero total weight"):
        MulticlassAffineCalibrator().fit(S, y, sample_weight=w)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        MulticlassAffineCalibrator().fit(np.where(S > 5, np.nan, S), y)


# ------------------------------------------------------------------ objective
@pytest.mark.parametrize(
    "kind, d", [("temperature", 4), ("vector", 4), ("matrix", 4), ("matrix", 2)]
)
@pytest.mark.parametrize("weights", [False, True])
def test_objective_derivatives_match_finite_differences(kind, d, weights):
    K = 4
    rng = np.random.default_rng(2)
    S = rng.normal(0, 1.5, (200, d))
    y = rng.integers(0, K, 200)
    w = rng.uniform(0.1, 2.0, 200) if weights else None
    obj = MulticlassObjective(
        kind, d, K, class_factors=rng.uniform(0.5, 2, K), exponent=1, l2=0.3
    )
    chunk = obj.prepare((S, y, w))
    theta = rng.normal(0, 0.5, obj.n_params)

    def total(t, order):
        parts = obj.terms(t, chunk, order), obj.penalty(t, order)
        if order == 0:
            return parts[0] + parts[1]
        return [a + b for a, b in zip(*parts, strict=True)]

    f, g, h = total(theta, 2)
    eps = 1e-6
    g_num = np.empty(obj.n_params)
    h_num = np.empty((obj.n_params, obj.n_params))
    for j in range(obj.n_params):
        e = np.zeros(obj.n_params)
        e[j] = eps
        g_num[j] = (total(theta + e, 0) - total(theta - e, 0)) / (2 * eps)
        h_num[j] = (total(theta + e, 1)[1] - total(theta - e, 1)[1]) / (2 * eps)
    np.testing.assert_allclose(g, g_num, rtol=1e-6, atol=1e-8 * abs(f))
    np.testing.assert_allclose(h, h_num, rtol=1e-5, atol=1e-7 * np.abs(h).max())
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kind", KINDS)
def test_objective_value_equals_brute_force(kind):
    K = 3
    S, y, w = _scores(120, K, weights=True)
    p_classes = np.array([0.2, 0.5, 0.3])
    totals = np.bincount(y, weights=w, minlength=K)
    obj = MulticlassObjective(
        kind, K, K, class_factors=p_classes / totals, exponent=3, l2=0.2
    )
    theta = np.random.default_rng(4).normal(0, 0.5, obj.n_params)
    W, b = unpack(kind, theta, K, K)
    W = W / 8.0  # the objective's parameters are W * 2**exponent
    expected = _brute_force_loss(W, b, S, y, w, p_classes, K)
    value = obj.terms(theta, obj.prepare((S, y, w)), 0)
    assert value == pytest.approx(expected, rel=1e-12)
    if kind == "matrix":
        W = W - W.mean(axis=0)
    assert obj.penalty(theta, 0) == pytest.approx(0.2 * (W**2).sum(), rel=1e-12)


# ---------------------------------------------------------------- correctness
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weights", [False, True])
def test_fit_is_the_minimum_of_the_brute_force_loss(kind, weights):
    K = 3
    S, y, w = _scores(400, K, weights=weights)
    p = np.array([0.5, 0.3, 0.2])
    cal = MulticlassAffineCalibrator(kind=kind, p_classes=p).fit(S, y, w)
    best = _brute_force_loss(cal.coef_, cal.intercept_, S, y, w, p, K)
    rng = np.random.default_rng(0)
    for _ in range(10):
        dW = rng.normal(0, 0.01, (K, K))
        if kind == "temperature":
            dW = dW[0, 0] * np.eye(K)
        elif kind == "vector":
            dW = np.diag(np.diag(dW))
        db = 0 if kind == "temperature" else rng.normal(0, 0.01, K)
        worse = _brute_force_loss(cal.coef_ + dW, cal.intercept_ + db, S, y, w, p, K)
        assert best <= worse


def test_matrix_equals_multinomial_logistic_regression():
    S, y, _ = _scores(800, 3)
    cal = MulticlassAffineCalibrator(l2=0).fit(S, y)  # unpenalized
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(S, y)
    np.testing.assert_allclose(
        cal.predict_proba(S), lr.predict_proba(S), rtol=1e-5, atol=1e-7
    )


@needs_sklearn_temperature
def test_temperature_no_worse_than_calibrated_classifier_cv():
    X, y = make_classification(
        3000, n_features=10, n_informative=6, n_classes=4, random_state=0
    )
    clf = GaussianNB().fit(X[:1000], y[:1000])
    Xc, yc = X[1000:], y[1000:]
    sk = CalibratedClassifierCV(FrozenEstimator(clf), method="temperature")
    sk.fit(Xc, yc)
    inv_t = sk.calibrated_classifiers_[0].calibrators[0].beta_
    proba = clf.predict_proba(Xc)
    S = np.log(proba + np.finfo(proba.dtype).eps)  # scikit-learn's logits
    ours = MulticlassAffineCalibrator(kind="temperature", l2=0).fit(S, yc)
    rows = np.arange(yc.shape[0])
    loss_ours = -log_softmax(S * ours.coef_[0, 0], axis=1)[rows, yc].mean()
    loss_sk = -log_softmax(S * inv_t, axis=1)[rows, yc].mean()
    assert loss_ours <= loss_sk + 1e-12
    np.testing.assert_allclose(ours.coef_[0, 0], inv_t, rtol=1e-6)


def test_temperature_ignores_per_sample_shifts_of_the_scores():
    S, y, _ = _scores(500, 3)
    a = MulticlassAffineCalibrator(kind="temperature").fit(S, y)
    b = MulticlassAffineCalibrator(kind="temperature").fit(log_softmax(S, 1), y)
    np.testing.assert_allclose(a.predict_proba(S), b.predict_proba(S), atol=1e-8)


def test_p_classes_weights_each_class_mean_loss():
    S, y, _ = _scores(900, 3)
    keep = (y != 2) | (np.arange(900) % 4 == 0)  # class 2 rare
    S, y = S[keep], y[keep]
    default = MulticlassAffineCalibrator().fit(S, y)
    np.testing.assert_allclose(default.p_classes_, np.bincount(y) / y.shape[0])
    uniform = MulticlassAffineCalibrator(p_classes=[1 / 3, 1 / 3, 1 / 3]).fit(S, y)
    # equal priors raise the rare class's posteriors
    assert uniform.predict_proba(S)[:, 2].mean() > default.predict_proba(S)[:, 2].mean()


def test_weights_equal_repeated_rows():
    S, y, _ = _scores(300, 3)
    reps = np.random.default_rng(3).integers(0, 4, 300)
    a = MulticlassAffineCalibrator(kind="vector").fit(S, y, sample_weight=reps)
    b = MulticlassAffineCalibrator(kind="vector").fit(
        np.repeat(S, reps, axis=0), np.repeat(y, reps)
    )
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-7, atol=1e-9)


def test_l2_shrinks_the_scale():
    S, y, _ = _scores(500, 3)
    norms = [
        np.linalg.norm(MulticlassAffineCalibrator(l2=l2).fit(S, y).coef_)
        for l2 in (0.0, 0.01, 1.0)
    ]
    assert norms[0] > norms[1] > norms[2] > 0


@pytest.mark.parametrize("kind", KINDS)
def test_outputs(kind):
    S, y, _ = _scores(400, 3)
    labels = np.array(["a", "b", "c"])[y]
    cal = MulticlassAffineCalibrator(kind=kind).fit(S, labels)
    proba = cal.predict_proba(S)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba, softmax(S @ cal.coef_.T + cal.intercept_, 1))
    np.testing.assert_allclose(cal.transform(S), np.log(proba), rtol=1e-10)
    np.testing.assert_array_equal(cal.predict(S), cal.classes_[proba.argmax(1)])
    assert cal.intercept_.sum() == pytest.approx(0.0, abs=1e-12)
    assert cal.__sklearn_tags__().classifier_tags.multi_class


def test_pickle_clone_and_set_output():
    S, y, _ = _scores(300, 3)
    cal = MulticlassAffineCalibrator(kind="vector", l2=0.1).fit(S, y)
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.predict_proba(S), cal.predict_proba(S))
    assert clone(cal).get_params() == cal.get_params()
    pytest.importorskip("pandas")
    out = cal.set_output(transform="pandas").transform(S)
    assert out.shape == (300, 3)
    assert list(out.columns) == cal.get_feature_names_out().tolist()


@pytest.mark.parametrize("kind", ["temperature", "vector", "matrix"])
def test_default_penalty_keeps_separable_fits_finite(kind):
    # l2 defaulted to 0: on a small separable calibration set (wine: 44
    # samples) the slopes ran off and the posteriors were 0 and 1.
    from skcalib._solver import DEFAULT_L2

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 15)
    S = 4.0 * np.eye(3)[y] + rng.normal(0, 0.3, (45, 3))  # separable
    assert MulticlassAffineCalibrator().l2 == DEFAULT_L2 > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = MulticlassAffineCalibrator(kind=kind).fit(S, y)
    proba = cal.predict_proba(S)
    assert 0 < proba.min() and proba.max() < 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        exact = MulticlassAffineCalibrator(kind=kind, l2=0).fit(S, y)
    assert np.abs(exact.coef_).max() > np.abs(cal.coef_).max()


def test_a_pipeline_ending_in_it_is_a_classifier():
    # as the binary calibrators: stratified folds and a default score
    from sklearn.base import is_classifier
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    S, y = _scores(600)[:2]
    order = np.argsort(y, kind="stable")
    S, y = S[order], y[order]
    pipe = make_pipeline(FunctionTransformer(), MulticlassAffineCalibrator())
    assert is_classifier(pipe)
    expected = [
        accuracy_score(y[te], clone(pipe).fit(S[tr], y[tr]).predict(S[te]))
        for tr, te in StratifiedKFold(3).split(S, y)
    ]
    np.testing.assert_allclose(cross_val_score(pipe, S, y, cv=3), expected)
    assert min(expected) > 0.5  # unstratified folds would miss a class
    cal = MulticlassAffineCalibrator().fit(S, y)
    assert cal.score(S, y) == accuracy_score(y, cal.predict(S))


@pytest.mark.parametrize(
    "kind, scale", [("matrix", 1e3), ("vector", 1e4), ("temperature", 1e300)]
)
def test_log_scores_of_large_magnitude(kind, scale):
    # the identity start on scores x1e3 already spans more than the bound where
    # the fit counts as unbounded: it stopped after one iteration with 0/1
    # posteriors. The affine family is scale-equivariant, so without a penalty
    # the fit on scaled scores gives the same posteriors.
    S, y, _ = _scores(600)
    logp = log_softmax(S, axis=1)
    ref = MulticlassAffineCalibrator(kind=kind, l2=0.0).fit(logp, y)
    cal = MulticlassAffineCalibrator(kind=kind, l2=0.0).fit(logp * scale, y)
    np.testing.assert_allclose(
        cal.predict_proba(logp * scale), ref.predict_proba(logp), atol=1e-9
    )
    assert cal.n_iter_ > 1


@pytest.mark.parametrize("kind", ["temperature", "vector", "matrix"])
def test_scores_near_the_float_maximum(kind):
    # the logits overflowed ("overflow in matmul", then inf - inf): they are
    # computed scaled by a power of two, the posteriors from their differences
    S, y, _ = _scores(600)
    # under-confident scores: |W| > 1, so W s overflows at 1.7e308
    cal = MulticlassAffineCalibrator(kind=kind).fit(S / 10, y)
    assert np.abs(cal.coef_).max() > 1
    big = 1.7e308
    X = np.array([[big, -big, 0.0], [big, big, big], [-big, 1.0, 2.0], [1.0, 2.0, 3.0]])
    proba = cal.predict_proba(X)
    log_proba = cal.transform(X)
    assert not np.isnan(proba).any() and not np.isnan(log_proba).any()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.exp(log_proba), proba, atol=1e-15)
    assert_equal = np.testing.assert_array_equal
    # ordinary rows are unchanged: W s + b as before
    z = X[3] @ cal.coef_.T + cal.intercept_
    np.testing.assert_allclose(proba[3], softmax(z), rtol=1e-14)
    # the other rows' limits: the largest logit takes it all, or ties
    W, b = cal.coef_, cal.intercept_
    for i in range(3):
        z = (X[i] / big) @ W.T  # the dominant part of the logits
        second, first = np.sort(z)[-2:]
        if first - second > 1e-12:
            assert_equal(proba[i].argmax(), z.argmax())
            assert proba[i].max() == 1.0
    if kind == "temperature":  # equal scores: equal posteriors
        np.testing.assert_allclose(proba[1], 1 / 3)
    # the classes left by a score of -1.7e308 compete on their own logits
    if kind != "matrix":
        keep = W[1:, 1:] @ X[2, 1:] + b[1:]
        np.testing.assert_allclose(log_proba[2, 1:], log_softmax(keep), rtol=1e-12)
        assert log_proba[2, 0] < -1e300 and proba[2, 0] == 0.0
    assert_equal(cal.predict(X), proba.argmax(axis=1))


def test_mixed_type_labels_are_a_value_error():
    S, _, _ = _scores(6)
    y = np.array([0, "a", 2.5] * 2, dtype=object)
    with pytest.raises(ValueError, match="`y` mixes label types"):
        MulticlassAffineCalibrator().fit(S, y)
