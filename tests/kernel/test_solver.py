"""Tests of the Newton solver and its data sources, on a quadratic and on the
affine calibrators' objective (chunked sources, the fused pass)."""

import numpy as np
import pytest
from _scores import make_scores
from scipy.special import logit

from skcalib._kernel import _solver
from skcalib._kernel._linear_rule import AffineRuleObjective, binary_summary
from skcalib._kernel._solver import (
    ArrayData,
    Standardizer,
    _Chunks,
    _direction,
    _eigh2,
    _Passes,
    fit_standardizer,
    minimize,
)
from skcalib._kernel._special import prior_weighted_objective


class Quadratic:
    """``sum_i w_i |theta - x_i|^2`` with ``x_i`` rows of a (n, k) matrix."""

    def __init__(self, k):
        self.n_params = k

    def terms(self, theta, chunk, order):
        x, w = chunk
        r = theta - x
        f = float(w @ (r * r).sum(axis=1))
        if order == 0:
            return f
        return (f, 2 * w @ r, 2 * w.sum() * np.eye(self.n_params))[: order + 1]


def _split(data, n_chunks):
    """The same rows as several chunks (what a Dask source gives)."""
    cuts = np.linspace(0, data.n_samples, n_chunks + 1).astype(int)
    chunks = [
        tuple(a[lo:hi] if a is not None else None for a in data.arrays)
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=False)
    ]
    return _Chunks(chunks, data.n_samples)


# ---------------------------------------------------------------- errors / edge


def test_standardizer_constant_column_is_flat():
    x = np.full(5, 3.0)
    std = Standardizer.fit(x, 3.0, 3.0)
    assert std.constant.tolist() == [True]
    np.testing.assert_array_equal(std.transform(x), 0.0)


@pytest.mark.parametrize("scale", [1e-300, 1e-5, 1.0, 1e7, 1e300, 1.7e308])
def test_standardizer_any_units(scale):
    x = np.array([-1.0, 0.0, 0.5, 1.0]) * scale
    std = Standardizer.fit(x, x.min(), x.max())
    u = std.transform(x)
    ref = (x / scale - 0.125) / np.std(x / scale)
    np.testing.assert_allclose(u, ref, rtol=1e-14, atol=1e-15)
    coef, intercept = std.to_raw(np.array([2.0]), -1.0)
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(coef[0] * x + intercept, 2 * u - 1, atol=1e-12)
    back = std.from_raw(coef, intercept)
    np.testing.assert_allclose([back[0][0], back[1]], [2.0, -1.0], rtol=1e-14)


# ---------------------------------------------------------------- the solver


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("n_chunks", [1, 4])
def test_minimize_any_number_of_parameters(k, n_chunks):
    rng = np.random.default_rng(k)
    x = rng.normal(size=(40, k))
    w = rng.uniform(0.5, 2.0, 40)
    data = ArrayData(x, w)
    res = minimize(
        Quadratic(k), data if n_chunks == 1 else _split(data, n_chunks), np.zeros(k)
    )
    assert res.status == "converged"
    np.testing.assert_allclose(res.theta, w @ x / w.sum(), rtol=1e-12)


class Logistic:
    """Ridge-penalized logistic loss ``sum_i log(1 + exp(-y_i x_i theta)) +
    0.05 |theta|^2`` (``y = +/-1``): strictly convex, and ill-conditioned
    enough that limited-memory BFGS needs tens of iterations."""

    def __init__(self, k):
        self.n_params = k

    def terms(self, theta, chunk, order):
        x, y = chunk
        m = y * (x @ theta)
        f = float(np.logaddexp(0.0, -m).sum())
        if order == 0:
            return f
        p = 1.0 / (1.0 + np.exp(m))  # sigmoid(-m)
        g = -(x.T @ (y * p))
        if order == 1:
            return f, g
        return f, g, (x.T * (p * (1.0 - p))) @ x

    def penalty(self, theta, order):
        out = (0.05 * float(theta @ theta), 0.1 * theta, 0.1 * np.eye(self.n_params))
        return out[0] if order == 0 else out[: order + 1]


@pytest.mark.parametrize("n_chunks", [1, 3])
def test_quasi_newton_finds_the_newton_optimum(monkeypatch, n_chunks):
    # from QUASI_NEWTON_MIN_PARAMS parameters on, L-BFGS replaces Newton
    rng = np.random.default_rng(0)
    k = 12
    x = rng.normal(size=(300, k)) * np.geomspace(0.1, 10.0, k)
    y = np.where(x @ rng.normal(size=k) + rng.normal(0, 3, 300) > 0, 1.0, -1.0)
    data = ArrayData(x, y)
    data = data if n_chunks == 1 else _split(data, n_chunks)
    newton = minimize(Logistic(k), data, np.zeros(k))
    monkeypatch.setattr(_solver, "QUASI_NEWTON_MIN_PARAMS", k)
    quasi = minimize(Logistic(k), data, np.zeros(k))
    assert newton.status == quasi.status == "converged"
    assert newton.n_iter < 15 < quasi.n_iter  # the L-BFGS path was taken
    np.testing.assert_allclose(quasi.theta, newton.theta, rtol=0, atol=1e-6)
    monkeypatch.setattr(_solver, "QUASI_NEWTON_ITER_FACTOR", 0.05)  # 5 iterations
    assert minimize(Logistic(k), data, np.zeros(k)).status == "max_iter"


def test_chunked_source_equals_one_chunk():
    s, y, w = make_scores(
        5000, seed=2, weights=True, weight_range=(0.2, 2.0), labels=bool
    )
    data = ArrayData(s, y, w)
    summary = binary_summary(data)
    std = fit_standardizer(data, summary.lo, summary.hi)
    obj = AffineRuleObjective(
        standardizer=std,
        class_factors=(0.3 / summary.w_tar, 0.7 / summary.w_non),
        alpha=2.0,
        beta=1.0,
        tau=logit(0.3),
    )
    one = minimize(obj, data, [0.0, 0.0])
    many = minimize(obj, _split(data, 7), [0.0, 0.0])
    assert one.status == many.status == "converged"
    np.testing.assert_allclose(one.theta, many.theta, rtol=1e-10)
    again = binary_summary(_split(data, 7))
    assert again.w_tar == pytest.approx(summary.w_tar, rel=1e-14)
    assert (again.lo, again.hi) == (summary.lo, summary.hi)


@pytest.mark.parametrize("random_state", [None, 0])
def test_subsample(random_state):
    x = np.arange(100.0)
    sub = ArrayData(x, None).subsample(10, random_state)
    assert sub.arrays[1] is None and sub.n_samples == 10
    if random_state is None:
        assert sub.arrays[0].tolist() == list(range(5, 100, 10))
    assert np.all(np.diff(sub.arrays[0]) > 0)


@pytest.mark.parametrize(
    "hess",
    [
        [[2.0, 0.3], [0.3, 1.0]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[0.0, 0.0], [0.0, 0.0]],
        [[1.0, 2.0], [2.0, 1.0]],  # indefinite
        [[-3.0, 1e-9], [1e-9, -3.0]],
        [[1e-300, 0.0], [0.0, 1e300]],
        [[4.0, 2.0], [2.0, 1.0]],  # singular
        [[5.0, -1e-3], [-1e-3, 5.0 + 1e-14]],
    ],
)
def test_eigh2_equals_lapack(hess):
    """The closed-form 2 x 2 eigen-decomposition of the Newton step against
    ``np.linalg.eigh``: eigenvalues to rounding of the largest, and the
    eigenvectors reconstruct the matrix."""
    hess = np.array(hess)
    rt1, rt2, cs, sn = _eigh2(hess[0, 0], hess[0, 1], hess[1, 1])
    assert abs(rt1) >= abs(rt2)
    ref = np.linalg.eigh(hess)[0]
    scale = np.abs(hess).max()
    np.testing.assert_allclose(sorted([rt1, rt2]), ref, rtol=0, atol=4e-16 * scale)
    vec = np.array([[cs, -sn], [sn, cs]])
    np.testing.assert_allclose(vec.T @ vec, np.eye(2), atol=4e-16)
    np.testing.assert_allclose(
        vec @ np.diag([rt1, rt2]) @ vec.T, hess, rtol=0, atol=4e-16 * scale
    )


def test_newton_step_any_hessian():
    """On random 2 x 2 problems, convex or not, the minimizer's step is
    ``np.linalg.eigh``'s saddle-free step."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = rng.normal(size=(2, 2)) * 10.0 ** rng.integers(-3, 4)
        hess, g = a + a.T, rng.normal(size=2)
        lam, vec = np.linalg.eigh(hess)
        ref = -vec @ ((vec.T @ g) / np.abs(lam))
        step, convex = _direction(hess, g)
        np.testing.assert_allclose(
            step, ref, rtol=1e-13 * np.abs(lam).max() / np.abs(lam).min()
        )
        assert convex == (lam.min() > 0)


@pytest.mark.parametrize("k", [3, 20, 99])
def test_newton_step_many_parameters(k):
    """More parameters: the saddle-free step of ``np.linalg.eigh`` (with
    flat directions dropped), whether the Hessian is well conditioned
    (solved by Cholesky), nearly singular, singular or indefinite (solved
    by the eigen-decomposition)."""
    rng = np.random.default_rng(k)
    vec = np.linalg.qr(rng.normal(size=(k, k)))[0]
    g = rng.normal(size=k)
    spectra = {
        "conditioned": np.geomspace(1e-3, 1e3, k),
        "near singular": np.r_[1e-11, np.geomspace(1e-3, 1e3, k - 1)],
        "singular": np.r_[0.0, np.geomspace(1e-3, 1e3, k - 1)],
        "indefinite": np.r_[-0.5, np.geomspace(1e-3, 1e3, k - 1)],
    }
    for name, lam in spectra.items():
        hess = (vec * lam) @ vec.T
        hess = 0.5 * (hess + hess.T)
        kept = np.abs(lam) > 1e-12 * np.abs(lam).max()
        coef = np.where(kept, (vec.T @ g) / np.where(kept, np.abs(lam), 1.0), 0.0)
        ref = -vec @ coef
        step, convex = _direction(hess, g)
        # a step solved to the conditioning of the kept directions
        cond = np.abs(lam[kept]).max() / np.abs(lam[kept]).min()
        np.testing.assert_allclose(
            step, ref, rtol=0, atol=1e-13 * cond * np.abs(ref).max(), err_msg=name
        )
        assert convex == (name != "indefinite"), name


# ---------------------------------------------------------------- fused pass


@pytest.mark.parametrize(
    "rule", [(1, 1), (2, 2), (2, 1), (1, 2), (0.5, 0.5), (0.7, 1.3)]
)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("chunk_size", [64, 1 << 13])
def test_affine_objective_fused_pass(rule, weighted, chunk_size):
    """Value, gradient and Hessian against the direct objective and finite
    differences, with several cache chunks and a ragged last one, or as one
    small chunk (the basis of its sums)."""
    a, b = rule
    prior = 0.05
    s, y, w = make_scores(
        301, seed=2, weights=True, weight_range=(0.2, 2.0), labels=bool
    )
    if not weighted:
        w = None
    n_tar = y.sum() if w is None else w[y].sum()
    n_non = (~y).sum() if w is None else w[~y].sum()
    # identity units: u = s
    std = Standardizer([0], [0.0], [1.0], [False])
    obj = AffineRuleObjective(
        standardizer=std,
        class_factors=(prior / n_tar, (1 - prior) / n_non),
        alpha=a,
        beta=b,
        tau=logit(prior),
        l2=0.3,
    )
    obj.chunk_size = chunk_size
    fun = _Passes(obj, ArrayData(s, y, w).map(obj.prepare))

    def ref(theta):
        return (
            prior_weighted_objective(
                theta[0] * s + theta[1], y, w, alpha=a, beta=b, prior=prior
            )
            + 0.3 * theta[0] ** 2
        )

    theta = np.array([1.2, -0.7])
    f, g, h = fun(theta)
    assert f == pytest.approx(ref(theta), rel=1e-12)
    assert fun(theta, 0) == pytest.approx(f, rel=1e-14)
    eps = 1e-5
    for j in range(2):
        e = np.zeros(2)
        e[j] = eps
        assert g[j] == pytest.approx(
            (ref(theta + e) - ref(theta - e)) / (2 * eps), rel=1e-6, abs=1e-10
        )
        gp, gm = fun(theta + e)[1], fun(theta - e)[1]
        np.testing.assert_allclose(
            h[:, j], (gp - gm) / (2 * eps), rtol=1e-6, atol=1e-10
        )
