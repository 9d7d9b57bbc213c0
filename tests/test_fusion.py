"""Tests of ProperScoringFusion and its objective."""

import pickle
import warnings

import numpy as np
import pytest
from _scores import make_scores
from scipy.special import logit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skcalib import ProperScoringAffineCalibrator, ProperScoringFusion
from skcalib._fusion import FusionObjective
from skcalib._kernel._linear_rule import penalty_variance
from skcalib._kernel._solver import ArrayData, Standardizer, _certified, minimize
from skcalib._kernel._special import prior_weighted_objective

RULES = [(1.0, 1.0), (2.0, 2.0), (2.0, 1.0), (0.5, 0.5), (1.5, 3.2)]
#: correlated systems (a shared component) of growing noise, the later ones
#: better separated: fusion helps
SYSTEMS = {
    "shared": 0.5,
    "loc": (0.0, 1.0),
    "spread": (0.4, 1.0),
    "weight_range": (0.1, 3.0),
    "labels": bool,
}


def _standardizer(X):
    return Standardizer.fit(X, X.min(axis=0), X.max(axis=0))


def _penalty_variance(X, y, w, p_target):
    """Each column's variance under the objective's weights (numpy's)."""
    w = np.ones(y.shape[0]) if w is None else w
    v = w * np.where(y, p_target / w[y].sum(), (1 - p_target) / w[~y].sum())
    mean = np.average(X, axis=0, weights=v)
    return np.average((X - mean) ** 2, axis=0, weights=v)


def _objective_value(est, X, y, w=None, *, coef=None, intercept=None):
    """The fusion objective by the public Beta-rule function, independently:
    the penalty is on each weight per standard deviation of its column,
    relative to the normalized objective."""
    coef = est.coef_ if coef is None else coef
    intercept = est.intercept_ if intercept is None else intercept
    llr = X @ coef + intercept
    value = prior_weighted_objective(
        llr, y, w, alpha=est.alpha, beta=est.beta, prior=est.p_target
    )
    var = _penalty_variance(X, y, w, est.p_target)
    # on the normalized objective: relative to that of the uninformative l = 0
    c0 = prior_weighted_objective(
        np.zeros(y.shape[0]), y, w, alpha=est.alpha, beta=est.beta, prior=est.p_target
    )
    return value + est.l2 * c0 * float(coef**2 @ var)


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.0},
        {"beta": -1.0},
        {"p_target": 0.0},
        {"p_target": 1.0},
        {"prior": 1.5},
        {"l2": -1.0},
        {"tol": 0.0},
        {"max_iter": 0},
    ],
)
def test_bad_parameters(params):
    X, y, _ = make_scores(50, n_columns=3, **SYSTEMS)
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(params))}'"):
        ProperScoringFusion(**params).fit(X, y)


def test_bad_input():
    X, y, _ = make_scores(50, n_columns=3, **SYSTEMS)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        ProperScoringFusion().fit(np.where(X > 2, np.nan, X), y)
    with pytest.raises(ValueError, match="got 1 class"):
        ProperScoringFusion().fit(X, np.ones(50))
    with pytest.raises(ValueError, match="2 classes; got 3"):
        ProperScoringFusion().fit(X, np.arange(50) % 3)
    fusion = ProperScoringFusion().fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        fusion.decision_function(X[:, :2])


def test_constructor_is_keyword_only():
    with pytest.raises(TypeError):
        ProperScoringFusion(1.0)


# ------------------------------------------------------------------ objective
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("weights", [False, True])
def test_objective_derivatives_match_finite_differences(rule, weights):
    X, y, w = make_scores(300, n_columns=3, weights=weights, **SYSTEMS)
    obj = FusionObjective(
        standardizer=_standardizer(X),
        alpha=rule[0],
        beta=rule[1],
        tau=0.3,
        class_factors=(0.7, 0.2),
        l2=0.4,
    )
    chunk = obj.prepare((X, y, w))
    rng = np.random.default_rng(1)
    theta = rng.normal(0, 0.5, 4)

    def total(t, order):
        parts = obj.terms(t, chunk, order), obj.penalty(t, order)
        if order == 0:
            return parts[0] + parts[1]
        return [a + b for a, b in zip(*parts, strict=True)]

    f, g, h = total(theta, 2)
    eps = 1e-6
    g_num = np.empty(4)
    h_num = np.empty((4, 4))
    for j in range(4):
        e = np.zeros(4)
        e[j] = eps
        g_num[j] = (total(theta + e, 0) - total(theta - e, 0)) / (2 * eps)
        h_num[j] = (total(theta + e, 1)[1] - total(theta - e, 1)[1]) / (2 * eps)
    np.testing.assert_allclose(g, g_num, rtol=1e-6, atol=1e-8 * abs(f))
    np.testing.assert_allclose(h, h_num, rtol=1e-5, atol=1e-7 * np.abs(h).max())
    np.testing.assert_allclose(h, h.T, rtol=1e-12)


@pytest.mark.parametrize("rule", RULES)
def test_objective_value_is_the_prior_weighted_rule(rule):
    X, y, w = make_scores(500, n_columns=3, weights=True, **SYSTEMS)
    p = 0.2
    n_tar, n_non = w[y].sum(), w[~y].sum()
    std = _standardizer(X)
    obj = FusionObjective(
        standardizer=std,
        alpha=rule[0],
        beta=rule[1],
        tau=logit(p),
        class_factors=(p / n_tar, (1 - p) / n_non),
        l2=0.3,
    )
    theta = np.array([0.5, -0.2, 0.1, -1.0])
    coef, intercept = std.to_raw(theta[:3], theta[3])
    expected = prior_weighted_objective(
        X @ coef + intercept, y, w, alpha=rule[0], beta=rule[1], prior=p
    )
    value = obj.terms(theta, obj.prepare((X, y, w)), 0)
    assert value == pytest.approx(expected, rel=1e-12)
    assert obj.penalty(theta, 0) == pytest.approx(0.3 * coef @ coef, rel=1e-12)
    # per standard deviation of each column (ProperScoringFusion's penalty)
    var = penalty_variance(ArrayData(X, y, w), std, obj.class_factors)
    scaled = FusionObjective(
        standardizer=std, class_factors=obj.class_factors, l2=0.3, l2_variance=var
    )
    expected = 0.3 * coef**2 @ _penalty_variance(X, y, w, p)
    assert scaled.penalty(theta, 0) == pytest.approx(expected, rel=1e-10)


def test_objective_sums_over_chunks():
    X, y, w = make_scores(400, n_columns=3, weights=True, **SYSTEMS)
    obj = FusionObjective(
        standardizer=_standardizer(X), alpha=2, beta=1, class_factors=(1.0, 2.0)
    )
    theta = np.array([0.3, 0.2, -0.1, 0.5])
    whole = obj.terms(theta, obj.prepare((X, y, w)), 2)
    parts = [
        obj.terms(theta, obj.prepare((X[s], y[s], w[s])), 2)
        for s in np.array_split(np.arange(400), 3)
    ]
    for j in range(3):
        np.testing.assert_allclose(sum(p[j] for p in parts), whole[j], rtol=1e-12)


# ---------------------------------------------------------------- correctness
@pytest.mark.parametrize("p_target", [0.5, 0.1])
@pytest.mark.parametrize("weights", [False, True])
def test_logistic_fusion_equals_sklearn_logistic_regression(p_target, weights):
    X, y, w = make_scores(3000, n_columns=3, weights=weights, **SYSTEMS)
    fusion = ProperScoringFusion(p_target=p_target, l2=0).fit(X, y, sample_weight=w)
    ww = np.ones(y.shape[0]) if w is None else w
    n_tar, n_non = ww[y].sum(), ww[~y].sum()
    lr = LogisticRegression(
        C=np.inf,
        class_weight={True: p_target / n_tar, False: (1 - p_target) / n_non},
        tol=1e-12,
        max_iter=10_000,
    ).fit(X, y, sample_weight=w)
    ours = _objective_value(fusion, X, y, w)
    theirs = _objective_value(
        fusion,
        X,
        y,
        w,
        coef=lr.coef_[0],
        intercept=lr.intercept_[0] - logit(p_target),
    )
    assert abs(ours - theirs) < 1e-8
    assert ours <= theirs + 1e-12
    np.testing.assert_allclose(fusion.coef_, lr.coef_[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("rule", RULES[1:])
def test_optimum_is_stationary_and_beats_perturbations(rule):
    X, y, _ = make_scores(2000, n_columns=2, **SYSTEMS)
    fusion = ProperScoringFusion(alpha=rule[0], beta=rule[1], p_target=0.3)
    fusion.fit(X, y)
    best = _objective_value(fusion, X, y)
    rng = np.random.default_rng(0)
    for _ in range(20):
        d = rng.normal(0, 0.02, 3)
        assert best <= _objective_value(
            fusion,
            X,
            y,
            coef=fusion.coef_ + d[:2],
            intercept=fusion.intercept_ + d[2],
        )


def test_one_system_equals_the_affine_calibrator():
    X, y, w = make_scores(3000, n_columns=1, weights=True, **SYSTEMS)
    fusion = ProperScoringFusion(alpha=2, beta=1, p_target=0.2).fit(X, y, w)
    affine = ProperScoringAffineCalibrator(alpha=2, beta=1)
    params = affine.get_params()
    affine.set_params(**({"p_target": 0.2} if "p_target" in params else {"prior": 0.2}))
    affine.fit(X, y, w)
    np.testing.assert_allclose(fusion.coef_, affine.coef_, rtol=1e-6)
    np.testing.assert_allclose(fusion.intercept_, affine.intercept_[0], atol=1e-6)


def test_l2_shrinks_weights():
    X, y, _ = make_scores(3000, n_columns=3, **SYSTEMS)
    norms = [
        np.linalg.norm(ProperScoringFusion(l2=l2).fit(X, y).coef_)
        for l2 in (0.0, 0.01, 1.0)
    ]
    assert norms[0] > norms[1] > norms[2] > 0


def test_weights_equal_repeated_rows():
    X, y, _ = make_scores(300, n_columns=3, **SYSTEMS)
    reps = np.random.default_rng(3).integers(0, 4, 300)
    a = ProperScoringFusion(alpha=2, beta=2).fit(X, y, sample_weight=reps)
    b = ProperScoringFusion(alpha=2, beta=2).fit(
        np.repeat(X, reps, axis=0), np.repeat(y, reps)
    )
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-7, atol=1e-9)


def test_outputs_and_prior():
    X, y, _ = make_scores(3000, n_columns=3, **SYSTEMS)
    fusion = ProperScoringFusion(prior=0.1).fit(X, y)
    llr = fusion.decision_function(X)
    np.testing.assert_allclose(llr, X @ fusion.coef_ + fusion.intercept_)
    assert fusion.transform(X).shape == (X.shape[0], 1)
    np.testing.assert_array_equal(fusion.transform(X)[:, 0], llr)
    proba = fusion.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-(llr + logit(0.1)))))
    np.testing.assert_array_equal(
        fusion.predict(X), fusion.classes_[(llr >= -logit(0.1)).astype(int)]
    )
    assert fusion.get_feature_names_out().tolist() == ["llr"]
    default = ProperScoringFusion().fit(X, y)
    assert default.prior_ == pytest.approx(y.mean())


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    X, y, _ = make_scores(200, n_columns=3, **SYSTEMS)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    out = ProperScoringFusion().set_output(transform="pandas").fit(frame, y)
    assert list(out.transform(frame).columns) == ["llr"]


def test_pickle_and_clone():
    X, y, _ = make_scores(500, n_columns=3, **SYSTEMS)
    fusion = ProperScoringFusion(alpha=2, beta=2, l2=0.1).fit(X, y)
    again = pickle.loads(pickle.dumps(fusion))
    np.testing.assert_array_equal(
        again.decision_function(X), fusion.decision_function(X)
    )
    assert clone(fusion).get_params() == fusion.get_params()


def test_separable_systems_warn_and_l2_fixes_it():
    X, y, _ = make_scores(200, n_columns=2, **SYSTEMS)
    X[y, 0] += 100.0  # the first system separates the classes
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        fusion = ProperScoringFusion(l2=0).fit(X, y)
    llr = fusion.decision_function(X)
    assert llr[y].min() > llr[~y].max()
    assert llr.max() - llr.min() == pytest.approx(1e4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ProperScoringFusion(l2=0.01).fit(X, y)
        ProperScoringFusion().fit(X, y)


def _separable_trials(n=16, seed=0):
    """Few trials of two systems whose fusion separates the classes."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2 == 0
    X = np.column_stack(
        [rng.normal(np.where(y, 2.0, -2.0), 1.0), rng.normal(y * 1.0, 2.0)]
    )
    X[y, 0] = np.maximum(X[y, 0], 0.5)
    X[~y, 0] = np.minimum(X[~y, 0], -0.5)
    return X, y


def test_default_gives_posteriors_strictly_inside_0_1_on_separable_trials():
    X, y = _separable_trials()
    with pytest.warns(ConvergenceWarning, match="no finite minimizer"):
        exact = ProperScoringFusion(l2=0).fit(X, y)
    p = exact.predict_proba(X)[:, 1]
    assert p.min() == 0.0 and p.max() == 1.0  # what the default avoids
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fusion = ProperScoringFusion().fit(X, y)
    assert fusion.l2 > 0
    llr = fusion.decision_function(X)
    assert np.isfinite(llr).all() and np.abs(llr).max() < 50
    p = fusion.predict_proba(X)[:, 1]
    assert 0.0 < p.min() and p.max() < 1.0
    assert llr[y].min() > llr[~y].max()


@pytest.mark.parametrize("units", [(1e-300, 1.0), (1e3, 1e-3), (7.0, 1e300)])
def test_default_penalty_does_not_depend_on_the_units_of_each_system(units):
    X, y = _separable_trials(seed=1)
    base = ProperScoringFusion().fit(X, y).predict_proba(X)
    Xu = X * np.array(units) + np.array(units)  # scaled and shifted
    got = ProperScoringFusion().fit(Xu, y).predict_proba(Xu)
    np.testing.assert_allclose(got, base, rtol=1e-8, atol=1e-12)


def test_default_penalty_is_negligible_on_a_large_set():
    X, y, _ = make_scores(20000, n_columns=3, **SYSTEMS)
    exact = ProperScoringFusion(l2=0).fit(X, y)
    fusion = ProperScoringFusion().fit(X, y)
    np.testing.assert_allclose(fusion.coef_, exact.coef_, rtol=1e-3)
    np.testing.assert_allclose(
        fusion.decision_function(X), exact.decision_function(X), rtol=1e-3, atol=1e-3
    )


def test_constant_system_gets_zero_weight():
    X, y, _ = make_scores(500, n_columns=2, **SYSTEMS)
    X[:, 1] = 3.0
    fusion = ProperScoringFusion().fit(X, y)
    assert fusion.coef_[1] == 0.0
    assert np.isfinite(fusion.decision_function(X)).all()
    alone = ProperScoringFusion().fit(X[:, :1], y)
    np.testing.assert_allclose(fusion.coef_[0], alone.coef_[0], rtol=1e-8)


@pytest.mark.parametrize("n, weighted", [(3000, False), (3000, True), (300_000, True)])
def test_fit_on_dask_equals_in_memory(n, weighted):
    da = pytest.importorskip("dask.array")
    import dask

    X, y, w = make_scores(n, n_columns=3, weights=weighted, **SYSTEMS)
    if weighted:
        w[::7] = 0.0  # zero weights are dropped, in memory and on Dask
    ref = ProperScoringFusion(alpha=2, beta=1, p_target=0.3).fit(X, y, w)
    with dask.config.set(scheduler="threads"):
        got = ProperScoringFusion(alpha=2, beta=1, p_target=0.3).fit(
            da.from_array(X, chunks=(n // 3 + 1, 3)),
            da.from_array(y, chunks=n // 2 + 1),
            None if w is None else da.from_array(w, chunks=n // 4 + 1),
        )
        np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-8)
        np.testing.assert_allclose(got.intercept_, ref.intercept_, rtol=1e-8)
        assert got.calibration_prior_ == pytest.approx(ref.calibration_prior_)
        X_new = da.from_array(X[:1000], chunks=(300, 3))
        llr = got.decision_function(X_new)
        assert isinstance(llr, da.Array)
        np.testing.assert_allclose(llr.compute(), ref.decision_function(X[:1000]))
        fused = got.transform(X_new)
        assert fused.shape == (1000, 1)
        np.testing.assert_allclose(fused.compute(), ref.transform(X[:1000]))
        proba = got.predict_proba(X_new).compute()
        np.testing.assert_allclose(proba, ref.predict_proba(X[:1000]))


def test_scores_near_the_float_maximum():
    # "overflow in matmul": the LLR is computed scaled by a power of two and
    # is infinite only where it exceeds the float range
    X, y, _ = make_scores(600, n_columns=2, **SYSTEMS)
    fus = ProperScoringFusion().fit(X, y)
    big = 1.7e308
    llr = fus.decision_function(
        np.array([[big, big], [-big, -big], [big, -big], [1.0, 2.0]])
    )
    c = fus.coef_
    assert llr[0] == (np.inf if c.sum() > 0 else -np.inf)
    assert llr[1] == -llr[0]
    expected = big * (c[0] - c[1])  # finite: the exact sum fits in a double
    np.testing.assert_allclose(llr[2], expected, rtol=1e-14)
    assert llr[3] == np.array([1.0, 2.0]) @ c + fus.intercept_
    proba = fus.predict_proba(np.array([[big, big], [-big, -big]]))
    assert not np.isnan(proba).any()


@pytest.mark.parametrize("weights", [False, True])
def test_certified_steps_pass_armijo(weights):
    # A step the solver takes without values (the logistic objective's
    # hessian_growth) decreases the objective as Armijo's test demands; the
    # value-free pass has the same gradient and Hessian.
    # above the kernel's short path
    X, y, w = make_scores(10_000, n_columns=3, weights=weights, **SYSTEMS)
    obj = FusionObjective(
        standardizer=_standardizer(X), tau=0.4, class_factors=(0.7, 0.2), l2=0.01
    )
    assert obj.with_rule(2.0, 2.0).hessian_growth is None
    chunk = obj.prepare((X, y, w))
    best = minimize(obj, ArrayData(X, y, w), np.zeros(4)).theta
    rng = np.random.default_rng(3)
    n_certified = 0
    for _ in range(100):
        theta = best + rng.normal(0, 0.1, 4)
        f, g, h = (
            a + b
            for a, b in zip(
                obj.terms(theta, chunk, 2), obj.penalty(theta, 2), strict=True
            )
        )
        step = -np.linalg.solve(h, g) * rng.uniform(0.02, 1.5)
        slope, curvature = float(g @ step), float(step @ h @ step)
        if _certified(slope, curvature, obj.hessian_growth(step)):
            n_certified += 1
            new = theta + step
            f_new = obj.terms(new, chunk, 0) + obj.penalty(new, 0)
            assert f_new <= f + 1e-4 * slope
        free = obj.terms(theta, chunk, 2, value=False)
        np.testing.assert_array_equal(free[1], obj.terms(theta, chunk, 2)[1])
        np.testing.assert_array_equal(free[2], obj.terms(theta, chunk, 2)[2])
    assert n_certified > 20


@pytest.mark.parametrize("weights", [False, True])
def test_any_memory_order_gives_the_same_fit(weights):
    # the scores are not copied to column-major order: a row-major X (read
    # in blocks of rows) and a strided view give the fit of the F copy
    X, y, w = make_scores(70_000, n_columns=3, weights=weights, **SYSTEMS)
    fits = [
        ProperScoringFusion().fit(Z, y, sample_weight=w)
        for Z in (np.asfortranarray(X), np.ascontiguousarray(X), np.c_[X, X][:, :3])
    ]
    for fit in fits[1:]:
        assert np.array_equal(fit.coef_, fits[0].coef_)
        assert fit.intercept_ == fits[0].intercept_


# ------------------------------------------ systems in far-apart units (issue 33)
def test_decision_function_with_columns_in_far_apart_units():
    # the overflow guard bounded |x . w| by the largest |x| times the largest
    # |w| of different columns (1e200 * 1e200): every row was rescaled by
    # 2**-1330 and every product underflowed to 0
    rng = np.random.default_rng(0)
    t = rng.random(200) < 0.5
    X = np.column_stack([rng.normal(size=200) + t, rng.normal(size=200) + t])
    X = X * [1e-200, 1e200]
    f = ProperScoringFusion().fit(X, t)
    expected = X @ f.coef_ + f.intercept_
    assert np.isfinite(expected).all() and np.abs(expected).max() > 1
    np.testing.assert_allclose(f.decision_function(X), expected, rtol=1e-12)
    np.testing.assert_allclose(f.transform(X)[:, 0], expected, rtol=1e-12)
    # an overflow in one column's product is still the right infinity
    big = np.array([[1e110, 1e300], [-1e110, -1e300], [1e100, 1e290]])
    llr = f.decision_function(big)
    assert llr[0] == np.inf * np.sign(f.coef_[0])
    assert llr[1] == -llr[0]
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(llr[2], big[2] @ f.coef_ + f.intercept_, rtol=1e-12)
