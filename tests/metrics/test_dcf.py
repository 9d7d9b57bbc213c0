"""Tests of actual_dcf, min_dcf and bayes_error_curve (skcalib.metrics._dcf)."""

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from skcalib._kernel._pav import block_llr, pav_blocks
from skcalib.metrics import actual_dcf, bayes_error_curve, min_dcf

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=40)


# --------------------------------------------------------------- references
def _brute_actual(y, llr, w, threshold, w_miss, w_fa):
    """Loop-free but independent: masks on the raw arrays."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    y = np.asarray(y, bool)
    keep = w > 0
    y, llr, w = y[keep], np.asarray(llr, float)[keep], w[keep]
    acc = llr >= threshold
    p_miss = w[y & ~acc].sum() / w[y].sum()
    p_fa = w[~y & acc].sum() / w[~y].sum()
    return w_miss * p_miss + w_fa * p_fa


def _exhaustive_min(y, s, w, w_miss, w_fa):
    """Every threshold at a distinct score, plus reject-all: O(n^2)."""
    y = np.asarray(y, bool)
    s = np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    n_tar, n_non = w[y].sum(), w[~y].sum()
    best = w_miss * 1.0  # reject all
    for t in np.unique(s):
        acc = s >= t
        c = w_miss * w[y & ~acc].sum() / n_tar + w_fa * w[~y & acc].sum() / n_non
        best = min(best, c)
    return best


def _pav_llr_per_sample(y, s, w=None):
    b = pav_blocks(np.asarray(s, float), np.asarray(y, bool), w)
    llr = block_llr(b, b.tar.sum(), b.non.sum())
    return llr[np.searchsorted(b.lo, s, side="right") - 1]


#: both classes among the first two trials (and weighing 1), scores tied
TRIALS = {"prior": 0.4, "both_first": True, "loc": (0.0, 1.2), "decimals": 1}


# ------------------------------------------------------------------- errors
def test_nan_raises_naming_argument():
    with pytest.raises(ValueError, match="llr"):
        actual_dcf([0, 1], [0.0, np.nan], p_target=0.5)
    with pytest.raises(ValueError, match="y_score"):
        min_dcf([0, 1], [np.nan, 1.0], p_target=0.5)
    with pytest.raises(ValueError, match="llr"):
        bayes_error_curve([0, 1], [np.nan, 1.0], [0.0])


@pytest.mark.parametrize("name, value", [("p_target", 0.0), ("p_target", 1.5)])
def test_p_target_out_of_range(name, value):
    with pytest.raises(ValueError, match="p_target"):
        actual_dcf([0, 1], [0.0, 1.0], p_target=value)
    with pytest.raises(ValueError, match="p_target"):
        min_dcf([0, 1], [0.0, 1.0], p_target=value)


@pytest.mark.parametrize("cost", ["c_miss", "c_fa"])
def test_costs_must_be_positive(cost):
    with pytest.raises(ValueError, match=cost):
        actual_dcf([0, 1], [0.0, 1.0], p_target=0.5, **{cost: 0.0})


def test_labels_need_pos_label_and_both_classes():
    with pytest.raises(ValueError, match="pos_label"):
        min_dcf(["a", "b"], [0.0, 1.0], p_target=0.5)
    with pytest.raises(ValueError, match="pos_label"):
        actual_dcf([0, 1], [0.0, 1.0], p_target=0.5, pos_label=2)
    with pytest.raises(ValueError, match="target"):
        actual_dcf([1, 1], [0.0, 1.0], p_target=0.5)
    with pytest.raises(ValueError, match="target"):  # zero weight removes a class
        min_dcf([0, 1, 1], [0.0, 1.0, 2.0], p_target=0.5, sample_weight=[0, 1, 1])


def test_bad_prior_log_odds():
    with pytest.raises(ValueError, match="prior_log_odds"):
        bayes_error_curve([0, 1], [0.0, 1.0], [0.0, np.inf])
    with pytest.raises(ValueError, match="prior_log_odds"):
        bayes_error_curve([0, 1], [0.0, 1.0], np.zeros((2, 2)))


def test_inconsistent_lengths():
    with pytest.raises(ValueError, match="inconsistent"):
        actual_dcf([0, 1, 1], [0.0, 1.0], p_target=0.5)


# ----------------------------------------------------- worked/brute force
def test_accept_on_tie_at_threshold():
    # l >= -logit(pe): a trial exactly at the threshold is accepted.
    t = -logit(0.2)
    assert actual_dcf([0, 1], [t, t], p_target=0.2, normalize=False) == pytest.approx(
        0.8
    )
    assert actual_dcf([0, 1], [0.0, 0.0], p_target=0.5) == 1.0


def test_normalization_by_best_dummy():
    y, llr = [0, 0, 1, 1], [-1.0, 2.0, 0.5, -3.0]
    p, cm, cf = 0.3, 2.0, 5.0
    raw = actual_dcf(y, llr, p_target=p, c_miss=cm, c_fa=cf, normalize=False)
    norm = actual_dcf(y, llr, p_target=p, c_miss=cm, c_fa=cf)
    assert norm == pytest.approx(raw / min(p * cm, (1 - p) * cf))
    # Only pe matters for the normalized cost.
    pe = p * cm / (p * cm + (1 - p) * cf)
    assert norm == pytest.approx(actual_dcf(y, llr, p_target=pe))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("p, cm, cf", [(0.5, 1, 1), (0.01, 1, 1), (0.3, 10, 1)])
def test_actual_dcf_brute_force(seed, weights, p, cm, cf):
    s, y, w = make_scores(60, seed=seed, inf=0.1, weights=weights, **TRIALS)
    thr = -(logit(p) + np.log(cm / cf))
    ref = _brute_actual(y, s, w, thr, p * cm, (1 - p) * cf)
    got = actual_dcf(y, s, p_target=p, c_miss=cm, c_fa=cf, sample_weight=w)
    assert got == pytest.approx(ref / min(p * cm, (1 - p) * cf), rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("inf", [False, True])
@pytest.mark.parametrize("p, cm, cf", [(0.5, 1, 1), (0.05, 1, 1), (0.9, 1, 3)])
def test_min_dcf_equals_exhaustive_sweep(seed, weights, inf, p, cm, cf):
    s, y, w = make_scores(
        60, seed=seed, inf=0.1 if inf else 0.0, weights=weights, **TRIALS
    )
    ref = _exhaustive_min(y, s, w, p * cm, (1 - p) * cf)
    got = min_dcf(y, s, p_target=p, c_miss=cm, c_fa=cf, sample_weight=w)
    assert got == pytest.approx(ref / min(p * cm, (1 - p) * cf), rel=1e-12, abs=1e-15)
    raw = min_dcf(
        y, s, p_target=p, c_miss=cm, c_fa=cf, sample_weight=w, normalize=False
    )
    assert raw == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_min_dcf_all_infinite_scores_keeps_trivial_points():
    y = [0, 1, 0, 1]
    # Every target at +inf, every non-target at -inf: perfect.
    assert min_dcf(y, [-np.inf, np.inf, -np.inf, np.inf], p_target=0.5) == 0.0
    # Everything at +inf: one point, only accept-all / reject-all.
    assert min_dcf(y, [np.inf] * 4, p_target=0.1) == 1.0
    # Reversed: the best is a trivial system, still 1 (never above).
    assert min_dcf(y, [np.inf, -np.inf, np.inf, -np.inf], p_target=0.3) == 1.0


def test_min_dcf_equals_actual_dcf_of_pav_llr():
    s, y, w = make_scores(300, seed=7, weights=True, **TRIALS)
    pav = _pav_llr_per_sample(y, s, w)
    for p in (0.01, 0.2, 0.5, 0.77):
        assert min_dcf(y, s, p_target=p, sample_weight=w) == pytest.approx(
            actual_dcf(y, pav, p_target=p, sample_weight=w), rel=1e-12
        )


def test_weights_equal_repeated_rows():
    s, y, _ = make_scores(60, seed=3, **TRIALS)
    rep = np.arange(len(y)) % 3
    yr, sr = np.repeat(y, rep), np.repeat(s, rep)
    for f in (actual_dcf, min_dcf):
        assert f(y, s, p_target=0.2, sample_weight=rep) == pytest.approx(
            f(yr, sr, p_target=0.2), rel=1e-12
        )


def test_zero_weight_infinite_trials_ignored():
    s, y, _ = make_scores(60, seed=11, **TRIALS)
    y2 = np.append(y, [1, 0])
    s2 = np.append(s, [-np.inf, np.inf])  # confidently wrong, but weight 0
    w2 = np.append(np.ones(len(y)), [0.0, 0.0])
    for f in (actual_dcf, min_dcf):
        assert f(y2, s2, p_target=0.3, sample_weight=w2) == f(y, s, p_target=0.3)
    act, mini = bayes_error_curve(y2, s2, [-1.0, 2.0], sample_weight=w2)
    ref_act, ref_min = bayes_error_curve(y, s, [-1.0, 2.0])
    np.testing.assert_array_equal(act, ref_act)
    np.testing.assert_array_equal(mini, ref_min)


def test_infinite_and_huge_llrs_exact():
    y = [0, 0, 1, 1]
    assert actual_dcf(y, [-np.inf, -1e4, 1e4, np.inf], p_target=0.5) == 0.0
    assert actual_dcf(y, [np.inf, -1e4, 1e4, -np.inf], p_target=0.5) == 1.0
    assert actual_dcf(y, [1e4, 1e4, 1e4, 1e4], p_target=0.01) == 99.0
    assert min_dcf(y, [-1e4, -np.inf, np.inf, 1e4], p_target=0.01) == 0.0
    act, mini = bayes_error_curve(y, [np.inf, -1e4, 1e4, -np.inf], [-20.0, 0.0, 20.0])
    assert np.all(np.isfinite(act)) and np.all(mini <= 1.0)
    assert act[1] == 1.0


def test_pos_label_strings_and_flipping():
    s, y, w = make_scores(60, seed=5, weights=True, **TRIALS)
    ys = np.where(y == 1, "spk", "imp")
    for f in (actual_dcf, min_dcf):
        assert f(ys, s, p_target=0.2, sample_weight=w, pos_label="spk") == f(
            y, s, p_target=0.2, sample_weight=w
        )
    # Swapping the classes: negate scores, swap the prior (normalized DCF).
    assert min_dcf(ys, -s, p_target=0.8, sample_weight=w, pos_label="imp") == (
        pytest.approx(min_dcf(y, s, p_target=0.2, sample_weight=w), rel=1e-12)
    )
    # {-1, 1} and booleans need no pos_label.
    assert min_dcf(2 * y - 1, s, p_target=0.2) == min_dcf(y == 1, s, p_target=0.2)


def test_bayes_error_curve_brute_force():
    s, y, w = make_scores(200, seed=2, inf=0.1, weights=True, **TRIALS)
    plo = np.linspace(-6, 6, 25)
    act, mini = bayes_error_curve(y, s, plo, sample_weight=w)
    for k, eta in enumerate(plo):
        pe = expit(eta)
        ref = _brute_actual(y, s, w, -eta, pe, 1 - pe) / min(pe, 1 - pe)
        assert act[k] == pytest.approx(ref, rel=1e-12)
        ref_min = _exhaustive_min(y, s, w, pe, 1 - pe) / min(pe, 1 - pe)
        assert mini[k] == pytest.approx(ref_min, rel=1e-12, abs=1e-14)
    assert np.all(mini <= act + 1e-15)
    # A scalar grid point works too.
    a0, m0 = bayes_error_curve(y, s, 0.5, sample_weight=w)
    assert a0.shape == (1,) and m0[0] == pytest.approx(
        min_dcf(y, s, p_target=expit(0.5), sample_weight=w)
    )


@pytest.mark.parametrize("sign", [-1.0, 1.0])
def test_bayes_error_curve_finite_beyond_exp_range(sign):
    # min(pe, 1 - pe) underflows to 0 beyond |prior log-odds| ~ 745 (0 / 0).
    y = np.array([0, 0, 0, 1, 1, 1])
    llr = np.array([-3.0, -1.0, 0.5, -0.2, 2.0, 1e300])
    plo = sign * np.array([700.0, 746.0, 800.0, 1e5, 1e300])
    act, mini = bayes_error_curve(y, llr, plo)
    assert np.isfinite(act).all() and np.isfinite(mini).all()
    # Beyond every finite LLR, the only errors are those of the trivial decision.
    if sign < 0:  # rejects all but the 1e300 target: P_miss = 2/3, P_fa = 0
        np.testing.assert_allclose(act, 2 / 3, rtol=1e-12)
    else:  # accepts all: P_miss = 0, normalized cost = P_fa = 1
        np.testing.assert_allclose(act, 1.0, rtol=1e-12)
    assert np.all(mini <= act) and np.all(mini <= 1.0)


def test_normalized_dcf_with_underflowing_cost_weight():
    # p_target * c_miss = 1e-400 underflows to 0; the normalized cost does not
    # depend on it: it is the limit of the same cost at log-odds -921.
    y, llr = [0, 0, 1, 1], [-1.0, 2.0, 0.5, 3.0]
    act = actual_dcf(y, llr, p_target=1e-200, c_miss=1e-200)
    assert act == 1.0  # all rejected: P_miss = 1, P_fa = 0
    # best: accept only the score 3 (no false alarm), P_miss = 1/2
    assert min_dcf(y, llr, p_target=1e-200, c_miss=1e-200) == 0.5
    assert actual_dcf(y, llr, p_target=1e-200, c_miss=1e-200, normalize=False) == 0


# ---------------------------------------------------------------- properties
@st.composite
def _trials(draw, max_n=30):
    n = draw(st.integers(2, max_n))
    s = np.array(draw(st.lists(st.integers(-20, 20), min_size=n, max_size=n)), float)
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    y[0], y[1] = True, False
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), float)
    return y, s, w


@HYP
@given(_trials(), st.floats(0.01, 0.99), st.floats(0.1, 10))
def test_min_dcf_le_actual_and_le_one(data, p, cm):
    y, s, w = data
    llr = s / 4.0
    m = min_dcf(y, llr, p_target=p, c_miss=cm, sample_weight=w)
    assert m <= actual_dcf(y, llr, p_target=p, c_miss=cm, sample_weight=w) + 1e-12
    assert 0.0 <= m <= 1.0


@HYP
@given(_trials(), st.floats(0.01, 0.99))
def test_min_dcf_invariant_to_increasing_transforms(data, p):
    y, s, w = data
    ref = min_dcf(y, s, p_target=p, sample_weight=w)
    for t in (np.exp(s / 5.0), 3.0 * s - 7.0, s**3 + s):
        assert min_dcf(y, t, p_target=p, sample_weight=w) == pytest.approx(
            ref, rel=1e-12, abs=1e-15
        )


@HYP
@given(_trials(), st.lists(st.floats(-8, 8), min_size=1, max_size=6))
def test_bayes_error_curve_equals_pointwise_calls(data, plo):
    y, s, w = data
    llr = s / 3.0
    plo = np.array(plo)
    act, mini = bayes_error_curve(y, llr, plo, sample_weight=w)
    for k, eta in enumerate(plo):
        pe = expit(eta)
        assert mini[k] == pytest.approx(
            min_dcf(y, llr, p_target=pe, sample_weight=w), rel=1e-9, abs=1e-12
        )
        ref = _brute_actual(y, llr, w, -eta, pe, 1 - pe) / min(pe, 1 - pe)
        assert act[k] == pytest.approx(ref, rel=1e-12, abs=1e-15)
        if not np.any(np.isclose(llr, -eta, rtol=0, atol=1e-9)):
            assert act[k] == pytest.approx(
                actual_dcf(y, llr, p_target=pe, sample_weight=w), rel=1e-9
            )


def test_every_min_metric_routes_through_scored_trials():
    # The one place where a new input kind (e.g. Dask) must be handled: each
    # metric is its ScoredTrials method, bit for bit, and one ScoredTrials
    # answers them all from one sort (its PAV blocks stay the same object).
    from skcalib.metrics import ScoredTrials, eer, min_cllr, rocch

    s, y, w = make_scores(60, seed=0, weights=True, **TRIALS)
    trials = ScoredTrials(y, s, sample_weight=w)
    _, lo, hi = trials.pav_llr()
    for f, kw in [
        (min_dcf, {"p_target": 0.1}),
        (eer, {}),
        (min_cllr, {}),
        (rocch, {}),
    ]:
        got = f(y, s, sample_weight=w, **kw)
        np.testing.assert_array_equal(got, getattr(trials, f.__name__)(**kw))
    grid = [0.0, 1.0]
    np.testing.assert_array_equal(
        bayes_error_curve(y, s, grid, sample_weight=w), trials.bayes_error_curve(grid)
    )
    _, lo_after, hi_after = trials.pav_llr()
    assert lo_after is lo and hi_after is hi
