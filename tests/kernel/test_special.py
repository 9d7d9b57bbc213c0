import math

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import beta as beta_fn
from scipy.special import expit, logit

from skcalib._kernel._special import (
    _tail_betainc,
    _tail_deriv,
    _tail_general,
    beta_rule_costs,
    cllr_bits_sorted,
    cllr_sums,
    log1pexp,
    prior_weighted_objective,
    rule_terms,
    uninformative_objective,
)

RULES = [(1, 1), (2, 2), (2, 1), (1, 2), (0.5, 0.5), (0.7, 1.3), (3, 0.5), (1, 2.5)]
X_GRID = np.array([-9.0, -3.0, -0.7, 0.0, 0.4, 2.5, 8.0])


def beta_rule_derivatives(llr, *, alpha, beta, prior=0.5):
    """dC/dl of both classes, from the kernel the solver uses."""
    x = np.asarray(llr, dtype=np.float64) + logit(prior)
    return _tail_deriv(x, alpha, beta), -_tail_deriv(-x, beta, alpha)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"alpha": 0, "beta": 1}, "`alpha` must be a finite number > 0; got 0"),
        ({"alpha": 1, "beta": -2.0}, "`beta` must be a finite number > 0"),
        ({"alpha": np.inf, "beta": 1}, "`alpha` must be"),
        (
            {"alpha": 1, "beta": 1, "prior": 1.5},
            r"`prior` must be in \(0, 1\); got 1.5",
        ),
        ({"alpha": 1, "beta": 1, "prior": 0.0}, r"`prior` must be in \(0, 1\)"),
    ],
)
def test_bad_rule_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        beta_rule_costs([0.0], **kwargs)


def test_objective_needs_both_classes():
    with pytest.raises(ValueError, match="Both target and non-target"):
        prior_weighted_objective(
            np.zeros(3),
            np.array([True, True, False]),
            np.array([1.0, 1.0, 0.0]),
            alpha=1,
            beta=1,
        )


# ---------------------------------------------------------------- closed forms

CLOSED_FORMS = {
    (0.5, 0.5): (
        lambda q: 2 / np.pi * np.sqrt((1 - q) / q),
        lambda q: 2 / np.pi * np.sqrt(q / (1 - q)),
    ),
    (1, 1): (lambda q: -np.log(q), lambda q: -np.log(1 - q)),
    (2, 2): (lambda q: 3 * (1 - q) ** 2, lambda q: 3 * q**2),
    (2, 1): (lambda q: 2 * (1 - q), lambda q: -2 * np.log(1 - q) - 2 * q),
}


@pytest.mark.parametrize("rule", list(CLOSED_FORMS))
@pytest.mark.parametrize("prior", [0.5, 0.01])
def test_closed_forms_003(rule, prior):
    """Brümmer & Doddington (Interspeech 2013), eqs. 12-15.

    Both through the fast path and the general 2F1 path.
    """
    llr = X_GRID - logit(prior)
    q = expit(X_GRID)
    f_tar, f_non = CLOSED_FORMS[rule]
    c_tar, c_non = beta_rule_costs(llr, alpha=rule[0], beta=rule[1], prior=prior)
    np.testing.assert_allclose(c_tar, f_tar(q), rtol=1e-12)
    # the textbook form -2 log(1-q) - 2q itself cancels as q -> 0: absolute tol
    np.testing.assert_allclose(c_non, f_non(q), rtol=1e-12, atol=1e-15)
    # the general special-function route agrees with the closed forms
    np.testing.assert_allclose(
        _tail_general(X_GRID, rule[0], rule[1]), f_tar(q), rtol=1e-11
    )
    np.testing.assert_allclose(
        _tail_general(-X_GRID, rule[1], rule[0]), f_non(q), rtol=1e-11, atol=1e-15
    )


def _quad_costs(q, a, b):
    # the algebraic endpoint weights of QUADPACK absorb the integrable
    # singularities (1-c)^(b-1) at 1 and c^(a-1) at 0
    kw = {"epsabs": 0.0, "epsrel": 1e-12, "limit": 200, "weight": "alg"}
    c_tar = quad(lambda c: c ** (a - 2), q, 1, wvar=(0.0, b - 1), **kw)[0]
    c_non = quad(lambda c: (1 - c) ** (b - 2), 0, q, wvar=(a - 1, 0.0), **kw)[0]
    return c_tar / beta_fn(a, b), c_non / beta_fn(a, b)


@pytest.mark.parametrize(
    "rule", [(0.7, 1.3), (3, 0.5), (1.0, 2.5), (2.5, 1.0), (1.0, 0.6), (4.0, 6.0)]
)
def test_general_rules_against_quadrature(rule):
    a, b = rule
    c_tar, c_non = beta_rule_costs(X_GRID, alpha=a, beta=b)
    for x, ct, cn in zip(X_GRID, c_tar, c_non, strict=True):
        rt, rn = _quad_costs(expit(x), a, b)
        assert ct == pytest.approx(rt, rel=1e-9)
        assert cn == pytest.approx(rn, rel=1e-9)


# ---------------------------------------------------------------- extremes


@pytest.mark.parametrize("rule", RULES)
def test_extreme_and_infinite_llrs(rule):
    """No warnings (filterwarnings=error); limits are 0 or the wrong-side limit."""
    a, b = rule
    llr = np.array([-np.inf, -1e4, -745.0, -700.0, 700.0, 745.0, 1e4, np.inf])
    c_tar, c_non = beta_rule_costs(llr, alpha=a, beta=b, prior=0.3)
    assert not np.isnan(c_tar).any() and not np.isnan(c_non).any()
    assert c_tar[-1] == 0.0 and c_non[0] == 0.0
    assert (c_tar[4:] < 1e-150).all() and (c_non[:4] < 1e-150).all()
    lim_tar = math.inf if a <= 1 else (a + b - 1) / (a - 1)
    lim_non = math.inf if b <= 1 else (a + b - 1) / (b - 1)
    assert c_tar[0] == pytest.approx(lim_tar, rel=1e-12)
    assert c_non[-1] == pytest.approx(lim_non, rel=1e-12)
    # monotone: target cost falls, non-target cost rises with the LLR
    assert (c_tar[1:] <= c_tar[:-1]).all() and (c_non[1:] >= c_non[:-1]).all()
    d_tar, d_non = beta_rule_derivatives(llr, alpha=a, beta=b, prior=0.3)
    assert not np.isnan(d_tar).any() and not np.isnan(d_non).any()
    assert (d_tar <= 0).all() and (d_non >= 0).all()
    assert d_tar[-1] == 0.0 and d_non[0] == 0.0


def test_brier_wrong_side_limit_is_three():
    c_tar, c_non = beta_rule_costs([-np.inf, np.inf], alpha=2, beta=2)
    assert c_tar[0] == 3.0 and c_non[1] == 3.0


def test_logarithmic_cost_is_linear_far_out():
    c_tar, _ = beta_rule_costs([-1e4, -700.0], alpha=1, beta=1)
    np.testing.assert_allclose(c_tar, [1e4, 700.0], rtol=1e-15)
    c_tar, _ = beta_rule_costs([700.0], alpha=1, beta=1)
    assert c_tar[0] == pytest.approx(math.exp(-700.0), rel=1e-12)


# ---------------------------------------------------------------- derivatives


@pytest.mark.parametrize("rule", RULES)
def test_derivatives_against_finite_differences(rule):
    a, b = rule
    h = 1e-5
    x = np.array([-6.0, -1.3, 0.0, 0.8, 5.0])
    kw = {"alpha": a, "beta": b, "prior": 0.2}
    up, down = beta_rule_costs(x + h, **kw), beta_rule_costs(x - h, **kw)
    d = beta_rule_derivatives(x, **kw)
    for i in range(2):
        # central differences carry ~eps * C / h of roundoff
        np.testing.assert_allclose(
            d[i], (up[i] - down[i]) / (2 * h), rtol=1e-6, atol=1e-9
        )


def test_derivative_closed_form_from_spec():
    q = expit(X_GRID)
    a, b = 0.7, 1.3
    d_tar, d_non = beta_rule_derivatives(X_GRID, alpha=a, beta=b)
    np.testing.assert_allclose(d_tar, -(q ** (a - 1)) * (1 - q) ** b / beta_fn(a, b))
    np.testing.assert_allclose(d_non, q**a * (1 - q) ** (b - 1) / beta_fn(a, b))


@pytest.mark.parametrize(
    "rule", [(1.0, 1.0), (2.0, 2.0), (2.0, 1.0), (1.0, 2.0), (0.5, 0.5), (1.5, 3.2)]
)
def test_rule_kernel_against_the_costs_and_finite_differences(rule):
    """The rule kernel with derivatives (the objectives'): G against the
    documented rule costs, G' and G'' against central differences of G and
    G'."""
    z = np.linspace(-30.0, 30.0, 121)
    h = 1e-5
    with np.errstate(over="ignore"):
        g, d1, d2 = rule_terms(z.copy(), *rule)
        _, d1_up, _ = rule_terms(z + h, *rule)
        _, d1_down, _ = rule_terms(z - h, *rule)
    c_tar, _ = beta_rule_costs(z, alpha=rule[0], beta=rule[1])
    up, _ = beta_rule_costs(z + h, alpha=rule[0], beta=rule[1])
    down, _ = beta_rule_costs(z - h, alpha=rule[0], beta=rule[1])
    np.testing.assert_allclose(g, c_tar, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(d1, (up - down) / (2 * h), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(d2, (d1_up - d1_down) / (2 * h), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("n", [5, 5000])  # one ufunc call, the in-place steps
def test_log1pexp_is_logaddexp(n):
    x = np.r_[-np.inf, -800.0, np.linspace(-40.0, 40.0, n), 800.0, np.inf]
    kept = x.copy()
    ref = np.logaddexp(0.0, x)
    np.testing.assert_allclose(log1pexp(x), ref, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(x, kept)
    out = np.empty_like(x)
    assert log1pexp(x, out=out, overwrite_x=True) is out
    np.testing.assert_allclose(out, ref, rtol=1e-15, atol=0)


# ---------------------------------------------------------------- large parameters


@pytest.mark.parametrize(
    "rule", [(1000.0, 1000.0), (50.0, 50.0), (30.0, 2.5), (2.0, 40.0)]
)
def test_large_parameters_are_finite_and_consistent(rule):
    """alpha = beta = 1000 once raised OverflowError (1/B(p, r) overflowed,
    and the 2F1 series had cancelled every digit long before)."""
    a, b = rule
    x = np.array([-np.inf, -50.0, -2.0, -0.1, 0.0, 0.3, 3.0, 50.0, np.inf])
    c_tar, c_non = beta_rule_costs(x, alpha=a, beta=b)
    assert np.all(np.isfinite(c_tar[1:])) and np.all(np.isfinite(c_non[:-1]))
    assert (np.diff(c_tar) <= 0).all() and (np.diff(c_non) >= 0).all()
    assert c_tar[0] == pytest.approx((a + b - 1) / (a - 1), rel=1e-12)
    # differences of the costs integrate the (log-domain) derivatives
    for lo, hi in [(-2.0, -0.1), (-0.1, 0.3), (0.3, 3.0)]:
        i, j = np.searchsorted(x, [lo, hi])
        for k, c in enumerate((c_tar, c_non)):

            def d(v, k=k):
                return float(beta_rule_derivatives([v], alpha=a, beta=b)[k][0])

            ref = quad(d, lo, hi, epsabs=1e-15, epsrel=1e-12, limit=400)[0]
            assert c[j] - c[i] == pytest.approx(ref, rel=1e-8, abs=1e-14)


@pytest.mark.parametrize("rule", [(2.0, 8.0), (5.0, 5.0), (3.0, 0.7), (2.5, 3.0)])
def test_betainc_route_equals_2f1_route_where_both_are_accurate(rule):
    z = np.array([-30.0, -3.0, -0.2, 0.0, 0.3, 3.0, 30.0])
    np.testing.assert_allclose(
        _tail_betainc(z, *rule), _tail_general(z, *rule), rtol=1e-12
    )


def test_beta_rule_loss_at_alpha_beta_1000():
    from skcalib.metrics import beta_rule_loss

    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.3
    s = rng.normal(size=200) + y
    value = beta_rule_loss(y, s, alpha=1000, beta=1000)
    assert np.isfinite(value) and value > 0


# ---------------------------------------------------------------- properness


@pytest.mark.parametrize("rule", RULES)
def test_rules_are_proper(rule):
    """Expected cost under p is minimized at q = p on a grid of q."""
    a, b = rule
    q_grid = np.linspace(0.005, 0.995, 199)
    c_tar, c_non = beta_rule_costs(logit(q_grid), alpha=a, beta=b)
    for p in [0.05, 0.2, 0.5, 0.7, 0.9]:
        expected = p * c_tar + (1 - p) * c_non
        best = q_grid[np.argmin(expected)]
        assert abs(best - p) <= 0.005 + 1e-12


# ---------------------------------------------------------------- objective


@pytest.mark.parametrize("rule", [(1, 1), (2, 2), (0.7, 1.3)])
def test_objective_brute_force(rule):
    a, b = rule
    s, y, w = make_scores(200, weights=True, weight_range=(0.2, 2.0), labels=bool)
    llr = 1.3 * s - 0.4
    c_tar, c_non = beta_rule_costs(llr, alpha=a, beta=b, prior=0.1)
    expected = (
        0.1 * np.sum(w[y] * c_tar[y]) / w[y].sum()
        + 0.9 * np.sum(w[~y] * c_non[~y]) / w[~y].sum()
    )
    got = prior_weighted_objective(llr, y, w, alpha=a, beta=b, prior=0.1)
    assert got == pytest.approx(expected, rel=1e-13)
    # weights 2 equal repeated rows
    rep = prior_weighted_objective(
        np.r_[llr, llr[:10]], np.r_[y, y[:10]], alpha=a, beta=b, prior=0.1
    )
    w2 = np.ones_like(llr)
    w2[:10] = 2.0
    assert prior_weighted_objective(
        llr, y, w2, alpha=a, beta=b, prior=0.1
    ) == pytest.approx(rep, rel=1e-13)


def test_zero_weight_trials_are_ignored_even_if_infinite():
    llr = np.array([1.0, -np.inf, -2.0, np.inf])
    y = np.array([True, True, False, False])
    w = np.array([1.0, 0.0, 1.0, 0.0])
    got = prior_weighted_objective(llr, y, w, alpha=1, beta=1)
    assert got == pytest.approx(
        0.5 * math.log1p(math.exp(-1)) + 0.5 * math.log1p(math.exp(-2))
    )
    assert prior_weighted_objective(llr, y, alpha=1, beta=1) == math.inf
    assert prior_weighted_objective(llr, y, alpha=2, beta=2) == pytest.approx(
        0.5 * 0.5 * (3 * expit(-1.0) ** 2 + 3.0)
        + 0.5 * 0.5 * (3 * expit(-2.0) ** 2 + 3.0)
    )


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("prior", [0.5, 0.02])
def test_uninformative_objective(rule, prior):
    s, y, w = make_scores(
        200, seed=1, weights=True, weight_range=(0.2, 2.0), labels=bool
    )
    got = uninformative_objective(rule[0], rule[1], prior)
    assert got == pytest.approx(
        prior_weighted_objective(
            np.zeros_like(s), y, w, alpha=rule[0], beta=rule[1], prior=prior
        ),
        rel=1e-13,
    )
    # the uninformative system is the best constant LLR: any shift is worse
    for shift in (-0.5, 0.5):
        assert got < prior_weighted_objective(
            np.full_like(s, shift), y, w, alpha=rule[0], beta=rule[1], prior=prior
        )


def test_uninformative_log_rule_at_half_is_log2():
    assert uninformative_objective(1, 1, 0.5) == pytest.approx(math.log(2), rel=1e-15)


# ---------------------------------------------------------------- properties


@settings(derandomize=True, database=None, deadline=None, max_examples=25)
@given(
    a=st.floats(0.3, 4.0),
    b=st.floats(0.3, 4.0),
    x1=st.floats(-12.0, 12.0),
    width=st.floats(0.1, 6.0),
)
def test_costs_integrate_their_derivatives(a, b, x1, width):
    """C(x2) - C(x1) = integral of dC/dl: the 2F1 values against the closed
    form derivative, with quadrature as the independent reference."""
    x2 = x1 + width
    c1 = beta_rule_costs([x1], alpha=a, beta=b)
    c2 = beta_rule_costs([x2], alpha=a, beta=b)
    for i in range(2):

        def d(x, i=i):
            return float(beta_rule_derivatives([x], alpha=a, beta=b)[i][0])

        ref = quad(d, x1, x2, epsabs=1e-13, epsrel=1e-11, limit=200)[0]
        scale = max(abs(c1[i][0]), abs(c2[i][0]), 1e-300)
        assert c2[i][0] - c1[i][0] == pytest.approx(ref, rel=1e-7, abs=1e-11 * scale)


def _cllr_exact(llr, y):
    loss_tar, loss_non, n_tar, n_non = cllr_sums(llr, y, None)
    return 0.5 * (loss_tar / n_tar + loss_non / n_non)


def _sorted(llr, y):
    return np.sort(llr[y]), np.sort(llr[~y])


@pytest.mark.parametrize("spread", [0.25, 1.0, 3.0, 6.0])
@pytest.mark.parametrize("n", [100, 20_000, 200_001])
def test_cllr_bits_sorted_equals_the_per_trial_sum(spread, n):
    rng = np.random.default_rng(n)
    y = rng.random(n) < 0.3
    llr = np.where(y, spread**2 / 2, -(spread**2) / 2) + spread * rng.standard_normal(n)
    llr[: n // 10] = np.round(llr[: n // 10])  # ties
    llr[n // 10 : n // 10 + 5] = [1000.0, -1000.0, 700.0, -700.0, 0.0]
    tar, non = _sorted(llr, y)
    before = (tar.copy(), non.copy())
    value = cllr_bits_sorted(tar, non)
    assert value == pytest.approx(_cllr_exact(llr, y), rel=1e-13)
    np.testing.assert_array_equal(tar, before[0])
    np.testing.assert_array_equal(non, before[1])


def test_cllr_bits_sorted_leaves_to_the_per_trial_sum_what_it_must():
    rng = np.random.default_rng(1)
    n = 50_000
    y = rng.random(n) < 0.5
    # a tiny Cllr (the absolute rounding of the products would matter)
    assert cllr_bits_sorted(*_sorted(np.where(y, 60.0, -60.0), y)) is None
    # infinite LLRs, an empty class
    llr = np.where(y, 1.0, -1.0)
    llr[:2] = [np.inf, -np.inf]
    y[:2] = [True, False]
    assert cllr_bits_sorted(*_sorted(llr, y)) is None
    assert cllr_bits_sorted(np.array([1.0, 2.0]), np.array([])) is None
    # LLRs whose sums could overflow
    huge = np.array([-1.5e308, 1.0])
    assert cllr_bits_sorted(huge, np.array([-1.0, 1e308])) is None
    # all-zero LLRs: exactly 1 bit
    assert cllr_bits_sorted(np.zeros(n), np.zeros(n)) == 1.0
