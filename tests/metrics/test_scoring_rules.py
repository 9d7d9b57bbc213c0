"""Tests of cllr, min_cllr, brier_loss and beta_rule_loss."""

import math
import warnings

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import beta as beta_fn
from scipy.special import expit, logit
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import brier_score_loss, log_loss

from skcalib._kernel._special import _CHUNK
from skcalib.metrics import beta_rule_loss, brier_loss, cllr, min_cllr

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=40)


def _ref_cllr(y, llr, w=None):
    """Direct formula with np.logaddexp (finite LLRs, positive weights)."""
    y = np.asarray(y, bool)
    llr = np.asarray(llr, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    tar = np.sum(w[y] * np.logaddexp(0, -llr[y])) / w[y].sum()
    non = np.sum(w[~y] * np.logaddexp(0, llr[~y])) / w[~y].sum()
    return (tar + non) / 2 / math.log(2)


#: LLRs ``2 (z + 1.5 y - 0.7)``, both classes among the first two trials
LLRS = {"prior": 0.35, "both_first": True, "loc": (-1.4, 1.6), "scale": 2.0}


# ------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match="llr"):
        cllr([0, 1], [np.nan, 0.0])
    with pytest.raises(ValueError, match="y_score"):
        min_cllr([0, 1], [np.nan, 0.0])
    with pytest.raises(ValueError, match="llr"):
        brier_loss([0, 1], [0.0, np.nan])
    with pytest.raises(ValueError, match="p_target"):
        cllr([0, 1], [0.0, 0.0], p_target=1.0)
    with pytest.raises(ValueError, match="alpha"):
        beta_rule_loss([0, 1], [0.0, 0.0], alpha=0.0, beta=1.0)
    with pytest.raises(ValueError, match="pos_label"):
        cllr(["a", "b"], [0.0, 0.0])
    with pytest.raises(ValueError, match="target"):
        cllr([0, 0], [0.0, 0.0])
    with pytest.raises(ValueError, match="sample_weight"):
        cllr([0, 1], [0.0, 0.0], sample_weight=[1.0, -1.0])


# --------------------------------------------------------------- correctness
@pytest.mark.parametrize("n", [2, 3, 7, 2 * _CHUNK + 3])
def test_cllr_of_zero_llrs_is_exactly_one(n):
    y = np.arange(n) % 3 == 0
    assert cllr(y, np.zeros(n)) == 1.0
    w = (np.arange(n) % 5 + 1).astype(float)
    assert cllr(y, np.zeros(n), sample_weight=w) == 1.0
    assert min_cllr(y, np.zeros(n), sample_weight=w) == 1.0
    assert cllr(y, np.zeros(n), p_target=0.5) == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n", [50, 3 * _CHUNK + 17])
def test_cllr_direct_formula(seed, n):
    llr, y, _ = make_scores(n, seed=seed, **LLRS)
    assert cllr(y, llr) == pytest.approx(_ref_cllr(y, llr), rel=1e-12)
    w = np.random.default_rng(seed).random(n) + 0.1
    got = cllr(y, llr, sample_weight=w)
    assert got == pytest.approx(_ref_cllr(y, llr, w), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_cllr_prior_matches_sklearn_log_loss(seed):
    llr, y, _ = make_scores(200, seed=seed, **LLRS)
    pi = y.mean()
    q = expit(llr + logit(pi))
    entropy = -(pi * math.log(pi) + (1 - pi) * math.log(1 - pi))
    got = cllr(y, llr, p_target=pi)
    assert got * entropy == pytest.approx(log_loss(y, q), rel=1e-10)
    assert cllr(y, llr, p_target=0.5) == pytest.approx(cllr(y, llr), rel=1e-12)
    got = beta_rule_loss(y, llr, alpha=1, beta=1, p_target=0.3)
    assert got == pytest.approx(cllr(y, llr, p_target=0.3), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_brier_matches_sklearn(seed):
    llr, y, _ = make_scores(200, seed=seed, **LLRS)
    pi = y.mean()
    q = expit(llr + logit(pi))
    got = brier_loss(y, llr, p_target=pi, normalize=False)
    assert got == pytest.approx(3 * brier_score_loss(y, q), rel=1e-10)
    norm = brier_loss(y, llr, p_target=pi)
    assert norm == pytest.approx(got / (3 * pi * (1 - pi)), rel=1e-12)


@pytest.mark.parametrize("alpha, beta", [(3.0, 0.5), (1.5, 2.5), (0.5, 0.5)])
def test_beta_rule_loss_against_quadrature(alpha, beta):
    llr, y, _ = make_scores(12, seed=1, prior=0.35, both_first=True, loc=(-0.7, 0.8))
    prior = 0.3
    b = beta_fn(alpha, beta)

    def c_tar(q):
        return quad(lambda c: c ** (alpha - 2) * (1 - c) ** (beta - 1), q, 1)[0] / b

    def c_non(q):
        return quad(lambda c: c ** (alpha - 1) * (1 - c) ** (beta - 2), 0, q)[0] / b

    q = expit(llr + logit(prior))
    tar = np.mean([c_tar(v) for v in q[y == 1]])
    non = np.mean([c_non(v) for v in q[y == 0]])
    ref = prior * tar + (1 - prior) * non
    got = beta_rule_loss(
        y, llr, alpha=alpha, beta=beta, p_target=prior, normalize=False
    )
    assert got == pytest.approx(ref, rel=1e-7)
    norm = prior * c_tar(prior) + (1 - prior) * c_non(prior)
    got = beta_rule_loss(y, llr, alpha=alpha, beta=beta, p_target=prior)
    assert got == pytest.approx(ref / norm, rel=1e-7)


def _sklearn_pav_llr(y, s, w=None):
    p = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w).predict(s)
    w = np.ones(len(y)) if w is None else w
    pi = np.sum(w * y) / w.sum()
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p) - logit(pi)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [False, True])
def test_min_cllr_against_sklearn_isotonic(seed, weights):
    rng = np.random.default_rng(seed)
    llr, y, _ = make_scores(150, seed=seed, **LLRS)
    s = np.round(llr, 1)  # ties
    w = rng.integers(1, 4, len(y)).astype(float) if weights else None
    pav = _sklearn_pav_llr(y, s, w)
    ww = np.ones(len(y)) if w is None else w
    yb = y == 1
    # Infinite PAV-LLRs only occur on the right side: cost 0, drop them.
    with np.errstate(over="ignore"):
        lt = np.where(np.isinf(pav[yb]), 0.0, np.logaddexp(0, -pav[yb]))
        ln = np.where(np.isinf(pav[~yb]), 0.0, np.logaddexp(0, pav[~yb]))
    ref = np.sum(ww[yb] * lt) / ww[yb].sum() + np.sum(ww[~yb] * ln) / ww[~yb].sum()
    ref /= 2 * math.log(2)
    assert min_cllr(y, s, sample_weight=w) == pytest.approx(ref, rel=1e-9)
    # With a prior: the normalized prior-weighted log loss of the same LLRs.
    assert min_cllr(y, s, sample_weight=w, p_target=0.5) == pytest.approx(ref, rel=1e-9)
    assert min_cllr(y, s, sample_weight=w, p_target=0.1) <= cllr(
        y, s, sample_weight=w, p_target=0.1
    )


def test_infinite_and_huge_llrs_exact():
    y = [0, 0, 1, 1]
    assert cllr(y, [-np.inf, -1e4, 1e4, np.inf]) == 0.0
    assert cllr(y, [-np.inf, 1e4, 1e4, np.inf]) == pytest.approx(1e4 / math.log(2) / 4)
    assert cllr(y, [np.inf, -1e4, 1e4, np.inf]) == math.inf
    assert cllr(y, [-np.inf, -1e4, -np.inf, np.inf]) == math.inf
    # a finite LLR whose cost in bits exceeds the largest double: inf, with
    # no overflow warning (the suite turns warnings into errors)
    assert cllr(y, [1.3e308, -1e4, 1e4, 1e300]) == math.inf
    assert cllr(y, [1.7e308, 0.0, 0.0, 1.0], sample_weight=[1, 2, 0, 1]) == math.inf
    # Brier is bounded: a confidently wrong trial costs 3 before weighting.
    assert brier_loss(y, [np.inf, -np.inf, -np.inf, np.inf], normalize=False) == 1.5
    assert brier_loss(y, [-np.inf, -1e4, 1e4, np.inf], normalize=False) == 0.0
    assert beta_rule_loss(y, [np.inf, -1e4, 1e4, np.inf], alpha=1, beta=1) == math.inf
    assert min_cllr(y, [-np.inf, -1e4, 1e4, np.inf]) == 0.0
    assert min_cllr(y, [np.inf, np.inf, -np.inf, -np.inf]) == 1.0


def test_zero_weight_trials_ignored():
    llr, y, _ = make_scores(80, seed=4, **LLRS)
    y2 = np.append(y, [1, 0])
    l2 = np.append(llr, [-np.inf, np.inf])  # confidently wrong, weight 0
    w2 = np.append(np.ones(len(y)), [0.0, 0.0])
    assert cllr(y2, l2, sample_weight=w2) == pytest.approx(cllr(y, llr), rel=1e-14)
    assert cllr(y2, l2, sample_weight=w2, p_target=0.2) == pytest.approx(
        cllr(y, llr, p_target=0.2), rel=1e-14
    )
    assert brier_loss(y2, l2, sample_weight=w2) == pytest.approx(
        brier_loss(y, llr), rel=1e-14
    )
    assert min_cllr(y2, l2, sample_weight=w2) == pytest.approx(
        min_cllr(y, llr), rel=1e-14
    )


def test_weights_equal_repeated_rows_and_pos_label():
    llr, y, _ = make_scores(80, seed=6, **LLRS)
    rep = np.arange(len(y)) % 3
    for f in (cllr, min_cllr, brier_loss):
        assert f(y, llr, sample_weight=rep) == pytest.approx(
            f(np.repeat(y, rep), np.repeat(llr, rep)), rel=1e-12
        )
    labels = np.where(y == 1, "target", "nontarget")
    assert cllr(labels, llr, pos_label="target") == cllr(y, llr)
    # LLR of the other class is -llr: Cllr is symmetric.
    assert cllr(labels, -llr, pos_label="nontarget") == pytest.approx(cllr(y, llr))


# ---------------------------------------------------------------- properties
@st.composite
def _trials(draw):
    n = draw(st.integers(2, 30))
    s = np.array(draw(st.lists(st.integers(-12, 12), min_size=n, max_size=n)), float)
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    y[0], y[1] = True, False
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), float)
    return y, s, w


# LLRs squeezed into [0, 1] (scale 0.05) look like probabilities: warned of
@pytest.mark.filterwarnings("ignore:Every value of `llr` lies in:UserWarning")
@HYP
@given(_trials(), st.floats(-3, 3), st.floats(0.05, 3))
def test_min_cllr_le_cllr(data, offset, scale):
    y, s, w = data
    llr = scale * s / 3 + offset
    m = min_cllr(y, llr, sample_weight=w)
    assert 0.0 <= m <= 1.0
    assert m <= cllr(y, llr, sample_weight=w) + 1e-12


@HYP
@given(_trials())
def test_min_cllr_invariant_to_increasing_transforms(data):
    y, s, w = data
    ref = min_cllr(y, s, sample_weight=w)
    for t in (np.exp(s / 3.0), 5.0 * s + 1.0, s**3 + s):
        assert min_cllr(y, t, sample_weight=w) == pytest.approx(
            ref, rel=1e-12, abs=1e-15
        )


def test_cllr_sums_zero_weights_and_empty():
    # The chunk kernel (also used per partition by the Dask code) ignores
    # zero-weight trials even at infinite losses, and accepts empty input.
    from skcalib.metrics._scoring_rules import _cllr_sums

    llr = np.array([np.inf, 1.0, -np.inf, -2.0])
    is_target = np.array([False, True, False, True])
    w = np.array([0.0, 1.0, 2.0, 0.0])
    loss_tar, loss_non, n_tar, n_non = _cllr_sums(llr, is_target, w)
    assert loss_tar == pytest.approx(np.logaddexp(0, -1.0) / math.log(2))
    assert (loss_non, n_tar, n_non) == (0.0, 1.0, 2.0)
    assert _cllr_sums(np.empty(0), np.empty(0, bool), None) == (0.0, 0.0, 0.0, 0.0)


# ------------------------------------------- probabilities given as LLRs (issue 33)
def _probabilities_and_labels():
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.4).astype(int)
    p = np.clip(0.8 * y + 0.2 * rng.random(200) + 0.05 * rng.normal(size=200), 0, 1)
    return y, p


@pytest.mark.parametrize(
    "metric, instead",
    [
        (cllr, "scipy.special.logit"),
        (brier_loss, "sklearn.metrics.brier_score_loss"),
        (
            lambda y, s, **kw: beta_rule_loss(y, s, alpha=2, beta=1, **kw),
            "scipy.special.logit",
        ),
    ],
    ids=["cllr", "brier_loss", "beta_rule_loss"],
)
def test_probabilities_given_as_llrs_are_warned_of(metric, instead):
    y, p = _probabilities_and_labels()
    with pytest.warns(UserWarning, match=f"`llr` lies in \\[0, 1\\].*{instead}") as w:
        metric(y, p)
    assert w[0].filename == __file__  # points at the call
    with pytest.warns(UserWarning, match="lies in"):
        metric(y, p, sample_weight=np.ones(200))
    # LLRs: no warning, nor for the uninformative system (all 0), a few
    # small LLRs, or LLRs that leave [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric(y, logit(np.clip(p, 0.01, 0.99)))
        metric(y, np.zeros(200))
        metric(y[:5], p[:5])
        metric(y, np.r_[p[:-1], 1.5])
        metric(y, np.r_[p[:-1], -0.01])
