"""Tests of the empirical cross-entropy (ECE) plot and its data."""

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.special import expit  # noqa: E402

from skcalib import PAVLLRCalibrator  # noqa: E402
from skcalib.datasets import load_cartridge_case, make_gaussian_scores  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    ECEDisplay,
    ScoredTrials,
    cllr,
    empirical_cross_entropy,
    min_cllr,
)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _brute_ece(y, llr, plo, w=None):
    """ECE in bits, term by term with Python floats (log1p of exp, no
    rounding of the posterior to 1)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    out = []
    for eta in np.atleast_1d(plo):
        p = 1.0 / (1.0 + math.exp(-eta))
        tar = non = wt = wn = 0.0
        for yi, li, wi in zip(y, llr, w, strict=True):
            if wi == 0:
                continue
            if yi == 1:
                z = -(li + eta)
                cost = (
                    z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))
                )
                tar += wi * cost
                wt += wi
            else:
                z = li + eta
                cost = (
                    z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))
                )
                non += wi * cost
                wn += wi
        out.append((p * tar / wt + (1 - p) * non / wn) / math.log(2))
    return np.array(out)


def test_at_even_odds_cllr_min_cllr_and_one():
    data = load_cartridge_case()
    plo, ece, pav, ref = empirical_cross_entropy(data.target, data.llr)
    k = int(np.flatnonzero(plo == 0.0)[0])
    assert ece[k] == pytest.approx(cllr(data.target, data.llr), rel=0, abs=1e-12)
    assert pav[k] == pytest.approx(min_cllr(data.target, data.llr), rel=0, abs=1e-12)
    assert ref[k] == 1.0
    # the value: lir's rounding gives 0.648984
    assert abs(float(ece[k]) - 0.648786) < 1e-6


@pytest.mark.parametrize("weighted", [False, True])
def test_even_odds_random(weighted):
    rng = np.random.default_rng(3)
    _, y, llr = make_gaussian_scores(500, random_state=1)
    w = rng.uniform(0, 2, y.shape[0]) if weighted else None
    _, ece, pav, ref = empirical_cross_entropy(
        y, llr, prior_log_odds=0.0, sample_weight=w
    )
    assert ece[0] == pytest.approx(cllr(y, llr, sample_weight=w), rel=0, abs=1e-12)
    assert pav[0] == pytest.approx(min_cllr(y, llr, sample_weight=w), rel=0, abs=1e-12)
    assert ref[0] == 1.0


@pytest.mark.parametrize("weighted", [False, True])
def test_system_curve_brute_force(weighted):
    _, y, llr = make_gaussian_scores(120, random_state=2)
    llr = llr * 3.0
    llr[:4] = [40.0, -45.0, 700.0, -700.0]  # far tails, correct side
    y[:4] = [1, 0, 1, 0]
    w = np.random.default_rng(0).uniform(0, 2, y.shape[0]) if weighted else None
    if weighted:
        w[5] = 0.0
    plo = np.linspace(-9, 9, 19)
    _, ece, _, ref = empirical_cross_entropy(
        y, llr, prior_log_odds=plo, sample_weight=w
    )
    np.testing.assert_allclose(ece, _brute_ece(y, llr, plo, w), rtol=1e-13)
    p, q = expit(plo), expit(-plo)
    np.testing.assert_allclose(ref, -(p * np.log2(p) + q * np.log2(q)), rtol=1e-13)


def test_relation_to_prior_weighted_cllr():
    # ECE(pi) is the normalized Cllr at pi times the prior entropy
    _, y, llr = make_gaussian_scores(300, random_state=4)
    plo = np.array([-4.0, -1.5, 0.5, 3.0])
    _, ece, _, ref = empirical_cross_entropy(y, llr, prior_log_odds=plo)
    expected = [cllr(y, llr, p_target=float(expit(e))) for e in plo] * ref
    np.testing.assert_allclose(ece, expected, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_pav_curve_is_the_ece_of_the_pav_llrs(weighted):
    _, y, llr = make_gaussian_scores(200, random_state=5)
    llr = np.round(llr, 1)  # ties: blocks of several trials
    w = np.random.default_rng(1).uniform(0.1, 2, y.shape[0]) if weighted else None
    plo = np.linspace(-5, 5, 11)
    _, _, pav, _ = empirical_cross_entropy(y, llr, prior_log_odds=plo, sample_weight=w)
    # each trial gets its PAV block's LLR, then the system formula
    block_llr, lo, _ = ScoredTrials(y, llr, sample_weight=w).pav_llr()
    per_trial = block_llr[np.searchsorted(lo, llr, side="right") - 1]
    keep = np.isfinite(per_trial)  # +/-inf blocks are pure: they cost 0
    assert np.all((per_trial[~keep] > 0) == (y[~keep] == 1))
    ww = np.ones(y.shape[0]) if w is None else w
    wt, wn = ww[y == 1].sum(), ww[y == 0].sum()
    p = expit(plo)[:, None]
    tar = (ww * (y == 1) * keep)[None, :] * np.logaddexp(
        0, -(np.where(keep, per_trial, 0) + plo[:, None])
    )
    non = (ww * (y == 0) * keep)[None, :] * np.logaddexp(
        0, np.where(keep, per_trial, 0) + plo[:, None]
    )
    expected = (p[:, 0] * tar.sum(1) / wt + (1 - p[:, 0]) * non.sum(1) / wn) / math.log(
        2
    )
    np.testing.assert_allclose(pav, expected, rtol=1e-12, atol=1e-15)
    # the PAV curve never lies above the system's (PAV is optimal at every prior)
    _, ece, _, _ = empirical_cross_entropy(y, llr, prior_log_odds=plo, sample_weight=w)
    assert np.all(pav <= ece + 1e-12)


def test_weights_are_repetitions():
    _, y, llr = make_gaussian_scores(80, random_state=6)
    w = np.random.default_rng(2).integers(0, 4, y.shape[0])
    got = empirical_cross_entropy(y, llr, sample_weight=w)
    rep = empirical_cross_entropy(np.repeat(y, w), np.repeat(llr, w))
    for a, b in zip(got, rep, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_matches_lir_where_lir_is_finite():
    try:  # lir's module raises ImportError (not only a missing lir) at times
        import lir.plotting.expected_calibration_error as lir_ece
    except ImportError:
        pytest.skip("lir is not installed")
    _, y, llr = make_gaussian_scores(300, random_state=7)
    log10_plo = np.arange(-3, 3, 0.01)
    plo = log10_plo * math.log(10)
    _, ece, _, ref = empirical_cross_entropy(y, llr, prior_log_odds=plo)
    priors = expit(plo)
    np.testing.assert_allclose(
        lir_ece.calculate_ece(np.exp(llr), y, priors), ece, rtol=1e-10
    )
    np.testing.assert_allclose(
        lir_ece.calculate_ece(np.ones_like(llr), y, priors), ref, rtol=1e-12
    )
    # the cartridge data: lir's log2(1 - p) rounds on the largest LRs
    data = load_cartridge_case()
    _, ece, _, _ = empirical_cross_entropy(data.target, data.llr, prior_log_odds=plo)
    theirs = lir_ece.calculate_ece(10.0**data.llr10, data.target, priors)
    assert np.isfinite(ece).all()
    assert np.isinf(theirs).sum() > 100
    # lir's log2(1 - p) loses the digits of 1 - p for the non-targets' LRs
    # up to 1e15.9 (every prior of the grid): it is near where it is finite,
    # and the stable formula, term by term, is the reference
    finite = np.isfinite(theirs)
    np.testing.assert_allclose(theirs[finite], ece[finite], rtol=1e-2)
    every = slice(None, None, 50)
    np.testing.assert_allclose(
        ece[every], _brute_ece(data.target, data.llr, plo[every]), rtol=1e-13
    )


def test_infinite_and_extreme_llrs():
    y = np.array([0, 0, 1, 1])
    # right-side infinities cost nothing
    _, ece, pav, ref = empirical_cross_entropy(y, [-np.inf, -1.0, 1.0, np.inf])
    assert np.isfinite(ece).all() and np.isfinite(pav).all()
    np.testing.assert_allclose(
        ece,
        _brute_ece(y, [-1e308, -1.0, 1.0, 1e308], np.linspace(-7, 7, 141)),
        rtol=1e-13,
    )
    # a target at -inf: infinitely wrong at every prior, even extreme ones
    plo = np.array([-800.0, 0.0, 800.0])
    _, ece, pav, ref = empirical_cross_entropy(
        y, [-1.0, 0.0, -np.inf, 2.0], prior_log_odds=plo
    )
    assert np.isinf(ece).all()
    assert np.isfinite(pav).all() and np.isfinite(ref).all()
    # +-1000 and ties everywhere
    _, ece, _, _ = empirical_cross_entropy(
        y, [-1000.0, 1000.0, -1000.0, 1000.0], prior_log_odds=0
    )
    assert ece[0] == pytest.approx(0.5 * 1000 / math.log(2))
    _, ece, pav, ref = empirical_cross_entropy(y, [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(ece, ref, rtol=1e-15)
    np.testing.assert_allclose(pav, ref, rtol=1e-15)


def test_inputs_not_modified():
    _, y, llr = make_gaussian_scores(50, random_state=8)
    w = np.ones(50)
    plo = np.linspace(-2, 2, 5)
    copies = [a.copy() for a in (y, llr, w, plo)]
    out = empirical_cross_entropy(y, llr, prior_log_odds=plo, sample_weight=w)
    out[0][:] = 99.0  # the returned grid is a copy
    for a, b in zip((y, llr, w, plo), copies, strict=True):
        np.testing.assert_array_equal(a, b)
    ECEDisplay.from_predictions(y, llr, prior_log_odds=plo, sample_weight=w)
    for a, b in zip((y, llr, w, plo), copies, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"y_true": [1, 1], "llr": [0.0, 1.0]}, "non-target"),
        ({"y_true": [0, 1], "llr": [0.0, np.nan]}, "llr"),
        ({"y_true": [], "llr": []}, "empty"),
        (
            {"y_true": [0, 1], "llr": [0.0, 1.0], "prior_log_odds": [0, np.inf]},
            "prior_log_odds",
        ),
        (
            {"y_true": [0, 1], "llr": [0.0, 1.0], "prior_log_odds": [[0.0]]},
            "prior_log_odds",
        ),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match) as exc:
        empirical_cross_entropy(**kwargs)
    assert "\n" not in str(exc.value)


def test_display_from_predictions_and_trials():
    data = load_cartridge_case()
    disp = ECEDisplay.from_predictions(data.target, data.llr, name="cartridge")
    trials = ScoredTrials(data.target, data.llr)
    other = ECEDisplay.from_trials(trials, log10=True)
    np.testing.assert_array_equal(disp.ece, other.ece)
    np.testing.assert_array_equal(disp.pav_ece, other.pav_ece)
    labels = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert labels[0] == "cartridge: LLRs (Cllr 0.649)"
    assert labels[1] == "cartridge: PAV-LLRs (min Cllr 0.475)"
    assert labels[2] == "reference (LR = 1)"
    assert "bits" in disp.ax_.get_ylabel()
    assert "natural" in disp.ax_.get_xlabel()
    assert "base-10" in other.ax_.get_xlabel()
    np.testing.assert_allclose(
        other.line_.get_xdata(), disp.prior_log_odds / math.log(10)
    )
    # every curve inside the axes
    top = disp.ax_.get_ylim()[1]
    assert top >= max(disp.ece.max(), disp.pav_ece.max(), disp.reference_ece.max())


def test_display_shares_axes_and_reference_once():
    _, y, llr = make_gaussian_scores(200, random_state=9)
    first = ECEDisplay.from_predictions(y, llr, name="A")
    second = ECEDisplay.from_predictions(y, 2 * llr, name="B", ax=first.ax_)
    assert first.reference_line_ is not None and second.reference_line_ is None
    refs = [
        t for t in first.ax_.get_legend().get_texts() if "reference" in t.get_text()
    ]
    assert len(refs) == 1
    assert second.pav_line_.get_color() == second.line_.get_color()


def test_display_from_estimator():
    s, y, _ = make_gaussian_scores(300, random_state=10)
    cal = PAVLLRCalibrator().fit(s, y)
    disp = ECEDisplay.from_estimator(cal, s, y)
    assert disp.line_.get_label().startswith("PAVLLRCalibrator: ")
    expected = empirical_cross_entropy(y, cal.decision_function(s))
    np.testing.assert_array_equal(disp.ece, expected[1])


def test_infinite_system_curve_is_not_drawn_as_nan_warning():
    disp = ECEDisplay.from_predictions([0, 1, 1], [-1.0, -np.inf, 2.0])
    assert np.isinf(disp.ece).all()
    assert np.isnan(disp.line_.get_ydata()).all()
    assert np.isfinite(disp.ax_.get_ylim()).all()


@pytest.mark.parametrize("scale, offset", [(3.0, 0.0), (1.0, -60.0), (1.0, 60.0)])
def test_binned_taylor_sums_equal_the_direct_sums(scale, offset):
    # many trials take the binned expansion; it equals the sums term by term
    from skcalib.metrics._plot._cross_entropy import (
        _softplus_sums_binned,
        _softplus_sums_direct,
    )

    rng = np.random.default_rng(11)
    x = rng.normal(size=20000) * scale + offset
    w = rng.uniform(0, 2, x.shape[0])
    shifts = np.linspace(-9, 9, 37)
    binned = _softplus_sums_binned(x, w, shifts)
    assert binned is not None
    np.testing.assert_allclose(binned, _softplus_sums_direct(x, w, shifts), rtol=1e-13)
    # a wide range falls back to the direct sums
    assert _softplus_sums_binned(np.r_[x[:100], 1e300], w[:101], shifts) is None


def test_large_system_at_even_odds_is_cllr():
    _, y, llr = make_gaussian_scores(40000, random_state=12)
    llr[:3] = [np.inf, -np.inf, 5.0]
    y[:3] = [1, 0, 0]
    w = np.random.default_rng(3).uniform(0, 2, y.shape[0])
    plo, ece, pav, ref = empirical_cross_entropy(y, llr, sample_weight=w)
    k = int(np.flatnonzero(plo == 0.0)[0])
    assert ece[k] == pytest.approx(cllr(y, llr, sample_weight=w), rel=0, abs=1e-12)
    assert pav[k] == pytest.approx(min_cllr(y, llr, sample_weight=w), rel=0, abs=1e-12)
    expected = [cllr(y, llr, sample_weight=w, p_target=float(expit(e))) for e in plo]
    np.testing.assert_allclose(ece, np.array(expected) * ref, rtol=1e-12)
