"""Tests of reliability_curve and ReliabilityDisplay (Clopper-Pearson bins)."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betainc
from scipy.stats import binomtest
from sklearn.calibration import calibration_curve
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

from skcalib.metrics import (
    ReliabilityDisplay,
    ScoredTrials,
    classwise_calibration_error,
    expected_calibration_error,
    reliability_curve,
    top_label_calibration_error,
)
from skcalib.metrics._reliability import _clopper_pearson

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    return y, p


def _multiclass(n=300, k=4, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.full(k, 0.7), size=n)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(q, axis=1)).sum(axis=1)
    return np.minimum(y, k - 1), q


# --- errors -----------------------------------------------------------------

_Y, _P = [0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6]
_Q = [[0.7, 0.3], [0.2, 0.8], [0.5, 0.5], [0.4, 0.6]]


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (([1, 1, 1], [0.2, 0.5, 0.9]), {}, "y_true"),  # one class only
        (([0, 0], [0.2, 0.5]), {}, "y_true"),
        ((_Y, [0.1, np.nan, 0.3, 0.6]), {}, "y_prob"),
        (([], []), {}, "y_prob"),  # empty
        ((_Y, [0.1, 1.2, 0.3, 0.6]), {}, "y_prob"),  # outside [0, 1]
        ((_Y, [-0.1, 0.2, 0.3, 0.6]), {}, "y_prob"),
        ((_Y, [0.1, np.inf, 0.3, 0.6]), {}, "y_prob"),
        ((_Y, _P[:3]), {}, "inconsistent numbers of samples"),
        ((_Y, _P), {"sample_weight": [1, 1, -1, 1]}, "sample_weight"),
        ((_Y, _P), {"sample_weight": [1, np.nan, 1, 1]}, "sample_weight"),
        ((_Y, _P), {"n_bins": 0}, "n_bins"),
        ((_Y, _P), {"strategy": "kmeans"}, "strategy"),
        ((_Y, _P), {"confidence_level": 1.0}, "confidence_level"),
        ((_Y, _P), {"confidence_level": 0}, "confidence_level"),
        ((_Y, _P), {"labels": [0, 1]}, "labels"),
        ((_Y, _Q), {"pos_label": 1}, "pos_label"),
        ((_Y, _Q), {"multi_class": "ovr"}, "multi_class"),
        ((_Y, [[0.7, np.nan]] * 4), {}, "y_prob"),
        ((_Y, [[0.7, 0.6]] * 4), {}, "y_prob"),  # rows not summing to 1
        ((_Y, [[1.5, -0.5]] * 4), {}, "y_prob"),
        (([0, 1, 2, 5], _Q), {}, "y_true"),  # class index out of range
        (([], np.empty((0, 2))), {}, "y_true"),
    ],
)
@pytest.mark.parametrize("entry", ["function", "display"])
def test_bad_input_is_one_line_value_error(args, kwargs, match, entry):
    call = (
        reliability_curve
        if entry == "function"
        else ReliabilityDisplay.from_predictions
    )
    with pytest.raises(ValueError, match=match) as info:
        call(*args, **kwargs)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"p_target": 0.0}, "p_target"),
        ({"p_target": 1.0}, "p_target"),
        ({"n_bins": 0}, "n_bins"),
        ({"confidence_level": 2.0}, "confidence_level"),
    ],
)
def test_from_trials_bad_parameters(kwargs, match):
    trials = ScoredTrials([0, 1, 0, 1], [-1.0, 1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match=match):
        ReliabilityDisplay.from_trials(trials, **kwargs)


def test_from_estimator_needs_a_classifier():
    class NoClasses:
        def predict_proba(self, X):
            return np.full((len(X), 2), 0.5)

    with pytest.raises(ValueError, match="estimator"):
        ReliabilityDisplay.from_estimator(NoClasses(), [[0]] * 4, _Y)


# --- Clopper-Pearson ----------------------------------------------------------


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_intervals_equal_scipy_exact_binomial_interval(level):
    y, p = _binary(n=300, seed=3)
    curve = reliability_curve(y, p, n_bins=12, confidence_level=level)
    k = np.rint(curve.frequency * curve.count).astype(int)
    for kb, nb, lo, hi in zip(k, curve.count, curve.lower, curve.upper, strict=True):
        ci = binomtest(int(kb), int(nb)).proportion_ci(
            confidence_level=level, method="exact"
        )
        # scipy's root finder stops at ~1e-12 relative (beta.ppf is within
        # 2e-15 of a 50-digit mpmath root on these bins)
        assert lo == pytest.approx(ci.low, rel=1e-10, abs=1e-15)
        assert hi == pytest.approx(ci.high, rel=1e-10, abs=1e-15)
        # the defining equations: P(K >= k | lower) = P(K <= k | upper) = a/2
        alpha = 1 - level
        if kb > 0:
            assert betainc(kb, nb - kb + 1, lo) == pytest.approx(alpha / 2, rel=1e-12)
        if kb < nb:
            assert betainc(kb + 1, nb - kb, hi) == pytest.approx(
                1 - alpha / 2, rel=1e-13
            )


def test_interval_ends_for_pure_bins():
    lower, upper = _clopper_pearson(np.array([0.0, 5.0, 0.0]), np.array([5.0] * 3), 0.9)
    assert lower[0] == 0.0 and upper[1] == 1.0
    # k = 0: upper = 1 - (a/2)^(1/n); k = n: lower = (a/2)^(1/n)
    assert upper[0] == pytest.approx(1 - 0.05 ** (1 / 5), rel=1e-12)
    assert lower[1] == pytest.approx(0.05 ** (1 / 5), rel=1e-12)
    y = [0, 0, 0, 1, 1, 1]
    curve = reliability_curve(y, [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], n_bins=2)
    assert curve.frequency.tolist() == [0.0, 1.0]
    assert curve.lower.tolist()[0] == 0.0 and curve.upper.tolist()[1] == 1.0
    assert 0 < curve.upper[0] < 1 and 0 < curve.lower[1] < 1


@settings(derandomize=True, database=None, deadline=None, max_examples=80)
@given(
    n=st.floats(0.05, 1e6),
    share=st.floats(0.0, 1.0),
    levels=st.tuples(st.floats(0.01, 0.999), st.floats(0.01, 0.999)),
)
def test_intervals_hold_the_frequency_and_nest(n, share, levels):
    """For any (effective) count, the interval is in [0, 1], holds k / n, and
    a higher level gives a wider interval around a narrower one."""
    k = np.array([share * n])
    n = np.array([n])
    low_level, high_level = sorted(levels)
    lo1, hi1 = _clopper_pearson(k, n, low_level)
    lo2, hi2 = _clopper_pearson(k, n, high_level)
    f = k[0] / n[0]
    assert 0.0 <= lo2[0] <= lo1[0] <= f + 1e-12
    assert f - 1e-12 <= hi1[0] <= hi2[0] <= 1.0


def _simulated_bins(p, y, w, n_bins, strategy):
    """Bins of every replicate (row) at once: counts, positives, truths."""
    r, n = p.shape
    q = np.linspace(0, 1, n_bins + 1)
    if strategy == "uniform":
        b = np.searchsorted(q[1:-1], p)
    else:  # per-row linear quantile edges, rows shifted apart to search once
        edges = np.quantile(p, q[1:-1], axis=1).T + 2.0 * np.arange(r)[:, None]
        b = np.searchsorted(edges.ravel(), (p + 2.0 * np.arange(r)[:, None]).ravel())
        b = b.reshape(r, n) - (n_bins - 1) * np.arange(r)[:, None]
    ids = (np.arange(r)[:, None] * n_bins + b).ravel()
    w = np.ones_like(p) if w is None else w
    total = np.bincount(ids, weights=w.ravel(), minlength=r * n_bins)
    sq = np.bincount(ids, weights=(w * w).ravel(), minlength=r * n_bins)
    freq = np.bincount(ids, weights=(w * y).ravel(), minlength=r * n_bins) / total
    # the bin's true frequency given its scores: calibrated, so its mean score
    truth = np.bincount(ids, weights=(w * p).ravel(), minlength=r * n_bins) / total
    n_eff = total**2 / sq
    return b, freq, n_eff, truth


@pytest.mark.parametrize(
    "strategy, weighted", [("uniform", False), ("quantile", False), ("uniform", True)]
)
def test_coverage_by_simulation(strategy, weighted):
    """Calibrated scores, 10 bins, n = 1000, 2000 replicates (20,000 bins):
    the 95 % intervals cover the bins' true frequencies at least 93 % of the
    time and at most 97 %. Measured: 0.9640 (uniform bins), 0.9656 (quantile
    bins), 0.9651 (weights uniform on [0.5, 1.5], effective counts):
    Clopper-Pearson is conservative."""
    rng = np.random.default_rng(7)
    r, n, n_bins, level = 2000, 1000, 10, 0.95
    p = rng.uniform(size=(r, n))
    y = rng.uniform(size=(r, n)) < p
    w = rng.uniform(0.5, 1.5, size=(r, n)) if weighted else None
    b, freq, n_eff, truth = _simulated_bins(p, y, w, n_bins, strategy)
    lower, upper = _clopper_pearson(freq * n_eff, n_eff, level)
    # the vectorized simulation is reliability_curve's computation, replicate
    # by replicate (checked on the first three)
    for i in range(3):
        curve = reliability_curve(
            y[i],
            p[i],
            n_bins=n_bins,
            strategy=strategy,
            sample_weight=None if w is None else w[i],
        )
        rows = slice(i * n_bins, (i + 1) * n_bins)
        assert curve.bin.tolist() == list(range(n_bins))
        np.testing.assert_array_equal(curve.count, np.bincount(b[i], minlength=n_bins))
        np.testing.assert_allclose(curve.n_effective, n_eff[rows], rtol=1e-12)
        np.testing.assert_allclose(curve.frequency, freq[rows], rtol=1e-12)
        np.testing.assert_allclose(curve.lower, lower[rows], rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(curve.upper, upper[rows], rtol=1e-9)
    coverage = float(np.mean((lower <= truth) & (truth <= upper)))
    assert level - 0.02 <= coverage <= level + 0.02, coverage


# --- the bins -----------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 5, 10])
def test_bins_equal_calibration_curve(strategy, n_bins):
    y, p = _binary(n=500, seed=1)
    curve = reliability_curve(y, p, n_bins=n_bins, strategy=strategy)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    np.testing.assert_allclose(curve.frequency, prob_true, rtol=1e-12)
    np.testing.assert_allclose(curve.mean_predicted, prob_pred, rtol=1e-12)
    assert curve.count.sum() == 500
    assert (curve.curve == 0).all()
    assert np.all(curve.lower <= curve.frequency)
    assert np.all(curve.frequency <= curve.upper)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_bins_give_the_package_eces(strategy):
    y, p = _binary(seed=2)
    c = reliability_curve(y, p, n_bins=7, strategy=strategy)
    ece = np.sum(c.count / c.count.sum() * np.abs(c.frequency - c.mean_predicted))
    assert ece == pytest.approx(
        expected_calibration_error(y, p, n_bins=7, strategy=strategy), rel=1e-12
    )
    t, q = _multiclass(seed=2)
    c = reliability_curve(t, q, n_bins=7, strategy=strategy)
    ece = np.sum(c.count / c.count.sum() * np.abs(c.frequency - c.mean_predicted))
    assert ece == pytest.approx(
        top_label_calibration_error(t, q, n_bins=7, strategy=strategy), rel=1e-12
    )
    c = reliability_curve(t, q, n_bins=7, strategy=strategy, multi_class="classwise")
    assert sorted(set(c.curve.tolist())) == [0, 1, 2, 3]
    per_class = [
        np.sum(
            c.count[c.curve == k]
            / t.shape[0]
            * np.abs(c.frequency - c.mean_predicted)[c.curve == k]
        )
        for k in range(4)
    ]
    assert np.mean(per_class) == pytest.approx(
        classwise_calibration_error(t, q, n_bins=7, strategy=strategy), rel=1e-12
    )


def test_multiclass_curves_are_binary_curves():
    t, q = _multiclass(seed=4)
    top = np.argmax(q, axis=1)
    conf = q[np.arange(q.shape[0]), top]
    a = reliability_curve(t, q, n_bins=6)
    b = reliability_curve((top == t).astype(int), conf, n_bins=6)
    for field in ("bin", "count", "mean_predicted", "frequency", "lower", "upper"):
        np.testing.assert_array_equal(a[field], b[field])
    cw = reliability_curve(t, q, n_bins=6, multi_class="classwise")
    for k in range(4):
        b = reliability_curve((t == k).astype(int), q[:, k], n_bins=6)
        rows = cw.curve == k
        for field in ("bin", "count", "frequency", "lower", "upper"):
            np.testing.assert_array_equal(cw[field][rows], b[field])
    labelled = reliability_curve(
        np.array(list("abcd"))[t], q, labels=list("abcd"), multi_class="classwise"
    )
    np.testing.assert_array_equal(
        labelled.frequency, reliability_curve(t, q, multi_class="classwise").frequency
    )


@pytest.mark.parametrize("n_bins", [2, 3, 10, 16, 17, 40])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_values_on_the_edges_fall_in_the_lower_bin(n_bins, strategy):
    """Up to 16 bins a sample's bin is counted edge by edge, beyond by binary
    search: both give the ECE's bins (calibration_curve's rule: a value on an
    interior edge is in the lower bin), also for values on an edge."""
    rng = np.random.default_rng(n_bins)
    p = np.r_[np.linspace(0, 1, n_bins + 1), rng.uniform(size=200)]
    p = np.r_[p, np.round(rng.uniform(size=100), 1)]  # ties on the tenths
    y = (rng.uniform(size=p.shape[0]) < p).astype(int)
    curve = reliability_curve(y, p, n_bins=n_bins, strategy=strategy)
    q = np.linspace(0, 1, n_bins + 1)
    edges = q if strategy == "uniform" else np.quantile(p, q)
    bins, counts = np.unique(np.searchsorted(edges[1:-1], p), return_counts=True)
    np.testing.assert_array_equal(curve.bin, bins)
    np.testing.assert_array_equal(curve.count, counts)
    if strategy == "uniform":
        # (calibration_curve's quantile edges, np.percentile(p, 100 q), can
        # be an ulp below np.quantile(p, q) and move a value on an edge up)
        prob_true, _ = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
        np.testing.assert_allclose(curve.frequency, prob_true, rtol=1e-12)


def test_more_bins_than_samples():
    """Past 2 n + 1024 bins, the bins are found by bisection; same bins."""
    y, p = _binary(n=100, seed=5)
    n_bins = 3000
    curve = reliability_curve(y, p, n_bins=n_bins)
    expected = np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], p)
    bins, counts = np.unique(expected, return_counts=True)
    np.testing.assert_array_equal(curve.bin, bins)
    np.testing.assert_array_equal(curve.count, counts)
    huge = reliability_curve(y, p, n_bins=10**9, strategy="quantile")
    assert huge.count.sum() == 100 and np.all(huge.count == 1)
    np.testing.assert_array_equal(huge.mean_predicted, np.sort(p))


# --- weights ------------------------------------------------------------------


def test_equal_weights_change_nothing():
    y, p = _binary(seed=6)
    plain = reliability_curve(y, p, n_bins=8)
    for c in (1.0, 3.0, 1e-300, 1e300):
        weighted = reliability_curve(y, p, n_bins=8, sample_weight=np.full(400, c))
        np.testing.assert_array_equal(weighted.count, plain.count)
        np.testing.assert_allclose(weighted.n_effective, plain.count, rtol=1e-12)
        for field in ("mean_predicted", "frequency", "lower", "upper"):
            np.testing.assert_allclose(weighted[field], plain[field], rtol=1e-9)


def test_weights_effective_counts_and_zero_weights():
    y, p = _binary(seed=7)
    w = np.random.default_rng(7).uniform(0, 2, size=400)
    w[:50] = 0.0
    c = reliability_curve(y, p, n_bins=5, sample_weight=w)
    dropped = reliability_curve(y[50:], p[50:], n_bins=5, sample_weight=w[50:])
    for field in c:
        np.testing.assert_allclose(c[field], dropped[field], rtol=1e-12)
    b = np.searchsorted(np.linspace(0, 1, 6)[1:-1], p)
    for j, row in enumerate(c.bin):
        m = b == row
        assert c.count[j] == np.count_nonzero(m & (w > 0))
        assert c.n_effective[j] == pytest.approx(
            w[m].sum() ** 2 / (w[m] ** 2).sum(), rel=1e-12
        )
        f = np.sum(w[m] * y[m]) / w[m].sum()
        assert c.frequency[j] == pytest.approx(f, rel=1e-12)
        k, n = f * c.n_effective[j], c.n_effective[j]
        lo, hi = _clopper_pearson(np.array([k]), np.array([n]), 0.95)
        assert c.lower[j] == pytest.approx(lo[0], rel=1e-12)
        assert c.upper[j] == pytest.approx(hi[0], rel=1e-12)


def test_weighted_quantile_bins():
    """Weighted quantile bins hold about equal weight, not equal counts."""
    y, p = _binary(n=2000, seed=8)
    w = np.where(p < 0.5, 3.0, 1.0)
    c = reliability_curve(y, p, n_bins=4, strategy="quantile", sample_weight=w)
    share = [w[(p > lo) & (p <= hi)].sum() / w.sum() for lo, hi in _edges(p, w, 4)]
    np.testing.assert_allclose(share, 0.25, atol=0.01)
    assert c.count.sum() == 2000


def _edges(p, w, n_bins):
    """Consecutive weighted inverted-CDF quantile edges (brute force)."""
    order = np.argsort(p)
    cum = np.cumsum(w[order]) / w.sum()
    edges = [-np.inf]
    for m in range(1, n_bins):
        edges.append(p[order][np.searchsorted(cum, m / n_bins)])
    edges.append(np.inf)
    return list(zip(edges[:-1], edges[1:], strict=True))


# --- inputs untouched, no matplotlib needed -----------------------------------


def test_no_input_array_is_modified():
    y, p = _binary(seed=9)
    w = np.random.default_rng(9).uniform(0.5, 2, size=400)
    t, q = _multiclass(seed=9)
    llr = np.log(p) - np.log1p(-p)
    llr[:3] = [np.inf, -np.inf, 1e300]
    arrays = [y, p, w, t, q, llr]
    before = [a.copy() for a in arrays]
    reliability_curve(y, p, sample_weight=w, strategy="quantile")
    reliability_curve(t, q, multi_class="classwise", sample_weight=w[:300])
    ReliabilityDisplay.from_predictions(y, p, sample_weight=w)
    ReliabilityDisplay.from_predictions(t, q, multi_class="classwise")
    ReliabilityDisplay.from_trials(ScoredTrials(y, llr, sample_weight=w))
    for a, b in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(a, b)
    for a in arrays:
        assert a.flags.writeable


def test_reliability_curve_without_matplotlib():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from skcalib.metrics import reliability_curve\n"
        "c = reliability_curve([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.4], n_bins=2)\n"
        "assert c.count.tolist() == [2, 2]\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


# --- the display --------------------------------------------------------------


def test_display_from_predictions_draws_the_curve():
    y, p = _binary(seed=10)
    disp = ReliabilityDisplay.from_predictions(y, p, n_bins=5, name="model")
    curve = reliability_curve(y, p, n_bins=5)
    for field in ("curve", "count", "mean_predicted", "frequency", "lower", "upper"):
        np.testing.assert_array_equal(getattr(disp, field), curve[field])
    x, f = disp.line_.get_data()
    np.testing.assert_array_equal(x, curve.mean_predicted)
    np.testing.assert_array_equal(f, curve.frequency)
    assert len(disp.lines_) == 1 and len(disp.hist_) == 1
    assert disp.hist_ax_ is not None and disp.hist_ax_.figure is disp.figure_
    np.testing.assert_allclose(disp.hist_share.sum(), 1.0)
    np.testing.assert_array_equal(
        disp.hist_share[0] * 400, np.histogram(p, bins=disp.hist_edges)[0]
    )
    labels = disp.ax_.get_legend_handles_labels()[1]
    assert labels == ["perfectly calibrated", "model"]
    assert "95% Clopper-Pearson" in disp.ax_.get_title()
    assert "positive class" in disp.hist_ax_.get_xlabel()
    assert disp.ax_.get_ylabel().startswith("Observed frequency")


def test_display_level_and_unshared_histogram_axes():
    y, p = _binary(seed=15)
    fig, (ax, hist_ax) = plt.subplots(1, 2)
    disp = ReliabilityDisplay.from_predictions(
        y, p, confidence_level=0.999, ax=ax, hist_ax=hist_ax
    )
    assert "99.9% Clopper-Pearson" in ax.get_title()
    # side by side, not below: both axes keep their x labels
    assert ax.get_xlabel() == hist_ax.get_xlabel() != ""
    assert len(disp.hist_) == 1


def test_display_several_systems_share_axes():
    y, p = _binary(seed=11)
    first = ReliabilityDisplay.from_predictions(y, p, name="A")
    second = ReliabilityDisplay.from_predictions(
        y, p**2, name="B", ax=first.ax_, hist_ax=first.hist_ax_
    )
    labels = second.ax_.get_legend_handles_labels()[1]
    assert labels == ["perfectly calibrated", "A", "B"]  # one reference line
    assert second.figure_ is first.figure_
    assert first.line_.get_color() != second.line_.get_color()


def test_display_on_given_axes_without_histogram():
    y, p = _binary(seed=12)
    fig, ax = plt.subplots()
    disp = ReliabilityDisplay.from_predictions(y, p, ax=ax, ref_line=False, color="k")
    assert disp.ax_ is ax and disp.hist_ax_ is None and disp.hist_ == []
    assert ax.get_legend_handles_labels()[1] == ["observed frequency"]
    assert ax.get_xlabel().startswith("Predicted probability")
    assert disp.line_.get_color() == "k"


def test_display_multiclass():
    t, q = _multiclass(seed=13)
    top = ReliabilityDisplay.from_predictions(t, q, name="clf")
    assert top.kind == "top-label" and len(top.lines_) == 1
    assert top.ax_.get_ylabel().startswith("Accuracy")
    cw = ReliabilityDisplay.from_predictions(
        np.array(list("abcd"))[t],
        q,
        multi_class="classwise",
        labels=["a", "b", "c", "d"],
        name="clf",
    )
    assert cw.kind == "classwise" and len(cw.lines_) == 4 and len(cw.hist_) == 4
    labels = cw.ax_.get_legend_handles_labels()[1]
    assert labels[1:] == [f"clf: class {c}" for c in "abcd"]
    assert cw.hist_share.shape == (4, 10)


def test_from_estimator_binary_and_multiclass():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = LogisticRegression(max_iter=1000).fit(X, names)
    disp = ReliabilityDisplay.from_estimator(clf, X, names, multi_class="classwise")
    expected = reliability_curve(
        names, clf.predict_proba(X), labels=clf.classes_, multi_class="classwise"
    )
    np.testing.assert_array_equal(disp.frequency, expected.frequency)
    assert disp.name == "LogisticRegression"
    assert disp.curve_names == ["setosa", "versicolor", "virginica"]
    binary = names[y > 0]
    clf2 = LogisticRegression(max_iter=1000).fit(X[y > 0], binary)
    disp = ReliabilityDisplay.from_estimator(clf2, X[y > 0], binary, name="lr")
    p = clf2.predict_proba(X[y > 0])[:, 1]
    np.testing.assert_array_equal(
        disp.frequency, reliability_curve(binary, p, pos_label="virginica").frequency
    )
    assert "class 'virginica'" in disp.hist_ax_.get_xlabel()
    flipped = ReliabilityDisplay.from_estimator(
        clf2, X[y > 0], binary, pos_label="versicolor"
    )
    np.testing.assert_allclose(
        flipped.frequency[::-1], 1 - disp.frequency, rtol=1e-12, atol=1e-15
    )


def test_from_trials_reads_llrs_at_a_prior():
    rng = np.random.default_rng(14)
    llr = np.r_[rng.normal(2, 2, 300), rng.normal(-2, 2, 700), np.inf, -np.inf]
    y = np.r_[np.ones(300), np.zeros(700), 1, 0]
    trials = ScoredTrials(y, llr)
    disp = ReliabilityDisplay.from_trials(trials, name="system")
    # default prior: the target proportion; p = sigmoid(llr + logit(prior))
    prior = 301 / 1002
    p = 1 / (1 + np.exp(-(llr + np.log(prior / (1 - prior)))))
    expected = reliability_curve(y, p)
    np.testing.assert_allclose(disp.mean_predicted, expected.mean_predicted, rtol=1e-12)
    np.testing.assert_array_equal(disp.count, expected.count)
    assert disp.p_target == pytest.approx(prior)
    assert "prior 0.3" in disp.hist_ax_.get_xlabel()
    even = ReliabilityDisplay.from_trials(trials, p_target=0.5, n_bins=4)
    p = 1 / (1 + np.exp(-llr))
    np.testing.assert_array_equal(even.count, reliability_curve(y, p, n_bins=4).count)


def test_from_trials_extreme_llrs_without_warnings():
    llr = np.array([-1e300, -1000.0, -np.inf, 1000.0, 1e300, np.inf, 0.0, 0.0])
    y = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    w = np.array([1, 1, 1, 1, 1, 1, 1e-300, 1e-300])
    disp = ReliabilityDisplay.from_trials(
        ScoredTrials(y, llr, sample_weight=w), strategy="quantile", n_bins=3
    )
    assert disp.count.sum() == 8
    assert np.all(np.isfinite(disp.lower)) and np.all(np.isfinite(disp.upper))
    assert disp.frequency.tolist()[0] == 0.0 and disp.frequency.tolist()[-1] == 1.0


def test_all_tied_probabilities():
    y = np.array([0, 1, 1, 0, 1])
    curve = reliability_curve(y, np.full(5, 0.6), n_bins=10, strategy="quantile")
    assert curve.count.tolist() == [5] and curve.frequency.tolist() == [0.6]
    ci = binomtest(3, 5).proportion_ci(method="exact")
    assert curve.lower[0] == pytest.approx(ci.low, rel=1e-12)
    assert curve.upper[0] == pytest.approx(ci.high, rel=1e-12)


@pytest.mark.parametrize(
    "kind", ["spread", "tiny", "subnormal-scaled", "per-bin", "huge", "zeros"]
)
def test_effective_counts_of_extreme_weights(kind):
    # Kish's count by its definition, in exact rational arithmetic, on
    # weights that take each of its scaling paths; inputs not modified
    from fractions import Fraction

    y, p = _binary(seed=8)
    rng = np.random.default_rng(8)
    w = {
        "spread": rng.uniform(0.1, 2.0, p.size),
        "tiny": rng.uniform(0.1, 2.0, p.size) * 1e-300,
        # scaled by the largest, the smallest weights are not normal numbers
        "subnormal-scaled": np.where(rng.random(p.size) < 0.5, 1e-305, 1.0),
        "per-bin": 10.0 ** rng.uniform(-200, 200, p.size),
        "huge": rng.uniform(0.1, 2.0, p.size) * 1e300,
        "zeros": np.where(rng.random(p.size) < 0.3, 0.0, rng.uniform(0.5, 1.5, p.size)),
    }[kind]
    kept = w.copy()
    c = reliability_curve(y, p, n_bins=5, sample_weight=w)
    np.testing.assert_array_equal(w, kept)
    b = np.searchsorted(np.linspace(0, 1, 6)[1:-1], p)
    for j, row in enumerate(c.bin):
        ws = [Fraction(v) for v in w[b == row]]
        exact = sum(ws) ** 2 / sum(v * v for v in ws)
        assert c.n_effective[j] == pytest.approx(float(exact), rel=1e-12)
