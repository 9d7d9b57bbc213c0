"""Tests of ScoredTrials (skcalib.metrics._trials)."""

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import det_curve

from skcalib.metrics import (
    Application,
    ScoredTrials,
    actual_dcf,
    bayes_error_curve,
    cllr,
    eer,
    min_cllr,
    min_dcf,
    rocch,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=40)


# ------------------------------------------------------------------- errors
def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="y_score"):
        ScoredTrials([0, 1], [0.0, np.nan])
    with pytest.raises(ValueError, match="'pos_label' parameter of ScoredTrials"):
        ScoredTrials([0, 1], [0.0, 1.0], pos_label=[1])
    with pytest.raises(ValueError, match="target"):
        ScoredTrials([0, 0], [0.0, 1.0])
    trials = ScoredTrials([0, 1], [0.0, 1.0])
    with pytest.raises(ValueError, match="'p_target' parameter of ScoredTrials.min"):
        trials.min_dcf(1.5)
    with pytest.raises(ValueError, match=r"'p_target' .* Got 1.0 instead"):
        trials.min_dcf([0.1, 1.0])
    with pytest.raises(ValueError, match="'c_fa' parameter of ScoredTrials.actual"):
        trials.actual_dcf(0.1, c_fa=0)
    with pytest.raises(ValueError, match=r"'p_target' .* Got True instead"):
        trials.actual_dcf([0.1, True])
    with pytest.raises(ValueError, match="1-D"):
        trials.min_dcf([[0.1]])
    with pytest.raises(ValueError, match="'normalize' parameter"):
        trials.min_dcf(0.1, normalize="yes")
    with pytest.raises(ValueError, match="'p_target' parameter of ScoredTrials.cllr"):
        trials.cllr(p_target=2.0)
    with pytest.raises(ValueError, match="prior_log_odds"):
        trials.bayes_error_curve([np.inf])


# -------------------------------------------------------------- correctness
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("decimals", [None, 1])
def test_equals_the_metric_functions_bit_for_bit(weights, decimals):
    s, y, w = make_scores(400, weights=weights, decimals=decimals, labels=bool)
    trials = ScoredTrials(y, s, sample_weight=w)
    kw = {"sample_weight": w}
    app = {"p_target": 0.1, "c_miss": 2.0, "c_fa": 1.0}
    assert trials.eer() == eer(y, s, **kw)
    assert trials.min_dcf(**app) == min_dcf(y, s, **app, **kw)
    assert trials.min_dcf(0.3, normalize=False) == min_dcf(
        y, s, p_target=0.3, normalize=False, **kw
    )
    assert trials.min_cllr() == min_cllr(y, s, **kw)
    assert trials.min_cllr(0.2) == min_cllr(y, s, p_target=0.2, **kw)
    assert trials.actual_dcf(**app) == actual_dcf(y, s, **app, **kw)
    assert trials.cllr() == cllr(y, s, **kw)
    assert trials.cllr(0.3) == cllr(y, s, p_target=0.3, **kw)
    for a, b in zip(trials.rocch(), rocch(y, s, **kw), strict=True):
        np.testing.assert_array_equal(a, b)
    plo = np.linspace(-5, 5, 11)
    for a, b in zip(
        trials.bayes_error_curve(plo), bayes_error_curve(y, s, plo, **kw), strict=True
    ):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        trials.bayes_error_rates(plo), bayes_error_curve(y, s, plo, **kw)[1]
    )


def test_many_applications_equal_one_at_a_time():
    s, y, w = make_scores(400, seed=1, weights=True, labels=bool)
    trials = ScoredTrials(y, s, sample_weight=w)
    p = np.array([1e-4, 0.01, 0.1, 0.5, 0.9])
    dcf, p_miss, p_fa = trials.min_dcf(p, c_fa=3.0, return_rates=True)
    act, a_miss, a_fa = trials.actual_dcf(p, c_fa=3.0, return_rates=True)
    for i, pt in enumerate(p):
        app = Application(pt, c_fa=3.0)
        assert dcf[i] == min_dcf(y, s, **app.as_dict(), sample_weight=w)
        assert dcf[i] == app.dcf(p_miss[i], p_fa[i])
        assert act[i] == actual_dcf(y, s, **app.as_dict(), sample_weight=w)
        assert act[i] == app.dcf(a_miss[i], a_fa[i])
    # the best rates lie on the hull
    pmiss, pfa = trials.rocch()
    for m, f in zip(p_miss, p_fa, strict=True):
        assert ((pmiss == m) & (pfa == f)).any()


def test_det_curve_is_sklearns_on_ranks():
    s, y, w = make_scores(400, seed=2, weights=True, decimals=1, labels=bool)
    fpr, fnr = ScoredTrials(y, s, sample_weight=w).det_curve()
    ref_fpr, ref_fnr, _ = det_curve(y, s, sample_weight=w)
    np.testing.assert_array_equal(fpr, ref_fpr)
    np.testing.assert_array_equal(fnr, ref_fnr)


def test_infinite_scores_and_ties():
    trials = ScoredTrials([0, 1, 1, 0], [-np.inf, np.inf, 0.0, 0.0])
    assert trials.eer() == 0.25
    assert trials.cllr() == pytest.approx(0.5)  # tar at 0: 1 bit; others 0
    assert trials.min_dcf(0.5) == 0.5
    pmiss, pfa = trials.rocch()
    assert pmiss.tolist() == [0.0, 0.0, 0.5, 1.0]


def test_rocch_returns_copies():
    trials = ScoredTrials([0, 1], [0.0, 1.0])
    pmiss, _ = trials.rocch()
    pmiss[:] = 7.0
    assert trials.rocch()[0].tolist() == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("decimals", [None, 0])
def test_resample_is_the_sorted_trials_with_counts_as_weights(decimals):
    # Unweighted trials: unit j is the j-th trial of "targets by score, then
    # non-targets by score"; the resample answers every metric as the
    # metric functions do with the counts of the drawn units as weights.
    from skcalib.metrics import beta_rule_loss, brier_loss
    from skcalib.metrics._trials import Resampler

    s, y, _ = make_scores(3000, seed=4, decimals=decimals, labels=bool)
    trials = ScoredTrials(y, s)
    resampler = Resampler(trials)
    y_arr = np.r_[np.ones(y.sum()), np.zeros((~y).sum())]
    s_arr = np.r_[np.sort(s[y]), np.sort(s[~y])]
    app = Application(0.1, c_miss=3.0)
    for seed in range(3):
        idx = np.random.default_rng(seed).integers(0, y.shape[0], y.shape[0])
        w = np.bincount(idx, minlength=y.shape[0])
        resample = resampler(idx)
        assert isinstance(resample, ScoredTrials)
        for got, expected in [
            (resample.eer(), eer(y_arr, s_arr, sample_weight=w)),
            (
                resample.min_dcf(app),
                min_dcf(y_arr, s_arr, p_target=app, sample_weight=w),
            ),
            (
                resample.min_cllr(0.2),
                min_cllr(y_arr, s_arr, p_target=0.2, sample_weight=w),
            ),
            (
                resample.actual_dcf(app),
                actual_dcf(y_arr, s_arr, p_target=app, sample_weight=w),
            ),
            (resample.cllr(), cllr(y_arr, s_arr, sample_weight=w)),
            (resample.cllr(0.3), cllr(y_arr, s_arr, p_target=0.3, sample_weight=w)),
            (resample.brier_loss(), brier_loss(y_arr, s_arr, sample_weight=w)),
            (
                resample.beta_rule_loss(2.0, 0.5, p_target=0.3),
                beta_rule_loss(
                    y_arr, s_arr, alpha=2.0, beta=0.5, p_target=0.3, sample_weight=w
                ),
            ),
        ]:
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-14)
        a, m = resample.bayes_error_curve([-2.0, 0.0, 3.0])
        a_ref, m_ref = bayes_error_curve(
            y_arr, s_arr, [-2.0, 0.0, 3.0], sample_weight=w
        )
        np.testing.assert_allclose(a, a_ref, rtol=1e-12)
        np.testing.assert_allclose(m, m_ref, rtol=1e-12)
    with pytest.raises(ValueError, match="weights over the sorted trials"):
        resample.det_curve()


def test_resample_of_an_infinite_loss():
    # a target at LLR -inf costs inf in every resample that draws it, and
    # nothing (not 0 * inf = nan) in the others
    from skcalib.metrics._trials import Resampler

    y = np.array([1, 1, 0, 0, 1, 0], bool)
    s = np.array([-np.inf, 1.0, -1.0, 0.5, 2.0, -2.0])
    resampler = Resampler(ScoredTrials(y, s))
    # unit 0 is the target at -inf (targets sorted first)
    assert resampler(np.array([0, 1, 3, 4, 5, 5])).cllr() == np.inf
    finite = resampler(np.array([1, 2, 3, 4, 5, 5])).cllr()
    assert np.isfinite(finite)
    ref = cllr(
        [1, 1, 0, 0, 0], [1.0, 2.0, -2.0, -1.0, 0.5], sample_weight=[1, 1, 1, 1, 2]
    )
    assert finite == pytest.approx(ref, rel=1e-14)


# --------------------------------------------------------------- properties
@HYP
@given(
    st.lists(st.integers(-5, 5), min_size=4, max_size=25),
    st.lists(st.floats(1e-3, 1 - 1e-3), min_size=1, max_size=5),
)
def test_vectorized_min_dcf_equals_pointwise(scores, p):
    s = np.array(scores, float)
    y = np.arange(s.shape[0]) % 2 == 0
    trials = ScoredTrials(y, s)
    got = trials.min_dcf(p, c_miss=2.0)
    assert got.tolist() == [min_dcf(y, s, p_target=v, c_miss=2.0) for v in p]


def test_dask_trials_are_drawn_from_memory():
    # the drawings need every trial: Dask inputs are computed once for them,
    # as the displays did before they drew from ScoredTrials
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    s, y, w = make_scores(400, seed=4, weights=True, labels=bool)
    ref = ScoredTrials(y, s, sample_weight=w)
    with dask.config.set(scheduler="synchronous"):
        got = ScoredTrials(
            da.from_array(y, chunks=100),
            da.from_array(s, chunks=100),
            sample_weight=da.from_array(w, chunks=100),
        )
        for a, b in zip(got.det_curve(), ref.det_curve(), strict=True):
            np.testing.assert_array_equal(a, b)
        assert got.eer() == pytest.approx(ref.eer(), rel=1e-12)


# ------------------------------------------------------------- applications
def test_min_dcf_of_an_application():
    # ScoredTrials.min_dcf(Application(0.01)) was refused
    s, y, _ = make_scores(400, seed=2, labels=bool)
    trials = ScoredTrials(y, s)
    app = Application(0.01, c_miss=3.0)
    assert trials.min_dcf(app) == trials.min_dcf(0.01, c_miss=3.0)
    assert trials.actual_dcf(app) == trials.actual_dcf(0.01, c_miss=3.0)
    got = trials.min_dcf([app, 0.5, Application(0.2)])
    assert got.tolist() == [
        trials.min_dcf(0.01, c_miss=3.0),
        trials.min_dcf(0.5),
        trials.min_dcf(0.2),
    ]
    # the functions take them too, and an Application is never re-checked
    assert min_dcf(y, s, p_target=app) == trials.min_dcf(app)
    assert actual_dcf(y, s, p_target=app) == trials.actual_dcf(app)
    np.testing.assert_array_equal(
        min_dcf(y, s, p_target=[app, 0.5]), trials.min_dcf([app, 0.5])
    )
    with pytest.raises(ValueError, match="carries its own costs"):
        trials.min_dcf(app, c_miss=2.0)
    with pytest.raises(ValueError, match="'p_target' parameter of min_dcf"):
        min_dcf(y, s, p_target=[0.1, 1.5])


def test_public_methods_of_the_pav_blocks():
    from skcalib._kernel._pav import block_llr, pav_blocks

    s, y, w = make_scores(400, seed=5, weights=True, decimals=1, labels=bool)
    trials = ScoredTrials(y, s, sample_weight=w)
    keep = w > 0
    blocks = pav_blocks(s[keep], y[keep], w[keep])
    llr, lo, hi = trials.pav_llr()
    ref = block_llr(blocks, blocks.tar.sum(), blocks.non.sum())
    np.testing.assert_array_equal(llr, ref)
    np.testing.assert_array_equal(lo, blocks.lo)
    np.testing.assert_array_equal(hi, blocks.hi)
    np.testing.assert_array_equal(
        trials.pav_proba(), blocks.tar / (blocks.tar + blocks.non)
    )
    # the ROC curve's area is scikit-learn's AUC
    from sklearn.metrics import roc_auc_score

    fpr, tpr = trials.roc_curve()
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    assert area == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    is_target, x, sw = trials.as_arrays()
    np.testing.assert_array_equal(x, s[keep])
    np.testing.assert_array_equal(sw, w[keep])
