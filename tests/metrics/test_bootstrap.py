"""Tests of skcalib.metrics.bootstrap_ci."""

import inspect

import numpy as np
import pytest
from scipy import stats
from scipy.stats import norm

from skcalib.datasets import make_gaussian_scores
from skcalib.metrics import (
    ScoredTrials,
    actual_dcf,
    beta_rule_loss,
    bootstrap_ci,
    brier_loss,
    cllr,
    eer,
    expected_calibration_error,
    min_cllr,
    min_dcf,
    rocch,
)
from skcalib.metrics._bootstrap import (
    _ArraysReplicate,
    _interval,
    _Method,
    _replicates,
    _seeds,
    _trials_statistic,
)
from skcalib.metrics._trials import Resampler, ResamplingUnits

MIN_METRICS = [
    (min_dcf, {"p_target": 0.2}),
    (min_dcf, {"p_target": 0.5, "c_miss": 3.0, "normalize": False}),
    (eer, {}),
    (min_cllr, {}),
    (min_cllr, {"p_target": 0.1}),
]


def _row_distribution(metric, y, s, kwargs, groups=None, sample_weight=None, n=50):
    units = ResamplingUnits(y.shape[0], groups)
    rep = _ArraysReplicate(units, metric, y, s, sample_weight, kwargs, False)
    return _replicates(rep, units.n_units, _seeds(7, n))


def _arranged_distribution(metric, y, s, kwargs, n=50):
    # unit j: the j-th trial of "targets by score, then non-targets by
    # score"; the metric with the counts of the drawn units as weights
    yb = y.astype(bool)
    y_arranged = np.r_[np.ones(yb.sum()), np.zeros((~yb).sum())]
    s_arranged = np.r_[np.sort(s[yb]), np.sort(s[~yb])]
    out = []
    for seed in _seeds(7, n):
        idx = np.random.default_rng(seed).integers(0, y.shape[0], y.shape[0])
        w = np.bincount(idx, minlength=y.shape[0])
        out.append(metric(y_arranged, s_arranged, sample_weight=w, **kwargs))
    return np.array(out)


def _trials_replicate(metric, kwargs, y, s):
    statistic = _trials_statistic(metric, kwargs)[0]
    resampler = Resampler(ScoredTrials(y, s))
    return lambda idx: statistic(resampler(idx))


# ------------------------------------------------------------------ errors
def test_metric_must_return_a_number():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    with pytest.raises(ValueError, match="must return one number"):
        bootstrap_ci(rocch, y, s)


def test_groups_shape():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    with pytest.raises(ValueError, match="`groups` must have shape"):
        bootstrap_ci(eer, y, s, groups=np.zeros(3))


def test_one_group_is_not_enough():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    with pytest.raises(ValueError, match="two resampling units"):
        bootstrap_ci(eer, y, s, groups=np.zeros(y.shape[0]))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"method": "normal"}, "method"),
        ({"confidence_level": 1.5}, "confidence_level"),
        ({"n_resamples": 0}, "n_resamples"),
    ],
)
def test_invalid_parameters(params, match):
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    with pytest.raises(ValueError, match=match):
        bootstrap_ci(eer, y, s, **params)


def test_resample_without_one_class():
    # 1 target in 40 trials: most resamples of 200 miss it somewhere
    y = np.zeros(40, dtype=int)
    y[0] = 1
    s = np.linspace(0, 1, 40)
    with pytest.raises(ValueError, match="holds no target trials"):
        bootstrap_ci(min_dcf, y, s, p_target=0.5, n_resamples=200, random_state=0)


def test_metric_errors_pass_through():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    with pytest.raises(ValueError, match="p_target"):
        bootstrap_ci(min_dcf, y, s, p_target=2.0)


# ------------------------------------------- replicates: paths agree exactly
@pytest.mark.parametrize("metric, kwargs", MIN_METRICS)
@pytest.mark.parametrize("ties", [False, True])
def test_sorted_once_replicate_is_the_weighted_metric(metric, kwargs, ties):
    # Unweighted trials: unit j is the j-th trial of "targets by score, then
    # non-targets by score"; the replicate equals the metric with the counts
    # of the drawn units as weights on those trials.
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    s = np.round(s, 0) if ties else s
    yb = y.astype(bool)
    rep = _trials_replicate(metric, kwargs, y, s)
    y_arranged = np.r_[np.ones(yb.sum()), np.zeros((~yb).sum())]
    s_arranged = np.r_[np.sort(s[yb]), np.sort(s[~yb])]
    for seed in range(5):
        idx = np.random.default_rng(seed).integers(0, y.shape[0], y.shape[0])
        w = np.bincount(idx, minlength=y.shape[0])
        expected = metric(y_arranged, s_arranged, sample_weight=w, **kwargs)
        assert rep(idx) == pytest.approx(expected, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"p_target": 0.01},
        {"p_target": 0.5, "c_miss": 3.0, "normalize": False},
        {"p_target": 0.999, "c_fa": 2.0},
        {"p_target": 1e-300},  # weight ratio 1e300: still the one-pass cost
        {"p_target": 1e-320},  # the ratio overflows: the metric's formula
    ],
)
def test_min_dcf_replicate_over_many_points(kwargs):
    # Thousands of points: the minimum DCF picks its point by one cost pass
    # (above 1024 points), and must still equal the metric with the counts
    # as weights.
    s, y, _ = make_gaussian_scores(6000, prior=0.3, random_state=3)
    yb = y.astype(bool)
    rep = _trials_replicate(min_dcf, kwargs, y, s)
    assert ScoredTrials(y, s).roc_curve()[0].shape[0] > 1025  # ordered points
    y_arranged = np.r_[np.ones(yb.sum()), np.zeros((~yb).sum())]
    s_arranged = np.r_[np.sort(s[yb]), np.sort(s[~yb])]
    for seed in range(5):
        idx = np.random.default_rng(seed).integers(0, y.shape[0], y.shape[0])
        w = np.bincount(idx, minlength=y.shape[0])
        expected = min_dcf(y_arranged, s_arranged, sample_weight=w, **kwargs)
        assert rep(idx) == pytest.approx(expected, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("metric, kwargs", MIN_METRICS)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_grouped_kernel_replicates_equal_resampled_rows(metric, kwargs, ties, weighted):
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    s = np.round(s, 0) if ties else s
    groups = np.arange(y.shape[0]) % 23
    sw = np.random.default_rng(0).uniform(0.5, 2, y.shape[0]) if weighted else None
    res = bootstrap_ci(
        metric,
        y,
        s,
        groups=groups,
        sample_weight=sw,
        n_resamples=50,
        random_state=7,
        **kwargs,
    )
    expected = _row_distribution(metric, y, s, kwargs, groups=groups, sample_weight=sw)
    np.testing.assert_allclose(
        res.bootstrap_distribution, expected, rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize("metric, kwargs", MIN_METRICS)
def test_weighted_rows_kernel_replicates_equal_resampled_rows(metric, kwargs):
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    s = np.round(s, 0)
    sw = np.random.default_rng(1).uniform(0.5, 2, y.shape[0])
    res = bootstrap_ci(
        metric, y, s, sample_weight=sw, n_resamples=50, random_state=7, **kwargs
    )
    expected = _row_distribution(metric, y, s, kwargs, sample_weight=sw)
    np.testing.assert_allclose(
        res.bootstrap_distribution, expected, rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize(
    "metric, kwargs, use_llr",
    [
        (cllr, {}, True),
        (cllr, {"p_target": 0.2}, True),
        (actual_dcf, {"p_target": 0.3}, True),
        (brier_loss, {}, True),
        (beta_rule_loss, {"alpha": 2.0, "beta": 0.5}, True),
        (expected_calibration_error, {"n_bins": 5}, False),
    ],
)
@pytest.mark.parametrize("grouped", [False, True])
def test_per_trial_metrics_weighted_replicates_equal_resampled_rows(
    metric, kwargs, use_llr, grouped
):
    s, y, llr = make_gaussian_scores(300, prior=0.3, random_state=0)
    x = llr if use_llr else 1 / (1 + np.exp(-llr))
    groups = np.arange(y.shape[0]) % 17 if grouped else None
    res = bootstrap_ci(
        metric, y, x, groups=groups, n_resamples=50, random_state=7, **kwargs
    )
    if grouped or metric is expected_calibration_error:
        expected = _row_distribution(metric, y, x, kwargs, groups=groups)
    else:  # from the trials sorted once
        expected = _arranged_distribution(metric, y, x, kwargs)
    np.testing.assert_allclose(
        res.bootstrap_distribution, expected, rtol=1e-10, atol=1e-14
    )


def test_path_choice():
    s, y, llr = make_gaussian_scores(300, prior=0.3, random_state=0)
    assert isinstance(_trials_statistic(cllr, {})[0], _Method)
    assert isinstance(_trials_statistic("not a table metric".count, {})[0], type(len))
    # quantile bins are not weight-invariant: ECE then resamples rows
    res = bootstrap_ci(
        expected_calibration_error,
        y,
        1 / (1 + np.exp(-llr)),
        strategy="quantile",
        n_bins=4,
        n_resamples=20,
        random_state=7,
    )
    expected = _row_distribution(
        expected_calibration_error,
        y,
        1 / (1 + np.exp(-llr)),
        {"strategy": "quantile", "n_bins": 4},
        n=20,
    )
    np.testing.assert_allclose(res.bootstrap_distribution, expected[:20])


def test_sorted_once_distribution_matches_resampled_rows():
    # Different draws (units are arranged by class and score), same law.
    s, y, _ = make_gaussian_scores(400, prior=0.3, random_state=0)
    a = bootstrap_ci(min_dcf, y, s, p_target=0.3, n_resamples=600, random_state=1)
    b = _row_distribution(min_dcf, y, s, {"p_target": 0.3}, n=600)
    assert stats.ks_2samp(a.bootstrap_distribution, b).pvalue > 1e-3


def test_point_estimate_and_names():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    res = bootstrap_ci("min_dcf", y, s, p_target=0.2, n_resamples=100, random_state=0)
    assert res.statistic == min_dcf(y, s, p_target=0.2)
    assert res.bootstrap_distribution.shape == (100,)
    assert res.method == "percentile" and res.confidence_level == 0.95
    low, high = res.confidence_interval
    assert low <= res.statistic <= high
    assert res.standard_error == pytest.approx(
        np.std(res.bootstrap_distribution, ddof=1)
    )


def test_pos_label():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    labels = np.where(y == 1, "tar", "non")
    a = bootstrap_ci(eer, y, s, n_resamples=30, random_state=0)
    b = bootstrap_ci(eer, labels, s, pos_label="tar", n_resamples=30, random_state=0)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


# ------------------------------------------------------------ determinism
@pytest.mark.parametrize("metric", [min_dcf, cllr])
def test_same_result_whatever_n_jobs(metric):
    s, y, llr = make_gaussian_scores(300, prior=0.3, random_state=0)
    x = s if metric is min_dcf else llr
    kw = {"p_target": 0.4} if metric is min_dcf else {}
    one = bootstrap_ci(metric, y, x, n_resamples=40, random_state=5, **kw)
    two = bootstrap_ci(metric, y, x, n_resamples=40, random_state=5, n_jobs=2, **kw)
    np.testing.assert_array_equal(
        one.bootstrap_distribution, two.bootstrap_distribution
    )
    assert one.confidence_interval == two.confidence_interval


def test_random_state_kinds():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    a = bootstrap_ci(eer, y, s, n_resamples=20, random_state=3)
    b = bootstrap_ci(eer, y, s, n_resamples=20, random_state=3)
    c = bootstrap_ci(eer, y, s, n_resamples=20, random_state=4)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    g1 = bootstrap_ci(eer, y, s, n_resamples=20, random_state=np.random.default_rng(0))
    g2 = bootstrap_ci(eer, y, s, n_resamples=20, random_state=np.random.default_rng(0))
    np.testing.assert_array_equal(g1.bootstrap_distribution, g2.bootstrap_distribution)


# ------------------------------------- intervals: scipy.stats.bootstrap's own
# scipy 1.15 renamed the generator argument `random_state` to `rng`
_SCIPY_RNG = (
    "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
@pytest.mark.parametrize("metric, kwargs", [(min_dcf, {"p_target": 0.3}), (cllr, {})])
def test_interval_is_scipy_bootstrap_on_the_same_replicates(method, metric, kwargs):
    # scipy draws the resamples and computes its interval; handing its
    # replicate values to our interval step gives the same interval.
    s, y, llr = make_gaussian_scores(80, prior=0.3, random_state=0)
    x = llr if metric is cllr else s

    def statistic(i):
        return metric(y[i], x[i], **kwargs)

    ref = stats.bootstrap(
        (np.arange(y.shape[0]),),
        statistic,
        vectorized=False,
        n_resamples=300,
        method=method,
        confidence_level=0.9,
        **{_SCIPY_RNG: np.random.default_rng(0)},
    )
    units = ResamplingUnits(y.shape[0], None)
    replicate = _ArraysReplicate(units, metric, y, x, None, kwargs, False)
    ci, se = _interval(
        ref.bootstrap_distribution,
        replicate,
        y.shape[0],
        confidence_level=0.9,
        method=method,
    )
    np.testing.assert_allclose(ci, ref.confidence_interval, rtol=1e-12)
    assert se == pytest.approx(ref.standard_error)


def test_bca_with_groups_jackknifes_groups():
    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=0)
    groups = np.arange(y.shape[0]) % 20
    res = bootstrap_ci(
        min_dcf,
        y,
        s,
        p_target=0.3,
        groups=groups,
        method="BCa",
        n_resamples=200,
        random_state=0,
    )
    low, high = res.confidence_interval
    assert np.isfinite([low, high]).all() and low < high


# ---------------------------------------------------------------- coverage
@pytest.mark.slow
def test_coverage_of_population_min_dcf():
    # Equal-variance Gaussians 2 apart: at p_target = 0.5 the population
    # min DCF is 2 Phi(-1). The empirical minimum is optimistic (the threshold
    # is chosen on the same data) and its bootstrap replicates are more so:
    # the percentile interval then sits too low (about 87 % coverage at
    # n = 5000), while the basic interval reflects the bias (95 % here).
    truth = 2 * norm.cdf(-1.0)
    covered = 0
    for rep in range(200):
        s, y, _ = make_gaussian_scores(2000, random_state=rep)
        res = bootstrap_ci(
            min_dcf,
            y,
            s,
            p_target=0.5,
            n_resamples=300,
            method="basic",
            random_state=rep,
        )
        low, high = res.confidence_interval
        covered += low <= truth <= high
    assert 0.90 <= covered / 200 <= 0.99


def test_report_progress_tells_each_replicate_and_changes_nothing():
    from skcalib.utils._progress import report_progress

    scores, y, _ = make_gaussian_scores(60, random_state=3)
    seen = []
    with report_progress(lambda *a: seen.append(a)):
        res = bootstrap_ci(
            "eer", y, scores, n_resamples=7, method="BCa", random_state=1
        )
    assert [a for a in seen if a[0] == "resamples"] == [
        ("resamples", k, 7) for k in range(1, 8)
    ]
    jack = [a for a in seen if a[0] == "jackknife"]
    assert jack[-1] == ("jackknife", 60, 60) and len(jack) == 60
    quiet = bootstrap_ci("eer", y, scores, n_resamples=7, method="BCa", random_state=1)
    np.testing.assert_array_equal(
        res.bootstrap_distribution, quiet.bootstrap_distribution
    )
    assert res.confidence_interval == quiet.confidence_interval
    assert len(seen) == 67  # nobody listens outside the block


@pytest.mark.parametrize(
    "metric, kwargs",
    [
        ("min_dcf", {"p_target": 0.3}),
        ("min_cllr", {}),
        ("eer", {}),
        ("actual_dcf", {"p_target": 0.3}),
        ("cllr", {}),
        ("brier_loss", {}),
    ],
)
def test_huge_weights_equal_unit_weights(metric, kwargs):
    # weights of 1e308 times the counts of draws overflowed: min DCF all 0,
    # min Cllr NaN, EER an internal error, the per-trial metrics refused
    from skcalib.datasets import make_gaussian_scores

    scores, y, llr = make_gaussian_scores(300, random_state=0)
    x = llr if metric in ("actual_dcf", "cllr", "brier_loss") else scores
    res = [
        bootstrap_ci(
            metric,
            y,
            x,
            n_resamples=30,
            random_state=0,
            sample_weight=np.full(300, w),
            **kwargs,
        )
        for w in (1.0, 1e308)
    ]
    np.testing.assert_allclose(res[1].statistic, res[0].statistic, rtol=1e-12)
    np.testing.assert_allclose(
        res[1].bootstrap_distribution, res[0].bootstrap_distribution, rtol=1e-12
    )


def test_one_resample_is_rejected():
    # its standard error (ddof=1) leaked "Degrees of freedom <= 0"
    scores, y, _ = make_gaussian_scores(100, random_state=0)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_ci("eer", y, scores, n_resamples=1)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_degenerate_distribution(method):
    # separated classes: every replicate's EER is 0; BCa divided 0 by 0
    y = np.array([0, 1] * 20)
    scores = np.where(y == 1, 10.0, -10.0)
    res = bootstrap_ci("eer", y, scores, n_resamples=50, method=method, random_state=0)
    assert tuple(res.confidence_interval) == (0.0, 0.0)
    assert res.standard_error == 0.0 and res.statistic == 0.0


def _confidently_wrong_target(n=200, seed=0):
    # Gaussian LLRs, one target trial at LLR -inf: its Cllr is +inf, and so
    # is every replicate that draws it (about 63 % of them)
    y = np.r_[np.zeros(n // 2, dtype=int), np.ones(n // 2, dtype=int)]
    rng = np.random.default_rng(seed)
    llr = np.r_[rng.normal(-1, 1, n // 2), rng.normal(1, 1, n // 2)]
    llr[-1] = -np.inf
    return y, llr


def _type7_quantile(distribution, level):
    # numpy's default (linear) quantile with the infinite replicates stood
    # in for by a finite value beyond all others: exact while the quantile
    # lies among the finite ones
    x = np.where(np.isinf(distribution), 1e300, distribution)
    return float(np.quantile(x, level))


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_infinite_cllr_interval(method):
    # scipy's standard error, quantile interpolation and BCa jackknife formed
    # inf - inf: "invalid value encountered in subtract", a NaN end (basic)
    # and scipy's DegenerateDataWarning with (nan, nan) (BCa)
    y, llr = _confidently_wrong_target()
    res = bootstrap_ci(cllr, y, llr, n_resamples=400, method=method, random_state=0)
    d = res.bootstrap_distribution
    assert res.statistic == np.inf
    assert 0.4 < np.isinf(d).mean() < 0.8 and np.isfinite(d).any()
    assert res.standard_error == np.inf
    low, high = res.confidence_interval
    assert high == np.inf
    if method == "percentile":
        assert low == pytest.approx(_type7_quantile(d, 0.025), rel=1e-12)
        assert np.isfinite(low)
    elif method == "basic":
        # reflected about an infinite estimate: the upper quantile (inf) is
        # the estimate itself, the lower one lies infinitely below it
        assert low == np.inf
    else:
        # BCa's bias correction counts replicates below the estimate; the
        # acceleration of infinite jackknife values is taken as 0
        z0 = norm.ppf((np.isfinite(d).sum() + d.size) / (2 * d.size))
        level = norm.cdf(2 * z0 + norm.ppf(0.025))
        assert low == pytest.approx(_type7_quantile(d, level), rel=1e-12)
        assert np.isfinite(low)


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_infinite_llr_of_zero_weight_keeps_a_finite_interval(method):
    y, llr = _confidently_wrong_target()
    w = np.ones(y.shape[0])
    w[-1] = 0.0
    res = bootstrap_ci(
        cllr, y, llr, sample_weight=w, n_resamples=200, method=method, random_state=0
    )
    assert np.isfinite(res.statistic)
    assert np.isfinite(res.bootstrap_distribution).all()
    low, high = res.confidence_interval
    assert low < res.statistic < high and np.isfinite(res.standard_error)


def test_every_replicate_infinite():
    # two confidently wrong targets in every group: each resample is inf
    y, llr = _confidently_wrong_target(n=40)
    llr[[-1, -2, -3]] = -np.inf
    groups = np.r_[np.arange(20) % 2, np.arange(20) % 2]
    groups[[-1, -2, -3]] = [0, 1, 1]
    res = bootstrap_ci(cllr, y, llr, groups=groups, n_resamples=20, method="BCa")
    assert tuple(res.confidence_interval) == (np.inf, np.inf)
    assert res.standard_error == 0.0


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_huge_replicates(method):
    # scipy squared replicates of 1e200 in its standard error (and BCa's
    # acceleration): "overflow encountered in square"
    scores, y, _ = make_gaussian_scores(100, random_state=0)

    def scaled_eer(y_true, y_score, *, scale):
        return scale * eer(y_true, y_score)

    res = [
        bootstrap_ci(
            scaled_eer,
            y,
            scores,
            scale=scale,
            n_resamples=30,
            method=method,
            random_state=0,
        )
        for scale in (1.0, 2.0**700)
    ]
    np.testing.assert_array_equal(
        res[1].bootstrap_distribution, 2.0**700 * res[0].bootstrap_distribution
    )
    np.testing.assert_allclose(
        res[1].confidence_interval,
        2.0**700 * np.asarray(res[0].confidence_interval),
        rtol=1e-12,
    )
    assert res[1].standard_error == pytest.approx(2.0**700 * res[0].standard_error)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_devpav_of_a_replicate_is_that_of_the_drawn_trials(ties, weighted):
    # devPAV reads the PAV blocks' score ranges: a replicate's are those of
    # the trials it drew (a pooled run of the original may be drawn in part)
    from skcalib.metrics import devpav

    s, y, _ = make_gaussian_scores(300, prior=0.3, random_state=5)
    s = np.round(s, 0) if ties else s
    sw = np.random.default_rng(2).uniform(0.5, 2, 300) if weighted else None
    resampler = Resampler(ScoredTrials(y, s, sample_weight=sw))
    yb = y.astype(bool)
    if weighted:  # units are the caller's rows
        y_units, s_units = y, s
    else:  # unit j: the j-th trial of "targets by score, then non-targets"
        y_units = np.r_[np.ones(yb.sum(), int), np.zeros((~yb).sum(), int)]
        s_units = np.r_[np.sort(s[yb]), np.sort(s[~yb])]
    for seed in range(5):
        idx = np.random.default_rng(seed).integers(0, 300, 300)
        w = resampler.units.multiplicity(idx) * (1.0 if sw is None else sw)
        drawn = w > 0
        expected = devpav(y_units[drawn], s_units[drawn], sample_weight=w[drawn])
        assert resampler(idx).devpav() == pytest.approx(expected, rel=1e-12)
