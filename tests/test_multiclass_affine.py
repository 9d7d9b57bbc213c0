"""Tests of MulticlassAffineCalibrator and its objective."""

import pickle
import warnings

import numpy as np
import pytest
from _scores import make_scores
from _sklearn_checks import needs_sklearn_temperature
from hypothesis import given, settings
from hypothesis import strategies as st
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
from skcalib._kernel._solver import ArrayData
from skcalib._multiclass_affine import MulticlassObjective, MulticlassRidge, unpack

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
def _ridge(kind, d, K, rng, structured):
    """A MulticlassRidge with random weights (towards the identity if
    ``structured``)."""
    weights = rng.uniform(0.1, 1.0, (K, d))
    return MulticlassRidge(
        kind,
        d,
        K,
        entry_weights=weights,
        intercept_weight=0.7 if kind != "temperature" else 0.0,
        column_scale=rng.uniform(0.5, 2.0, d) if kind != "temperature" else [0.5] * d,
        identity=structured,
    )


def _brute_force_penalty(kind, theta, ridge_args, d, K):
    """The penalty of :func:`_ridge`'s arguments by its definition: each
    column of ``[W, b]`` at its least value over the shifts ``t`` common to
    all classes (weighted mean), or no shift for a diagonal ``W``."""
    weights, b_weight, scale, identity = ridge_args
    W, b = unpack(kind, theta, d, K)
    ref = np.eye(K, d) if identity else np.zeros((K, d))
    total = 0.0
    for j in range(d):
        x = scale[j] * W[:, j] - ref[:, j]
        a = weights[:, j]
        if kind == "matrix":
            t = -(a @ x) / a.sum()
            total += float(a @ (x + t) ** 2)
        else:
            total += float(a[j] * x[j] ** 2)
    if kind != "temperature":
        total += b_weight * float(((b - b.mean()) ** 2).sum())
    return total


@pytest.mark.parametrize(
    "kind, d", [("temperature", 4), ("vector", 4), ("matrix", 4), ("matrix", 2)]
)
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("structured", [False, True])
def test_objective_derivatives_match_finite_differences(kind, d, weights, structured):
    K = 4
    if structured and d != K:
        pytest.skip("the identity needs one column per class")
    rng = np.random.default_rng(2)
    S = rng.normal(0, 1.5, (200, d))
    y = rng.integers(0, K, 200)
    w = rng.uniform(0.1, 2.0, 200) if weights else None
    obj = MulticlassObjective(
        kind,
        d,
        K,
        class_factors=rng.uniform(0.5, 2, K),
        exponent=rng.integers(-2, 3, d) if kind != "temperature" else 1,
        penalty=_ridge(kind, d, K, rng, structured),
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
@pytest.mark.parametrize("structured", [False, True])
def test_objective_value_equals_brute_force(kind, structured):
    K = 3
    S, y, w = _scores(120, K, weights=True)
    p_classes = np.array([0.2, 0.5, 0.3])
    totals = np.bincount(y, weights=w, minlength=K)
    obj = MulticlassObjective(kind, K, K, class_factors=p_classes / totals, exponent=3)
    theta = np.random.default_rng(4).normal(0, 0.5, obj.n_params)
    W, b = unpack(kind, theta, K, K)
    W = W / 8.0  # the objective's parameters are W * 2**exponent
    expected = _brute_force_loss(W, b, S, y, w, p_classes, K)
    value = obj.terms(theta, obj.prepare((S, y, w)), 0)
    assert value == pytest.approx(expected, rel=1e-12)
    rng = np.random.default_rng(5)
    weights = rng.uniform(0.1, 1.0, (K, K))
    scale = rng.uniform(0.5, 2.0, K) if kind != "temperature" else np.full(K, 0.5)
    ridge = MulticlassRidge(
        kind,
        K,
        K,
        entry_weights=weights,
        intercept_weight=0.7 if kind != "temperature" else 0.0,
        column_scale=scale,
        identity=structured,
    )
    args = (weights, 0.7, scale, structured)
    assert ridge(theta, 0) == pytest.approx(
        _brute_force_penalty(kind, theta, args, K, K), rel=1e-12, abs=1e-14
    )


@pytest.mark.parametrize("identity", [False, True])
def test_matrix_ridge_product_equals_its_dense_hessian(identity):
    # the matrix kind keeps per-column weights and forms A only on request;
    # a column of zero weights (no penalty on it) included
    K = 4
    rng = np.random.default_rng(7)
    weights = rng.uniform(0.1, 1.0, (K, K))
    weights[:, 2] = 0.0
    ridge = MulticlassRidge(
        "matrix",
        K,
        K,
        entry_weights=weights,
        intercept_weight=0.7,
        column_scale=rng.uniform(0.5, 2.0, K),
        identity=identity,
    )
    theta = rng.normal(0, 0.5, K * K - 1)
    value, grad = ridge(theta, 1)
    A = ridge.hess
    np.testing.assert_allclose(grad, A @ theta + ridge.linear, rtol=1e-13, atol=1e-15)
    expected = 0.5 * theta @ A @ theta + ridge.linear @ theta + ridge.const
    assert value == pytest.approx(expected, rel=1e-13)
    np.testing.assert_array_equal(A[2::5], 0.0)  # rows of W's column 2
    assert ridge(theta, 2)[2] is A


def test_objective_terms_do_not_depend_on_the_block_rows():
    # many classes: fewer rows per block (temporaries kept small)
    K = 600
    rng = np.random.default_rng(3)
    S = rng.normal(0, 2.0, (700, K))
    y = rng.integers(0, K, 700)
    w = rng.uniform(0.1, 2.0, 700)
    obj = MulticlassObjective("vector", K, K, class_factors=np.full(K, 1 / 700))
    assert obj.chunk_size == 256
    theta = rng.normal(1.0, 0.1, obj.n_params)
    chunk = obj.prepare((S, y, w))
    blocked = obj.terms(theta, chunk, 2)
    obj.chunk_size = 1 << 12
    whole = obj.terms(theta, chunk, 2)
    for a, b in zip(blocked, whole, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kind", ["matrix", "sms"])
@pytest.mark.parametrize("weights", [False, True])
def test_many_parameters_fit_by_quasi_newton_as_by_newton(monkeypatch, kind, weights):
    # from QUASI_NEWTON_MIN_PARAMS parameters (49 classes for 'matrix' and
    # 'sms') the solver is L-BFGS: the same fit, here on 5 classes
    from skcalib._kernel import _solver

    S, y, w = _scores(800, 5, weights=weights)
    newton = MulticlassAffineCalibrator(kind=kind).fit(S, y, w)
    monkeypatch.setattr(_solver, "QUASI_NEWTON_MIN_PARAMS", 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        quasi = MulticlassAffineCalibrator(kind=kind).fit(S, y, w)
    assert quasi.n_iter_ > 2 * newton.n_iter_  # the L-BFGS path was taken
    np.testing.assert_allclose(quasi.coef_, newton.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(quasi.intercept_, newton.intercept_, atol=1e-6)
    np.testing.assert_allclose(
        quasi.predict_proba(S), newton.predict_proba(S), rtol=0, atol=1e-6
    )


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
    from skcalib._kernel._solver import DEFAULT_L2

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


# ------------------------------------------------- units (issue: any units)
ALL_KINDS = ["temperature", "vector", "matrix", "ts-mix", "svs", "sms"]
# Kinds whose map absorbs a scaling of each column apart; the others tie the
# columns by one temperature, so only a scaling of all of them is a change
# of units.
PER_COLUMN = {"vector", "matrix"}


@pytest.mark.parametrize("kind", ["vector", "matrix", "temperature"])
@pytest.mark.parametrize("scale", [1e-10, 1e-160, 1e-300])
def test_default_penalty_does_not_swamp_scores_of_small_magnitude(kind, scale):
    # the penalty was on W in the units of the scores: at |S| ~ 1e-10 it
    # swamped the fit (uniform posteriors, not the class proportions) and
    # below ~1e-154 overflowed (ldexp, a spurious ConvergenceWarning)
    S, y, _ = make_scores(
        300, seed=1, kind="multiclass", n_classes=3, class_prior=[0.6, 0.3, 0.1]
    )
    ref = MulticlassAffineCalibrator(kind=kind).fit(S, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = MulticlassAffineCalibrator(kind=kind).fit(S * scale, y)
        proba = cal.predict_proba(S * scale)
    np.testing.assert_allclose(proba, ref.predict_proba(S), rtol=1e-9, atol=1e-12)
    assert abs(proba[:, 0].mean() - 0.6) < 0.1  # not uniform


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(ALL_KINDS),
    exponents=st.lists(
        st.integers(-300, 300).filter(lambda e: e != 0), min_size=3, max_size=3
    ),
    weighted=st.booleans(),
)
def test_posteriors_do_not_depend_on_the_units(kind, exponents, weighted):
    """Scores times 10**e (each column its own e for vector and matrix, one
    e for all columns for the kinds that tie them) give the same posteriors."""
    S, y, w = _scores(300, 3, seed=7, weights=weighted)
    factors = 10.0 ** np.array(exponents if kind in PER_COLUMN else exponents[:1] * 3)
    ref = MulticlassAffineCalibrator(kind=kind).fit(S, y, w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = MulticlassAffineCalibrator(kind=kind).fit(S * factors, y, w)
        proba = cal.predict_proba(S * factors)
    np.testing.assert_allclose(proba, ref.predict_proba(S), rtol=1e-9, atol=1e-12)


# ------------------------------- unpenalized temperature: converged exactly
def test_unpenalized_temperature_weights_equal_repeated_rows_when_separable():
    # no sample outscored on its own class: the loss decreases without end;
    # the fit stopped where max_iter ran out, at a point that depended on the
    # rounding (weights doubled vs rows repeated: 1/T ~5e-7 apart)
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 20)
    S = 3.0 * np.eye(3)[y] + rng.uniform(0, 1, (60, 3))
    S[np.arange(60), y] += 1.0  # each sample's own class on top
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        a = MulticlassAffineCalibrator(kind="temperature", l2=0).fit(
            S, y, sample_weight=np.full(60, 2.0)
        )
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        b = MulticlassAffineCalibrator(kind="temperature", l2=0).fit(
            np.repeat(S, 2, axis=0), np.repeat(y, 2)
        )
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    np.testing.assert_allclose(a.predict_proba(S), b.predict_proba(S), rtol=1e-12)
    # at the documented bound: some sample's logits spread over 1e4 nats
    spread = (S.max(axis=1) - S.min(axis=1)).max()
    assert a.coef_[0, 0] * spread == pytest.approx(1e4, rel=1e-12)


@pytest.mark.parametrize("kind", ["temperature", "ts-mix"])
def test_unpenalized_temperature_weights_equal_repeated_rows(kind):
    S, y, _ = _scores(400, 4, seed=2)
    a = MulticlassAffineCalibrator(kind=kind, l2=0).fit(
        S, y, sample_weight=np.full(400, 2.0)
    )
    b = MulticlassAffineCalibrator(kind=kind, l2=0).fit(
        np.repeat(S, 2, axis=0), np.repeat(y, 2)
    )
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    np.testing.assert_allclose(a.transform(S), b.transform(S), rtol=1e-12)


def test_scikit_learns_double_weights_test_passes_for_temperature():
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    from skcalib import CalibratedClassifier

    X, y = load_iris(return_X_y=True)
    X, y = StandardScaler().fit_transform(X)[:100], y[:100]
    X2 = np.repeat(X, 2, axis=0)
    y2 = np.repeat(y, 2)
    for ensemble in (True, False):
        models = [
            CalibratedClassifier(
                LogisticRegression(),
                MulticlassAffineCalibrator(kind="temperature", l2=0),
                cv=2,
                ensemble=ensemble,
            )
            for _ in range(2)
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # separable
            models[0].fit(X, y, sample_weight=np.full(100, 2.0))
            models[1].fit(X2, y2)
        np.testing.assert_allclose(
            models[0].predict_proba(X), models[1].predict_proba(X), rtol=1e-12
        )


# ----------------------------------------------------------- ts-mix, SVS, SMS
def _mean_log_loss(Z, y, v):
    """``sum v_i (-log softmax(Z_i)[y_i])`` with ``v`` summing to 1."""
    return -float(v @ log_softmax(Z, axis=1)[np.arange(y.shape[0]), y])


def _temperature_objective(a, S, y, v, l2):
    """Temperature scaling's objective written out: the mean log loss plus
    ``l2`` times the (weighted) mean square of the logits ``a s`` about each
    sample's mean."""
    centred = a * (S - S.mean(axis=1, keepdims=True))
    return _mean_log_loss(a * S, y, v) + l2 * float(v @ (centred**2).mean(axis=1))


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("l2", [0.0, 1e-5, 0.1])
def test_ts_mix_is_optimal_temperature_scaling_then_the_uniform_mixture(weights, l2):
    from scipy.optimize import minimize_scalar

    K = 4
    S, y, w = _scores(500, K, seed=11, weights=weights)
    v = (np.ones(500) if w is None else w) / (500 if w is None else w.sum())
    cal = MulticlassAffineCalibrator(kind="ts-mix", l2=l2).fit(S, y, w)
    ref = minimize_scalar(
        _temperature_objective,
        bracket=(0.1, 1.0),
        args=(S, y, v, l2),
        options={"xtol": 1e-14},
    )
    a = cal.inverse_temperature_
    assert a == pytest.approx(ref.x, abs=1e-6)
    assert _temperature_objective(a, S, y, v, l2) <= ref.fun + 1e-14
    np.testing.assert_allclose(cal.coef_, a * np.eye(K), rtol=1e-15)
    n = 500 if w is None else w.sum()  # the total weight
    assert cal.mix_weight_ == pytest.approx(1 / (n + 1), rel=1e-15)
    temp = MulticlassAffineCalibrator(kind="temperature", l2=l2).fit(S, y, w)
    np.testing.assert_allclose(temp.coef_, cal.coef_, rtol=1e-12)
    expected = (1 - cal.mix_weight_) * softmax(a * S, axis=1) + cal.mix_weight_ / K
    np.testing.assert_allclose(cal.predict_proba(S), expected, rtol=1e-12)
    np.testing.assert_allclose(cal.transform(S), np.log(expected), rtol=1e-12)
    np.testing.assert_array_equal(cal.predict(S), temp.predict(S))


def _structured_objective(params, L, y, v, lam_d, lam_o, kind):
    """SVS / SMS written out as in Berta et al. (full parameters, no gauge):
    the mean log loss of ``softmax(L (I + D)^T + b)`` plus ``lam_d`` times the
    squared intercepts and diagonal of ``D`` and ``lam_o`` times its squared
    off-diagonal entries."""
    K = L.shape[1]
    if kind == "svs":
        D, b = np.diag(params[:K]), params[K:]
    else:
        D, b = params[: K * K].reshape(K, K), params[K * K :]
    off = D - np.diag(np.diag(D))
    penalty = lam_d * (b @ b + np.diag(D) @ np.diag(D)) + lam_o * (off**2).sum()
    return _mean_log_loss(L @ (np.eye(K) + D).T + b, y, v) + penalty


@pytest.mark.parametrize("kind", ["svs", "sms"])
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("ridge", [1.0, 30.0])
def test_structured_scaling_is_the_optimum_of_its_objective(kind, weights, ridge):
    from scipy.optimize import minimize

    K, n = 3, 300
    S, y, w = _scores(n, K, seed=5, weights=weights)
    S = log_softmax(S, axis=1)  # log-probabilities, as from predict_proba
    cal = MulticlassAffineCalibrator(kind=kind, ridge=ridge).fit(S, y, w)
    total = n if w is None else w.sum()
    v = (np.ones(n) if w is None else w) / total
    # its first step is ts-mix
    ts = MulticlassAffineCalibrator(kind="ts-mix").fit(S, y, w)
    assert cal.inverse_temperature_ == pytest.approx(ts.inverse_temperature_, rel=1e-12)
    assert cal.mix_weight_ == ts.mix_weight_
    L = ts.transform(S)
    lam_d, lam_o = ridge * K / total, ridge * K * (K - 1) / total
    size = 2 * K if kind == "svs" else K * K + K
    ref = minimize(
        _structured_objective,
        np.zeros(size),
        args=(L, y, v, lam_d, lam_o, kind),
        method="BFGS",
        options={"gtol": 1e-11},
    )
    if kind == "svs":
        D, b = np.diag(ref.x[:K]), ref.x[K:]
    else:
        D, b = ref.x[: K * K].reshape(K, K), ref.x[K * K :]
    expected = softmax(L @ (np.eye(K) + D).T + b, axis=1)
    np.testing.assert_allclose(cal.predict_proba(S), expected, atol=1e-6)
    # ours, in the gauge of least penalty (a vector added to every row of
    # [W, b] changes no posterior), is no worse than scipy's optimum
    W, c = cal.coef_, cal.intercept_

    def ours(shift):
        if kind == "svs":  # a diagonal W has no such freedom
            return np.r_[np.diag(W) - 1, c + shift[-1]]
        return np.r_[(W + shift[:K] - np.eye(K)).ravel(), c + shift[-1]]

    best = minimize(
        lambda t: _structured_objective(ours(t), L, y, v, lam_d, lam_o, kind),
        np.zeros(K + 1),
        method="BFGS",
        options={"gtol": 1e-12},
    )
    assert best.fun <= ref.fun + 1e-12
    np.testing.assert_allclose(ours(best.x), ref.x, atol=1e-6)


@pytest.mark.parametrize("kind", ["svs", "sms"])
def test_structured_scaling_without_ridge_is_plain_scaling_of_ts_mix(kind):
    S, y, _ = _scores(600, 3, seed=6)
    cal = MulticlassAffineCalibrator(kind=kind, ridge=0).fit(S, y)
    L = MulticlassAffineCalibrator(kind="ts-mix").fit(S, y).transform(S)
    plain = "vector" if kind == "svs" else "matrix"
    ref = MulticlassAffineCalibrator(kind=plain, l2=0).fit(L, y)
    np.testing.assert_allclose(cal.predict_proba(S), ref.predict_proba(L), rtol=1e-9)


@pytest.mark.parametrize("kind", ["ts-mix", "svs", "sms"])
def test_weights_equal_repeated_rows_with_ts_mix(kind):
    S, y, _ = _scores(300, 3, seed=8)
    w = np.random.default_rng(8).integers(0, 4, 300)
    a = MulticlassAffineCalibrator(kind=kind).fit(S, y, sample_weight=w)
    b = MulticlassAffineCalibrator(kind=kind).fit(np.repeat(S, w, 0), np.repeat(y, w))
    assert a.mix_weight_ == b.mix_weight_ == 1 / (w.sum() + 1)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.predict_proba(S), b.predict_proba(S), rtol=1e-9)


@pytest.mark.parametrize("kind", ["ts-mix", "svs", "sms"])
def test_ts_mix_kinds_keep_a_floor_and_refuse_other_column_counts(kind):
    S, y, _ = _scores(200, 3, seed=9)
    cal = MulticlassAffineCalibrator(kind=kind).fit(S, y)
    big = np.array([[1e308, -1e308, 0.0], [-5e3, 0.0, 5e3]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = cal.predict_proba(big)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if kind == "ts-mix":
        assert proba.min() == pytest.approx(cal.mix_weight_ / 3, rel=1e-12)
    with pytest.raises(ValueError, match="one score column per class"):
        MulticlassAffineCalibrator(kind=kind).fit(S[:, :2], y)


@pytest.mark.parametrize("kind", ["ts-mix", "svs", "sms"])
def test_ts_mix_kinds_outputs_pickle_and_set_output(kind):
    S, y, _ = _scores(400, 3, seed=12)
    labels = np.array(["a", "b", "c"])[y]
    cal = MulticlassAffineCalibrator(kind=kind).fit(S, labels)
    proba = cal.predict_proba(S)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(cal.transform(S), np.log(proba), rtol=1e-12)
    np.testing.assert_array_equal(cal.predict(S), cal.classes_[proba.argmax(1)])
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.predict_proba(S), proba)
    assert clone(cal).get_params() == cal.get_params()
    pytest.importorskip("pandas")
    out = cal.set_output(transform="pandas").transform(S)
    assert list(out.columns) == cal.get_feature_names_out().tolist()


@pytest.mark.parametrize("kind", ["ts-mix", "sms"])
def test_ts_mix_kinds_fit_on_dask_equals_in_memory(kind):
    da = pytest.importorskip("dask.array")
    import dask

    S, y, w = _scores(3000, 4, seed=13, weights=True)
    ref = MulticlassAffineCalibrator(kind=kind).fit(S, y, w)
    with dask.config.set(scheduler="synchronous"):
        got = MulticlassAffineCalibrator(kind=kind).fit(
            da.from_array(S, chunks=(1000, 4)),
            da.from_array(y, chunks=1000),
            da.from_array(w, chunks=1000),
        )
        proba = got.predict_proba(da.from_array(S, chunks=(700, 4))).compute()
    assert got.mix_weight_ == pytest.approx(ref.mix_weight_, rel=1e-12)
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(proba, ref.predict_proba(S), rtol=1e-9)


def _one_step_problem():
    rng = np.random.default_rng(3)
    n, K = 600, 4
    y = rng.integers(0, K, n)
    X = log_softmax(2.0 * (np.eye(K)[y] + rng.normal(0, 0.9, (n, K))), axis=1)
    fold = rng.permutation(n) % 3
    folds = [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(3)]
    return X, y, folds


@pytest.mark.parametrize(
    "kind, l2",
    [
        ("sms", 1e-5),
        ("svs", 1e-5),
        ("matrix", 0.0),
        ("matrix", 1e-5),
        ("matrix", 1e-3),
        ("temperature", 0.0),
        ("temperature", 1e-3),
        ("vector", 1e-3),
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("p_classes", [None, [0.1, 0.2, 0.3, 0.4]])
def test_one_step_refits_are_a_newton_step_on_the_training_rows(
    kind, l2, weighted, p_classes
):
    """Each refit is one Newton step, from the fit on all the rows, of the
    objective of the training rows alone (its own class weights, for SVS /
    SMS its own ridge, for the other kinds the ``l2`` penalty of the fit on
    all the rows), computed here on those rows directly; and it is far
    closer to the exact refit than the fit on all the rows is."""
    from skcalib._multiclass_affine import _ts_mix_chunk, one_step_refits

    X, y, folds = _one_step_problem()
    w = np.random.default_rng(4).uniform(0.2, 2.0, y.shape[0]) if weighted else None
    params = {"kind": kind, "l2": l2, "p_classes": p_classes}
    full = MulticlassAffineCalibrator(**params).fit(X, y, w)
    refits = one_step_refits(full, X, y, folds, w)
    K = 4
    S = X
    if kind in ("sms", "svs"):
        S = _ts_mix_chunk(
            full._ts_coef[0, 0], full._ts_exponent, full.mix_weight_, (X, y, w)
        )[0]
    for (train, test), refit in zip(folds, refits, strict=True):
        wt = np.ones(train.shape[0]) if w is None else w[train]
        totals = np.bincount(y[train], weights=wt, minlength=K)
        prior = totals / totals.sum() if p_classes is None else np.asarray(p_classes)
        obj = MulticlassObjective(
            full._map_kind, K, K, class_factors=prior / totals, exponent=full._exponent
        )
        chunk = obj.prepare((S[train], y[train], wt))
        _, g, H = obj.terms(full._theta, chunk, 2)
        if kind in ("sms", "svs"):
            pen = full._structured_penalty(
                full._map_kind, K, K, full._exponent, float(totals.sum())
            )
            _, gp, Hp = pen(full._theta, 2)
            g, H = g + gp, H + Hp
        elif l2 > 0:
            pen = full._scale_penalty(
                kind,
                ArrayData(X, y, w),
                K,
                K,
                full.p_classes_ / np.bincount(y, weights=w, minlength=K),
                full._exponent,
            )
            _, gp, Hp = pen(full._theta, 2)
            g, H = g + gp, H + Hp
        expected = full._theta - np.linalg.solve(H, g)
        np.testing.assert_allclose(refit._theta, expected, rtol=1e-9, atol=1e-12)
        exact = MulticlassAffineCalibrator(**params).fit(
            X[train], y[train], None if w is None else w[train]
        )
        p_exact = exact.predict_proba(X[test])
        err_step = np.abs(refit.predict_proba(X[test]) - p_exact).max()
        err_full = np.abs(full.predict_proba(X[test]) - p_exact).max()
        assert err_step < 0.25 * err_full


@pytest.mark.parametrize("kind", ["sms", "temperature"])
@pytest.mark.parametrize("p_classes", [None, [0.1, 0.2, 0.3, 0.4]])
def test_one_step_refit_losses_are_those_of_the_refits(kind, p_classes):
    """``losses=True``: each fold's per-sample log loss of its refit's
    ``predict_proba`` on the test rows, in their order (the classes are
    summed apart with ``p_classes``)."""
    from skcalib._multiclass_affine import one_step_refits

    X, y, folds = _one_step_problem()
    full = MulticlassAffineCalibrator(kind=kind, l2=0.0, p_classes=p_classes)
    full.fit(X, y)
    refits, losses = one_step_refits(full, X, y, folds, losses=True)
    for refit, loss, (_, test) in zip(refits, losses, folds, strict=True):
        proba = refit.predict_proba(X[test])[np.arange(test.shape[0]), y[test]]
        np.testing.assert_allclose(loss, -np.log(proba), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kind", ["sms", "svs", "ts-mix", "matrix", "temperature"])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_validated_is_fit(kind, weighted):
    """The fit on validated arrays with class indices is ``fit``'s, exactly;
    a class of zero weight goes to ``fit``, which refuses it."""
    X, y, _ = _one_step_problem()
    w = np.random.default_rng(2).uniform(0.0, 2.0, y.shape[0]) if weighted else None
    ref = MulticlassAffineCalibrator(kind=kind).fit(X, y, w)
    fitted = MulticlassAffineCalibrator(kind=kind)._fit_validated(X, y, w, 4)
    np.testing.assert_array_equal(fitted.coef_, ref.coef_)
    np.testing.assert_array_equal(fitted.intercept_, ref.intercept_)
    np.testing.assert_array_equal(fitted.classes_, ref.classes_)
    np.testing.assert_array_equal(fitted.predict_proba(X), ref.predict_proba(X))
    assert fitted.n_features_in_ == 4
    zero = np.where(y == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match="zero total weight"):
        MulticlassAffineCalibrator(kind=kind)._fit_validated(X, y, zero, 4)


@pytest.mark.parametrize("kind", ["sms", "svs", "ts-mix"])
@pytest.mark.parametrize("factor", [1.0, 0.2, 5.0])
def test_ts_start_reaches_the_same_fit(kind, factor):
    """The ts-mix step started from a given inverse temperature (near the
    optimum, or far from it) reaches the fit started from 1."""
    X, y, _ = _one_step_problem()
    ref = MulticlassAffineCalibrator(kind=kind).fit(X, y)
    start = (
        factor
        * MulticlassAffineCalibrator(kind="temperature", l2=0).fit(X, y).coef_[0, 0]
    )
    fitted = MulticlassAffineCalibrator(kind=kind)._fit_validated(
        X, y, None, 4, ts_start=start
    )
    np.testing.assert_allclose(
        fitted.inverse_temperature_, ref.inverse_temperature_, rtol=1e-9
    )
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(fitted.predict_proba(X), ref.predict_proba(X), atol=1e-9)


def test_one_step_refits_decline_kinds_they_do_not_fit():
    from skcalib._multiclass_affine import one_step_refits

    X, y, folds = _one_step_problem()
    full = MulticlassAffineCalibrator(kind="ts-mix").fit(X, y)
    assert one_step_refits(full, X, y, folds) is None
